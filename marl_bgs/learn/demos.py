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

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.actions import NUM_JOINT
from ..core.checks import strict_json, whole
from ..core.observation import OBS_WIDTH
from ..core.position import OFFICIAL_ROSTER
from ..core.state import TEAM_SIZE
from ..maps import HELD_OUT_MAPS, NUM_MAPS, SPLITS

DEMOS_FORMAT = "marl-bgs/demos"
DEMOS_VERSION = 1
MANIFEST = "demos.json"
PACKED = (NUM_JOINT + 7) // 8  # bytes of one agent's packed legal actions
CLASS_NAMES = ("mage", "warrior", "hunter", "rogue", "priest")

# Each shard array: dtype and the shape after (ticks, games).
FIELDS: dict[str, tuple[np.dtype, tuple[int, ...]]] = {
    "obs": (np.dtype(np.float32), (TEAM_SIZE, OBS_WIDTH)),
    "avail": (np.dtype(np.uint8), (TEAM_SIZE, PACKED)),
    "present": (np.dtype(np.bool_), (TEAM_SIZE,)),
    "alive": (np.dtype(np.bool_), (TEAM_SIZE,)),
    "classes": (np.dtype(np.int8), (TEAM_SIZE,)),
    "new_game": (np.dtype(np.bool_), ()),
    "action": (np.dtype(np.int16), (TEAM_SIZE,)),
    "reward": (np.dtype(np.float32), (TEAM_SIZE,)),
    "done": (np.dtype(np.bool_), ()),
    "world": (np.dtype(np.float32), (OBS_WIDTH,)),
}


@dataclass(frozen=True)
class DemoSettings:
    """What to record: who plays, where, how much, and how it is cut into shards.

    `teacher` and each of `opponents` is a registered System name (`tdm-alpha`, ...), a
    training run folder or a policy `.npz`. `maps` never holds a held-out map (validation
    42-46 and test 47-51): demonstrations are training data.
    """

    teacher: str = "tdm-alpha"
    opponents: tuple[str, ...] = ("tdm-alpha", "tdm-beta", "tdm-gamma")
    maps: tuple[int, ...] = SPLITS["curriculum"] + SPLITS["training"]
    roster: tuple[str, ...] = OFFICIAL_ROSTER  # both teams
    winning_score: int = 20
    horizon: int = 300
    num_envs: int = 256
    chunk_ticks: int = 32  # ticks per compiled scan (one host transfer)
    steps: int = 2_000_000  # game steps (one tick of one game) to record, rounded up to chunks
    shard_steps: int = 65_536  # game steps per shard, rounded up to whole chunks
    seed: int = 0

    def __post_init__(self) -> None:
        check_settings(self)

    @property
    def chunks(self) -> int:
        per_chunk = self.num_envs * self.chunk_ticks
        return -(-self.steps // per_chunk)

    @property
    def chunks_per_shard(self) -> int:
        return max(1, -(-self.shard_steps // (self.num_envs * self.chunk_ticks)))

    def to_dict(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def check_settings(s: DemoSettings) -> None:
    """Refuse settings that cannot be recorded, naming the field."""
    if not isinstance(s.teacher, str) or not s.teacher:
        raise ValueError("teacher: expected a System name, run folder or .npz path")
    if not isinstance(s.opponents, tuple) or not s.opponents:
        raise ValueError("opponents: expected one or more System names, run folders or .npz")
    for i, o in enumerate(s.opponents):
        if not isinstance(o, str) or not o:
            raise ValueError(f"opponents[{i}]: expected a System name, run folder or .npz path")
    if not isinstance(s.maps, tuple) or not s.maps:
        raise ValueError("maps: expected one or more map ids")
    for i, m in enumerate(s.maps):
        whole(m, f"maps[{i}]", 0, NUM_MAPS - 1)
        if m in HELD_OUT_MAPS:
            raise ValueError(
                f"maps[{i}]: map {m} is held out (validation 42-46, test 47-51); "
                "demonstrations are training data"
            )
    if not isinstance(s.roster, tuple) or not 1 <= len(s.roster) <= TEAM_SIZE:
        raise ValueError(f"roster: expected 1 to {TEAM_SIZE} class names")
    for i, c in enumerate(s.roster):
        if c not in CLASS_NAMES:
            raise ValueError(f"roster[{i}]: unknown class {c!r}; known: {', '.join(CLASS_NAMES)}")
    whole(s.winning_score, "winning_score", 1, 1000)
    whole(s.horizon, "horizon", 1, 100_000)
    whole(s.num_envs, "num_envs", 1, 1 << 20)
    whole(s.chunk_ticks, "chunk_ticks", 1, 100_000)
    whole(s.steps, "steps", 1, 1 << 40)
    whole(s.shard_steps, "shard_steps", 1, 1 << 40)
    whole(s.seed, "seed", 0, 2**63 - 1)


def settings_from(data: dict, where: str = "settings") -> DemoSettings:
    """`DemoSettings` from a manifest's JSON object (lists back to tuples), checked."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object")
    names = {f.name for f in dataclasses.fields(DemoSettings)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown setting")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    try:
        return DemoSettings(**values)
    except ValueError as err:
        raise ValueError(f"{where}.{err}") from None
    except TypeError as err:
        raise ValueError(f"{where}: {err}") from None


# ---- recording --------------------------------------------------------------------------
class _Recorder:
    """One compiled chunk of `chunk_ticks` ticks: the teacher and the opponents act, the
    games tick and restart, and Team A's inputs and choices come back as arrays."""

    def __init__(self, settings: DemoSettings, teacher: Any, opponents: Sequence[Any]) -> None:
        import jax

        from ..registration import make
        from .config import PPOConfig
        from .rewards import make_reward_fn

        s = settings
        self.settings, self.teacher, self.opponents = s, teacher, tuple(opponents)
        roster = tuple(s.roster)
        self.env = make(
            "tdm",
            num_envs=s.num_envs,
            map_id=list(s.maps),
            rosters=[(roster, roster)],
            winning_score=s.winning_score,
            horizon=s.horizon,
        )
        # The reward every learner trains on by default (amounts recorded in the manifest).
        self.reward_config = PPOConfig()
        self.reward_fn = make_reward_fn(self.reward_config)
        self.pick = jax.numpy.arange(s.num_envs) % len(self.opponents)
        self.chunk = jax.jit(self._chunk)

    def init(self, key: Any) -> tuple:
        import jax

        k_env, k_a, k_b = jax.random.split(key, 3)
        _, state = self.env.reset(k_env)
        return state, self._fresh(self.teacher, k_a), self._opponents_fresh(k_b)

    def _fresh(self, system: Any, key: Any) -> Any:
        import jax

        return jax.vmap(system.init)(jax.random.split(key, self.settings.num_envs))

    def _opponents_fresh(self, key: Any) -> tuple:
        import jax

        keys = jax.random.split(key, len(self.opponents))
        return tuple(self._fresh(o, k) for o, k in zip(self.opponents, keys, strict=True))

    @staticmethod
    def _keep(new_game: Any, fresh: Any, old: Any) -> Any:
        import jax
        import jax.numpy as jnp

        def one(a, b):
            return jnp.where(new_game.reshape(new_game.shape + (1,) * (a.ndim - 1)), a, b)

        return jax.tree.map(one, fresh, old)

    def _tick(self, carry: tuple, key: Any) -> tuple:
        import jax
        import jax.numpy as jnp

        from ..systems.base import check_jax_actions

        state, mem_a, mem_b = carry
        n = self.settings.num_envs
        k_fa, k_fb, k_a, k_b, k_reset = jax.random.split(key, 5)
        mem_a = self._keep(state.new_game, self._fresh(self.teacher, k_fa), mem_a)
        mem_b = self._keep(state.new_game, self._opponents_fresh(k_fb), mem_b)
        inputs_a, inputs_b = self.env.teams_inputs(state)
        acts_a, mem_a = jax.vmap(self.teacher.act)(jax.random.split(k_a, n), inputs_a, mem_a)
        acts_a = check_jax_actions(acts_a, n, self.teacher, "teacher")
        acts_b, new_b = jnp.zeros((n, TEAM_SIZE), jnp.int32), []
        for i, (system, k) in enumerate(
            zip(self.opponents, jax.random.split(k_b, len(self.opponents)), strict=True)
        ):
            acts, mem = jax.vmap(system.act)(jax.random.split(k, n), inputs_b, mem_b[i])
            acts = check_jax_actions(acts, n, system, f"opponents[{i}]")
            acts_b = jnp.where((self.pick == i)[:, None], acts, acts_b)
            new_b.append(mem)
        actions = jnp.concatenate([acts_a, acts_b], axis=1).astype(jnp.int32)
        _, after, _, done, info = self.env.step_env(None, state, actions)
        reward = self.reward_fn(state, after, info)[:, :TEAM_SIZE].astype(jnp.float32)
        _, restarted = self.env.reset_done(k_reset, after)
        in_range = (acts_a >= 0) & (acts_a < NUM_JOINT)
        chosen = jnp.take_along_axis(
            inputs_a.avail, jnp.clip(acts_a, 0, NUM_JOINT - 1)[..., None], -1
        )[..., 0]
        record = {
            "obs": inputs_a.obs,
            "avail": inputs_a.avail,
            "present": inputs_a.present,
            "alive": inputs_a.alive,
            "classes": inputs_a.classes,
            "new_game": state.new_game,
            "action": acts_a,
            "reward": reward,
            "done": done["__all__"],
            "world": self.env.world_state(state)[:, 0],
            # Checks, not stored: out-of-range or illegal choices of the teacher (living
            # agents of open games), out-of-range ones of the opponents.
            "teacher_illegal": jnp.sum(inputs_a.alive & ~(in_range & chosen)),
            "invalid_action": jnp.sum(info["invalid_action"]),
            "result": jnp.where(done["__all__"], after.game.result, -1),
            "margin": after.game.score[:, 0] - after.game.score[:, 1],
        }
        return (restarted, mem_a, tuple(new_b)), record

    def _chunk(self, carry: tuple, key: Any) -> tuple:
        import jax

        keys = jax.random.split(key, self.settings.chunk_ticks)
        return jax.lax.scan(self._tick, carry, keys)


def _pack(record: dict) -> dict[str, np.ndarray]:
    """A chunk's arrays as a shard stores them."""
    out = {}
    for name, (dtype, _) in FIELDS.items():
        arr = np.asarray(record[name])
        if name == "avail":
            arr = np.packbits(arr.astype(bool), axis=-1)
        out[name] = arr.astype(dtype)
    return out


def record_demos(
    settings: DemoSettings,
    out: str | Path,
    force: bool = False,
    progress: bool = True,
    teacher: Any = None,
    opponents: Sequence[Any] | None = None,
) -> Path:
    """Record `settings.steps` game steps of the teacher's play into the folder `out`.

    Args:
        settings: What to record.
        out: A new folder (or one holding demonstrations, with `force`).
        force: Replace the demonstrations `out` already holds.
        progress: Show a progress bar.
        teacher: A System object to play instead of resolving `settings.teacher` (its name
            is recorded); for mixes built in Python (`systems.team(...)`).
        opponents: System objects instead of `settings.opponents`, likewise.

    Returns:
        The folder.

    Raises:
        ValueError: Bad settings, a System that cannot be resolved or returns out-of-range
            actions, or a folder that already holds demonstrations (without `force`).
    """
    import jax
    from tqdm.auto import tqdm

    from ..version import __version__
    from .opponents import policy_system

    s = settings
    folder = _new_folder(out, force)
    teacher = teacher or policy_system(s.teacher, "teacher")
    if opponents is None:
        opponents = [policy_system(o, f"opponents[{i}]") for i, o in enumerate(s.opponents)]
    if len(opponents) != len(s.opponents):
        raise ValueError(f"opponents: {len(opponents)} Systems for {len(s.opponents)} names")
    for name, system in [("teacher", teacher)] + [
        (f"opponents[{i}]", o) for i, o in enumerate(opponents)
    ]:
        if system.on_host:
            raise ValueError(f"{name}: {system.name!r} runs on the host; record it from replays")
    rec = _Recorder(s, teacher, opponents)
    key = jax.random.PRNGKey(s.seed)
    key, k_init = jax.random.split(key)
    carry = rec.init(k_init)
    manifest = _new_manifest("play", s.to_dict(), s.num_envs, {
            "teacher": teacher.name,
            "opponents": [o.name for o in opponents],
            "opponent_of_env": "env i plays opponents[i % len(opponents)]",
            "reward": {
                k: _plain(v) for k, v in rec.reward_config.to_dict().items() if k in _REWARD_FIELDS
            },  # fmt: skip
            "package_version": __version__,
            "jax_version": jax.__version__,
            "backend": jax.default_backend(),
        })  # fmt: skip
    started = time.perf_counter()
    bar = tqdm(total=s.chunks * s.num_envs * s.chunk_ticks, disable=not progress,
               unit="step", desc=f"demos {teacher.name}")  # fmt: skip
    pending: list[dict] = []
    for c in range(s.chunks):
        key, k = jax.random.split(key)
        carry, record = rec.chunk(carry, k)
        record = jax.device_get(record)
        if int(record["invalid_action"].sum()):
            raise ValueError(
                f"opponents: {int(record['invalid_action'].sum())} out-of-range actions in chunk "
                f"{c}; a System must return flat actions 0..{NUM_JOINT - 1}"
            )
        manifest["teacher_illegal_choices"] += int(record["teacher_illegal"].sum())
        result = record["result"]
        manifest["games_finished"] += int((result >= 0).sum())
        manifest["results"]["teacher_won"] += int((result == 0).sum())
        manifest["results"]["teacher_lost"] += int((result == 1).sum())
        manifest["results"]["draws"] += int((result == 2).sum())
        pending.append(_pack(record))
        bar.update(s.num_envs * s.chunk_ticks)
        if len(pending) == s.chunks_per_shard or c == s.chunks - 1:
            _write_shard(folder, manifest, pending)
            manifest["seconds"] = round(time.perf_counter() - started, 2)
            _write_manifest(folder, manifest)
            pending = []
    bar.close()
    return folder


_REWARD_FIELDS = ("reward_form", "win_reward", "kill_credit", "red_zone_kill", "damage",
                  "useful_healing", "teammate_death", "red_zone_death", "healing_range",
                  "own_red_zone")  # fmt: skip


def _new_folder(out: str | Path, force: bool) -> Path:
    """The output folder, checked and created; with `force`, emptied of old demonstrations."""
    from ..outputs import check_new_files

    folder = check_new_files(out, [MANIFEST], force, "out")
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("shard-*.npz"):
        if not force:
            raise ValueError(f"out: {folder} already holds {old.name}; pass force (--force)")
        old.unlink()
    return folder


def _new_manifest(source: str, settings: dict | None, envs: int, provenance: dict) -> dict:
    """A manifest with no shard yet: what `_write_shard` and the recorders fill in."""
    return {
        "format": DEMOS_FORMAT,
        "version": DEMOS_VERSION,
        "source": source,
        "settings": settings,
        "provenance": provenance,
        "envs": envs,
        "shards": [],
        "steps": 0,
        "games_finished": 0,
        "results": {"teacher_won": 0, "teacher_lost": 0, "draws": 0},
        "teacher_illegal_choices": 0,
        "seconds": 0.0,
    }


def _write_shard(folder: Path, manifest: dict, chunks: list[dict]) -> None:
    from ..outputs import write_atomic

    arrays = {name: np.concatenate([c[name] for c in chunks]) for name in FIELDS}
    name = f"shard-{len(manifest['shards']):05d}.npz"
    path = write_atomic(folder / name, lambda tmp: _savez(tmp, arrays))
    ticks = int(arrays["done"].shape[0])
    manifest["shards"].append(
        {"file": name, "ticks": ticks, "bytes": path.stat().st_size, "sha256": _sha256(path)}
    )
    manifest["steps"] += ticks * int(arrays["done"].shape[1])


def _savez(path: Path, arrays: dict) -> None:
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)


def _write_manifest(folder: Path, manifest: dict) -> None:
    from ..outputs import write_atomic

    text = json.dumps(manifest, indent=1) + "\n"
    write_atomic(folder / MANIFEST, lambda tmp: tmp.write_text(text))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---- from replays -------------------------------------------------------------------------
def demos_from_replays(
    paths: Sequence[str | Path], side: str, out: str | Path, force: bool = False
) -> Path:
    """Demonstrations of one side of recorded games: each replay is played again on the NumPy
    engine with its recorded actions, and the side's observations, masks and choices are
    taken at every tick (the file's own copies are not trusted: the engine makes them).

    The games follow each other in one sequence (one "game" column, `new_game` where each
    starts), one shard per replay.

    Args:
        paths: Replay files (`.json` or `.json.gz`), as `marl_bgs.replay.read_replay` reads.
        side: "a" or "b": the side whose choices are the demonstrations.
        out: A new folder (or one holding demonstrations, with `force`).
        force: Replace the demonstrations `out` already holds.

    Returns:
        The folder.

    Raises:
        ValueError: A bad side, a replay that cannot be read or does not repeat on the
            engine (naming the file and tick), or a folder already holding demonstrations.
    """
    from ..version import __version__

    if side not in ("a", "b"):
        raise ValueError(f"side: expected 'a' or 'b', got {side!r}")
    if not paths:
        raise ValueError("replays: give one or more replay files")
    folder = _new_folder(out, force)
    manifest = _new_manifest("replays", None, 1, {
            "replays": [Path(p).name for p in paths],
            "side": side,
            "reward": None,
            "package_version": __version__,
        })  # fmt: skip
    started = time.perf_counter()
    for path in paths:
        arrays, result = _replay_arrays(Path(path), side)
        manifest["games_finished"] += 1
        outcome = (
            "draws" if result == "draw" else "teacher_won" if result == side else "teacher_lost"
        )
        manifest["results"][outcome] += 1
        _write_shard(folder, manifest, [arrays])
    manifest["seconds"] = round(time.perf_counter() - started, 2)
    _write_manifest(folder, manifest)
    return folder


def _replay_arrays(path: Path, side: str) -> tuple[dict, str]:
    """One replay's game on the engine: the side's arrays (T, 1, ...) and the result."""
    from ..core.actions import compass_move, encode
    from ..game import Game
    from ..replay import load_replay

    try:
        replay = load_replay(path)
    except (ValueError, OSError) as err:
        raise ValueError(f"replays: {path.name}: {err}") from None
    if replay.view is not None:
        raise ValueError(f"replays: {path.name}: a point-of-view replay ({replay.view!r}) "
                         "cannot be played again")  # fmt: skip
    game = Game.from_state(replay.state_at(0), {"obstacles": replay.map["obstacles"]})
    team = 0 if side == "a" else 1
    mine = slice(team * TEAM_SIZE, (team + 1) * TEAM_SIZE)
    rows: dict[str, list] = {name: [] for name in FIELDS}
    for t in range(replay.ticks):
        inputs = game.team_inputs(team)
        acts = replay.actions[t].astype(np.int32)
        try:
            info = game.step_slots(acts)
        except ValueError as err:
            raise ValueError(f"replays: {path.name}: actions[{t}]: {err}") from None
        if not np.array_equal(np.asarray(info.actions), replay.actions[t]):
            raise ValueError(f"replays: {path.name}: actions[{t}]: the engine did not accept "
                             "these actions as recorded")  # fmt: skip
        # The accepted compass moves back in each agent's own frame (a mirror: its own inverse).
        own = acts[mine]
        end = np.asarray(game.state.spawn_end)[team]
        move = compass_move(np, own[:, 0], np.full(TEAM_SIZE, end))
        flat = encode(move, own[:, 1], own[:, 2])
        rows["obs"].append(np.asarray(inputs.obs, np.float32))
        rows["avail"].append(np.packbits(np.asarray(inputs.avail, bool), axis=-1))
        rows["present"].append(np.asarray(inputs.present, bool))
        rows["alive"].append(np.asarray(inputs.alive, bool))
        rows["classes"].append(np.asarray(inputs.classes, np.int8))
        rows["new_game"].append(np.asarray(t == 0))
        rows["action"].append(np.asarray(flat).astype(np.int16))
        rows["reward"].append(np.zeros(TEAM_SIZE, np.float32))
        rows["done"].append(np.asarray(t == replay.ticks - 1))
        rows["world"].append(np.zeros(OBS_WIDTH, np.float32))
    if not rows["done"]:
        raise ValueError(f"replays: {path.name}: no ticks")
    arrays = {name: np.stack(v)[:, None].astype(FIELDS[name][0]) for name, v in rows.items()}
    return arrays, game.result or "draw"


# ---- reading ---------------------------------------------------------------------------------
@dataclass
class Demos:
    """A checked folder of demonstrations: its manifest and shard paths. Arrays are read
    one shard at a time (`shard(i)`), or all at once (`arrays()`) when they fit."""

    folder: Path
    manifest: dict

    @property
    def num_shards(self) -> int:
        return len(self.manifest["shards"])

    @property
    def envs(self) -> int:
        return int(self.manifest["envs"])

    def shard(self, i: int) -> dict[str, np.ndarray]:
        """Shard `i`'s arrays (avail unpacked to bool (T, N, 5, 198)), checked."""
        entry = self.manifest["shards"][i]
        arrays = _read_shard(self.folder / entry["file"], entry, self.envs, f"shards[{i}]")
        arrays["avail"] = np.unpackbits(arrays["avail"], axis=-1, count=NUM_JOINT).astype(bool)
        return arrays

    def arrays(self) -> dict[str, np.ndarray]:
        """Every shard's arrays joined along the ticks."""
        parts = [self.shard(i) for i in range(self.num_shards)]
        return {name: np.concatenate([p[name] for p in parts]) for name in FIELDS}

    def returns(self, gamma: float = 0.999) -> tuple[np.ndarray, np.ndarray]:
        """(ticks, N, 5) each agent's discounted return from each tick to its game's end,
        and (ticks, N) whether that game ended within the recording (a game cut off by the
        recording's end has an incomplete return: leave it out of value targets)."""
        reward = np.concatenate([self._small(i, "reward") for i in range(self.num_shards)])
        done = np.concatenate([self._small(i, "done") for i in range(self.num_shards)])
        return discounted_returns(reward, done, gamma)

    def _small(self, i: int, name: str) -> np.ndarray:
        entry = self.manifest["shards"][i]
        return _read_shard(self.folder / entry["file"], entry, self.envs, f"shards[{i}]", (name,))[
            name
        ]


def discounted_returns(
    reward: np.ndarray, done: np.ndarray, gamma: float
) -> tuple[np.ndarray, np.ndarray]:
    """Returns to each game's end, backwards over the ticks: reward (T, N, 5), done (T, N)."""
    ret = np.zeros(reward.shape, np.float32)
    complete = np.zeros(done.shape, bool)
    acc = np.zeros(reward.shape[1:], np.float32)
    ended = np.zeros(done.shape[1:], bool)
    g = np.float32(gamma)
    for t in range(reward.shape[0] - 1, -1, -1):
        acc = np.where(done[t][:, None], 0.0, acc * g).astype(np.float32)
        ended = np.where(done[t], True, ended)
        acc = (acc + reward[t]).astype(np.float32)
        ret[t] = acc
        complete[t] = ended
    return ret, complete


def read_demos(folder: str | Path) -> Demos:
    """Open a demonstrations folder: its manifest checked field by field, and every shard
    it lists present with the recorded size and SHA-256 (the arrays themselves are checked
    when a shard is read).

    Raises:
        ValueError: A missing or malformed manifest or shard, naming the field.
    """
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        raise ValueError(f"demos: no {MANIFEST} in {folder}")
    manifest = strict_json(path.read_bytes(), MANIFEST)
    if not isinstance(manifest, dict):
        raise ValueError(f"{MANIFEST}: expected an object")
    if manifest.get("format") != DEMOS_FORMAT:
        raise ValueError(f"format: expected {DEMOS_FORMAT!r}, got {manifest.get('format')!r}")
    if manifest.get("version") != DEMOS_VERSION:
        raise ValueError(f"version: unsupported {manifest.get('version')!r} (expected 1)")
    if manifest.get("source") not in ("play", "replays"):
        raise ValueError(f"source: expected 'play' or 'replays', got {manifest.get('source')!r}")
    if manifest["source"] == "play":
        settings_from(manifest.get("settings"), "settings")
    envs = manifest.get("envs")
    if not isinstance(envs, int) or isinstance(envs, bool) or not 1 <= envs <= 1 << 20:
        raise ValueError(f"envs: expected a whole number of games, got {envs!r}")
    shards = manifest.get("shards")
    if not isinstance(shards, list):
        raise ValueError("shards: expected a list")
    steps = 0
    for i, entry in enumerate(shards):
        where = f"shards[{i}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected an object")
        name = entry.get("file")
        if not isinstance(name, str) or Path(name).name != name or not name.endswith(".npz"):
            raise ValueError(f"{where}.file: expected a .npz file name in the folder, got {name!r}")
        for field in ("ticks", "bytes"):
            v = entry.get(field)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{where}.{field}: expected a positive whole number, got {v!r}")
        digest = entry.get("sha256")
        if not isinstance(digest, str) or len(digest) != 64:
            raise ValueError(f"{where}.sha256: expected 64 hex digits")
        shard = folder / name
        if not shard.is_file():
            raise ValueError(f"{where}.file: {name} is missing from {folder}")
        if shard.stat().st_size != entry["bytes"]:
            raise ValueError(f"{where}.bytes: {name} holds {shard.stat().st_size} bytes, "
                             f"the manifest says {entry['bytes']}")  # fmt: skip
        if _sha256(shard) != digest:
            raise ValueError(f"{where}.sha256: {name} does not match its recorded digest")
        steps += entry["ticks"] * envs
    if manifest.get("steps") != steps:
        raise ValueError(f"steps: the manifest says {manifest.get('steps')!r}, its shards "
                         f"hold {steps}")  # fmt: skip
    return Demos(folder, manifest)


def _read_shard(
    path: Path, entry: dict, envs: int, where: str, names: Sequence[str] = tuple(FIELDS)
) -> dict[str, np.ndarray]:
    """The named arrays of one shard, each member's header checked (dtype, shape) before
    its data is read, then its values (finite floats, actions in range, known classes)."""
    from numpy.lib import format as npy

    ticks = entry["ticks"]
    out: dict[str, np.ndarray] = {}
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as err:
        raise ValueError(f"{where}: {path.name} is not a .npz archive ({err})") from None
    with zf:
        members = set(zf.namelist())
        extra = sorted(m for m in members if m[:-4] not in FIELDS or not m.endswith(".npy"))
        if extra:
            raise ValueError(f"{where}.{extra[0]}: unknown array in {path.name}")
        for name in names:
            dtype, tail = FIELDS[name]
            want = (ticks, envs, *tail)
            if f"{name}.npy" not in members:
                raise ValueError(f"{where}.{name}: missing from {path.name}")
            try:
                with zf.open(f"{name}.npy") as f:
                    version = npy.read_magic(f)
                    header = npy.read_array_header_1_0 if version == (1, 0) else (
                        npy.read_array_header_2_0)  # fmt: skip
                    shape, fortran, got = header(f)
                    if got != dtype or fortran or tuple(shape) != want:
                        raise ValueError(
                            f"{where}.{name}: expected {dtype} {want}, got {got} {tuple(shape)}"
                        )
                    data = f.read(int(np.prod(want)) * dtype.itemsize + 1)
            except (OSError, zipfile.BadZipFile, EOFError) as err:
                raise ValueError(f"{where}.{name}: cannot be read ({err})") from None
            except ValueError as err:
                if str(err).startswith(where):
                    raise
                raise ValueError(f"{where}.{name}: not an array ({err})") from None
            if len(data) != int(np.prod(want)) * dtype.itemsize:
                raise ValueError(f"{where}.{name}: holds {len(data)} bytes, not {want}")
            arr = np.frombuffer(data, dtype).reshape(want).copy()
            _check_values(arr, name, f"{where}.{name}")
            out[name] = arr
    return out


def _check_values(arr: np.ndarray, name: str, where: str) -> None:
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{where}: holds non-finite values")
    if name == "action" and arr.size and (arr.min() < 0 or arr.max() >= NUM_JOINT):
        raise ValueError(f"{where}: actions must lie in 0..{NUM_JOINT - 1}")
    if name == "classes" and arr.size and (arr.min() < 0 or arr.max() >= len(CLASS_NAMES)):
        raise ValueError(f"{where}: class ids must lie in 0..{len(CLASS_NAMES) - 1}")


def learner_batch(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays a student trains on: where a choice counts (present, alive agents whose
    chosen action was legal) beside the inputs; `avail` must be unpacked (`Demos.shard`)."""
    legal = np.take_along_axis(arrays["avail"], arrays["action"][..., None].astype(np.int64), -1)
    counts = arrays["present"] & arrays["alive"] & legal[..., 0]
    return {**arrays, "counts": counts}
