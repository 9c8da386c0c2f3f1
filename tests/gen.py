"""Random valid positions and random legal actions, for properties and parity."""

from __future__ import annotations

import copy

import numpy as np

from marl_bgs import Game
from marl_bgs.core import classes
from marl_bgs.core.actions import MIRROR_MOVE, decode
from marl_bgs.core.geometry import body_overlap
from marl_bgs.core.position import POSITION_FORMAT
from marl_bgs.core.state import map_arrays
from marl_bgs.maps import load_map


def _free_spot(rng, m, taken: list[tuple[float, float]]) -> tuple[float, float]:
    for _ in range(1000):
        x = round(float(rng.uniform(0.5, 19.5)), 3)
        y = round(float(rng.uniform(0.5, 9.5)), 3)
        p = np.asarray([[round(x * 1000), round(y * 1000)]], np.int32)
        if body_overlap(np, p, m).any[0]:
            continue
        if all((x - a) ** 2 + (y - b) ** 2 >= 1.0 for a, b in taken):
            return x, y
    raise RuntimeError("no free spot found")


def random_position(
    rng: np.random.Generator,
    map_ref=47,
    *,
    sizes: tuple[int, int] | None = None,
    horizon: int = 300,
    extras: bool = True,
    wave_clocks: tuple[int, int] | None = None,
) -> dict:
    """A valid position: random rosters, spots, health, effects, shields and deaths."""
    obstacles = load_map(map_ref)["obstacles"] if isinstance(map_ref, int) else map_ref["obstacles"]
    m = map_arrays(obstacles)
    taken: list[tuple[float, float]] = []
    ends = ["left", "right"] if rng.random() < 0.5 else ["right", "left"]
    teams = []
    for t in range(2):
        n = sizes[t] if sizes else int(rng.integers(1, 6))
        agents = []
        for _ in range(n):
            cls = classes.CLASS_NAMES[int(rng.integers(5))]
            x, y = _free_spot(rng, m, taken)
            taken.append((x, y))
            a: dict = {"class": cls, "x": x, "y": y}
            if extras:
                spec = classes.CLASSES[classes.CLASS_INDEX[cls]]
                if rng.random() < 0.1:
                    a.update(alive=False, health=0)
                else:
                    a["health"] = round(float(rng.uniform(1, spec.max_health)), 3)
                    a["ultimate_cooldown"] = int(rng.choice([0, 0, 0, int(rng.integers(30))]))
                    a["shield"] = int(rng.choice([0, 0, 0, 0, 1, 2, 3]))
                    a["out_of_combat"] = int(rng.integers(8))
                    a["effects"] = {
                        name: int(rng.integers(0, classes.EFFECT_DURATION[e] + 1))
                        if rng.random() < 0.15
                        else 0
                        for e, name in enumerate(classes.EFFECT_NAMES)
                    }
            agents.append(a)
        clock = wave_clocks[t] if wave_clocks else int(rng.integers(1, 6))
        teams.append({"spawn_end": ends[t], "wave_clock": clock, "agents": agents})
    return {
        "format": POSITION_FORMAT,
        "version": 1,
        "map": map_ref,
        "tick": 0,
        "horizon": horizon,
        "winning_score": 20,
        "score": [int(rng.integers(0, 15)), int(rng.integers(0, 15))],
        "teams": teams,
    }


def random_slots(game: Game, rng: np.random.Generator) -> np.ndarray:
    """Uniform legal actions laid out over the ten slots, shape (10, 3)."""
    legal = game.legal_actions().reshape(10, -1)
    out = np.zeros((10, 3), np.int32)
    for i in range(10):
        out[i] = decode(int(rng.choice(np.flatnonzero(legal[i]))))
    return out


def as_team_lists(game: Game, slots: np.ndarray) -> list[list[tuple[int, int, int]]]:
    return [
        [tuple(int(v) for v in slots[t * 5 + k]) for k in range(game.sizes[t])] for t in range(2)
    ]


def _mx(x: float) -> float:
    return round(20 - x, 3)


def mirror_position(p: dict) -> dict:
    """Swap the teams and mirror everything about x = 10."""
    out = copy.deepcopy(p)
    out["teams"] = [out["teams"][1], out["teams"][0]]
    out["score"] = [p["score"][1], p["score"][0]]
    for team in out["teams"]:
        team["spawn_end"] = "right" if team["spawn_end"] == "left" else "left"
        for a in team["agents"]:
            a["x"] = _mx(a["x"])
            if a.get("last_action"):
                a["last_action"] = [int(MIRROR_MOVE[a["last_action"][0]]), *a["last_action"][1:]]
    if isinstance(p["map"], dict):
        out["map"] = {
            "obstacles": [
                {**ob, "x": _mx(ob["x"]), **({"theta": -ob["theta"]} if "theta" in ob else {})}
                for ob in p["map"]["obstacles"]
            ]
        }
    return out


def mirror_actions(teams: list[list[tuple[int, int, int]]]) -> list[list[tuple[int, int, int]]]:
    return [[(int(MIRROR_MOVE[m]), t, u) for m, t, u in team] for team in (teams[1], teams[0])]


def permute_position(p: dict, perms: list[list[int]]) -> dict:
    """Reorder each team's agents: new slot k holds old slot perms[team][k]."""
    out = copy.deepcopy(p)
    for t, team in enumerate(out["teams"]):
        team["agents"] = [p["teams"][t]["agents"][old] for old in perms[t]]
        for a in team["agents"]:
            if a.get("last_action"):
                a["last_action"] = _remap_action(a["last_action"], t, perms)
    return out


def _remap_action(act, team: int, perms: list[list[int]]):
    m, target, u = act
    if 1 <= target <= 5:
        target = 1 + perms[team].index(target - 1)
    elif target >= 6:
        target = 6 + perms[1 - team].index(target - 6)
    return [m, target, u]


def permute_actions(teams, perms):
    return [
        [tuple(_remap_action(list(teams[t][old]), t, perms)) for old in perms[t]] for t in range(2)
    ]
