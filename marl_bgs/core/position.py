"""Authored positions: the JSON format for a game in progress (scenarios, tests, the site).

`parse_position` validates everything and builds a `State`; `position_dict` writes a state
back with every field spelled out. Bad input raises ValueError naming the field; nothing is
clamped or dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import classes as C
from .actions import NUM_MOVES, NUM_TARGETS
from .checks import FieldTypeError, fields, number, plain_json, whole
from .geometry import body_overlap
from .movement import overlapping_pairs
from .state import (
    MILLI,
    NUM_SLOTS,
    RESULT_A,
    RESULT_B,
    RESULT_DRAW,
    RESULT_OPEN,
    SPAWN_END_NAMES,
    TEAM_SIZE,
    MapArrays,
    State,
    map_arrays,
)

POSITION_FORMAT = "marl-bgs/position"
POSITION_VERSION = 1
TOP_KEYS = {
    "format", "version", "map", "tick", "horizon", "winning_score", "score", "teams",
    "red_zone_depth",
}  # fmt: skip
TEAM_KEYS = {"spawn_end", "wave_clock", "agents"}
AGENT_KEYS = {
    "class", "x", "y", "health", "alive", "ultimate_cooldown", "shield", "out_of_combat",
    "effects", "last_action",
}  # fmt: skip
MAX_HORIZON = 100_000
MAX_WINNING_SCORE = 1000
MAX_GAIN_PER_TICK = 2 * TEAM_SIZE  # five deaths in Red Zones
MapResolver = Callable[[Any], tuple[Any, list]]
"""A position's `map` field -> `(map_ref, obstacles)`: the map as written back, and its
checked obstacle list; raises ValueError naming `map` for a bad one."""


@dataclass(frozen=True)
class Position:
    """A parsed position: the state, the map arrays and how to write the map back."""

    state: State
    map_arrays: MapArrays
    map_ref: Any  # the map id, or {"obstacles": [...]} for an inline map
    obstacles: list


def _milli(value: float, where: str) -> int:
    """A number as whole thousandths; finer values are rejected, not rounded."""
    scaled = value * MILLI
    whole = round(scaled)
    if abs(scaled - whole) > 1e-6 * max(1.0, abs(scaled)):
        raise ValueError(f"{where}: {value} has more than three decimals (the grid is 0.001)")
    return int(whole)


def _keys(obj: Any, allowed: set, required: set, where: str) -> None:
    fields(obj, where, sorted(required), sorted(allowed - required))


def parse_position(data: Any, resolve_map: MapResolver) -> Position:
    """Validate a position dict and build the fixed-shape state it describes.

    The rules layer reads no map files: `resolve_map` turns the `map` field into
    `(map_ref, obstacles)`. `marl_bgs.positions.parse_position` passes the one that knows
    the numbered maps and inline obstacle lists.
    """
    plain_json(data, "position")
    _keys(data, TOP_KEYS, TOP_KEYS - {"red_zone_depth"}, "position")
    if data["format"] != POSITION_FORMAT:
        raise ValueError(f"format: expected {POSITION_FORMAT!r}, got {data['format']!r}")
    if data["version"] != POSITION_VERSION:
        raise ValueError(f"version: unsupported version {data['version']!r}")
    map_ref, obstacles = resolve_map(data["map"])
    m = map_arrays(obstacles)

    horizon = whole(data["horizon"], "horizon", 1, MAX_HORIZON)
    tick = whole(data["tick"], "tick", 0, horizon)
    win = whole(data["winning_score"], "winning_score", 1, MAX_WINNING_SCORE)
    score_raw = data["score"]
    if not isinstance(score_raw, list) or len(score_raw) != 2:
        raise ValueError("score: expected a list of two whole numbers")
    score = [
        whole(s, f"score[{i}]", 0, win - 1 + MAX_GAIN_PER_TICK) for i, s in enumerate(score_raw)
    ]
    depth_value = number(data.get("red_zone_depth", 5), "red_zone_depth")
    if not 0 <= depth_value <= 10:
        raise ValueError(f"red_zone_depth: {depth_value} is out of range [0, 10]")
    depth = _milli(depth_value, "red_zone_depth")
    teams = data["teams"]
    if not isinstance(teams, list) or len(teams) != 2:
        raise ValueError("teams: expected a list of two teams")

    present = np.zeros(NUM_SLOTS, bool)
    alive = np.zeros(NUM_SLOTS, bool)
    cls = np.zeros(NUM_SLOTS, np.int32)
    pos = np.zeros((NUM_SLOTS, 2), np.int32)
    health = np.zeros(NUM_SLOTS, np.int32)
    cooldown = np.zeros(NUM_SLOTS, np.int32)
    shield = np.zeros(NUM_SLOTS, np.int32)
    ooc = np.zeros(NUM_SLOTS, np.int32)
    effects = np.zeros((NUM_SLOTS, C.NUM_EFFECTS), np.int32)
    last_action = np.full((NUM_SLOTS, 3), -1, np.int32)
    spawn_end = np.zeros(2, np.int32)
    wave_clock = np.zeros(2, np.int32)

    for t, team in enumerate(teams):
        where = f"teams[{t}]"
        _keys(team, TEAM_KEYS, TEAM_KEYS, where)
        if team["spawn_end"] not in SPAWN_END_NAMES:
            raise ValueError(f"{where}.spawn_end: must be 'left' or 'right'")
        spawn_end[t] = SPAWN_END_NAMES.index(team["spawn_end"])
        wave_clock[t] = whole(team["wave_clock"], f"{where}.wave_clock", 1, C.RESPAWN_PERIOD)
        agents = team["agents"]
        if not isinstance(agents, list) or not 1 <= len(agents) <= TEAM_SIZE:
            raise ValueError(f"{where}.agents: expected a list of 1 to {TEAM_SIZE} agents")
        for k, agent in enumerate(agents):
            i = t * TEAM_SIZE + k
            at = f"{where}.agents[{k}]"
            _keys(agent, AGENT_KEYS, {"class", "x", "y"}, at)
            name = agent["class"]
            if not isinstance(name, str):
                raise FieldTypeError(f"{at}.class: expected a class name, got {name!r}"[:200])
            if name not in C.CLASS_INDEX:
                raise ValueError(f"{at}.class: unknown class {name!r}")
            c = C.CLASS_INDEX[name]
            spec = C.CLASSES[c]
            present[i] = True
            cls[i] = c
            x, y = number(agent["x"], f"{at}.x"), number(agent["y"], f"{at}.y")
            if not (0.5 <= x <= 19.5):
                raise ValueError(f"{at}.x: {x} puts the body outside the arena [0.5, 19.5]")
            if not (0.5 <= y <= 9.5):
                raise ValueError(f"{at}.y: {y} puts the body outside the arena [0.5, 9.5]")
            pos[i] = (_milli(x, f"{at}.x"), _milli(y, f"{at}.y"))
            is_alive = agent.get("alive", True)
            if not isinstance(is_alive, bool):
                raise ValueError(f"{at}.alive: expected true or false")
            alive[i] = is_alive
            hp = number(agent.get("health", spec.max_health if is_alive else 0), f"{at}.health")
            if is_alive and not 0 < hp <= spec.max_health:
                raise ValueError(
                    f"{at}.health: {hp} must be above 0 and at most {spec.max_health:g}"
                )
            if not is_alive and hp != 0:
                raise ValueError(f"{at}.health: a dead agent's health is 0, got {hp}")
            health[i] = _milli(hp, f"{at}.health")
            cooldown[i] = whole(
                agent.get("ultimate_cooldown", 0),
                f"{at}.ultimate_cooldown",
                0,
                C.ULTIMATE_COOLDOWN - 1,
            )
            shield[i] = whole(agent.get("shield", 0), f"{at}.shield", 0, C.SHIELD_TICKS)
            ooc[i] = whole(agent.get("out_of_combat", 0), f"{at}.out_of_combat", 0, 10**6)
            eff = agent.get("effects", {})
            _keys(eff, set(C.EFFECT_NAMES), set(), f"{at}.effects")
            for e, ename in enumerate(C.EFFECT_NAMES):
                effects[i, e] = whole(
                    eff.get(ename, 0), f"{at}.effects.{ename}", 0, C.EFFECT_DURATION[e]
                )
            if not is_alive:
                if shield[i]:
                    raise ValueError(f"{at}.shield: a dead agent carries no shield")
                if effects[i].any():
                    raise ValueError(f"{at}.effects: a dead agent carries no effects")
                if ooc[i]:
                    raise ValueError(f"{at}.out_of_combat: stays 0 while an agent is dead")
            la = agent.get("last_action")
            if la is not None:
                if not isinstance(la, list) or len(la) != 3:
                    raise ValueError(f"{at}.last_action: expected [move, target, ultimate] or null")
                last_action[i] = (
                    whole(la[0], f"{at}.last_action[0]", 0, NUM_MOVES - 1),
                    whole(la[1], f"{at}.last_action[1]", 0, NUM_TARGETS - 1),
                    whole(la[2], f"{at}.last_action[2]", 0, 1),
                )
    if spawn_end[0] == spawn_end[1]:
        raise ValueError("teams[1].spawn_end: the two teams must start at different ends")

    # Bodies: inside no obstacle; living unshielded bodies may touch but not overlap.
    living = present & alive
    inside = body_overlap(np, pos, m).any
    for i in np.flatnonzero(living & inside):
        raise ValueError(f"{_agent_where(i)}: the body overlaps an obstacle")
    close = overlapping_pairs(np, pos, living & (shield == 0))
    if close.any():
        i, j = np.argwhere(close)[0]
        raise ValueError(f"{_agent_where(j)}: the body overlaps {_agent_where(i)}")

    result = _result_of(score, win, tick, horizon)
    state = State(
        tick=np.asarray(tick, np.int32),
        horizon=np.asarray(horizon, np.int32),
        winning_score=np.asarray(win, np.int32),
        red_zone_depth=np.asarray(depth, np.int32),
        score=np.asarray(score, np.int32),
        spawn_end=spawn_end,
        wave_clock=wave_clock,
        result=np.asarray(result, np.int32),
        present=present,
        alive=alive,
        cls=cls,
        pos=pos,
        health=health,
        ultimate_cooldown=cooldown,
        shield=shield,
        out_of_combat=ooc,
        effects=effects,
        last_action=last_action,
    )
    return Position(state, m, map_ref, obstacles)


def _agent_where(i: int) -> str:
    return f"teams[{i // TEAM_SIZE}].agents[{i % TEAM_SIZE}]"


def _result_of(score: list[int], win: int, tick: int, horizon: int) -> int:
    if max(score) >= win:
        if score[0] == score[1]:
            return RESULT_DRAW
        return RESULT_A if score[0] > score[1] else RESULT_B
    return RESULT_DRAW if tick >= horizon else RESULT_OPEN


def _f(milli: Any) -> float:
    """Thousandths back to a plain number (3100 -> 3.1)."""
    return int(milli) / MILLI


def position_dict(state: State, map_ref: Any) -> dict:
    """Write a state as a position with every field spelled out."""
    s = State(*(np.asarray(x) for x in state))
    teams = []
    for t in range(2):
        agents = []
        for k in range(TEAM_SIZE):
            i = t * TEAM_SIZE + k
            if not s.present[i]:
                continue
            la = s.last_action[i]
            agents.append(
                {
                    "class": C.CLASS_NAMES[int(s.cls[i])],
                    "x": _f(s.pos[i, 0]),
                    "y": _f(s.pos[i, 1]),
                    "health": _f(s.health[i]),
                    "alive": bool(s.alive[i]),
                    "ultimate_cooldown": int(s.ultimate_cooldown[i]),
                    "shield": int(s.shield[i]),
                    "out_of_combat": int(s.out_of_combat[i]),
                    "effects": {n: int(s.effects[i, e]) for e, n in enumerate(C.EFFECT_NAMES)},
                    "last_action": None if la[0] < 0 else [int(v) for v in la],
                }
            )
        teams.append(
            {
                "spawn_end": SPAWN_END_NAMES[int(s.spawn_end[t])],
                "wave_clock": int(s.wave_clock[t]),
                "agents": agents,
            }
        )
    return {
        "format": POSITION_FORMAT,
        "version": POSITION_VERSION,
        "map": map_ref,
        "tick": int(s.tick),
        "horizon": int(s.horizon),
        "winning_score": int(s.winning_score),
        "score": [int(v) for v in s.score],
        "red_zone_depth": _f(s.red_zone_depth),
        "teams": teams,
    }


OFFICIAL_ROSTER = ("mage", "warrior", "hunter", "rogue", "priest")


def starting_position(
    map_ref: Any = 47,
    rosters: tuple[list[str] | tuple[str, ...], list[str] | tuple[str, ...]] = (
        OFFICIAL_ROSTER,
        OFFICIAL_ROSTER,
    ),
    spawn_ends: tuple[str, str] = ("left", "right"),
    horizon: int = 300,
    winning_score: int = 20,
    red_zone_depth: float = 5,
) -> dict:
    """A fresh game: every agent on its slot's spawn pad, full health, Ultimates ready."""
    from .state import PAD_X, PAD_Y

    teams = []
    for roster, end in zip(rosters, spawn_ends, strict=True):
        x = PAD_X[SPAWN_END_NAMES.index(end)] if end in SPAWN_END_NAMES else end
        agents = [{"class": c, "x": x, "y": PAD_Y[k]} for k, c in enumerate(roster)]
        teams.append({"spawn_end": end, "wave_clock": C.RESPAWN_PERIOD, "agents": agents})
    return {
        "format": POSITION_FORMAT,
        "version": POSITION_VERSION,
        "map": map_ref,
        "tick": 0,
        "horizon": horizon,
        "winning_score": winning_score,
        "score": [0, 0],
        "red_zone_depth": red_zone_depth,
        "teams": teams,
    }
