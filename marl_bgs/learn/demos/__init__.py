"""Demonstrations: what a teacher team saw and chose, tick by tick, for a student to imitate.

Why: a learner that starts from a strong team's choices (behaviour cloning, then PPO that
keeps learning from the teacher) needs far fewer games than one that starts from nothing,
and our scripted teams see only what a team may see (`systems/percept.py`), so a student
can imitate them without an information gap.

`record_demos` plays `num_envs` games at once inside one compiled `lax.scan` (the teacher
as Team A, the opponents as Team B, env `i` always against opponent `i % len(opponents)`),
and writes what Team A saw and did in shards of whole chunks of ticks, `(ticks, games, ...)`
per array, so that each game's ticks stay in order for recurrent students. `demos_from_replays`
replays recorded games (the BattleClient's human games, LLM games) on the NumPy engine and
writes the same arrays for the side that was recorded. `read_demos` checks a folder and
every shard it lists (a hostile or damaged file is refused naming the field, before any
large array is read); `Demos.returns(gamma)` gives each agent's return to its game's end.

Folder layout: `demos.json` (format `marl-bgs/demos`, version 1: the settings, provenance
and the shard list with each file's size and SHA-256) and `shard-00000.npz`, ... . A shard
holds, for T ticks of N games (agents in slot order):

    obs      float32 (T, N, 5, 784)  each agent's own observation
    avail    uint8   (T, N, 5, 25)   the exact legal actions, 198 bits packed (np.packbits)
    present  bool    (T, N, 5)       the slot is used by the roster
    alive    bool    (T, N, 5)
    classes  int8    (T, N, 5)
    new_game bool    (T, N)          the first decision of a game (recurrent memory reset)
    action   int16   (T, N, 5)       the teacher's flat action (0..197, own frame)
    reward   float32 (T, N, 5)       the training reward of the tick (`rewards`, per agent)
    done     bool    (T, N)          the game ended with this tick
    world    float32 (T, N, 784)     Team A's world state (a centralised critic's input)
"""

from .format import DEMOS_FORMAT, DEMOS_VERSION, FIELDS, MANIFEST, DemoSettings, settings_from
from .read import Demos, discounted_returns, learner_batch, read_demos
from .record import record_demos
from .replays import demos_from_replays

__all__ = [
    "DEMOS_FORMAT", "DEMOS_VERSION", "FIELDS", "MANIFEST", "DemoSettings", "Demos",
    "demos_from_replays", "discounted_returns", "learner_batch", "read_demos", "record_demos",
    "settings_from",
]  # fmt: skip
