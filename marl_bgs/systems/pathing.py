"""Pathing for the scripted opponents: distance fields on a coarse grid, followed downhill.

Why this shape: the rules run branch-free in NumPy and in batched JAX, so pathing must too,
and it may use only what a team sees. The observation carries the map's obstacles, so:

- Obstacles are drawn onto a fine grid of points 0.25 apart (79 x 39). A point is blocked
  within `INFLATE` (0.2) of an obstacle: under a quarter of a coarse cell, so a 1.0-wide gap
  (the narrowest the maps allow) keeps free points, while a 0.01-wide wall still blocks a
  point. Drawing costs as much as a few ticks of the engine, so it is spread over the first
  `BUILD_TICKS` ticks of a game, a share of the obstacles each tick, kept in memory.
- Fields live on coarse cells 0.5 apart (40 x 20) whose centres are every other fine point.
  A step between neighbouring cells is allowed when the fine points on the way are free (and,
  diagonally, both side steps too), and costs its length, `NEAR_COST` times more next to an
  obstacle (paths keep room for the body when there is room).
- A field is relaxed by min-plus steps, `RELAX_PER_TICK` a tick: every cell takes its
  cheapest neighbour plus the step. It grows from its goal four units a tick, is exact after
  a few ticks, and, because each step recomputes every cell, heals itself when its goal
  moves or the map drawing completes. Cells not reached yet fall back to the straight line.
- An agent heads for the cell two downhill steps from its own and takes the legal move that
  points most nearly there; the engine's sliding does the rest.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.array_ops import stack
from ..core.backend import clip, is_numpy, pad_last2
from .percept import MOVE_STEPS, Obstacles

F32 = np.float32
CELL = 0.5
GRID_W, GRID_H = 40, 20  # coarse cells
FINE = 0.25
FINE_W, FINE_H = 2 * GRID_W - 1, 2 * GRID_H - 1  # fine points at 0.25, 0.5, ... 19.75
INFLATE = 0.2
NEAR_COST = 2.0
BIG = 1.0e4  # "not reached yet": longer than any path
BUILD_TICKS = 4  # ticks to draw every obstacle onto the fine grid
RELAX_PER_TICK = 8  # min-plus steps per field per tick
ADVANCE_FROM_X = 18.75  # advance field's goal: the enemy's end of the arena
TARGET_RADIUS = 1.0  # target field's goal: free cells this close to the target point
RETARGET = 4.0  # a target point this far from the last one (a new target) restarts its field
JAM_REACH = 1.1  # teammates' centres this close (bodies touch at 1.0) can jam each other
GIVE_WAY_TICKS = 3  # ticks an agent backs off to let a jammed teammate through
CALM_REACH = 4.0  # no seen enemy this close: a stop is a jam, not a fight

STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
STEP_LEN = np.asarray([CELL * np.hypot(dx, dy) for dx, dy in STEPS], F32)
FINE_X = (np.arange(1, FINE_W + 1) * FINE).astype(F32)
FINE_Y = (np.arange(1, FINE_H + 1) * FINE).astype(F32)
CELL_X = FINE_X[::2]
CELL_Y = FINE_Y[::2]
_BOX_CHUNK = -(-32 // BUILD_TICKS)
_WALL_CHUNK = -(-8 // BUILD_TICKS)

# NumPy keeps what it drew and the grids it built, by the bytes they were made from: a game
# in the browser redraws the same map shares and rebuilds the same grid every tick, and
# each costs about as much as the rest of a decision. Entries are read-only arrays.
_KEPT = 8
_DRAWN: dict = {}
_GRIDS: dict = {}
_DOWNHILL: dict = {}


def _kept(table: dict, key: Any, make: Any) -> Any:
    """`make()`, or what an earlier call with the same key made (NumPy only)."""
    hit = table.get(key)
    if hit is None:
        if len(table) >= _KEPT:
            table.clear()
        hit = make()
        for a in hit if isinstance(hit, tuple) else (hit,):
            a.flags.writeable = False
        table[key] = hit
    return hit


def _bytes(*arrays: Any) -> tuple:
    """A key for NumPy arrays' values: each one's dtype, shape and bytes."""
    return tuple((a.dtype.str, a.shape, a.tobytes()) for a in map(np.asarray, arrays))


def draw(xp: Any, ob: Obstacles, part: Any) -> Any:
    """Fine points (39, 79) within INFLATE of the obstacles of share `part` (0..BUILD_TICKS-1)."""
    if is_numpy(xp):
        return _kept(_DRAWN, (int(part), *_bytes(*ob)), lambda: _draw(np, ob, part))
    return _draw(xp, ob, part)


def _draw(xp: Any, ob: Obstacles, part: Any) -> Any:
    nb, nw = ob.box_valid.shape[0], ob.wall_valid.shape[0]
    bi = clip(xp, part * _BOX_CHUNK + xp.arange(_BOX_CHUNK), 0, nb - 1)
    wi = clip(xp, part * _WALL_CHUNK + xp.arange(_WALL_CHUNK), 0, nw - 1)
    lo, hi = xp.take(ob.box_lo, bi, axis=0), xp.take(ob.box_hi, bi, axis=0)
    reach = xp.take(ob.box_radius, bi) + INFLATE
    fx, fy = xp.asarray(FINE_X), xp.asarray(FINE_Y)
    gx = xp.maximum(xp.maximum(lo[:, 0, None] - fx, fx - hi[:, 0, None]), 0.0)  # (B, 79)
    gy = xp.maximum(xp.maximum(lo[:, 1, None] - fy, fy - hi[:, 1, None]), 0.0)  # (B, 39)
    near = gx[:, None, :] ** 2 + gy[:, :, None] ** 2 < (reach**2)[:, None, None]
    box = xp.any(near & xp.take(ob.box_valid, bi)[:, None, None], axis=0)
    # Turned walls: inside all four edges pushed out by INFLATE (corners grow square).
    a = xp.take(ob.wall_corners, wi, axis=0)  # (P, 4, 2)
    b = xp.concatenate([a[:, 1:], a[:, :1]], axis=1)
    ex, ey = b[..., 0] - a[..., 0], b[..., 1] - a[..., 1]
    area = xp.sum(a[..., 0] * b[..., 1] - b[..., 0] * a[..., 1], axis=1)  # twice signed
    turn = xp.where(area >= 0, 1.0, -1.0)[:, None]  # +1 counter-clockwise (mirroring flips)
    length = xp.maximum(xp.sqrt(ex * ex + ey * ey), F32(1e-6))
    nx, ny = turn * ey / length, -turn * ex / length  # outward normals
    c = nx * a[..., 0] + ny * a[..., 1] + INFLATE  # (P, 4)
    side = (
        nx[:, :, None, None] * fx[None, None, None, :]
        + ny[:, :, None, None] * fy[None, None, :, None]
        - c[:, :, None, None]
    )  # (P, 4, 39, 79)
    wall = xp.all(side < 0, axis=1) & xp.take(ob.wall_valid, wi)[:, None, None]
    return box | xp.any(wall, axis=0)


class Grid(NamedTuple):
    """What the map means for walking, on the coarse cells."""

    free: Any  # (H, W) bool
    step_cost: Any  # (8, H, W) cost of the step from a cell along STEPS[d]; BIG if barred


def _fine_at(padded: Any, sx: int, sy: int) -> Any:
    """The fine point (2j + sy, 2i + sx) for every coarse cell (j, i), read from the fine
    drawing padded by two blocked points on every side; outside is blocked."""
    return padded[2 + sy : 2 + sy + 2 * GRID_H : 2, 2 + sx : 2 + sx + 2 * GRID_W : 2]


def grid(xp: Any, blocked_fine: Any) -> Grid:
    """Coarse cells and step costs from the fine drawing (padded once: every read below is
    a window of that one copy)."""
    if is_numpy(xp):
        return _kept(_GRIDS, _bytes(blocked_fine), lambda: _grid(np, blocked_fine))
    return _grid(xp, blocked_fine)


def _grid(xp: Any, blocked_fine: Any) -> Grid:
    ff = pad_last2(xp, ~blocked_fine, 2, False)
    free = _fine_at(ff, 0, 0)
    near = ~free
    for sx in (-1, 0, 1):
        for sy in (-1, 0, 1):
            near = near | ~_fine_at(ff, sx, sy)
    weight = xp.where(near, F32(NEAR_COST), F32(1.0))

    def line(dx: int, dy: int) -> Any:
        return free & _fine_at(ff, dx, dy) & _fine_at(ff, 2 * dx, 2 * dy)

    costs = []
    for d, (dx, dy) in enumerate(STEPS):
        ok = line(dx, dy)
        if dx and dy:  # no cutting corners: both side steps must be open too
            ok = ok & line(dx, 0) & line(0, dy)
        costs.append(xp.where(ok, F32(STEP_LEN[d]) * weight, F32(BIG)))
    return Grid(free, stack(xp, costs, 0))


def _padded(xp: Any, a: Any, fill: Any) -> Any:
    """`a` with one cell of `fill` around the coarse grid (its last two axes)."""
    return pad_last2(xp, a, 1, fill)


def _window(padded: Any, dx: int, dy: int) -> Any:
    """a[..., y + dy, x + dx] over the coarse grid, read from `_padded(a)`."""
    return padded[..., 1 + dy : 1 + dy + GRID_H, 1 + dx : 1 + dx + GRID_W]


def relax(xp: Any, field: Any, g: Grid, goal: Any, iters: int) -> Any:
    """`iters` min-plus steps of fields (F, H, W) toward goal masks (F, H, W).

    Each step pads the field once and reads its eight neighbours as windows of that one
    copy (the same values as padding per direction; NumPy's `pad` was most of a scripted
    decision's time, and Pyodide pays its Python overhead twice).

    A step is a function of the field alone (the grid and goals fixed), so once a step
    leaves the field as it was, every later step would too: NumPy stops there (a settled
    field, most ticks of a game, costs one step instead of `iters`)."""
    if is_numpy(xp):
        return _relax_numpy(field, g, goal, iters)
    for _ in range(iters):
        field = _relax_step(xp, field, g, goal)
    return field


def _relax_step(xp: Any, field: Any, g: Grid, goal: Any) -> Any:
    """One min-plus step of `relax`."""
    best = None
    padded = _padded(xp, field, F32(BIG))
    for d, (dx, dy) in enumerate(STEPS):
        cand = _window(padded, dx, dy) + g.step_cost[d]
        best = cand if best is None else xp.minimum(best, cand)
    return xp.where(goal, F32(0.0), xp.minimum(best, F32(BIG)))


def _relax_numpy(field: Any, g: Grid, goal: Any, iters: int) -> Any:
    """`relax` on NumPy: each step is `_relax_step`'s, the eight neighbours plus their step
    costs on one leading axis of a 3 x 3 window view (the middle costing infinity, so it
    never is the least) and the least taken over it (a minimum is exact in any order; every
    candidate is positive, so no signed zero can tie), in five array calls instead of
    twenty-odd; and it stops at a settled field."""
    padded = _padded(np, field, F32(BIG))
    # (3, 3, F, H, W): window [a, b] holds padded[..., y + a, x + b], the step (b-1, a-1).
    win = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(-2, -1))
    win = win.transpose(field.ndim, field.ndim + 1, *range(field.ndim))
    cost = np.full((3, 3) + (1,) * (field.ndim - 2) + g.step_cost.shape[1:], np.inf, F32)
    for d, (dx, dy) in enumerate(STEPS):
        cost[1 + dy, 1 + dx] = g.step_cost[d]
    for _ in range(iters):
        best = (win + cost).min(axis=(0, 1))
        new = np.where(goal, F32(0.0), np.minimum(best, F32(BIG)))
        # A step is a function of the field alone (grid and goals fixed): once it leaves
        # the field as it was, every later step would too.
        if new.dtype == field.dtype and np.array_equal(new, field):
            return new
        field = new
        padded[..., 1:-1, 1:-1] = field
    return field


def goal_cells(xp: Any, g: Grid, point: Any, radius: float) -> Any:
    """Free cells within `radius` of a point (2,), (H, W)."""
    dx = xp.asarray(CELL_X)[None, :] - point[0]
    dy = xp.asarray(CELL_Y)[:, None] - point[1]
    return (dx * dx + dy * dy <= radius * radius) & g.free


def band_cells(xp: Any, g: Grid, x_from: float) -> Any:
    """Free cells whose centre lies at x >= x_from, (H, W)."""
    return (xp.asarray(CELL_X)[None, :] >= x_from) & g.free


# ---- a team's pathing memory --------------------------------------------------------------
class Paths(NamedTuple):
    """Kept between ticks: the drawing, two fields and the target field's goal point."""

    blocked: Any  # (39, 79) bool, fine points drawn blocked so far
    tick: Any  # () int32, decisions made this game (drives the drawing)
    fields: Any  # (2, H, W): 0 advance to the enemy's end, 1 toward the target point
    target: Any  # (2,) the target field's goal point
    last_xy: Any  # (5, 2) where each agent stood at its last decision
    last_move: Any  # (5,) the move it chose then
    failed: Any  # (5, 9) bool, moves that went nowhere from where it stands
    give_way: Any  # (5,) int32, ticks left of backing off for a jammed teammate


def paths_memory(xp: Any = np) -> Paths:
    return Paths(
        xp.zeros((FINE_H, FINE_W), bool),
        xp.zeros((), xp.int32),
        xp.full((2, GRID_H, GRID_W), F32(BIG)),
        xp.zeros(2, F32),
        xp.zeros((5, 2), F32),
        xp.zeros(5, xp.int32),
        xp.zeros((5, 9), bool),
        xp.zeros(5, xp.int32),
    )


def update_paths(
    xp: Any, ob: Obstacles, paths: Paths, new_game: Any, target_xy: Any, has_target: Any
) -> tuple[Grid, Paths]:
    """One tick of pathing upkeep: draw a share of the map, grow both fields."""
    tick = xp.where(new_game, 0, paths.tick)
    blocked = xp.where(new_game, False, paths.blocked)
    blocked = blocked | draw(xp, ob, tick % BUILD_TICKS)
    g = grid(xp, blocked)
    target = xp.where(has_target, target_xy, paths.target).astype(F32)
    far = xp.sum((target - paths.target) ** 2) > RETARGET * RETARGET
    goals = xp.stack([band_cells(xp, g, ADVANCE_FROM_X), goal_cells(xp, g, target, TARGET_RADIUS)])
    restart = xp.stack([new_game, new_game | far])[:, None, None]
    fields = xp.where(restart, xp.where(goals, F32(0.0), F32(BIG)), paths.fields)
    fields = relax(xp, fields, g, goals, RELAX_PER_TICK)
    failed = xp.where(new_game, False, paths.failed)
    kept = paths._replace(blocked=blocked, tick=(tick + 1).astype(xp.int32), failed=failed)
    return g, kept._replace(fields=fields, target=target)


def _cell(xp: Any, xy: Any) -> tuple[Any, Any]:
    ix = clip(xp, xp.floor(xy[..., 0] / CELL), 0, GRID_W - 1).astype(xp.int32)
    iy = clip(xp, xp.floor(xy[..., 1] / CELL), 0, GRID_H - 1).astype(xp.int32)
    return iy, ix


def _downhill(xp: Any, field: Any, g: Grid) -> tuple[Any, Any]:
    """Per cell: the best legal step (index into STEPS) and the field value through it.
    NumPy keeps the answer for a field and grid seen before (a settled field, every tick)."""
    if is_numpy(xp):
        key = (id(g), *_bytes(field))
        hit = _DOWNHILL.get(key)
        if hit is None or hit[0] is not g:  # the entry holds its grid: no id is reused
            if len(_DOWNHILL) >= _KEPT:
                _DOWNHILL.clear()
            step, through = _downhill_of(np, field, g)
            step.flags.writeable = through.flags.writeable = False
            hit = _DOWNHILL[key] = (g, step, through)
        return hit[1], hit[2]
    return _downhill_of(xp, field, g)


def _downhill_of(xp: Any, field: Any, g: Grid) -> tuple[Any, Any]:
    padded = _padded(xp, field, F32(BIG))
    cand = stack(xp, [_window(padded, dx, dy) + g.step_cost[d] for d, (dx, dy) in enumerate(STEPS)])
    return xp.argmin(cand, axis=0), xp.min(cand, axis=0)


_STEP_X = np.asarray([s[0] for s in STEPS], np.int32)
_STEP_Y = np.asarray([s[1] for s in STEPS], np.int32)


def _through(xp: Any, field: Any, iy: Any, ix: Any, dx: Any, dy: Any, length: Any) -> Any:
    """The field at the neighbour (iy + dy, ix + dx), clamped to the grid, plus the step's
    length (`STEP_LEN`'s value for it)."""
    return field[clip(xp, iy + dy, 0, GRID_H - 1), clip(xp, ix + dx, 0, GRID_W - 1)] + length


def heading(xp: Any, field: Any, g: Grid, xy: Any, goal_xy: Any) -> tuple[Any, Any]:
    """Where each agent at xy (N, 2) should head on one field: a point two cells downhill.

    An agent whose cell the field has not reached (or whose own cell is drawn blocked,
    as a body brushing an obstacle can be) heads for the best reached neighbour, and with
    none, straight for `goal_xy` (N, 2).
    """
    step, through = _downhill(xp, field, g)
    sx, sy = xp.asarray(_STEP_X), xp.asarray(_STEP_Y)
    iy, ix = _cell(xp, xy)
    # From the agent's cell, any neighbour counts (its own cell may be drawn blocked).
    if is_numpy(xp):  # the eight steps on one more axis: one lookup instead of eight
        near = _through(np, field, iy[:, None], ix[:, None], _STEP_X, _STEP_Y, STEP_LEN)
    else:
        near = xp.stack(
            [_through(xp, field, iy, ix, dx, dy, F32(CELL * np.hypot(dx, dy))) for dx, dy in STEPS],
            -1,
        )  # (N, 8)
    first = xp.argmin(near, axis=-1)
    use_own = (g.free[iy, ix] & (through[iy, ix] < BIG)) | (field[iy, ix] <= 0)
    d1 = xp.where(use_own, step[iy, ix], first)
    y1 = clip(xp, iy + sy[d1], 0, GRID_H - 1)
    x1 = clip(xp, ix + sx[d1], 0, GRID_W - 1)
    d2 = step[y1, x1]
    go2 = (through[y1, x1] < BIG) & (field[y1, x1] > 0)
    y2 = xp.where(go2, clip(xp, y1 + sy[d2], 0, GRID_H - 1), y1)
    x2 = xp.where(go2, clip(xp, x1 + sx[d2], 0, GRID_W - 1), x1)
    point = stack(xp, [xp.asarray(CELL_X)[x2], xp.asarray(CELL_Y)[y2]], -1)
    at_goal = field[iy, ix] <= 0
    reached = (xp.min(near, axis=-1) < BIG) | at_goal
    point = xp.where(reached[:, None], point, goal_xy)
    return xp.where(at_goal[:, None], goal_xy, point), reached


def steer(
    xp: Any, direction: Any, move_ok: Any, still: Any, xy: Any, speed: Any, paths: Paths
) -> Any:
    """Move scores (5, 9) from desired directions (5, 2): the cosine to each move, stay
    scoring `still` (5,). A move that lands against a teammate's body scores less (two
    agents pressing into each other both stand still), and an agent that did not move last
    tick though it tried scores that move, and every other move that failed where it
    stands, lower, and standing still too (so it works through the others, backing off if
    need be, until one takes it somewhere; a teammate blocking a gap gets through).
    """
    moves = xp.asarray(MOVE_STEPS)
    norm = xp.sqrt(xp.sum(direction * direction, axis=-1, keepdims=True))
    unit = direction / xp.maximum(norm, F32(1e-6))
    score = xp.sum(unit[:, None, :] * moves[None, :, :], axis=-1)
    land = xy[:, None, :] + moves[None, :, :] * speed[:, None, None]  # (5, 9, 2)
    gap = land[:, :, None, :] - xy[None, None, :, :]  # (5, 9, 5 mates, 2)
    after = xp.sqrt(xp.sum(gap * gap, axis=-1))
    now = xp.sqrt(xp.sum((xy[:, None, :] - xy[None, :, :]) ** 2, axis=-1))[:, None, :]
    into = (after < F32(1.0)) & (after < now - F32(0.05))
    other = ~xp.asarray(np.eye(5, dtype=bool))[:, None, :]
    score = score - 1.5 * xp.any(into & other, axis=-1)
    score = score - 3.0 * paths.failed
    still = xp.where(xp.any(paths.failed, axis=-1) & (still <= 0), F32(-2.0), still)
    score = xp.concatenate([still[:, None], score[:, 1:]], axis=1)
    # Rounded so that NumPy and XLA, whose last bits differ, break near-ties the same way.
    return xp.where(move_ok, xp.round(score * F32(1000.0)), F32(-1e9))


def remember_move(xp: Any, paths: Paths, xy: Any, move: Any, speed: Any, alone: Any) -> Paths:
    """Note the moves that went nowhere from where each agent stands (forgotten once it
    moves, or once it chose to stand still).

    And learn walls the drawing missed: a gap narrower than a body can still show free
    points on the fine grid. When an agent with no body near it (`alone`, (5,)) got under
    30% of its step the way it stepped (sliding along a wall keeps 50% or more; slows
    rarely cut that deep, and then an enemy is near), the
    point it was stepping toward (and the four around it) is drawn blocked for the game, so the fields
    route around it from then on.
    """
    covered = xp.sqrt(xp.sum((xy - paths.last_xy) ** 2, axis=-1))
    moved = covered > F32(0.05)
    tried = xp.arange(9)[None, :] == paths.last_move[:, None]
    fresh = moved | (paths.last_move == 0)  # moved, or stood still by choice: try all again
    failed = xp.where(fresh[:, None], False, paths.failed | tried)
    step = xp.asarray(MOVE_STEPS)[paths.last_move]
    along = xp.sum((xy - paths.last_xy) * step, axis=-1)  # progress the way it stepped
    short = (paths.last_move > 0) & (along < 0.3 * speed) & alone & (paths.tick > 1)
    aim = paths.last_xy + step * F32(0.6)
    fx = clip(xp, xp.round(aim[:, 0] / FINE) - 1, 0, FINE_W - 1).astype(xp.int32)
    fy = clip(xp, xp.round(aim[:, 1] / FINE) - 1, 0, FINE_H - 1).astype(xp.int32)
    hit = (
        xp.abs(xp.arange(FINE_H)[None, :, None] - fy[:, None, None])
        + xp.abs(xp.arange(FINE_W)[None, None, :] - fx[:, None, None])
    ) <= 1  # the point and its four neighbours: a narrow gap closes in a try or two
    learned = xp.any(hit & short[:, None, None], axis=0)
    return paths._replace(
        blocked=paths.blocked | learned,
        last_xy=xy.astype(F32),
        last_move=move.astype(xp.int32),
        failed=failed,
    )


def give_way(
    xp: Any, paths: Paths, xy: Any, alive: Any, enemy_xy: Any, enemy_seen: Any
) -> tuple[Any, Paths]:
    """Which agents back off this tick, (5,) bool, and the memory counting it down.

    Two teammates pressing into one gap from beside each other can each block the other's
    slide: both fail, both back off, both come back, and the cycle repeats for as long as
    their moves stay in step. The lower slot goes first: an agent whose last move went
    nowhere, touching a living teammate of a lower slot whose last move went nowhere too,
    backs off (heads the opposite way) for `GIVE_WAY_TICKS` ticks, if it sees no enemy
    within `CALM_REACH` (in a fight, bodies pressing on each other are not lost, and
    backing off would cost the fight). Where no two teammates jam, nothing changes.
    """
    foe = xp.sum((xy[:, None, :] - enemy_xy[None, :, :]) ** 2, axis=-1)
    calm = ~xp.any(enemy_seen[None, :] & (foe < F32(CALM_REACH**2)), axis=-1)
    stuck = xp.any(paths.failed, axis=-1) & alive
    near = xp.sum((xy[:, None, :] - xy[None, :, :]) ** 2, axis=-1) < F32(JAM_REACH**2)
    lower = xp.asarray(np.tril(np.ones((5, 5), bool), -1))  # [i, j]: j is a lower slot than i
    jammed = stuck & calm & xp.any(near & lower & stuck[None, :], axis=-1)
    left = xp.where(paths.give_way > 0, paths.give_way - 1, xp.where(jammed, GIVE_WAY_TICKS, 0))
    left = xp.where(alive, left, 0).astype(xp.int32)
    return left > 0, paths._replace(give_way=left)


def alone(xp: Any, xy: Any, alive: Any, enemy_xy: Any, enemy_seen: Any) -> Any:
    """(5,) no living teammate and no seen enemy within 1.3 (so a stop means a wall)."""
    mate = xp.sum((xy[:, None, :] - xy[None, :, :]) ** 2, axis=-1)
    mate = xp.where(alive[None, :] & ~xp.asarray(np.eye(5, dtype=bool)), mate, F32(1e6))
    foe = xp.sum((xy[:, None, :] - enemy_xy[None, :, :]) ** 2, axis=-1)
    foe = xp.where(enemy_seen[None, :], foe, F32(1e6))
    return (xp.min(mate, axis=-1) > 1.69) & (xp.min(foe, axis=-1) > 1.69)


def advance_point(xp: Any, xy: Any) -> Any:
    """Straight ahead to the enemy's end, in each agent's lane."""
    return xp.stack([xp.full(xy.shape[:1], F32(19.5)), xy[:, 1]], axis=1)


def waypoints(xp: Any, g: Grid, paths: Paths, xy: Any, use_target: Any) -> Any:
    """(N, 2) where to head next: on the target field where `use_target` holds and that
    field has reached the agent already, else on the advance field."""
    adv, _ = heading(xp, paths.fields[0], g, xy, advance_point(xp, xy))
    goal = xp.broadcast_to(paths.target[None, :], xy.shape)
    tgt, reached = heading(xp, paths.fields[1], g, xy, goal)
    return xp.where((use_target & reached)[:, None], tgt, adv)
