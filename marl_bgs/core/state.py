"""Fixed-shape game state and map arrays shared by the NumPy and JAX engines.

Every game has ten agent slots (team 0 holds slots 0-4, team 1 slots 5-9) and a padded list
of obstacles, so rosters and maps are values, never shapes.

Lengths and health are whole numbers of thousandths (milli-units, milli-HP). Integer
arithmetic is exact on every backend, while float32 code is not: XLA fuses multiply-adds and
reorders constant products, so float results drift by an ulp between NumPy and JAX and a
drifted position eventually flips a rule. With integers both engines play the same game.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .classes import NUM_EFFECTS

NUM_TEAMS = 2
TEAM_SIZE = 5
NUM_SLOTS = NUM_TEAMS * TEAM_SIZE
MAX_OBSTACLES = 32
MILLI = 1000  # state units per map unit and per health point
ARENA_WIDTH = 20.0
ARENA_HEIGHT = 10.0
PAD_X = (0.5, 19.5)  # spawn pad x for the left and right ends
PAD_Y = (1.0, 3.0, 5.0, 7.0, 9.0)
LEFT, RIGHT = 0, 1
SPAWN_END_NAMES = ("left", "right")

OBSTACLE_NONE, OBSTACLE_PILLAR, OBSTACLE_WALL = 0, 1, 2

RESULT_OPEN, RESULT_A, RESULT_B, RESULT_DRAW = -1, 0, 1, 2
RESULT_NAMES = {RESULT_OPEN: None, RESULT_A: "a", RESULT_B: "b", RESULT_DRAW: "draw"}

Array = Any  # a NumPy or JAX array


class MapArrays(NamedTuple):
    """Obstacles padded to MAX_OBSTACLES, in milli-units.

    A pillar is a centre and a radius; a wall is its four corners in counter-clockwise order,
    rounded to whole milli-units once, on the host, so both engines see the same polygon.
    """

    kind: Array  # (K,) int32 OBSTACLE_*
    center: Array  # (K, 2) int32
    radius: Array  # (K,) int32 (pillars)
    corners: Array  # (K, 4, 2) int32 (walls)


class State(NamedTuple):
    """One game between two teams, everything explicit so a tick is a pure function."""

    tick: Array  # () int32 ticks played so far
    horizon: Array  # () int32
    winning_score: Array  # () int32
    red_zone_depth: Array  # () int32 milli-units
    score: Array  # (2,) int32
    spawn_end: Array  # (2,) int32, LEFT or RIGHT per team
    wave_clock: Array  # (2,) int32 ticks until the team's next respawn wave
    result: Array  # () int32, RESULT_* code
    present: Array  # (10,) bool slot used by the roster
    alive: Array  # (10,) bool
    cls: Array  # (10,) int32 class id
    pos: Array  # (10, 2) int32 milli-units
    health: Array  # (10,) int32 milli-HP
    ultimate_cooldown: Array  # (10,) int32 ticks until the Ultimate is ready
    shield: Array  # (10,) int32 spawn-shield ticks left
    out_of_combat: Array  # (10,) int32 ticks since last in combat
    effects: Array  # (10, NUM_EFFECTS) int32 ticks left of each effect
    last_action: Array  # (10, 3) int32 accepted [move, target, ultimate], -1 for none


def to_milli(value: float) -> int:
    return int(round(value * MILLI))


def map_arrays(obstacles: list[dict]) -> MapArrays:
    """Pack validated obstacle dicts into padded integer arrays (host side, NumPy)."""
    if len(obstacles) > MAX_OBSTACLES:
        raise ValueError(f"map: {len(obstacles)} obstacles, at most {MAX_OBSTACLES} allowed")
    k = MAX_OBSTACLES
    kind = np.zeros(k, np.int32)
    center = np.full((k, 2), -10 * MILLI, np.int32)  # padding sits far outside the arena
    radius = np.zeros(k, np.int32)
    corners = np.full((k, 4, 2), -10 * MILLI, np.int32)
    for i, ob in enumerate(obstacles):
        cx, cy = float(ob["x"]), float(ob["y"])
        center[i] = (to_milli(cx), to_milli(cy))
        if ob["kind"] == "pillar":
            kind[i] = OBSTACLE_PILLAR
            radius[i] = to_milli(ob["radius"])
            corners[i] = center[i]
        else:
            kind[i] = OBSTACLE_WALL
            hx, hy = ob["width"] / 2.0, ob["height"] / 2.0
            theta = float(ob.get("theta", 0.0))
            c, s = np.cos(theta), np.sin(theta)
            for j, (lx, ly) in enumerate(((-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy))):
                corners[i, j] = (to_milli(cx + c * lx - s * ly), to_milli(cy + s * lx + c * ly))
    return MapArrays(kind, center, radius, corners)


def team_of_slot() -> np.ndarray:
    return np.repeat(np.arange(NUM_TEAMS, dtype=np.int32), TEAM_SIZE)


PAD_MILLI = np.asarray(
    [[[to_milli(x), to_milli(y)] for y in PAD_Y] for x in PAD_X], np.int32
)  # (end, pad, 2)


def pad_positions(spawn_end: Array, xp: Any = np) -> Array:
    """Spawn pad of every slot given each team's spawn end, shape (10, 2) milli-units."""
    pads = xp.asarray(PAD_MILLI)[spawn_end]  # (2, 5, 2)
    return pads.reshape(NUM_SLOTS, 2)


def to_numpy(state: State) -> State:
    return State(*(np.asarray(x) for x in state))


def empty_effects() -> np.ndarray:
    return np.zeros((NUM_SLOTS, NUM_EFFECTS), np.int32)
