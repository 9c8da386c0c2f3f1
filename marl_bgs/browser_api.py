"""The engine's face to JavaScript: games by id, JSON text in and out, no JAX.

`web_demo/engine/engine.js` calls these functions inside Pyodide; they are plain Python, so
the tests call them in CPython too. Everything crosses as JSON text (no Python objects leak
into the page). Actions are `(move, target, ultimate)` per agent in compass directions, as
`Game.step` takes them; `decide` turns a System's own-frame choice into that form.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .core.actions import MIRROR_FLAT, decode
from .core.checks import whole
from .core.position import starting_position
from .core.state import LEFT, TEAM_SIZE
from .game import Game
from .systems.numpy_play import NumpySystem, decide, numpy_system

SPEC_KEYS = {"map", "rosters", "winning_score", "horizon", "spawn_ends", "seed"}
_games: dict[int, dict[str, Any]] = {}
_next_id = [0]


def _spec(text: str) -> dict:
    try:
        spec = json.loads(text)
    except ValueError as err:
        raise ValueError(f"game: not JSON ({err})") from None
    if not isinstance(spec, dict):
        raise ValueError("game: expected an object")
    return spec


def position_of(spec: dict) -> dict:
    if "position" in spec:
        extra = set(spec) - {"position", "seed"}
        if extra:
            raise ValueError(f"game: with 'position', unknown field(s) {sorted(extra)}")
        return spec["position"]
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        raise ValueError(f"game: unknown field(s) {sorted(unknown)}; known: {sorted(SPEC_KEYS)}")
    rosters = spec.get("rosters", [["mage", "warrior", "hunter", "rogue", "priest"]] * 2)
    if (
        not isinstance(rosters, list)
        or len(rosters) != 2
        or not all(isinstance(r, list) and 1 <= len(r) <= TEAM_SIZE for r in rosters)
    ):
        raise ValueError("rosters: expected two lists of 1 to 5 class names")
    ends = spec.get("spawn_ends", ["left", "right"])
    if not isinstance(ends, list) or len(ends) != 2:
        raise ValueError("spawn_ends: expected two of 'left' and 'right'")
    for key, default in (("winning_score", 20), ("horizon", 300)):
        whole(spec.get(key, default), key)
    return starting_position(
        spec.get("map", 47),
        tuple(rosters),
        tuple(ends),
        horizon=spec.get("horizon", 300),
        winning_score=spec.get("winning_score", 20),
    )


def new_game(spec_json: str) -> int:
    """Start a game from `{"map", "rosters", "winning_score", "horizon", "spawn_ends"}` or
    `{"position": <marl-bgs/position>}` (either may add `"seed"` for the random System);
    returns its id. Bad fields raise ValueError naming the field."""
    spec = _spec(spec_json)
    seed = whole(spec.get("seed", 0), "seed", 0)
    game = Game(position_of(spec))
    _next_id[0] += 1
    _games[_next_id[0]] = {"game": game, "rng": np.random.default_rng(seed), "memory": {}}
    return _next_id[0]


def _entry(game_id: int) -> dict[str, Any]:
    if game_id not in _games:
        raise ValueError(f"game: no game with id {game_id!r}")
    return _games[game_id]


def close_game(game_id: int) -> None:
    _games.pop(game_id, None)


def legal_actions(game_id: int) -> str:
    """Per team, per present agent, the legal flat actions ((move * 11 + target) * 2 + ult)."""
    game = _entry(game_id)["game"]
    legal = game.legal_actions()
    return json.dumps(
        [[np.flatnonzero(legal[t, k]).tolist() for k in range(game.sizes[t])] for t in range(2)]
    )


def state(game_id: int) -> str:
    """The position (every field, `marl-bgs/position`) with `done` and `result`."""
    game = _entry(game_id)["game"]
    return json.dumps({"position": game.state_dict(), "done": game.done, "result": game.result})


def step(game_id: int, actions_json: str) -> str:
    """Play one tick of `[[[move, target, ultimate], ...], [...]]`; returns its events."""
    try:
        actions = json.loads(actions_json)
    except ValueError as err:
        raise ValueError(f"actions: not JSON ({err})") from None
    return json.dumps(_entry(game_id)["game"].step(actions))


def team_view(game_id: int, team: int) -> str:
    """What one team may see (`Game.team_inputs`): observations, own-frame masks, roster."""
    inputs = _entry(game_id)["game"].team_inputs(team)
    return json.dumps(
        {
            "obs": np.asarray(inputs.obs, np.float64).round(6).tolist(),
            "avail": [np.flatnonzero(a).tolist() for a in np.asarray(inputs.avail)],
            "present": np.asarray(inputs.present).tolist(),
            "alive": np.asarray(inputs.alive).tolist(),
            "classes": np.asarray(inputs.classes).tolist(),
            "new_game": bool(inputs.new_game),
        }
    )


def decide_team(game_id: int, team: int, system: str) -> str:
    """The named System's choice for one team's present agents, as compass actions; its
    memory is kept per game, team and System."""
    entry = _entry(game_id)
    game = entry["game"]
    key = (team, system)
    if key not in entry["memory"]:
        built: NumpySystem = numpy_system(system)
        entry["memory"][key] = (built, built.init())
    built, memory = entry["memory"][key]
    flat, memory = decide(game, team, built, memory, entry["rng"])
    entry["memory"][key] = (built, memory)
    if int(game.state.spawn_end[team]) != LEFT:  # own frame -> compass (a mirror undoes itself)
        flat = MIRROR_FLAT[flat]
    return json.dumps([list(decode(int(a))) for a in flat[: game.sizes[team]]])
