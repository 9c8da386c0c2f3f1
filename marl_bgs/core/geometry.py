"""Exact geometry on the milli-unit grid: sight lines and body overlap.

All coordinates are int32 milli-units. Orientation tests, dot products and squared
distances are exact integers (every value stays below 2**31 for points near the 20 x 10
arena); the one float step compares |cross| with r * sqrt(|u|^2), a chain of single,
correctly rounded operations that gives the same answer on every backend. Functions take
the array namespace `xp` and never branch on values (the NumPy-only shortcuts skip work
whose result is known, and give the same answers).

Obstacles come in two groups (see `MapArrays`): boxes (pillars and walls square to the
axes, "a rectangle grown by a radius") with a handful of integer operations per test, and
turned walls as convex polygons.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .array_ops import rint
from .backend import is_numpy
from .map_cache import per_numpy_map
from .state import ARENA_HEIGHT_MILLI, ARENA_WIDTH_MILLI, MapArrays
from .types import Array, Namespace

I32 = np.int32
F32 = np.float32
BODY = 500  # body radius in milli-units
CONTACT = 2 * BODY  # centre distance of two touching bodies
CONTACT_SQ = CONTACT * CONTACT  # squared centre distance at which two bodies touch
ARENA_LO = (BODY, BODY)
ARENA_HI = (ARENA_WIDTH_MILLI - BODY, ARENA_HEIGHT_MILLI - BODY)


def sq(xp: Namespace, dx: Array, dy: Array) -> Array:
    return dx * dx + dy * dy


def orient(ax, ay, bx, by, px, py):
    """Twice the signed area of (a, b, p): > 0 when p lies left of a -> b."""
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


_ROOT_CAP = 46340  # the largest q with q * q below 2**31


def below_root(xp: Namespace, c: Array, r: Array, u: Array) -> Array:
    """Exactly whether c < r * sqrt(u), for int32 c >= 0, 1 <= r <= 46340 and u >= 0, in
    int32 alone (JAX runs without 64-bit integers, and c * c would not fit in 32 bits).

    RULES.md decides touches and tangential passes on exact values: a line whose distance
    from a centre is exactly r (c = |cross|, u = |v|^2, c / sqrt(u) its distance) does
    not enter the circle, where a float32 quotient may land a unit in the last place below
    r. With c = q r + s (0 <= s < r) and d = u - q^2: d <= 0 means c >= r sqrt(u); d > 2q
    means (q + 1)^2 <= u, so c < (q + 1) r <= r sqrt(u); otherwise c^2 < r^2 u is
    s^2 < r x with x = r d - 2 q s, true when x >= r and false when x <= 0; between, r x
    < r^2 fits. Every product stays below 2**31 while q r and r^2 do (q <= sqrt(u)).
    """
    q = xp.minimum(c // r, _ROOT_CAP)
    s = c - q * r
    d = u - q * q
    x = r * d - 2 * q * s
    middle = (x >= r) | ((x > 0) & (r * xp.minimum(xp.maximum(x, 0), r) > s * s))
    return (d > 2 * q) | ((d > 0) & middle)


# Where a float32 `approx` is this near its float32 `limit` (relative), only `below_root`
# can tell: both are within a few units in the last place (below 4e-7 relative) of exact.
_UNSURE = np.asarray(1e-5, F32)


def below_root_where_unsure(
    xp: Namespace, c: Array, r: Array, u: Array, approx: Array, limit: Array
) -> Array:
    """`below_root(c, r, u)`, given the float32 comparison it decides, `approx < limit`
    (the two sides of c < r sqrt(u), or of c / sqrt(u) < r): on NumPy the float answer
    stands wherever it is sure and the exact test runs only where it is not (the same
    answers, fewer calls); under JAX the exact test always runs."""
    if not is_numpy(xp):
        return below_root(xp, c, r, u)
    out = approx < limit
    unsure = np.abs(approx - limit) <= limit * _UNSURE
    if unsure.any():
        out = np.where(unsure, below_root(np, c, r, u), out)
    return out


def near_segment(
    xp: Namespace, px, py, ax, ay, bx, by, r: Array, strict: bool, exact: bool = False
) -> Array:
    """Whether point p lies within r of segment a-b (closer than r if `strict`; `exact`,
    with `strict`: the side test decided exactly, `below_root`, as a body against a turned
    wall is; sight lines keep the float32 test the Sight Lab's vectors pin)."""
    ux, uy = bx - ax, by - ay
    wx, wy = px - ax, py - ay
    dot = wx * ux + wy * uy
    uu = ux * ux + uy * uy
    r2 = r * r
    d_a = wx * wx + wy * wy
    d_b = sq(xp, px - bx, py - by)
    size = xp.abs(wx * uy - wy * ux)
    cross = size.astype(F32)
    reach = xp.asarray(r).astype(F32) * xp.sqrt(uu.astype(F32))
    if strict and exact:
        side = below_root_where_unsure(xp, size, r, uu, cross, reach)
        ends_a, ends_b = d_a < r2, d_b < r2
    elif strict:
        ends_a, ends_b, side = d_a < r2, d_b < r2, cross < reach
    else:
        ends_a, ends_b, side = d_a <= r2, d_b <= r2, cross <= reach
    return xp.where(dot <= 0, ends_a, xp.where(dot >= uu, ends_b, side))


def spread(xp: Namespace, values: Array, index: np.ndarray) -> Array:
    """`values[..., index]` for a boolean vector and a constant integer `index` table.

    Under JAX the lookup is a product with a constant 0/1 matrix (exact for 0/1 values).
    XLA on the CPU fuses a gather with the work that feeds it and repeats that work for
    every element read: spreading the 45 sight lines to a (10, 10) table that way tested
    each line more than twice, inside one fusion that took half of every tick. A dot is
    never fused with its operands, so each line is tested once. NumPy just indexes.
    """
    if is_numpy(xp):
        return values[..., index]
    picks = np.zeros((values.shape[-1], index.size), np.float32)
    picks[index.ravel(), np.arange(index.size)] = 1.0
    counts = xp.asarray(values, dtype=np.float32) @ xp.asarray(picks)
    return (counts > 0.5).reshape(values.shape[:-1] + index.shape)


def first_index(xp: Namespace, mask: Array, axis: int = -1) -> Array:
    """Index of the first True along `axis`, or the axis length where there is none.

    Under XLA on the CPU an argmax is a two-value reduction that does not vectorise; a min
    over indices (kept where the mask holds) gives the same index several times faster.
    """
    n = mask.shape[axis]
    if is_numpy(xp):
        return np.where(mask.any(axis=axis), mask.argmax(axis=axis), n).astype(I32)
    shape = [1] * mask.ndim
    shape[axis] = n
    index = xp.arange(n, dtype=I32).reshape(shape)
    return xp.where(mask, index, n).min(axis=axis)


def _wall_edges(xp: Namespace, m: MapArrays):
    """Each turned wall's edges as (P, 4) start and end coordinates."""
    a = m.poly_corners
    b = m.poly_corners[:, [1, 2, 3, 0], :]
    return a[..., 0], a[..., 1], b[..., 0], b[..., 1]


_edges = per_numpy_map(_wall_edges)


# Each obstacle test below is written once for one obstacle and broadcasts: NumPy runs it on
# all obstacles at once (obstacles on a last axis, then any/all), XLA runs it obstacle by
# obstacle over all points, unrolled when tracing. XLA on the CPU does not vectorise short
# reductions along the last axis, and the unrolled form is several times faster; both forms
# evaluate the same integer expressions, so they agree exactly.


def _any_of(xp: Namespace, pts: tuple, columns: tuple, valid: Array, test) -> Array:
    """Whether `test(pts, *column values)` holds for any valid obstacle of a group whose
    values are given as columns, (K,) arrays each."""
    if is_numpy(xp):
        hit = test(tuple(c[..., None] for c in pts), *columns)
        return (hit & valid).any(axis=-1)
    out = xp.zeros(pts[0].shape, bool)
    for k in range(valid.shape[0]):
        out = out | (test(pts, *(c[k] for c in columns)) & valid[k])
    return out


def _boxes_any(xp: Namespace, m: MapArrays, pts: tuple, test) -> Array:
    """Whether `test(pts, lo_x, lo_y, hi_x, hi_y, r)` holds for any valid box."""
    lo, hi = m.box_lo, m.box_hi
    columns = (lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1], m.box_radius)
    return _any_of(xp, pts, columns, m.box_valid, test)


def _walls_any(xp: Namespace, m: MapArrays, pts: tuple, test) -> Array:
    """Whether a valid turned wall is hit: `test(pts, ax, ay, bx, by)` gives, per edge, a
    term that hits if it holds for any edge and terms that hit if each holds for all edges."""
    ax, ay, bx, by = _edges(xp, m)
    if is_numpy(xp):
        some, alls = test(tuple(c[..., None, None] for c in pts), ax, ay, bx, by)
        hit = np.any(some, axis=-1)
        for term in alls:
            hit = hit | np.all(term, axis=-1)
        return np.any(hit & m.poly_valid, axis=-1)
    out = xp.zeros(pts[0].shape, bool)
    for w in range(ax.shape[0]):
        some, alls = None, None
        for e in range(4):
            s, a = test(pts, ax[w, e], ay[w, e], bx[w, e], by[w, e])
            some = s if some is None else some | s
            alls = a if alls is None else tuple(x & y for x, y in zip(alls, a, strict=True))
        hit = some
        for term in alls:
            hit = hit | term
        out = out | (hit & m.poly_valid[w])
    return out


def _segment_meets_pillar(xp: Namespace, seg: tuple, cx, cy, r) -> Array:
    """Segment (x0, y0, x1, y1) comes within r of a pillar's centre (closed disc)."""
    x0, y0, x1, y1 = seg
    return near_segment(xp, cx, cy, x0, y0, x1, y1, r, strict=False)


def _segment_meets_rect(xp: Namespace, seg: tuple, lo_x, lo_y, hi_x, hi_y) -> Array:
    """Segment touches a wall square to the axes (closed rectangle): their bounding boxes
    meet and the rectangle's corners are not all strictly on one side of the segment."""
    x0, y0, x1, y1 = seg
    ux, uy = x1 - x0, y1 - y0
    lx, hx, ly, hy = lo_x - x0, hi_x - x0, lo_y - y0, hi_y - y0
    # Orientation of each corner against the segment (shared products).
    ux_ly, ux_hy, uy_lx, uy_hx = ux * ly, ux * hy, uy * lx, uy * hx
    corner = (ux_ly - uy_lx, ux_ly - uy_hx, ux_hy - uy_hx, ux_hy - uy_lx)
    overlap = (
        (xp.maximum(x0, x1) >= lo_x)
        & (xp.minimum(x0, x1) <= hi_x)
        & (xp.maximum(y0, y1) >= lo_y)
        & (xp.minimum(y0, y1) <= hi_y)
    )
    low = xp.minimum(xp.minimum(corner[0], corner[1]), xp.minimum(corner[2], corner[3]))
    high = xp.maximum(xp.maximum(corner[0], corner[1]), xp.maximum(corner[2], corner[3]))
    return overlap & (low <= 0) & (high >= 0)


def _segment_meets_wall(xp: Namespace, seg: tuple, corners: tuple) -> Array:
    """Segment touches a turned wall (closed convex quadrilateral, corners counter-clockwise).

    Two convex shapes are apart exactly when a line parallel to one of their edges separates
    them strictly: both ends of the segment outside one edge, or all four corners strictly
    on one side of the segment.
    """
    x0, y0, x1, y1 = seg
    ux, uy = x1 - x0, y1 - y0
    outside_one_edge = None
    left, right = None, None
    for k in range(4):
        ax, ay = corners[k]
        bx, by = corners[(k + 1) % 4]
        ex, ey = bx - ax, by - ay
        out = (ex * (y0 - ay) - ey * (x0 - ax) < 0) & (ex * (y1 - ay) - ey * (x1 - ax) < 0)
        side = ux * (ay - y0) - uy * (ax - x0)
        outside_one_edge = out if outside_one_edge is None else outside_one_edge | out
        left = side > 0 if left is None else left & (side > 0)
        right = side < 0 if right is None else right & (side < 0)
    return ~(outside_one_edge | left | right)


def _walls_meet(xp: Namespace, m: MapArrays, seg: tuple) -> Array:
    """Whether the segment touches any valid turned wall."""
    if is_numpy(xp):  # the four edges on one more axis: a third of the calls of the loop
        x0, y0, x1, y1 = (c[..., None, None] for c in seg)
        ax, ay, bx, by = _edges(np, m)  # (P, 4) each
        ex, ey = bx - ax, by - ay
        out = (ex * (y0 - ay) - ey * (x0 - ax) < 0) & (ex * (y1 - ay) - ey * (x1 - ax) < 0)
        side = (x1 - x0) * (ay - y0) - (y1 - y0) * (ax - x0)
        apart = out.any(axis=-1) | (side > 0).all(axis=-1) | (side < 0).all(axis=-1)
        return (~apart & m.poly_valid).any(axis=-1)
    c = m.poly_corners
    columns = tuple(c[:, k, d] for k in range(4) for d in range(2))

    def test(q, *values):
        return _segment_meets_wall(xp, q, tuple(zip(values[0::2], values[1::2], strict=True)))

    return _any_of(xp, seg, columns, m.poly_valid, test)


def sight_blocked(xp: Namespace, p0: Array, p1: Array, m: MapArrays) -> Array:
    """Whether segment p0 -> p1 (int arrays (..., 2)) touches any obstacle (closed shapes)."""
    seg = (p0[..., 0], p0[..., 1], p1[..., 0], p1[..., 1])
    c = m.pillar_centre
    pillars = _any_of(
        xp, seg, (c[:, 0], c[:, 1], m.pillar_radius), m.pillar_valid,
        lambda q, *pillar: _segment_meets_pillar(xp, q, *pillar),
    )  # fmt: skip
    lo, hi = m.rect_lo, m.rect_hi
    rects = _any_of(
        xp, seg, (lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]), m.rect_valid,
        lambda q, *rect: _segment_meets_rect(xp, q, *rect),
    )  # fmt: skip
    return pillars | rects | _walls_meet(xp, m, seg)


_HELD_TILES = 16
_TILED_UP_TO = 1024


def piece_tiles(k: Array, n: int) -> tuple:
    """The per-piece fields of `k` (a NamedTuple whose last field is its `tiles` dict)
    repeated for n points or lines, (pieces, n) each, contiguous (kept in `k.tiles`)."""
    held = k.tiles.get(n)
    if held is None:
        if len(k.tiles) >= _HELD_TILES:  # a few sizes recur; a sweep of others is not kept
            k.tiles.clear()
        held = tuple(
            np.ascontiguousarray(np.broadcast_to(f[:, None], f.shape + (n,))) for f in k[:-1]
        )
        if n <= _TILED_UP_TO:  # the engine's few bodies, points or lines; not a survey's
            k.tiles[n] = held
    return held


class _SightParts(NamedTuple):
    """`sight_blocked`'s operands that depend on the map alone, for NumPy lines (`_sight`),
    pieces first: the turned walls' edges (edge k of every wall, for k = 0..3) on one flat
    axis of E = 4P, and the same tiled per number of lines (`tiles`, (pieces, lines)), so
    that every elementwise step is between arrays of one shape and every reduction runs
    over the leading axis."""

    cx: Array  # (Q,) int32 the pillars' centres and radii
    cy: Array
    r: Array
    r2: Array  # (Q,) int32 r * r, as `near_segment` computes it
    r_f: Array  # (Q,) float32 r, as `near_segment` converts it
    lo_x: Array  # (S,) int32 the square walls' corners
    lo_y: Array
    hi_x: Array
    hi_y: Array
    ax: Array  # (E,) int32 each turned wall's edges: from a to b
    ay: Array
    ex: Array  # (E,) int32 b - a
    ey: Array
    pillar_valid: Array  # (Q,) bool
    rect_valid: Array  # (S,) bool
    poly_valid: Array  # (P,) bool
    tiles: dict  # number of lines n -> every field above, (pieces, n) each


def _build_sight(xp: Namespace, m: MapArrays) -> _SightParts:
    c, r, lo, hi = m.pillar_centre, m.pillar_radius, m.rect_lo, m.rect_hi
    ax, ay, bx, by = _wall_edges(xp, m)
    columns = [c[:, 0], c[:, 1], r, r * r, np.asarray(r).astype(F32), lo[:, 0], lo[:, 1]]
    columns += [hi[:, 0], hi[:, 1]] + [np.asarray(e).T for e in (ax, ay, bx - ax, by - ay)]
    columns += [m.pillar_valid, m.rect_valid, m.poly_valid]
    flat = (np.ascontiguousarray(np.asarray(a).ravel()) for a in columns)
    return _SightParts(*flat, {})


_sight = per_numpy_map(_build_sight)


def numpy_lines_blocked(p0: Array, p1: Array, m: MapArrays) -> Array:
    """`sight_blocked(np, p0, p1, m)` for lines (n, 2) -> (n, 2): the same integer and float
    steps (`_segment_meets_pillar`, `_segment_meets_rect`, `_walls_meet`) elementwise on
    (obstacles, lines) arrays of one shape: each line's ends repeated along the obstacles
    once and the map's parts tiled per number of lines (`piece_tiles`)."""
    k = _sight(np, m)
    n = p0.shape[0]
    (cx, cy, r, r2, r_f, lo_x, lo_y, hi_x, hi_y, ax, ay, ex, ey, pillar_valid, rect_valid,
     poly_valid) = piece_tiles(k, n)  # fmt: skip
    ends = [a[None, :] for a in (p0[:, 0], p0[:, 1], p1[:, 0], p1[:, 1])]
    # Pillars: `near_segment` of the pillar's centre against the line, closed.
    x0, y0, x1, y1 = (a.repeat(cx.shape[0], 0) for a in ends)
    ux, uy = x1 - x0, y1 - y0
    wx, wy = cx - x0, cy - y0
    dot = wx * ux + wy * uy
    uu = ux * ux + uy * uy
    d_a = wx * wx + wy * wy
    d_b = sq(np, cx - x1, cy - y1)
    cross = np.abs(wx * uy - wy * ux).astype(F32)
    reach = r_f * np.sqrt(uu.astype(F32))
    near = np.where(dot <= 0, d_a <= r2, np.where(dot >= uu, d_b <= r2, cross <= reach))
    out = (near & pillar_valid).any(axis=0)
    # Square walls: `_segment_meets_rect`.
    seg = tuple(a.repeat(lo_x.shape[0], 0) for a in ends)
    meets = _segment_meets_rect(np, seg, lo_x, lo_y, hi_x, hi_y)
    out = out | (meets & rect_valid).any(axis=0)
    # Turned walls: `_walls_meet`, edge k of every wall in the k-th block of rows.
    e = ax.shape[0]
    if e:
        x0, y0, x1, y1 = (a.repeat(e, 0) for a in ends)
        edge_out = (ex * (y0 - ay) - ey * (x0 - ax) < 0) & (ex * (y1 - ay) - ey * (x1 - ax) < 0)
        side = (x1 - x0) * (ay - y0) - (y1 - y0) * (ax - x0)
        shape = (4, e // 4, n)
        apart = (
            edge_out.reshape(shape).any(axis=0)
            | (side > 0).reshape(shape).all(axis=0)
            | (side < 0).reshape(shape).all(axis=0)
        )
        out = out | (~apart & poly_valid).any(axis=0)
    return out


def _box_holds_body(xp: Namespace, pt: tuple, lo_x, lo_y, hi_x, hi_y, r) -> Array:
    """A body centred at pt sinks into the box (closer than r + BODY to its rectangle)."""
    x, y = pt
    gx = xp.maximum(xp.maximum(lo_x - x, x - hi_x), 0)
    gy = xp.maximum(xp.maximum(lo_y - y, y - hi_y), 0)
    grown = r + BODY
    return sq(xp, gx, gy) < grown * grown


def _edge_holds_body(xp: Namespace, pt: tuple, ax, ay, bx, by) -> tuple[Array, tuple]:
    """A body centred at pt against one edge of a turned wall: closer than BODY to the edge
    (any edge), or on its inner side (all edges: the centre is inside). Decided exactly
    (`below_root`): a body exactly touching a face stands clear of it."""
    x, y = pt
    near = near_segment(xp, x, y, ax, ay, bx, by, BODY, strict=True, exact=True)
    return near, (orient(ax, ay, bx, by, x, y) >= 0,)


def _off_arena(p: Array) -> tuple[Array, Array]:
    x, y = p[..., 0], p[..., 1]
    return (x < ARENA_LO[0]) | (x > ARENA_HI[0]), (y < ARENA_LO[1]) | (y > ARENA_HI[1])


def body_blocked(xp: Namespace, p: Array, m: MapArrays) -> Array:
    """Whether a body centred at p (int (..., 2)) cannot stand there: `body_overlap(...).any`,
    computed without the per-obstacle detail (the form the sweeps and searches need)."""
    if is_numpy(xp):
        return _numpy_blocked(p, _blockers(np, m))
    pt = (p[..., 0], p[..., 1])
    edge_x, edge_y = _off_arena(p)
    boxes = _boxes_any(xp, m, pt, lambda q, *box: _box_holds_body(xp, q, *box))
    walls = _walls_any(xp, m, pt, lambda q, *edge: _edge_holds_body(xp, q, *edge))
    return boxes | walls | edge_x | edge_y


class _Blockers(NamedTuple):
    """`body_overlap`'s operands that depend on the map alone, for NumPy (`_blockers`),
    pieces first: the boxes, and the turned walls' edges (edge k of every wall, for k =
    0..3) on one flat axis of E = 4P, and the same tiled for each number of points asked
    (`tiles`, (pieces, points)), so that every elementwise step is between arrays of one
    shape (NumPy sets up a broadcast per call, which costs several times more) and every
    reduction runs over the leading axis (one over a short last axis costs several times more)."""

    lo_x: Array  # (B,) int32 each: the boxes' lower and upper corners
    lo_y: Array
    hi_x: Array
    hi_y: Array
    box_reach_sq: Array  # (B,) int32 (radius + BODY) squared; 0 for padding (no square is < 0)
    ax: Array  # (E,) int32 each turned wall's edges: from (ax, ay)
    ay: Array
    ux: Array  # (E,) int32 along the edge: b - a
    uy: Array
    uu: Array  # (E,) int32 |u|^2
    reach: Array  # (E,) float32 BODY * sqrt(|u|^2): where it is sure, the side test
    poly_valid: Array  # (P,) bool
    tiles: dict  # number of points n -> every field above, (pieces, n) each


def _build_blockers(xp: Namespace, m: MapArrays) -> _Blockers:
    """The parts of one NumPy map (kept per map by `_blockers`)."""
    ax, ay, bx, by = _wall_edges(xp, m)
    ux, uy = bx - ax, by - ay
    uu = ux * ux + uy * uy
    reach = xp.asarray(BODY).astype(F32) * xp.sqrt(uu.astype(F32))
    grown = m.box_radius + BODY
    reach_sq = xp.where(m.box_valid, grown * grown, 0).astype(I32)
    lo, hi = m.box_lo, m.box_hi
    columns = [lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1], reach_sq]
    columns += [np.asarray(c).T for c in (ax, ay, ux, uy, uu, reach)]  # edge-major
    flat = (np.ascontiguousarray(np.asarray(c).ravel()) for c in columns + [m.poly_valid])
    return _Blockers(*flat, {})


_blockers = per_numpy_map(_build_blockers)
_ZERO_I = np.asarray(0, I32)
_BODY_SQ = np.asarray(BODY * BODY, I32)


def _numpy_blocked(p: Array, b: _Blockers) -> Array:
    """`body_overlap(np, p, m).any` in fewer NumPy calls, the same integer and float steps,
    elementwise on (pieces, points) arrays of one shape (each point's coordinates repeated
    along the pieces once, the map's parts tiled per number of points: `piece_tiles`):

    - boxes: `_box_holds_body` against the squared grown radius kept per map (0 for
      padding, which no sum of squares is below: `hit & box_valid`);
    - turned walls (`_edge_holds_body`): the map's parts of its test (u, |u|^2, a float32
      reach that decides the side test wherever it is sure, `below_root` elsewhere) kept
      per map; the distance to an edge's end is the distance to the next edge's start (the
      next block of P rows), and `orient >= 0` is `cross <= 0` (both far below 2**31 for
      points within twice the arena, which every caller's points are);
    - the arena's edges as `_off_arena`.
    """
    shape = p.shape[:-1]
    flat = p.reshape(-1, 2)
    n = flat.shape[0]
    lo_x, lo_y, hi_x, hi_y, reach_sq, ax, ay, ux, uy, uu, reach, valid = piece_tiles(b, n)
    x, y = flat[:, 0][None, :], flat[:, 1][None, :]  # (1, n)
    xs, ys = x.repeat(lo_x.shape[0], 0), y.repeat(lo_x.shape[0], 0)
    gx = np.maximum(np.maximum(lo_x - xs, xs - hi_x), _ZERO_I)
    gy = np.maximum(np.maximum(lo_y - ys, ys - hi_y), _ZERO_I)
    boxes = ((gx * gx + gy * gy) < reach_sq).any(axis=0)
    e = ax.shape[0]
    if e:
        walls = e // 4
        xs, ys = x.repeat(e, 0), y.repeat(e, 0)
        wx, wy = xs - ax, ys - ay
        dot = wx * ux + wy * uy
        ends_a = (wx * wx + wy * wy) < _BODY_SQ
        cross = wx * uy - wy * ux
        size = np.abs(cross)
        side = below_root_where_unsure(np, size, BODY, uu, size.astype(F32), reach)
        ends_b = np.concatenate([ends_a[walls:], ends_a[:walls]])  # edge k ends at k + 1
        near = np.where(dot <= _ZERO_I, ends_a, np.where(dot >= uu, ends_b, side))
        inner = (cross <= _ZERO_I).reshape(4, walls, n).all(axis=0)
        hit = near.reshape(4, walls, n).any(axis=0) | inner
        boxes = boxes | (hit & valid).any(axis=0)
    edge_x, edge_y = _off_arena(flat)
    return (boxes | edge_x | edge_y).reshape(shape)


class Overlap(NamedTuple):
    """Why a body centred at a point cannot stand there."""

    any: Array  # (...,) bool
    obstacle: Array  # (..., B + P) the body overlaps box b, then turned wall p
    edge_x: Array  # (...,) beyond the left or right arena edge
    edge_y: Array  # (...,) beyond the bottom or top arena edge


def body_overlap(xp: Namespace, p: Array, m: MapArrays) -> Overlap:
    """Whether a body centred at p (int (..., 2)) sinks into an obstacle or leaves the arena.

    Touching is allowed: only a centre closer than the body radius counts. An empty group
    (a shape known when tracing) is skipped.
    """
    px, py = p[..., 0:1], p[..., 1:2]
    parts = []
    if m.box_lo.shape[0]:
        lo, hi = m.box_lo, m.box_hi
        hit = _box_holds_body(xp, (px, py), lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1], m.box_radius)
        parts.append(hit & m.box_valid)
    if m.poly_corners.shape[0]:
        near, (inner,) = _edge_holds_body(xp, (px[..., None], py[..., None]), *_edges(xp, m))
        parts.append((near.any(axis=-1) | inner.all(axis=-1)) & m.poly_valid)
    edge_x, edge_y = _off_arena(p)
    x = p[..., 0]
    if not parts:
        obstacle = xp.zeros(x.shape + (0,), bool)
        return Overlap(edge_x | edge_y, obstacle, edge_x, edge_y)
    obstacle = parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=-1)
    return Overlap(obstacle.any(axis=-1) | edge_x | edge_y, obstacle, edge_x, edge_y)


def scaled(xp: Namespace, v: Array, num: Array, den: int) -> Array:
    """round(v * num / den) exactly (den a power of two, |v * num| < 2**24)."""
    product = v.astype(F32) * xp.asarray(num).astype(F32) / F32(den)
    return rint(xp, product).astype(I32)


def pair_sq_distances(xp: Namespace, a: Array, b: Array) -> Array:
    """Squared distances between every point of a (N, 2) and b (M, 2), exact integers."""
    return sq(xp, a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
