"""Exact tests on the milli-unit grid, one shape at a time: a point or a segment against
a pillar, a square wall, a turned wall's edge or the arena's edges.

All coordinates are int32 milli-units. Orientation tests, dot products and squared
distances are exact integers (every value stays below 2**31 for points near the 20 x 10
arena); the one float step compares |cross| with r * sqrt(|u|^2), a chain of single,
correctly rounded operations that gives the same answer on every backend (`below_root`
decides it exactly where that matters). Functions take the array namespace `xp` and never
branch on values (the NumPy-only shortcuts skip work whose result is known, and give the
same answers). `geometry` runs these tests over all of a map's obstacles.
"""

from __future__ import annotations

import numpy as np

from .backend import is_numpy
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


def wall_edges(xp: Namespace, m: MapArrays):
    """Each turned wall's edges as (P, 4) start and end coordinates."""
    a = m.poly_corners
    b = m.poly_corners[:, [1, 2, 3, 0], :]
    return a[..., 0], a[..., 1], b[..., 0], b[..., 1]


def segment_meets_pillar(xp: Namespace, seg: tuple, cx, cy, r) -> Array:
    """Segment (x0, y0, x1, y1) comes within r of a pillar's centre (closed disc)."""
    x0, y0, x1, y1 = seg
    return near_segment(xp, cx, cy, x0, y0, x1, y1, r, strict=False)


def segment_meets_rect(xp: Namespace, seg: tuple, lo_x, lo_y, hi_x, hi_y) -> Array:
    """Segment touches a wall square to the axes (closed rectangle): their bounding boxes
    meet and the rectangle's corners are not all strictly on one side of the segment."""
    x0, y0, x1, y1 = seg
    ux, uy = x1 - x0, y1 - y0
    # A corner (x, y) lies on the side ux (y - y0) - uy (x - x0) of the segment: a sum of a
    # term in y and a term in x, so its least and greatest over the four corners pair the
    # extremes of the two terms (four products and four comparisons instead of sixteen
    # operations; every value is the same exact integer).
    ly, hy = ux * (lo_y - y0), ux * (hi_y - y0)
    lx, hx = uy * (lo_x - x0), uy * (hi_x - x0)
    overlap = (
        (xp.maximum(x0, x1) >= lo_x)
        & (xp.minimum(x0, x1) <= hi_x)
        & (xp.maximum(y0, y1) >= lo_y)
        & (xp.minimum(y0, y1) <= hi_y)
    )
    some_right_or_on = xp.minimum(ly, hy) <= xp.maximum(lx, hx)
    some_left_or_on = xp.maximum(ly, hy) >= xp.minimum(lx, hx)
    return overlap & some_right_or_on & some_left_or_on


def segment_meets_wall(xp: Namespace, seg: tuple, corners: tuple) -> Array:
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


def box_holds_body(xp: Namespace, pt: tuple, lo_x, lo_y, hi_x, hi_y, r) -> Array:
    """A body centred at pt sinks into the box (closer than r + BODY to its rectangle)."""
    x, y = pt
    gx = xp.maximum(xp.maximum(lo_x - x, x - hi_x), 0)
    gy = xp.maximum(xp.maximum(lo_y - y, y - hi_y), 0)
    grown = r + BODY
    return sq(xp, gx, gy) < grown * grown


def edge_holds_body(xp: Namespace, pt: tuple, ax, ay, bx, by) -> tuple[Array, tuple]:
    """A body centred at pt against one edge of a turned wall: closer than BODY to the edge
    (any edge), or on its inner side (all edges: the centre is inside). Decided exactly
    (`below_root`): a body exactly touching a face stands clear of it."""
    x, y = pt
    near = near_segment(xp, x, y, ax, ay, bx, by, BODY, strict=True, exact=True)
    return near, (orient(ax, ay, bx, by, x, y) >= 0,)


def off_arena(p: Array) -> tuple[Array, Array]:
    """Whether a body centred at p (int (..., 2)) lies beyond the left or right arena edge,
    and beyond the bottom or top one."""
    x, y = p[..., 0], p[..., 1]
    return (x < ARENA_LO[0]) | (x > ARENA_HI[0]), (y < ARENA_LO[1]) | (y > ARENA_HI[1])


def pair_sq_distances(xp: Namespace, a: Array, b: Array) -> Array:
    """Squared distances between every point of a (N, 2) and b (M, 2), exact integers."""
    return sq(xp, a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
