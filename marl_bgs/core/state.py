"""Fixed-shape game state and map arrays shared by the NumPy and JAX engines.

Every game has ten agent slots (team 0 holds slots 0-4, team 1 slots 5-9) and a padded list
of obstacles, so rosters and maps are values, never shapes.

Lengths and health are whole numbers of thousandths (milli-units, milli-HP). Integer
arithmetic is exact on every backend, while float32 code is not: XLA fuses multiply-adds and
reorders constant products, so float results drift by an ulp between NumPy and JAX and a
drifted position eventually flips a rule. With integers both engines play the same game.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import classes
from .types import Array, Namespace

NUM_TEAMS = 2
TEAM_SIZE = 5
NUM_SLOTS = NUM_TEAMS * TEAM_SIZE
# Agent names by slot: "a0".."a4" for team a, "b0".."b4" for team b.
AGENT_NAMES = tuple(f"{'ab'[i // TEAM_SIZE]}{i % TEAM_SIZE}" for i in range(NUM_SLOTS))
MAX_OBSTACLES = 32
MAX_TURNED_WALLS = 8  # turned walls (not square to the axes) per map, and the room made for them
MILLI = 1000  # state units per map unit and per health point
ARENA_WIDTH = 20.0
ARENA_HEIGHT = 10.0
# The arena in state units: x runs over [0, ARENA_WIDTH_MILLI], y over [0, ARENA_HEIGHT_MILLI].
ARENA_WIDTH_MILLI = round(ARENA_WIDTH * MILLI)
ARENA_HEIGHT_MILLI = round(ARENA_HEIGHT * MILLI)
PAD_X = (0.5, 19.5)  # spawn pad x for the left and right ends
PAD_Y = (1.0, 3.0, 5.0, 7.0, 9.0)
LEFT, RIGHT = 0, 1
SPAWN_END_NAMES = ("left", "right")


RESULT_OPEN, RESULT_A, RESULT_B, RESULT_DRAW = -1, 0, 1, 2
RESULT_NAMES = {RESULT_OPEN: None, RESULT_A: "a", RESULT_B: "b", RESULT_DRAW: "draw"}


class MapArrays(NamedTuple):
    """Obstacles in milli-units, in two groups with cheap exact tests each.

    Boxes are pillars (a point grown by a radius) and walls that stand square to the axes (a
    rectangle, radius 0): both are "a rectangle grown by a radius", tested with a few integer
    operations. Walls at any other angle are convex polygons (four corners, counter-clockwise),
    rounded to whole milli-units once, on the host, so both engines see the same shape. Each
    group is padded to a size fixed per compiled program: maps are values, not shapes.
    """

    box_lo: Array  # (B, 2) int32 lower-left corner (a pillar's centre)
    box_hi: Array  # (B, 2) int32 upper-right corner (a pillar's centre)
    box_radius: Array  # (B,) int32 (pillars; 0 for walls)
    box_valid: Array  # (B,) bool
    poly_corners: Array  # (P, 4, 2) int32
    poly_valid: Array  # (P,) bool
    # The same boxes split by shape, for the sight test (order does not matter there, and
    # a circle or a rectangle alone is a cheaper test than "a rectangle grown by a radius").
    pillar_centre: Array  # (Q, 2) int32 boxes with a radius
    pillar_radius: Array  # (Q,) int32
    pillar_valid: Array  # (Q,) bool
    rect_lo: Array  # (S, 2) int32 boxes without a radius (walls square to the axes)
    rect_hi: Array  # (S, 2) int32
    rect_valid: Array  # (S,) bool


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


def exact_corners(ob: dict, grow: float = 0.0) -> np.ndarray:
    """A wall's four corners in milli-units as float64, counter-clockwise, unrounded; with
    `grow`, those of the wall widened by that many milli-units on every side."""
    cx, cy = float(ob["x"]), float(ob["y"])
    hx, hy = (ob["width"] + 2 * grow / MILLI) / 2.0, (ob["height"] + 2 * grow / MILLI) / 2.0
    theta = float(ob.get("theta", 0.0))
    c, s = np.cos(theta), np.sin(theta)
    local = ((-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy))
    return np.asarray([(cx + c * lx - s * ly, cy + s * lx + c * ly) for lx, ly in local]) * MILLI


def wall_corners(ob: dict) -> np.ndarray:
    """A wall's four corners in milli-units (int32), counter-clockwise: each rounded to the
    nearest thousandth (what a wall square to the axes is tested by), see `turned_corners`
    for walls at other angles."""
    return np.rint(exact_corners(ob)).astype(np.int32)


def _inside_all(poly: np.ndarray, points: np.ndarray) -> bool:
    """Whether every point lies inside the convex counter-clockwise polygon `poly` or
    within 1e-6 of a thousandth outside it (float64 rounding of the exact corners)."""
    a, b = poly, np.roll(poly, -1, axis=0)
    e = b - a
    w = points[None, :, :] - a[:, None, :]
    orient = e[:, None, 0] * w[..., 1] - e[:, None, 1] * w[..., 0]
    return bool(np.all(orient >= -1e-6 * np.hypot(e[:, 0], e[:, 1])[:, None]))


def turned_corners(ob: dict) -> np.ndarray:
    """A turned wall's four corners on the milli grid (int32, counter-clockwise): those of
    the wall widened on every side by the least multiple of 0.00025 for which, rounded to the
    nearest thousandth, they hold the exact wall.

    The grid shape then holds the wall the map describes, so a body that the engine finds
    touching it or clear of it overlaps no part of the real wall (RULES.md: no living agent
    may overlap an obstacle), at the cost of meeting it up to about 0.002 early (rounding
    moves a corner at most 0.0007, so a widening of 0.00075 always holds it)."""
    exact = exact_corners(ob)
    for step in range(12):
        corners = np.rint(exact_corners(ob, grow=step / 4))
        if _inside_all(corners, exact):
            return corners.astype(np.int32)
    raise ValueError(f"wall at ({ob['x']}, {ob['y']}): no grid shape holds it")


def obstacle_groups(obstacles: list[dict]) -> tuple[list, list]:
    """Split obstacles into boxes (lo, hi, radius) and turned walls (corners)."""
    boxes, polys = [], []
    for ob in obstacles:
        if ob["kind"] == "pillar":
            c = (to_milli(ob["x"]), to_milli(ob["y"]))
            boxes.append((c, c, to_milli(ob["radius"])))
            continue
        corners = wall_corners(ob)
        xs, ys = np.unique(corners[:, 0]), np.unique(corners[:, 1])
        if len(xs) == 2 and len(ys) == 2:  # square to the axes once on the grid
            boxes.append((tuple(corners.min(axis=0)), tuple(corners.max(axis=0)), 0))
        else:
            polys.append(turned_corners(ob))
    return boxes, polys


def map_arrays(
    obstacles: list[dict],
    boxes: int | None = None,
    polys: int | None = None,
    pillars: int | None = None,
    rects: int | None = None,
) -> MapArrays:
    """Pack validated obstacle dicts into padded integer arrays (host side, NumPy).

    `boxes` and `polys` fix the padded sizes (a program compiled for them serves every map
    that fits), as do `pillars` and `rects` for the boxes split by shape; by default each
    group is as large as this map needs, and at least 1.
    """
    if len(obstacles) > MAX_OBSTACLES:
        raise ValueError(f"map: {len(obstacles)} obstacles, at most {MAX_OBSTACLES} allowed")
    box_list, poly_list = obstacle_groups(obstacles)
    pillar_list = [b for b in box_list if b[2] > 0]
    rect_list = [b for b in box_list if b[2] == 0]
    room = {}
    for name, items, asked, what in (
        ("boxes", box_list, boxes, "pillars and square walls"),
        ("polys", poly_list, polys, "turned walls"),
        ("pillars", pillar_list, pillars, "pillars"),
        ("rects", rect_list, rects, "square walls"),
    ):
        room[name] = max(len(items), 1) if asked is None else asked
        if len(items) > room[name]:
            raise ValueError(f"map: {len(items)} {what}, room for {room[name]}")
    far = -10 * MILLI  # padding sits far outside the arena and is masked out as well

    def pack_boxes(items: list, size: int) -> tuple[np.ndarray, ...]:
        lo = np.full((size, 2), far, np.int32)
        hi = np.full((size, 2), far, np.int32)
        radius = np.zeros(size, np.int32)
        for i, (a, b, r) in enumerate(items):
            lo[i], hi[i], radius[i] = a, b, r
        return lo, hi, radius, np.arange(size) < len(items)

    lo, hi, radius, box_valid = pack_boxes(box_list, room["boxes"])
    centre, _, pillar_radius, pillar_valid = pack_boxes(pillar_list, room["pillars"])
    rect_lo, rect_hi, _, rect_valid = pack_boxes(rect_list, room["rects"])
    corners = np.full((room["polys"], 4, 2), far, np.int32)
    for i, cs in enumerate(poly_list):
        corners[i] = cs
    poly_valid = np.arange(room["polys"]) < len(poly_list)
    return MapArrays(
        lo, hi, radius, box_valid, corners, poly_valid,
        centre, pillar_radius, pillar_valid, rect_lo, rect_hi, rect_valid,
    )  # fmt: skip


def team_of_slot() -> np.ndarray:
    return np.repeat(np.arange(NUM_TEAMS, dtype=np.int32), TEAM_SIZE)


PAD_MILLI = np.asarray(
    [[[to_milli(x), to_milli(y)] for y in PAD_Y] for x in PAD_X], np.int32
)  # (end, pad, 2)


def pad_positions(spawn_end: Array, xp: Namespace = np) -> Array:
    """Spawn pad of every slot given each team's spawn end, shape (10, 2) milli-units."""
    pads = xp.asarray(PAD_MILLI)[spawn_end]  # (2, 5, 2)
    return pads.reshape(NUM_SLOTS, 2)


def fresh_state(
    xp: Namespace,
    cls: Array,
    present: Array,
    spawn_end: Array,
    horizon: Array,
    winning_score: Array,
    red_zone_depth: Array,
) -> State:
    """A game before its first tick: every present agent alive on its slot's spawn pad at
    full health, Ultimate ready, no shield or effects; tick 0, score 0-0, both wave clocks
    full. The one recipe for a new game (the env builds every game so; a position written
    by `position.starting_position` parses to the same present agents).

    Args:
        xp: `numpy` or `jax.numpy`.
        cls: int32 `(10,)` class ids per slot (0 for an empty slot).
        present: bool `(10,)`, the slot is used by the roster.
        spawn_end: int32 `(2,)`, each team's end (`LEFT` or `RIGHT`).
        horizon: Whole number of ticks.
        winning_score: Whole number of points.
        red_zone_depth: Milli-units.

    Returns:
        The `State` (empty slots sit on their pads too, dead and at zero health).
    """
    return State(
        tick=xp.asarray(0, xp.int32),
        horizon=xp.asarray(horizon, xp.int32),
        winning_score=xp.asarray(winning_score, xp.int32),
        red_zone_depth=xp.asarray(red_zone_depth, xp.int32),
        score=xp.zeros(2, xp.int32),
        spawn_end=spawn_end,
        wave_clock=xp.full(2, classes.RESPAWN_PERIOD, xp.int32),
        result=xp.asarray(RESULT_OPEN, xp.int32),
        present=present,
        alive=present,
        cls=cls,
        pos=pad_positions(spawn_end, xp),
        health=xp.where(present, xp.asarray(classes.MAX_HEALTH_MILLI)[cls], 0),
        ultimate_cooldown=xp.zeros(NUM_SLOTS, xp.int32),
        shield=xp.zeros(NUM_SLOTS, xp.int32),
        out_of_combat=xp.zeros(NUM_SLOTS, xp.int32),
        effects=xp.zeros((NUM_SLOTS, classes.NUM_EFFECTS), xp.int32),
        last_action=xp.full((NUM_SLOTS, 3), -1, xp.int32),
    )
