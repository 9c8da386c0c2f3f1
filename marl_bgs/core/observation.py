"""What each agent observes: a fixed-width, role-based vector in its own frame.

Every agent sees the game as if its own spawn end were on the left (x is mirrored for agents
of the right end, and so are compass moves), and other agents by role: itself first, then its
allies, then its enemies, each group in slot order. An enemy's row is filled only while the
agent's team sees it (sight radius and line, spawn shields hide); everything else is public:
the map, the clock, scores, team sizes, the winning score, the Red Zone depth and both wave
clocks. `OBS_FIELDS` lists the layout; the docs print it from there.

Every number lies in [OBS_LOW, OBS_HIGH] at any setting the engines accept: the game block's
settings are squashed into [0, 1] (horizon h as h / (h + HORIZON_HALF), winning score w as
w / (w + WINNING_SCORE_HALF), points capped at the winning score) rather than divided by fixed
constants, which a horizon of 100,000 or a winning score of 1 left far outside any range.
Both engines (`marl_bgs.env` and `marl_bgs.game`) build observations here, so they agree.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from . import classes
from .actions import NUM_MOVES, compass_move
from .sight import CODE_TO_SLOT, TEAM, Sight
from .state import (
    ARENA_HEIGHT_MILLI,
    ARENA_WIDTH_MILLI,
    LEFT,
    MAX_OBSTACLES,
    MAX_TURNED_WALLS,
    MILLI,
    NUM_SLOTS,
    TEAM_SIZE,
    MapArrays,
    State,
)
from .types import Array, Namespace

# Declared bounds of every observation number. The features lie in about [-1, 1.12] (offsets
# from self reach -1, distances sqrt(1.25)); the margin leaves room for obstacles authored
# slightly past the arena's edge.
OBS_LOW, OBS_HIGH = -2.0, 2.0
HORIZON_HALF = 1000  # the horizon whose feature is 0.5
WINNING_SCORE_HALF = 100  # the winning score whose feature is 0.5
F32 = np.float32
# Positions in state units to [0, 1].
SCALE_X, SCALE_Y = F32(1.0 / ARENA_WIDTH_MILLI), F32(1.0 / ARENA_HEIGHT_MILLI)


def _rows() -> tuple[np.ndarray, np.ndarray]:
    """ROW_SLOT[i, r]: the global slot shown in observer i's row r; SLOT_ROW is its inverse."""
    row_slot = np.zeros((NUM_SLOTS, NUM_SLOTS), np.int32)
    for i in range(NUM_SLOTS):
        team = TEAM[i]
        allies = [team * TEAM_SIZE + k for k in range(TEAM_SIZE) if team * TEAM_SIZE + k != i]
        enemies = [(1 - team) * TEAM_SIZE + k for k in range(TEAM_SIZE)]
        row_slot[i] = [i, *allies, *enemies]
    slot_row = np.argsort(row_slot, axis=1).astype(np.int32)
    return row_slot, slot_row


ROW_SLOT, SLOT_ROW = _rows()


# The layout, one table per block: each field's name, width and how it is computed from
# the observer's rows (`u`, see `observations`) or from the game (`g`). The builder
# concatenates the pieces in this order; widths, offsets, the docs page and the readers
# (`systems.percept`, `llm.view`) all come from these tables.
def _col(values: Array) -> tuple[Array, ...]:
    return (values.astype(F32),)


UNIT_TABLE: tuple[tuple[str, int, Callable[[Any], tuple[Any, ...]]], ...] = (
    ("present", 1, lambda u: _col(u.per_row(u.state.present))),
    ("known", 1, lambda u: _col(u.known)),
    ("alive", 1, lambda u: _col(u.per_row(u.living))),
    ("class", len(classes.CLASSES), lambda u: (u.onehot(u.cls, len(classes.CLASSES)),)),
    ("position", 2, lambda u: (u.x.astype(F32) * SCALE_X, u.y.astype(F32) * SCALE_Y)),
    ("offset_from_self", 2, lambda u: (u.dx, u.dy)),
    ("distance", 1, lambda u: (u.dist,)),
    ("health_share", 1, lambda u: (u.health / u.max_hp.astype(F32),)),
    ("health", 1, lambda u: (u.health * F32(1.0 / (200 * MILLI)),)),
    ("shield", 1, lambda u: (u.per_row(u.state.shield).astype(F32) * F32(1.0 / classes.SHIELD_TICKS),)),
    ("effects", classes.NUM_EFFECTS, lambda u: (u.per_row(u.state.effects).astype(F32) / u.durations,)),
    ("ultimate_cooldown", 1, lambda u: (u.cooldown.astype(F32) * F32(1.0 / classes.ULTIMATE_COOLDOWN),)),
    ("ultimate_ready", 1, lambda u: _col(u.cooldown == 0)),
    ("out_of_combat", 1, lambda u: (
        u.xp.minimum(u.per_row(u.state.out_of_combat), OOC_CAP).astype(F32) * F32(1.0 / OOC_CAP),
    )),
    ("in_own_sight", 1, lambda u: _col(u.own_sight)),
    ("in_home_red_zone", 1, lambda u: _col(u.home)),
    ("has_last_action", 1, lambda u: _col(u.has_last)),
    ("last_move", NUM_MOVES, lambda u: (u.onehot(u.move, NUM_MOVES) * u.has_last[..., None],)),
    ("last_target_row", NUM_SLOTS + 1, lambda u: (
        u.onehot(u.target_row, NUM_SLOTS + 1) * u.has_last[..., None],
    )),
    ("last_ultimate", 1, lambda u: _col(u.last[..., 2] == 1)),
)  # fmt: skip
GLOBAL_TABLE: tuple[tuple[str, int, Callable[[Any], Any]], ...] = (
    ("tick_share", 1, lambda g: g.every(g.state.tick.astype(F32) / g.horizon)),
    ("horizon", 1, lambda g: g.every(g.horizon / (g.horizon + F32(HORIZON_HALF)))),
    ("own_score", 1, lambda g: g.points[g.own]),
    ("enemy_score", 1, lambda g: g.points[g.other]),
    ("winning_score", 1, lambda g: g.every(g.win / (g.win + F32(WINNING_SCORE_HALF)))),
    ("own_team_size", 1, lambda g: g.sizes[g.own].astype(F32) * F32(1.0 / TEAM_SIZE)),
    ("enemy_team_size", 1, lambda g: g.sizes[g.other].astype(F32) * F32(1.0 / TEAM_SIZE)),
    ("red_zone_depth", 1, lambda g: g.every(
        g.state.red_zone_depth.astype(F32) * F32(1.0 / ARENA_HEIGHT_MILLI)
    )),
    ("own_wave_clock", 1, lambda g: g.state.wave_clock[g.own].astype(F32)
     * F32(1.0 / classes.RESPAWN_PERIOD)),
    ("enemy_wave_clock", 1, lambda g: g.state.wave_clock[g.other].astype(F32)
     * F32(1.0 / classes.RESPAWN_PERIOD)),
)  # fmt: skip
UNIT_FIELDS: tuple[tuple[str, int], ...] = tuple((n, w) for n, w, _ in UNIT_TABLE)
GLOBAL_FIELDS: tuple[tuple[str, int], ...] = tuple((n, w) for n, w, _ in GLOBAL_TABLE)
BOX_FIELDS: tuple[tuple[str, int], ...] = (("valid", 1), ("low", 2), ("high", 2), ("radius", 1))
WALL_FIELDS: tuple[tuple[str, int], ...] = (("valid", 1), ("corners", 8))
OOC_CAP = 10  # ticks out of combat are shown up to this many (then 1.0)
UNIT_WIDTH = sum(n for _, n in UNIT_FIELDS)
GLOBAL_WIDTH = sum(n for _, n in GLOBAL_FIELDS)
BOX_WIDTH = sum(n for _, n in BOX_FIELDS)
WALL_WIDTH = sum(n for _, n in WALL_FIELDS)
OBS_WIDTH = (
    NUM_SLOTS * UNIT_WIDTH
    + GLOBAL_WIDTH
    + MAX_OBSTACLES * BOX_WIDTH
    + MAX_TURNED_WALLS * WALL_WIDTH
)
GAME_START = NUM_SLOTS * UNIT_WIDTH  # where the blocks start in the vector
BOX_START = GAME_START + GLOBAL_WIDTH
WALL_START = BOX_START + MAX_OBSTACLES * BOX_WIDTH


def field_slices(fields: tuple[tuple[str, int], ...]) -> dict[str, slice]:
    """Each field's place inside its block (a unit row, the game block, a box or a wall)."""
    out, at = {}, 0
    for name, width in fields:
        out[name] = slice(at, at + width)
        at += width
    return out


UNIT_SLICES = field_slices(UNIT_FIELDS)
GLOBAL_SLICES = field_slices(GLOBAL_FIELDS)
BOX_SLICES = field_slices(BOX_FIELDS)
WALL_SLICES = field_slices(WALL_FIELDS)


def obs_layout() -> list[dict]:
    """Blocks of the observation vector in order: name, offset, width, and what it holds."""
    blocks, offset = [], 0
    for r in range(NUM_SLOTS):
        role = "self" if r == 0 else ("ally" if r < TEAM_SIZE else "enemy")
        index = r - 1 if role == "ally" else (r - TEAM_SIZE if role == "enemy" else 0)
        for name, width in UNIT_FIELDS:
            blocks.append({"block": f"unit {r} ({role} {index})", "field": name,
                           "offset": offset, "width": width})  # fmt: skip
            offset += width
    for name, width in GLOBAL_FIELDS:
        blocks.append({"block": "game", "field": name, "offset": offset, "width": width})
        offset += width
    for b in range(MAX_OBSTACLES):
        for name, width in BOX_FIELDS:
            blocks.append({"block": f"box {b}", "field": name, "offset": offset, "width": width})
            offset += width
    for w in range(MAX_TURNED_WALLS):
        for name, width in WALL_FIELDS:
            blocks.append({"block": f"turned wall {w}", "field": name, "offset": offset,
                           "width": width})  # fmt: skip
            offset += width
    assert offset == OBS_WIDTH
    return blocks


def frame_x(xp: Namespace, x: Array, end: Array) -> Array:
    """x in the frame of an agent whose spawn end is `end` (mirrored for the right end)."""
    return xp.where(end == LEFT, x, ARENA_WIDTH_MILLI - x)


def observations(xp: Namespace, state: State, m: MapArrays, sight: Sight) -> Array:
    """Every slot's observation, shape (10, OBS_WIDTH) float32, each number in
    [OBS_LOW, OBS_HIGH] (absent slots see the game too): the unit rows, the game block and
    the map, in each observer's frame."""
    team = xp.asarray(TEAM)
    end = state.spawn_end[team]  # (10,) each observer's spawn end
    unit = unit_block(xp, state, sight, team, end)
    game = game_block(xp, state, team)
    return xp.concatenate([unit, game, map_view(xp, m, end)], axis=-1)


def unit_rows(
    xp: Namespace, state: State, sight: Sight, team: Array, end: Array
) -> SimpleNamespace:
    """What `UNIT_TABLE` reads, per (observer, row): row r of observer i shows slot
    ROW_SLOT[i, r] (itself, its allies, its enemies), x in the observer's frame."""
    rows = xp.asarray(ROW_SLOT)  # (10 observers, 10 rows) -> slot
    living = state.present & state.alive
    same = team[:, None] == team[None, :]
    known = xp.where(same, state.present[None, :], sight.team_sees)  # (obs, slot)
    known_r = xp.take_along_axis(known, rows, axis=1)

    def per_row(values):  # (10, ...) per slot -> (obs, row, ...)
        return values[rows]

    ox = frame_x(xp, state.pos[:, 0][None, :], end[:, None])  # (obs, slot)
    ox_r = xp.take_along_axis(ox, rows, axis=1)
    y_r = per_row(state.pos[:, 1])
    self_x, self_y = ox_r[:, :1], y_r[:, :1]
    dx = (ox_r - self_x).astype(F32) * SCALE_X
    dy = (y_r - self_y).astype(F32) * SCALE_X
    cls = per_row(state.cls)
    depth = state.red_zone_depth
    own_side = per_row(team) == team[:, None]
    last = per_row(state.last_action)  # (obs, row, 3)
    target_slot = xp.asarray(CODE_TO_SLOT)[rows, xp.maximum(last[..., 1], 0)]
    return SimpleNamespace(
        xp=xp,
        state=state,
        per_row=per_row,
        living=living,
        known=known_r,
        cls=cls,
        x=ox_r,
        y=y_r,
        dx=dx,
        dy=dy,
        dist=xp.sqrt(dx * dx + dy * dy),
        health=per_row(state.health).astype(F32),
        max_hp=xp.asarray(classes.MAX_HEALTH_MILLI)[cls],
        durations=xp.asarray(np.asarray(classes.EFFECT_DURATION, np.float32)),
        cooldown=per_row(state.ultimate_cooldown),
        home=xp.where(own_side, ox_r <= depth, ox_r >= ARENA_WIDTH_MILLI - depth),
        own_sight=xp.take_along_axis(
            sight.own_sight | xp.asarray(np.eye(NUM_SLOTS, dtype=bool)), rows, axis=1
        ),
        last=last,
        has_last=last[..., 0] >= 0,
        move=compass_move(xp, xp.maximum(last[..., 0], 0), end[:, None]),
        target_row=xp.where(
            target_slot >= 0,
            xp.asarray(SLOT_ROW)[xp.arange(NUM_SLOTS)[:, None], xp.maximum(target_slot, 0)] + 1,
            0,
        ),
        onehot=lambda v, n: (v[..., None] == xp.arange(n)).astype(F32),
    )


def unit_block(xp: Namespace, state: State, sight: Sight, team: Array, end: Array) -> Array:
    """(10, NUM_SLOTS * UNIT_WIDTH): each observer's rows, `UNIT_TABLE` field by field; a
    row its team does not know is zero but for the `present` column."""
    u = unit_rows(xp, state, sight, team, end)
    pieces = []
    for name, width, compute in UNIT_TABLE:
        parts = [p[..., None] if p.ndim == 2 else p for p in compute(u)]
        assert sum(p.shape[-1] for p in parts) == width, name
        pieces += parts
    unit = xp.concatenate(pieces, axis=-1)
    unit = xp.where(u.known[..., None] | (xp.arange(UNIT_WIDTH) < 1), unit, F32(0.0))
    return unit.reshape(NUM_SLOTS, NUM_SLOTS * UNIT_WIDTH)


def game_block(xp: Namespace, state: State, team: Array) -> Array:
    """(10, GLOBAL_WIDTH): the public facts of the game, `GLOBAL_TABLE` field by field, with
    own and enemy read from each observer's team."""
    horizon = state.horizon.astype(F32)
    win = state.winning_score.astype(F32)
    g = SimpleNamespace(
        state=state,
        horizon=horizon,
        win=win,
        # A position may hold a few points past the winning score (the tick that won): capped.
        points=xp.minimum(state.score, state.winning_score).astype(F32) / win,  # (2,)
        sizes=xp.stack([xp.sum(state.present[:TEAM_SIZE]), xp.sum(state.present[TEAM_SIZE:])]),
        own=team,
        other=1 - team,
        every=lambda value: xp.broadcast_to(value, (NUM_SLOTS,)),
    )
    return xp.stack([compute(g) for _, _, compute in GLOBAL_TABLE], axis=-1)


def map_view(xp: Namespace, m: MapArrays, end: Array) -> Array:
    """The obstacles in each observer's frame, (10, boxes and turned walls), padded."""
    mirrored = (end != LEFT)[:, None]
    lo_x = xp.where(mirrored, ARENA_WIDTH_MILLI - m.box_hi[None, :, 0], m.box_lo[None, :, 0])
    hi_x = xp.where(mirrored, ARENA_WIDTH_MILLI - m.box_lo[None, :, 0], m.box_hi[None, :, 0])
    sx, sy = SCALE_X, SCALE_Y
    valid = xp.broadcast_to(m.box_valid[None, :], lo_x.shape)
    box = xp.stack(
        [
            valid.astype(F32),
            lo_x.astype(F32) * sx,
            xp.broadcast_to(m.box_lo[None, :, 1], lo_x.shape).astype(F32) * sy,
            hi_x.astype(F32) * sx,
            xp.broadcast_to(m.box_hi[None, :, 1], lo_x.shape).astype(F32) * sy,
            xp.broadcast_to(m.box_radius[None, :], lo_x.shape).astype(F32) * sx,
        ],
        axis=-1,
    )
    box = xp.where(valid[..., None], box, F32(0.0))
    pad_b = MAX_OBSTACLES - m.box_lo.shape[0]
    box = xp.concatenate([box, xp.zeros((NUM_SLOTS, pad_b, BOX_WIDTH), F32)], axis=1)
    cx = xp.where(
        mirrored[..., None],
        ARENA_WIDTH_MILLI - m.poly_corners[None, :, :, 0],
        m.poly_corners[None, :, :, 0],
    )
    cy = xp.broadcast_to(m.poly_corners[None, :, :, 1], cx.shape)
    corners = xp.stack([cx.astype(F32) * sx, cy.astype(F32) * sy], axis=-1).reshape(
        NUM_SLOTS, -1, 8
    )
    pvalid = xp.broadcast_to(m.poly_valid[None, :, None], corners.shape[:2] + (1,))
    wall = xp.where(pvalid, xp.concatenate([pvalid.astype(F32), corners], axis=-1), F32(0.0))
    pad_w = MAX_TURNED_WALLS - m.poly_corners.shape[0]
    wall = xp.concatenate([wall, xp.zeros((NUM_SLOTS, pad_w, WALL_WIDTH), F32)], axis=1)
    return xp.concatenate([box.reshape(NUM_SLOTS, -1), wall.reshape(NUM_SLOTS, -1)], axis=-1)
