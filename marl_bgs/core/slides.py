"""Where a slide meets the next surface: first contacts from a point off the grid.

A slide starts where a body first touched a surface, at the exact contact instant, so its
start is not a point of the milli grid, and it runs along the tangent there, a direction
that is not a grid vector either (RULES.md, "Exact decisions": closing speeds and slide
directions are those of the true paths). Its first contact with any other surface is
therefore computed in float32, on offsets from the body's start of tick (whole numbers, so
the obstacles' offsets are exact and a mirrored game negates every value exactly), one row
per (body, obstacle) as `obstacle_rows` lays them out, with the four arena edges apart.

The surface a body slides along is left out by its caller: a tangent of a convex shape is
a supporting line of it, so the slide never enters it. Float steps are single, correctly
rounded operations, and every product that feeds a sum is fenced (`contact.bounded_fence`:
XLA would fuse it into an FMA), so NumPy and JAX give the same bits. Every value is an
offset within a few arena widths (below 1e5), a product below 1e10, a floored inverse below
1e12, so every fenced value is far below 3e38.
"""

from __future__ import annotations

import numpy as np

from .array_ops import stack
from .backend import is_numpy
from .contact import NO_HIT, bounded_fence, bounded_inverse, fenced_dot
from .obstacle_rows import PILLAR, SQUARE, Obstacles
from .shape_tests import ARENA_HI, ARENA_LO, BODY, F32
from .types import Array, Namespace

_ZERO = np.asarray(0, F32)
_ONE = np.asarray(1, F32)
_TINY = np.asarray(1e-12, F32)  # floors of squared speeds and divisors
_BODY = np.asarray(BODY, F32)
# A start this far (milli-units) on the wrong side of a face still counts as touching it:
# a contact point is exact only to float32 rounding of an offset (about 1e-3 at most).
_SLACK = np.asarray(0.01, F32)


def circle_entries(xp: Namespace, ax: Array, ay: Array, wx: Array, wy: Array, g: Array) -> Array:
    """First lam >= 0 at which a + lam w comes within g of the origin while moving in
    (NO_HIT if never): floats in, a at or outside the circle up to rounding."""
    ab = fenced_dot(xp, ax, ay, wx, wy)
    bb = fenced_dot(xp, wx, wy, wx, wy)
    aa = fenced_dot(xp, ax, ay, ax, ay)
    cross = xp.abs(bounded_fence(xp, ax * wy) - bounded_fence(xp, ay * wx))
    per_speed = bounded_inverse(xp, xp.maximum(xp.sqrt(bb), _TINY))
    miss = bounded_fence(xp, cross * per_speed)
    mid = bounded_fence(xp, -ab * bounded_inverse(xp, xp.maximum(bb, _TINY)))
    half = xp.sqrt(bounded_fence(xp, xp.maximum(g - miss, _ZERO) * (g + miss)))
    lam = mid - bounded_fence(xp, half * per_speed)
    inside = aa <= bounded_fence(xp, g * g)
    lam = xp.where(inside, _ZERO, xp.maximum(lam, _ZERO))
    return xp.where((ab < 0) & (bb > 0) & ((miss < g) | inside), lam, NO_HIT)


def line_entries(
    xp: Namespace,
    outer: Array,
    closing: Array,
    along: Array,
    drift: Array,
    span: Array,
    slack: Array = _SLACK,
) -> Array:
    """First lam >= 0 at which a point reaches a straight face ahead of it (NO_HIT if
    never): `outer` is how far it lies outside the face's line and `closing` how fast that
    falls per unit of lam, `along` where it lies along the face and `drift` how fast that
    changes, the face holding along in [0, span]; a start up to `slack` inside the line
    counts as touching it (all in one scale)."""
    per_closing = bounded_inverse(xp, xp.maximum(closing, _TINY))
    lam = bounded_fence(xp, xp.maximum(outer, _ZERO) * per_closing)
    at = along + bounded_fence(xp, lam * drift)
    fine = (closing > 0) & (outer >= -slack) & (at >= 0) & (at <= span)
    return xp.where(fine, lam, NO_HIT)


def arena_entries(xp: Namespace, start: Array, p: Array, w: Array) -> Array:
    """(N, 4) first contact of each slide (from offset p (N, 2) of a body whose start is
    `start`, int (N, 2), along w) with the left, right, bottom and top edges."""
    # The distances of the start from the edges: exact whole numbers, then float32 (NumPy
    # would widen an int32-float32 sum to float64, JAX would not).
    lo = (start - np.asarray(ARENA_LO, np.int32)).astype(F32)
    hi = (np.asarray(ARENA_HI, np.int32) - start).astype(F32)
    x, y, wx, wy = p[:, 0], p[:, 1], w[:, 0], w[:, 1]
    outer = stack(xp, [x + lo[:, 0], hi[:, 0] - x, y + lo[:, 1], hi[:, 1] - y], -1)
    closing = stack(xp, [-wx, wx, -wy, wy], -1)
    per_closing = bounded_inverse(xp, xp.maximum(closing, _TINY))
    lam = bounded_fence(xp, xp.maximum(outer, _ZERO) * per_closing)
    return xp.where((closing > 0) & (outer >= -_SLACK), lam, NO_HIT)


def row_slide_entries(
    xp: Namespace, start: Array, p: Array, w: Array, ob: Obstacles, kind: int
) -> Array:
    """(R,) first contact of each row's slide with the row's obstacle (all of one kind):
    `start` int (R, 2) the body's start of tick, p (R, 2) the slide's start as an offset
    from it, w (R, 2) the slide."""
    corners = (ob.corners - start[:, None, :]).astype(F32)  # exact: small whole numbers
    x, y, wx, wy = p[:, 0], p[:, 1], w[:, 0], w[:, 1]
    g = ob.radius.astype(F32)
    if is_numpy(xp) and kind != PILLAR:
        return _numpy_wall_entries(corners, x, y, wx, wy, g, ob.valid, kind)
    if kind == PILLAR:
        centre = corners[:, 0]
        lam = circle_entries(xp, x - centre[:, 0], y - centre[:, 1], wx, wy, g)
        return xp.where(ob.valid, lam, NO_HIT)
    out = None
    for k in range(4):  # the corners' circles
        c = corners[:, k]
        one = circle_entries(xp, x - c[:, 0], y - c[:, 1], wx, wy, g)
        out = one if out is None else xp.minimum(out, one)
    if kind == SQUARE:
        lo, hi = corners[:, 0], corners[:, 2]
        faces = (
            (lo[:, 0] - _BODY - x, wx, y - lo[:, 1], wy, hi[:, 1] - lo[:, 1]),  # west
            (x - hi[:, 0] - _BODY, -wx, y - lo[:, 1], wy, hi[:, 1] - lo[:, 1]),  # east
            (lo[:, 1] - _BODY - y, wy, x - lo[:, 0], wx, hi[:, 0] - lo[:, 0]),  # south
            (y - hi[:, 1] - _BODY, -wy, x - lo[:, 0], wx, hi[:, 0] - lo[:, 0]),  # north
        )
        for face in faces:
            out = xp.minimum(out, line_entries(xp, *face))
    else:  # a turned wall: its edges a -> b, counter-clockwise, offset by a body
        for k in range(4):
            a, b = corners[:, k], corners[:, (k + 1) % 4]
            ex, ey = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
            length = xp.sqrt(fenced_dot(xp, ex, ey, ex, ey))
            rx, ry = x - a[:, 0], y - a[:, 1]
            outer = (bounded_fence(xp, ey * rx) - bounded_fence(xp, ex * ry)) - bounded_fence(
                xp, _BODY * length
            )
            closing = bounded_fence(xp, ex * wy) - bounded_fence(xp, ey * wx)
            along = fenced_dot(xp, ex, ey, rx, ry)
            drift = fenced_dot(xp, ex, ey, wx, wy)
            span = fenced_dot(xp, ex, ey, ex, ey)
            # outer and closing are |e| times a length: so is the slack.
            slack = bounded_fence(xp, _SLACK * length)
            out = xp.minimum(out, line_entries(xp, outer, closing, along, drift, span, slack))
    return xp.where(ob.valid, out, NO_HIT)


def _numpy_wall_entries(corners, x, y, wx, wy, g, valid, kind: int) -> Array:
    """`row_slide_entries` of walls on NumPy: a wall's four corners (and four faces or
    edges) on one more axis, so each step is one call for all of them (NumPy pays per
    call; XLA, which does not vectorise short reductions along the last axis, takes the
    corner-by-corner form). Every element goes through the same operations: the same bits."""

    def col(a: Array) -> Array:
        return a[:, None]

    cx, cy = corners[..., 0], corners[..., 1]
    out = circle_entries(np, col(x) - cx, col(y) - cy, col(wx), col(wy), col(g)).min(axis=1)
    if kind == SQUARE:
        lo_x, lo_y, hi_x, hi_y = cx[:, 0], cy[:, 0], cx[:, 2], cy[:, 2]
        outer = np.stack(
            [lo_x - _BODY - x, x - hi_x - _BODY, lo_y - _BODY - y, y - hi_y - _BODY], 1
        )
        closing = np.stack([wx, -wx, wy, -wy], 1)
        along = np.stack([y - lo_y, y - lo_y, x - lo_x, x - lo_x], 1)
        drift = np.stack([wy, wy, wx, wx], 1)
        span = np.stack([hi_y - lo_y, hi_y - lo_y, hi_x - lo_x, hi_x - lo_x], 1)
        faces = line_entries(np, outer, closing, along, drift, span).min(axis=1)
        return np.where(valid, np.minimum(out, faces), NO_HIT)
    ex, ey = np.roll(cx, -1, axis=1) - cx, np.roll(cy, -1, axis=1) - cy
    length = np.sqrt(fenced_dot(np, ex, ey, ex, ey))
    rx, ry = col(x) - cx, col(y) - cy
    outer = (ey * rx - ex * ry) - _BODY * length
    closing = ex * col(wy) - ey * col(wx)
    along = fenced_dot(np, ex, ey, rx, ry)
    drift = fenced_dot(np, ex, ey, col(wx), col(wy))
    span = fenced_dot(np, ex, ey, ex, ey)
    edges = line_entries(np, outer, closing, along, drift, span, _SLACK * length).min(axis=1)
    return np.where(valid, np.minimum(out, edges), NO_HIT)
