"""Authored positions: the JSON format for a game in progress (scenarios, tests, the site).

`parse_position` validates everything and builds a `State`; `position_dict` writes a state
back with every field spelled out. Bad input raises ValueError naming the field; nothing is
clamped or dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from . import classes
from .actions import NUM_MOVES, NUM_TARGETS
from .checks import FieldTypeError, fields, number, plain_json, thousandths, whole
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


def _keys(obj: Any, allowed: set, required: set, where: str) -> None:
    """An object with every `required` key and no key outside `allowed`."""
    fields(obj, where, sorted(required), sorted(allowed - required))


class _Agent(NamedTuple):
    """One agent's fields, checked, in engine units (milli-units for x, y and health)."""

    cls: int
    pos: tuple[int, int]
    alive: bool
    health: int
    ultimate_cooldown: int
    shield: int
    out_of_combat: int
    effects: tuple[int, ...]
    last_action: tuple[int, int, int]


class _Team(NamedTuple):
    """One team's fields, checked: its spawn end's index, wave clock and agents."""

    spawn_end: int
    wave_clock: int
    agents: list[_Agent]


def parse_position(data: Any, resolve_map: MapResolver) -> Position:
    """Validate a position dict and build the fixed-shape state it describes.

    The steps follow the format, and the first fault found is the one reported: the
    header, the map, the clocks and score, each team and each of its agents, then where
    the bodies stand. The rules layer reads no map files: `resolve_map` turns the `map`
    field into `(map_ref, obstacles)`, and `marl_bgs.maps.positions.parse_position` passes the
    one that knows the numbered maps and inline obstacle lists.

    Args:
        data: A `marl-bgs/position` dict, version 1 (JSON values only).
        resolve_map: The `map` field -> `(map_ref, obstacles)`; its errors pass through.

    Returns:
        The `Position`: the state, its map arrays, `map_ref` and the obstacle list.

    Raises:
        FieldTypeError: A field of the wrong type where the type is all that is wrong
            (also a ValueError).
        ValueError: A field missing, unknown or out of range, naming it
            (`teams[0].agents[2].x: ...`), or a body inside an obstacle or overlapping
            another body.
    """
    _check_header(data)
    map_ref, obstacles = resolve_map(data["map"])
    m = map_arrays(obstacles)
    horizon, tick, win = _read_clock(data)
    score = _read_score(data["score"], win)
    depth = _read_red_zone_depth(data)
    slots = _slot_arrays(_read_teams(data["teams"]))
    _check_bodies(slots, m)
    state = State(
        tick=np.asarray(tick, np.int32),
        horizon=np.asarray(horizon, np.int32),
        winning_score=np.asarray(win, np.int32),
        red_zone_depth=np.asarray(depth, np.int32),
        score=np.asarray(score, np.int32),
        result=np.asarray(_result_of(score, win, tick, horizon), np.int32),
        **slots,
    )
    return Position(state, m, map_ref, obstacles)


def _check_header(data: Any) -> None:
    """Plain JSON with the position's keys (only `red_zone_depth` may be left out), the
    format name `marl-bgs/position` and version 1."""
    plain_json(data, "position")
    _keys(data, TOP_KEYS, TOP_KEYS - {"red_zone_depth"}, "position")
    if data["format"] != POSITION_FORMAT:
        raise ValueError(f"format: expected {POSITION_FORMAT!r}, got {data['format']!r}")
    version = data["version"]
    if type(version) is not int:  # true and 1.0 equal 1 in Python, but are not version 1
        raise FieldTypeError(
            f"version: expected the whole number {POSITION_VERSION}, got {version!r}"
        )
    if version != POSITION_VERSION:
        raise ValueError(f"version: unsupported version {version!r}")


def _read_clock(data: dict) -> tuple[int, int, int]:
    """`horizon` (1 to MAX_HORIZON ticks), `tick` (0 to the horizon) and `winning_score`
    (1 to MAX_WINNING_SCORE), as (horizon, tick, winning_score)."""
    horizon = whole(data["horizon"], "horizon", 1, MAX_HORIZON)
    tick = whole(data["tick"], "tick", 0, horizon)
    win = whole(data["winning_score"], "winning_score", 1, MAX_WINNING_SCORE)
    return horizon, tick, win


def _read_score(raw: Any, win: int) -> list[int]:
    """`score`: two whole numbers, each at most one tick's largest gain past the last score
    that had not yet won."""
    if not isinstance(raw, list) or len(raw) != 2:
        raise ValueError("score: expected a list of two whole numbers")
    return [whole(s, f"score[{i}]", 0, win - 1 + MAX_GAIN_PER_TICK) for i, s in enumerate(raw)]


def _read_red_zone_depth(data: dict) -> int:
    """`red_zone_depth` (default 5): 0 to 10 map units on the 0.001 grid, in milli-units."""
    depth = number(data.get("red_zone_depth", 5), "red_zone_depth")
    if not 0 <= depth <= 10:
        raise ValueError(f"red_zone_depth: {depth} is out of range [0, 10]")
    return thousandths(depth, "red_zone_depth")


def _read_teams(raw: Any) -> list[_Team]:
    """`teams`: two teams, which start at different ends."""
    if not isinstance(raw, list) or len(raw) != 2:
        raise ValueError("teams: expected a list of two teams")
    teams = [_read_team(team, f"teams[{t}]") for t, team in enumerate(raw)]
    if teams[0].spawn_end == teams[1].spawn_end:
        raise ValueError("teams[1].spawn_end: the two teams must start at different ends")
    return teams


def _read_team(team: Any, where: str) -> _Team:
    """One team: `spawn_end` ('left' or 'right'), `wave_clock` (1 to the respawn period)
    and `agents`, a list of 1 to TEAM_SIZE agents that fill the team's first slots."""
    _keys(team, TEAM_KEYS, TEAM_KEYS, where)
    if team["spawn_end"] not in SPAWN_END_NAMES:
        raise ValueError(f"{where}.spawn_end: must be 'left' or 'right'")
    spawn_end = SPAWN_END_NAMES.index(team["spawn_end"])
    wave_clock = whole(team["wave_clock"], f"{where}.wave_clock", 1, classes.RESPAWN_PERIOD)
    agents = team["agents"]
    if not isinstance(agents, list) or not 1 <= len(agents) <= TEAM_SIZE:
        raise ValueError(f"{where}.agents: expected a list of 1 to {TEAM_SIZE} agents")
    return _Team(
        spawn_end,
        wave_clock,
        [_read_agent(a, f"{where}.agents[{k}]") for k, a in enumerate(agents)],
    )


def _read_agent(agent: Any, at: str) -> _Agent:
    """One agent: `class`, `x` and `y` are required; the other fields default to a fresh
    living agent's (full health, Ultimate ready, no shield, effects or last action)."""
    _keys(agent, AGENT_KEYS, {"class", "x", "y"}, at)
    cls = _read_class(agent["class"], at)
    pos = _read_place(agent, at)
    alive, health = _read_life(agent, classes.CLASSES[cls].max_health, at)
    cooldown = whole(
        agent.get("ultimate_cooldown", 0),
        f"{at}.ultimate_cooldown",
        0,
        classes.ULTIMATE_COOLDOWN - 1,
    )
    shield = whole(agent.get("shield", 0), f"{at}.shield", 0, classes.SHIELD_TICKS)
    ooc = whole(agent.get("out_of_combat", 0), f"{at}.out_of_combat", 0, 10**6)
    effects = _read_effects(agent.get("effects", {}), f"{at}.effects")
    if not alive:
        _check_dead_carry_nothing(shield, effects, ooc, at)
    last_action = _read_last_action(agent.get("last_action"), f"{at}.last_action")
    return _Agent(cls, pos, alive, health, cooldown, shield, ooc, effects, last_action)


def _read_class(name: Any, at: str) -> int:
    """`class`: a class name from the class table, as its number."""
    if not isinstance(name, str):
        raise FieldTypeError(f"{at}.class: expected a class name, got {name!r}"[:200])
    if name not in classes.CLASS_INDEX:
        raise ValueError(f"{at}.class: unknown class {name!r}")
    return classes.CLASS_INDEX[name]


def _read_place(agent: dict, at: str) -> tuple[int, int]:
    """`x` and `y`: the body's centre, on the 0.001 grid, with the whole body (radius 0.5)
    inside the 20 x 10 arena; in milli-units."""
    x, y = number(agent["x"], f"{at}.x"), number(agent["y"], f"{at}.y")
    if not (0.5 <= x <= 19.5):
        raise ValueError(f"{at}.x: {x} puts the body outside the arena [0.5, 19.5]")
    if not (0.5 <= y <= 9.5):
        raise ValueError(f"{at}.y: {y} puts the body outside the arena [0.5, 9.5]")
    return thousandths(x, f"{at}.x"), thousandths(y, f"{at}.y")


def _read_life(agent: dict, max_health: float, at: str) -> tuple[bool, int]:
    """`alive` (default true) and `health` (default full, or 0 when dead): a living agent
    has above 0 and at most its class's maximum, a dead one exactly 0; health in milli-HP."""
    alive = agent.get("alive", True)
    if not isinstance(alive, bool):
        raise ValueError(f"{at}.alive: expected true or false")
    hp = number(agent.get("health", max_health if alive else 0), f"{at}.health")
    if alive and not 0 < hp <= max_health:
        raise ValueError(f"{at}.health: {hp} must be above 0 and at most {max_health:g}")
    if not alive and hp != 0:
        raise ValueError(f"{at}.health: a dead agent's health is 0, got {hp}")
    return alive, thousandths(hp, f"{at}.health")


def _read_effects(raw: Any, where: str) -> tuple[int, ...]:
    """`effects`: ticks left of each named effect (default 0), at most its duration."""
    _keys(raw, set(classes.EFFECT_NAMES), set(), where)
    return tuple(
        whole(raw.get(name, 0), f"{where}.{name}", 0, classes.EFFECT_DURATION[e])
        for e, name in enumerate(classes.EFFECT_NAMES)
    )


def _check_dead_carry_nothing(shield: int, effects: tuple[int, ...], ooc: int, at: str) -> None:
    """A dead agent has no spawn shield, no effects and an out-of-combat count of 0."""
    if shield:
        raise ValueError(f"{at}.shield: a dead agent carries no shield")
    if any(effects):
        raise ValueError(f"{at}.effects: a dead agent carries no effects")
    if ooc:
        raise ValueError(f"{at}.out_of_combat: stays 0 while an agent is dead")


def _read_last_action(raw: Any, where: str) -> tuple[int, int, int]:
    """`last_action`: null (none yet, stored as -1s) or [move, target, ultimate] within the
    action heads' ranges."""
    if raw is None:
        return -1, -1, -1
    if not isinstance(raw, list) or len(raw) != 3:
        raise ValueError(f"{where}: expected [move, target, ultimate] or null")
    return (
        whole(raw[0], f"{where}[0]", 0, NUM_MOVES - 1),
        whole(raw[1], f"{where}[1]", 0, NUM_TARGETS - 1),
        whole(raw[2], f"{where}[2]", 0, 1),
    )


def _slot_arrays(teams: list[_Team]) -> dict[str, np.ndarray]:
    """The teams as State's team and per-slot fields: team t's agent k fills slot
    t * TEAM_SIZE + k; empty slots are absent, dead and zero (last action -1)."""
    present = np.zeros(NUM_SLOTS, bool)
    empty = _Agent(0, (0, 0), False, 0, 0, 0, 0, (0,) * classes.NUM_EFFECTS, (-1, -1, -1))
    agents = [empty] * NUM_SLOTS
    for t, team in enumerate(teams):
        for k, agent in enumerate(team.agents):
            present[t * TEAM_SIZE + k] = True
            agents[t * TEAM_SIZE + k] = agent
    per_slot = {f: np.asarray([getattr(a, f) for a in agents], np.int32) for f in _Agent._fields}
    per_slot["alive"] = per_slot["alive"].astype(bool)
    return {
        "spawn_end": np.asarray([team.spawn_end for team in teams], np.int32),
        "wave_clock": np.asarray([team.wave_clock for team in teams], np.int32),
        "present": present,
        **per_slot,
    }


def _check_bodies(slots: dict[str, np.ndarray], m: MapArrays) -> None:
    """Bodies: no living body inside an obstacle; living unshielded bodies may touch but
    not overlap (a shielded body neither blocks nor is blocked by bodies)."""
    pos, living = slots["pos"], slots["present"] & slots["alive"]
    inside = body_overlap(np, pos, m).any
    for i in np.flatnonzero(living & inside):
        raise ValueError(f"{_agent_where(i)}: the body overlaps an obstacle")
    close = overlapping_pairs(np, pos, living & (slots["shield"] == 0))
    if close.any():
        i, j = np.argwhere(close)[0]
        raise ValueError(f"{_agent_where(j)}: the body overlaps {_agent_where(i)}")


def _agent_where(i: int) -> str:
    """Slot i as its field path, `teams[t].agents[k]`."""
    return f"teams[{i // TEAM_SIZE}].agents[{i % TEAM_SIZE}]"


def _result_of(score: list[int], win: int, tick: int, horizon: int) -> int:
    """The result the score and clock imply: a side at the winning score wins (equal scores
    draw); otherwise a draw at the horizon, else the game is open."""
    if max(score) >= win:
        if score[0] == score[1]:
            return RESULT_DRAW
        return RESULT_A if score[0] > score[1] else RESULT_B
    return RESULT_DRAW if tick >= horizon else RESULT_OPEN


def _from_milli(milli: Any) -> float:
    """Thousandths back to a plain number (3100 -> 3.1)."""
    return int(milli) / MILLI


def position_dict(state: State, map_ref: Any) -> dict:
    """Write a state as a position with every field spelled out.

    Empty slots are left out; `parse_position` reads the document back to the same state
    for every present agent.

    Args:
        state: The engine's `State` (NumPy or JAX arrays; one game).
        map_ref: The map as the position names it: an id, or `{"obstacles": [...]}`.

    Returns:
        A `marl-bgs/position` dict (version 1) of plain JSON values, map units and health
            points as numbers, every optional field present.
    """
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
                    "class": classes.CLASS_NAMES[int(s.cls[i])],
                    "x": _from_milli(s.pos[i, 0]),
                    "y": _from_milli(s.pos[i, 1]),
                    "health": _from_milli(s.health[i]),
                    "alive": bool(s.alive[i]),
                    "ultimate_cooldown": int(s.ultimate_cooldown[i]),
                    "shield": int(s.shield[i]),
                    "out_of_combat": int(s.out_of_combat[i]),
                    "effects": {
                        n: int(s.effects[i, e]) for e, n in enumerate(classes.EFFECT_NAMES)
                    },
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
        "red_zone_depth": _from_milli(s.red_zone_depth),
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
    """A fresh game: every agent on its slot's spawn pad, full health, Ultimates ready.

    The document is not checked here: `Game`, `reset_to` and `parse_position` check it
    when they read it, naming any field that is wrong.

    Args:
        map_ref: A map id, or `{"obstacles": [...]}` for an inline map.
        rosters: Each team's class names, 1 to 5 of them, in slot order.
        spawn_ends: Team a's and team b's ends, `"left"` and `"right"` in some order.
        horizon: Ticks before an open game ends as a draw.
        winning_score: Points that win the game.
        red_zone_depth: Depth of each end's Red Zone in map units.

    Returns:
        A `marl-bgs/position` dict (version 1) at tick 0 with the score 0-0.

    Raises:
        ValueError: `rosters` or `spawn_ends` not two long.
    """
    from .state import PAD_X, PAD_Y

    teams = []
    for roster, end in zip(rosters, spawn_ends, strict=True):
        x = PAD_X[SPAWN_END_NAMES.index(end)] if end in SPAWN_END_NAMES else end
        agents = [{"class": c, "x": x, "y": PAD_Y[k]} for k, c in enumerate(roster)]
        teams.append({"spawn_end": end, "wave_clock": classes.RESPAWN_PERIOD, "agents": agents})
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
