"""Each body against the obstacles alone: a straight leg to its first contact, one slide.

`plan_legs` gives each body's path for the tick (`Paths`) and the grid point where it
then stands. It asks about the obstacles through `leg_surfaces`: NumPy densely, one JAX
game on all its (body, obstacle) rows with the unreachable ones masked, and a batch of
games under `vmap` on every game's reachable rows packed into one short list (the
`custom_vmap` rule below), a few per body instead of every obstacle of the map, twice a
tick.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .array_ops import first_index, stack, sum_over
from .backend import is_numpy, known_none
from .batching import every_game, in_chunks, nonzero, with_batch_rule
from .body_paths import QUANTA, Paths
from .contact import bounded_fence, bounded_inverse, f32, fenced_dot
from .grid_ends import cell_corners, pick_point
from .leg_surfaces import Rows, Surfaces, dense_surfaces, make_rows, map_grown_boxes, row_surfaces
from .obstacle_rows import (
    PILLAR,
    SQUARE,
    TURNED,
    Obstacles,
    groups,
    obstacle_list,
    reachable,
)
from .shape_tests import F32, I32, off_arena
from .state import LEFT, NUM_SLOTS
from .types import Array, Namespace

# Rows of each kind a batch of games packs per game before it falls back to every (body,
# obstacle) row of every game (random play on map 47 averages about 6 pillar and 12 square
# wall rows per game; 1 game in 100 has more than 12 and 17).
OBSTACLE_ROWS_PER_GAME = {PILLAR: 12, SQUARE: 16, TURNED: 8}
# A batch finds where each body stands on the grid by testing the nearest grid point of its
# end for every body, then the other candidates only on the rows of the bodies whose nearest
# point sinks, in lists this many times shorter than the rows of each kind; a slide asks
# only the rows whose obstacle it may meet, in lists as short. A list that overflows asks
# every row. Random play on map 47 (1,024 games, 100 ticks) fills at most 42% of a list at
# 16; 512 games of tdm-gamma against tdm-beta on maps 0-46 (300 ticks) at most 44%. On map
# 47 alone (every game alike in its first ticks) the pillars' slide list overflows in 1
# tick of 4; those games' speed moved by 1%, within noise (the teams' pathing dominates).
GRID_END_SHARE = 16
# Float constants as 0-d arrays (NumPy converts a scalar operand on every call).
_QUANTUM_F = np.asarray(1.0 / QUANTA, F32)
_ZERO_F, _ONE_F, _TINY_F = (np.asarray(x, F32) for x in (0, 1, 1e-12))
# Outward normals of the arena's left, right, bottom and top edges (surfaces 0-3).
_EDGE_NORMALS = np.asarray([[1, 0], [-1, 0], [0, 1], [0, -1]], np.int32)


def _grid_end(xp: Namespace, start: Array, ends: Array, surfaces: Any) -> Array:
    """Where each body stands on the grid (int (N, 2)) after a path ending at the float
    offsets `ends` (N, K, 2) from `start`, the exact end first, then fallbacks in order
    (the first contact, the start): of each, the grid points of the thousandth square
    around it, nearest first, the first where the body stands free (in the arena and sunk
    into no obstacle: `surfaces.sunk_at`). A body touching a convex surface has one of them
    on its free side; the start (offset 0, last) is free, as every stored position is."""
    n = start.shape[0]
    cands = cell_corners(xp, ends).reshape(n, -1, 2)  # (N, 4 K, 2)
    cands = xp.concatenate([cands, xp.zeros((n, 1, 2), F32)], axis=1).astype(I32)
    pts = start[:, None, :] + cands
    if is_numpy(xp):  # NumPy pays per call: the nearest alone, which mostly stands free
        first = ~_blocked_at(np, pts[:, :1], surfaces)[:, 0]
        if first.all():
            return pts[:, 0]
    if surfaces.sunk_some is not None:  # the nearest for all, the rest for those it fails
        first = ~_blocked_at(xp, pts[:, :1], surfaces)[:, 0]
        sunk = surfaces.sunk_some(pts, ~first)
        edge_x, edge_y = off_arena(pts)
        later = first_index(xp, ~(sunk | edge_x | edge_y), axis=1)
        index = xp.where(first, 0, xp.minimum(later, pts.shape[1] - 1))
        return pick_point(xp, pts, index)
    free = ~_blocked_at(xp, pts, surfaces)
    return pick_point(xp, pts, xp.minimum(first_index(xp, free, axis=1), pts.shape[1] - 1))


def _blocked_at(xp: Namespace, pts: Array, surfaces: Any) -> Array:
    """Whether a body at each point ((N, S, 2)) is off the arena or sinks into an obstacle
    (`surfaces.sunk_at`, which may count the arena already, as `geometry.body_blocked`)."""
    sunk = surfaces.sunk_at(pts)
    if surfaces.sunk_counts_arena:
        return sunk
    edge_x, edge_y = off_arena(pts)
    return sunk | edge_x | edge_y


def _fdot(xp: Namespace, a: Array, b: Array) -> Array:
    """`fenced_dot` of vectors on a last axis of 2."""
    return fenced_dot(xp, a[..., 0], a[..., 1], b[..., 0], b[..., 1])


def _surface_normal(xp: Namespace, at: Array, which: Array, corners: Array, kind: Array) -> Array:
    """Outward normal (float32 (N, 2), not unit length) at the contact point `at` (float
    offsets from each body's start) on surface `which` (0-3 an arena edge, else the
    obstacle whose corners, as offsets from the body's start, and kind are given per body).

    An edge's or a face's own direction (exact), or the offset of the contact point from
    the corner or centre that a circle piece is drawn around: the normal at the exact
    contact point (RULES.md: the tangent at the contact point), not at a grid point near it.
    """
    n = f32(xp.asarray(_EDGE_NORMALS)[xp.minimum(which, 3)])
    c = f32(corners)  # small whole numbers: exact
    near = xp.minimum(xp.maximum(at, c[:, 0]), c[:, 2])  # the nearest point of the box (clip)
    box_n = at - near  # a pillar's lo and hi are its centre: the offset from it
    obstacle = (which >= 4)[:, None]
    if known_none(xp, (kind == TURNED) & (which >= 4)):  # NumPy pays per call: none met
        return xp.where(obstacle, box_n, n)
    ax, ay = c[:, :, 0], c[:, :, 1]
    bx, by = xp.roll(ax, -1, axis=1), xp.roll(ay, -1, axis=1)
    ux, uy = bx - ax, by - ay
    wx, wy = at[:, None, 0] - ax, at[:, None, 1] - ay
    dot = bounded_fence(xp, wx * ux) + bounded_fence(xp, wy * uy)
    uu = bounded_fence(xp, ux * ux) + bounded_fence(xp, uy * uy)
    outside = bounded_fence(xp, uy * wx) - bounded_fence(xp, ux * wy) > 0
    on_edge = outside & (dot > 0) & (dot < uu)
    on_corner = xp.roll(dot >= uu, 1, axis=1) & (dot <= 0)  # corner j closes edge j-1
    zero = _ZERO_F
    side_n = stack(
        xp,
        [
            sum_over(xp, xp.where(on_edge, uy, zero), 1),
            sum_over(xp, xp.where(on_edge, -ux, zero), 1),
        ],
        -1,
    )
    corner_n = stack(
        xp,
        [
            sum_over(xp, xp.where(on_corner, wx, zero), 1),
            sum_over(xp, xp.where(on_corner, wy, zero), 1),
        ],
        -1,
    )
    wall_n = xp.where(on_edge.any(axis=1)[:, None], side_n, corner_n)
    piece_n = xp.where((kind == TURNED)[:, None], wall_n, box_n)
    return xp.where(obstacle, piece_n, n)


def _slide(xp: Namespace, rest: Array, n: Array) -> Array:
    """The part of `rest` (float (N, 2)) along the tangent of a surface with outward
    normal n: unrounded, so a slide keeps its exact direction until the end is stored."""
    t = stack(xp, [-n[:, 1], n[:, 0]], -1)
    tt = xp.maximum(_fdot(xp, t, t), _TINY_F)
    k = bounded_fence(xp, _fdot(xp, rest, t) * bounded_inverse(xp, tt))
    return bounded_fence(xp, t * k[:, None])


def legs_on_rows(
    xp: Namespace,
    start: Array,
    stride: Array,
    end: Array,
    obstacles: Obstacles,
    rows: Rows,
    share: int = 0,
) -> tuple[Paths, Array]:
    """`plan_legs` for N bodies (of G games, NUM_SLOTS each, in order) given their rows;
    `obstacles` holds each game's list, (G, K, ...); `share` as `row_surfaces` takes it."""
    surfaces = row_surfaces(xp, rows, start.shape[0], share)
    return _legs(xp, start, stride, end, obstacles, surfaces)


def _legs(
    xp: Namespace,
    start: Array,
    stride: Array,
    end: Array,
    obstacles: Obstacles,
    surfaces: Surfaces,
) -> tuple[Paths, Array]:
    """`plan_legs` for N bodies (of G games, NUM_SLOTS each, in order); `obstacles` holds
    each game's list, (G, K, ...), and `surfaces` answers the questions about them."""
    n = start.shape[0]
    lam1, first, lam2, second = surfaces.first_two(start, stride)
    met = lam1 < 1
    v = f32(stride)
    t1 = xp.where(met, lam1, _ONE_F)  # the exact contact instant (float32)
    v1 = bounded_fence(xp, v * t1[:, None])  # where it is then: the true velocity's path
    if known_none(xp, met):  # nothing met: every body ends at its first leg's end
        paths = Paths(stack(np, [0 * t1, t1, t1], -1), stack(np, [0 * v, v1, v1], 1))
        return paths, _grid_end(np, start, v1[:, None], surfaces)
    game = xp.arange(n) // NUM_SLOTS
    k_max = obstacles.kind.shape[-1] - 1

    def normal(which: Array) -> Array:
        column = xp.minimum(xp.maximum(which - 4, 0), k_max)
        if is_numpy(xp) and obstacles.kind.shape[0] == 1:
            # One NumPy game: its list indexed by column alone (a gather by two index
            # arrays costs several times more).
            corners, kind = obstacles.corners[0][column], obstacles.kind[0][column]
        else:
            corners, kind = obstacles.corners[game, column], obstacles.kind[game, column]
        rel = corners - start[:, None, :]
        return _surface_normal(xp, v1, which, rel, kind)

    rest = v - v1
    n1 = normal(first)
    w1 = _slide(xp, rest, n1)
    both = met & (lam2 < lam1 + _QUANTUM_F)
    if known_none(xp, both):  # the second surface only matters to `both`
        n2, w2 = n1, w1
    else:
        n2 = normal(second)
        w2 = _slide(xp, rest, n2)
    ok1 = ~both | (_fdot(xp, w1, n2) >= 0)
    ok2 = both & (_fdot(xp, w2, n1) >= 0)
    l1, l2 = _fdot(xp, w1, w1), _fdot(xp, w2, w2)
    # On a tie, the slide toward the own spawn end, then the southern one (mirror-safe).
    own = xp.where(end == LEFT, _ONE_F, -_ONE_F)
    key1, key2 = w1[:, 0] * own, w2[:, 0] * own
    prefer2 = (l2 > l1) | ((l2 == l1) & ((key2 < key1) | ((key2 == key1) & (w2[:, 1] < w1[:, 1]))))
    take2 = ok2 & (~ok1 | prefer2)
    slide = xp.where(take2[:, None], w2, xp.where(ok1[:, None], w1, _ZERO_F))
    slide = xp.where(met[:, None], slide, _ZERO_F)
    # A slide runs along a tangent of the surface it slides on, a supporting line of that
    # convex shape (or edge): it never enters it, so only the other surfaces are asked.
    along = xp.where(take2, second, first).astype(I32)
    reach = xp.minimum(surfaces.slides(start, v1, slide, along), _ONE_F)
    v2 = v1 + bounded_fence(xp, slide * reach[:, None])
    t2 = t1 + bounded_fence(xp, (_ONE_F - t1) * reach)
    paths = Paths(stack(xp, [0 * t1, t1, t2], -1), stack(xp, [0 * v, v1, v2], 1))
    return paths, _grid_end(xp, start, stack(xp, [v2, v1], 1), surfaces)


def plan_legs(
    xp: Namespace, start: Array, stride: Array, end: Array, m: Any
) -> tuple[Paths, Array]:
    """Each body of one game against the obstacles alone: to its first contact, then one
    slide; and where on the grid it stands at the end.

    The first leg runs at the body's own velocity to the exact contact instant (float32);
    the slide runs from there along the tangent of the surface met at that point, at the
    part of the velocity along it, until the tick ends or it meets something else. A body
    meeting two surfaces within one quantum (1/1024 of the tick) slides along one that does
    not lead into the other (the longer; on a tie toward its own spawn end, then south), or
    stops. Paths are float offsets from the start (`Paths`); only the end is rounded, to
    the nearest grid point where the body stands free (`_grid_end`).
    """
    if is_numpy(xp):
        obstacles = obstacle_list(np, m)
        near = reachable(np, obstacles, start, stride, map_grown_boxes(np, m))
        lists = Obstacles(*(a[None] for a in obstacles))
        return _legs(np, start, stride, end, lists, dense_surfaces(m, near))
    times, points, ends = _plan_legs_jax(start, stride, end, m)
    return Paths(times, points), ends


def _one_game(start: Array, stride: Array, end: Array, m: Any) -> tuple[Array, Array, Array]:
    import jax.numpy as jnp

    obstacles = obstacle_list(jnp, m)
    near = reachable(jnp, obstacles, start, stride)
    parts = []
    for kind, begin, stop in groups(m):
        k = stop - begin
        body = jnp.repeat(jnp.arange(NUM_SLOTS), k)
        column = jnp.tile(jnp.arange(begin, stop), NUM_SLOTS)
        parts.append((kind, body, column, near[:, begin:stop].ravel()))
    lists = Obstacles(*(a[None] for a in obstacles))
    legs, ends = legs_on_rows(jnp, start, stride, end, lists, make_rows(jnp, lists, parts))
    return legs.times, legs.points, ends


def _many_games(axis_size: int, in_batched: Any, *args: Any) -> tuple[Array, Array, Array]:
    """`vmap` of `_one_game`: every game's reachable rows in one list of the batch's bodies
    per group (OBSTACLE_ROWS_PER_GAME of each kind per game on average).

    A batch with more reachable rows of some kind than its list holds runs its games a
    list at a time (`in_chunks`); the result is the same.
    """
    import jax
    import jax.numpy as jnp

    games = axis_size
    start, stride, end, m = jax.lax.optimization_barrier(every_game(games, args, in_batched))
    obstacles = jax.vmap(lambda mm: obstacle_list(jnp, mm))(m)
    near = jax.vmap(lambda o, s, v: reachable(jnp, o, s, v))(obstacles, start, stride)
    spans = groups(m)
    # Any one game fits: every body of it against every obstacle of each kind.
    room = [max(OBSTACLE_ROWS_PER_GAME[kind] * games, NUM_SLOTS * (e - b)) for kind, b, e in spans]

    def resolve(take):
        flat = (near & take[:, None, None]).reshape(games * NUM_SLOTS, near.shape[-1])
        parts = []
        for (kind, b, e), size in zip(spans, room, strict=True):
            body, column = nonzero(flat[:, b:e], size)
            parts.append((kind, body, column + b, jnp.arange(size) < jnp.sum(flat[:, b:e])))
        rows = make_rows(jnp, obstacles, parts)
        legs, ends = legs_on_rows(
            jnp, start.reshape(-1, 2), stride.reshape(-1, 2), end.reshape(-1), obstacles, rows,
            GRID_END_SHARE,
        )  # fmt: skip
        return (
            legs.times.reshape(games, NUM_SLOTS, 3),
            legs.points.reshape(games, NUM_SLOTS, 3, 2),
            ends.reshape(games, NUM_SLOTS, 2),
        )

    counts = jnp.stack([jnp.sum(near[:, :, b:e], axis=(1, 2)) for _, b, e in spans], axis=1)
    empty = jax.eval_shape(resolve, jnp.ones(games, bool))
    empty = jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), empty)
    return in_chunks(counts, room, resolve, empty), (True, True, True)


_plan_legs_jax = with_batch_rule(_one_game, _many_games)
