"""Write the example replays under exports/replays/ (the viewer and the site open them).

Games are played on the NumPy engine through `Game`: the scripted teams' decision functions
are the code the JAX Systems compile, the Random player draws uniformly over legal actions
from a NumPy generator seeded per game, and a learned entrant samples its actions from its
`.npz` policy with such a generator, so the files are byte-reproducible from the seeds (a
learned entrant's float32 sums, on another kind of CPU, may come out in another order).

The first game is the one the Home page plays: a close game between the two strongest
teams of Season 0 (Nav-DAgger 0 against TDM-Alpha, game number 7 of a search over numbers
3-12 on maps 48 and 50 for a decisive game won by one point). Each index entry also gives
`fighting_from`, the tick before the first damage, where the Home page starts watching.

    python scripts/export_replays.py          # write the files
    python scripts/export_replays.py --check  # fail if a file differs from what the code makes

`--check` regenerates every replay with the package versions stored in the file, so a newer
NumPy alone does not make a file stale; any other difference does.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from marl_bgs import Game
from marl_bgs.battle_games import ENTRANTS, numpy_decider
from marl_bgs.core.position import starting_position
from marl_bgs.core.state import TEAM_SIZE
from marl_bgs.maps import load_map
from marl_bgs.replay import Replay, load_replay, record_game
from marl_bgs.site import publish
from marl_bgs.systems.base import TeamInputs
from marl_bgs.systems.beta import beta_act, beta_memory
from marl_bgs.systems.gamma import gamma_act, gamma_memory
from marl_bgs.systems.scripted import alpha_act, alpha_memory

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "exports" / "replays"
ROOT_SEED = 0

# file stem, map, the two players, game number (seeds the Random and learned players)
GAMES = (
    ("navdagger-vs-alpha-map48", 48, ("nav-dagger-0", "tdm-alpha"), 7),
    ("alpha-vs-random-map47", 47, ("tdm-alpha", "random"), 0),
    ("beta-vs-gamma-map49", 49, ("tdm-beta", "tdm-gamma"), 1),
    ("gamma-vs-random-map05", 5, ("tdm-gamma", "random"), 2),
    # every other Season 0 seat once (issue 46's gallery): the learned entrants as they play
    ("navdagger-vs-beta-map50", 50, ("nav-dagger-0", "tdm-beta"), 3),
    ("rec-ippo-vs-gamma-map51", 51, ("rec-ippo-500k", "tdm-gamma"), 4),
    ("rec-mappo-vs-ff-ippo-map47", 47, ("rec-mappo-500k", "ff-ippo-500k"), 5),
    ("ff-mappo-vs-random-map49", 49, ("ff-mappo-500k", "random"), 6),
    ("qmix-vs-pqn-vdn-map48", 48, ("qmix-500k", "pqn-vdn-500k"), 8),
)
LABELS = {
    "tdm-alpha": "TDM-Alpha",
    "tdm-beta": "TDM-Beta",
    "tdm-gamma": "TDM-Gamma",
    "random": "Random",
    "nav-dagger-0": "Nav-DAgger 0",
    "rec-ippo-500k": "Rec-IPPO 500k",
    "rec-mappo-500k": "Rec-MAPPO 500k",
    "ff-ippo-500k": "FF-IPPO 500k",
    "ff-mappo-500k": "FF-MAPPO 500k",
    "qmix-500k": "QMIX 500k",
    "pqn-vdn-500k": "PQN-VDN 500k",
}


SCRIPTED = {
    "tdm-alpha": (alpha_act, alpha_memory),
    "tdm-beta": (beta_act, beta_memory),
    "tdm-gamma": (gamma_act, gamma_memory),
}


def scripted_player(name: str) -> Callable[[TeamInputs], np.ndarray]:
    """A scripted opponent's own decision code, run on NumPy (the code JAX compiles)."""
    act_fn, memory_fn = SCRIPTED[name]
    memory = [memory_fn(np)]

    def act(inputs: TeamInputs) -> np.ndarray:
        flat, memory[0] = act_fn(np, inputs, memory[0])
        return np.asarray(flat, np.int32)

    return act


def random_player(seed: int) -> Callable[[TeamInputs], np.ndarray]:
    rng = np.random.default_rng(seed)

    def act(inputs: TeamInputs) -> np.ndarray:
        return np.asarray(
            [rng.choice(np.flatnonzero(inputs.avail[k])) for k in range(TEAM_SIZE)], np.int32
        )

    return act


def make_player(name: str, seed: int) -> Callable[[Game, int], np.ndarray]:
    """A player's choice for team `team` of a game: the scripted teams' and Random's from
    what the team sees, a published entrant (`battle_games.ENTRANTS`) as the Play page runs
    it (its `.npz` policy on NumPy: a policy learner samples, a Q-learner plays its best
    legal Q-value)."""
    if name in ENTRANTS:
        return numpy_decider(name, seed).decide
    if name in SCRIPTED:
        by_inputs = scripted_player(name)
    elif name == "random":
        by_inputs = random_player(seed)
    else:
        raise ValueError(f"player: unknown player {name!r}")
    return lambda game, team: by_inputs(game.team_inputs(team))


def play(map_id: int, players: tuple[str, str], game_number: int, title: str) -> Replay:
    """One full game of the official 5v5 between two players, recorded."""
    game = Game(starting_position(map_id), backend="numpy")
    seeds = np.random.SeedSequence([ROOT_SEED, game_number]).spawn(2)
    acts = [
        make_player(p, int(s.generate_state(1)[0])) for p, s in zip(players, seeds, strict=True)
    ]

    def choose(g: Game) -> np.ndarray:
        return g.slots_from_flat(acts[0](g, 0), acts[1](g, 1))

    return record_game(game, choose, players, {"root": ROOT_SEED, "game": game_number}, title=title)


def fighting_from(replay: Replay) -> int:
    """The frame before the game's first damage (0 for a game without any), where a viewer
    that wants the action starts."""
    for tick, events in enumerate(replay.events):
        if any(e.get("kind") == "damage" for e in events):
            return max(tick - 1, 0)
    return 0


def index_document(entries: list[dict]) -> bytes:
    doc = {"format": "marl-bgs/replay-index", "version": 1, "replays": entries}
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def build(stored_versions: dict[str, Any] | None = None) -> dict[str, bytes]:
    """Every exported file's bytes, by file name."""
    files, entries = {}, []
    for stem, map_id, players, number in GAMES:
        title = f"{LABELS[players[0]]} vs {LABELS[players[1]]} on {load_map(map_id)['name']}"
        replay = play(map_id, players, number, f"{title} (map {map_id})")
        name = f"{stem}.json"
        if stored_versions and name in stored_versions:
            replay = replay.with_versions(stored_versions[name])
        files[name] = replay.to_bytes()
        entries.append(
            {
                "title": replay.title,
                "file": name,
                "systems": list(players),
                "map": map_id,
                "ticks": replay.ticks,
                "result": replay.metrics["result"],
                "score": [replay.metrics["points_a"], replay.metrics["points_b"]],
                "fighting_from": fighting_from(replay),
            }
        )
    files["index.json"] = index_document(entries)
    return files


def stored_versions() -> dict[str, Any]:
    out = {}
    for stem, *_ in GAMES:
        path = OUT / f"{stem}.json"
        if path.is_file():
            try:
                out[path.name] = load_replay(path).versions
            except ValueError:
                pass  # an unreadable file is stale; the byte comparison reports it
    return out


def stale_files(files: dict[str, bytes]) -> list[str]:
    """Files that differ from `files`, are missing, or are not written by the export."""
    return publish.stale_files(OUT, files)


def main(argv: list[str] | None = None) -> int:
    return publish.export_main(
        argv, __doc__.splitlines()[0], build, stored_versions, lambda: OUT,
        "exports/replays", "scripts/export_replays.py",
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
