"""The candidate spots of a shield exit (`shield_exit`), in closed form: the nearest
point of a circle or a grown turned-wall edge, and the crossings of two circles, of a
circle and a line square to the axes, and of a circle and a grown turned-wall face;
each nudged to the free side of its boundaries and rounded to the grid (`snap_all`).

Grid snapping. A candidate on the boundary of one or two convex shapes is moved by the vector
o with o . n = 1 milli-unit for the free-side unit normal n of each shape (o = 2 (n1 + n2) /
|n1 + n2|^2), then rounded: the rounded point clears each shape's tangent half-plane by at
least 1 - 0.71 milli-units, and a point beyond the tangent half-plane of a convex shape lies
outside it. The nudge is 1 milli-unit at a projection and 1 / sin(a / 2) at a corner whose
free wedge opens by the angle a (at most 10 milli-units down to about 11.5 degrees).

Float steps as `shield_exit` states them (symmetry and engines): `fence` before every
addition a product feeds, divisions by a radius as products with its reciprocal.
"""

from __future__ import annotations

import numpy as np

from .contact import fence
from .shape_tests import BODY, F32, I32, sq
from .types import Array, Namespace

NUDGE_CAP = 2.0**-10  # floor of |n1 + n2|^2: nudges stay below 64 milli-units
LIMIT = 25000.0  # relative float coordinates are clipped to this before rounding
SPAN = 16000  # centre offsets are clipped to this before squaring (no int32 overflow)


def to_f32(xp: Namespace, x: Array) -> Array:
    """`x` (whole milli-units, int32) as a float32 array."""
    return xp.asarray(x).astype(F32)


def reciprocal(xp: Namespace, r: Array) -> Array:
    """1 / r as a float32. XLA turns a division by a constant into a product with its
    reciprocal, so every division by a radius is written that way on both engines."""
    return F32(1.0) / to_f32(xp, r)


def scale(xp: Namespace, x: Array, inv: Array) -> Array:
    """`x * inv` behind a `fence`: a division by a radius, as a product with its inverse."""
    return fence(xp, x * inv)


# A candidate group is a tuple (px, py, sx, sy, ok): points relative to h (float32), the sum
# of the free-side unit normals of the boundaries through each, and whether each exists. The
# crossing functions give both crossings of each pair, on a last axis of length 2.


def circle_pair(xp: Namespace, c1: tuple, r1: Array, c2: tuple, r2: Array) -> tuple:
    """The two crossings of circles (c1, r1) and (c2, r2): symmetric in the two circles."""
    vx = xp.clip(c2[0] - c1[0], -SPAN, SPAN)
    vy = xp.clip(c2[1] - c1[1], -SPAN, SPAN)
    d = sq(xp, vx, vy)
    outer = (r1 + r2) * (r1 + r2) - d
    inner = d - (r1 - r2) * (r1 - r2)
    ok = (d > 0) & (outer >= 0) & (inner >= 0)
    two_d = to_f32(xp, 2 * xp.maximum(d, 1))
    e = to_f32(xp, r1 * r1 - r2 * r2) / two_d
    k = (
        xp.sqrt(fence(xp, to_f32(xp, xp.maximum(outer, 0)) * to_f32(xp, xp.maximum(inner, 0))))
        / two_d
    )
    fx, fy = to_f32(xp, vx), to_f32(xp, vy)
    bx = to_f32(xp, c1[0] + c2[0]) * F32(0.5) + fence(xp, e * fx)
    by = to_f32(xp, c1[1] + c2[1]) * F32(0.5) + fence(xp, e * fy)
    kx, ky = fence(xp, k * fx), fence(xp, k * fy)
    i1, i2 = reciprocal(xp, r1), reciprocal(xp, r2)
    out = []
    for px, py in ((bx - ky, by + kx), (bx + ky, by - kx)):
        sx = scale(xp, px - to_f32(xp, c1[0]), i1) + scale(xp, px - to_f32(xp, c2[0]), i2)
        sy = scale(xp, py - to_f32(xp, c1[1]), i1) + scale(xp, py - to_f32(xp, c2[1]), i2)
        out.append((px, py, sx, sy, ok))
    return _paired(xp, out)


def _paired(xp: Namespace, out: list[tuple]) -> tuple:
    """Two candidates of the same shape as one, on a new last axis: XLA computes what they
    share once (two separate pieces would each repeat it)."""
    shape = np.broadcast_shapes(*(np.shape(q) for c in out for q in c))
    return tuple(xp.stack([xp.broadcast_to(c[i], shape) for c in out], -1) for i in range(5))


def flat(xp: Namespace, values: tuple) -> tuple:
    """Broadcast values to one shape and flatten them."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in values))
    typed = [
        xp.asarray(v, I32) if isinstance(v, int) and not isinstance(v, bool) else v for v in values
    ]
    return tuple(xp.broadcast_to(xp.asarray(v), shape).reshape(-1) for v in typed)


def join(xp: Namespace, groups: list[tuple]) -> tuple:
    """Concatenate flat groups of the same layout, value by value."""
    return tuple(xp.concatenate(col) for col in zip(*groups, strict=True))


def circle_axis_line(
    xp: Namespace, c: tuple, r: Array, at: Array, vertical: Array, side: Array
) -> tuple:
    """Crossings of circle (c, r) with the line x = at (`vertical`) or y = at, whose free
    side is toward `side` (+1 or -1) across it."""
    across = xp.where(vertical, c[0], c[1])
    along = xp.where(vertical, c[1], c[0])
    gap = xp.clip(at - across, -SPAN, SPAN)
    rest = r * r - gap * gap
    ok = rest >= 0
    t = xp.sqrt(to_f32(xp, xp.maximum(rest, 0)))
    inv = reciprocal(xp, r)
    out = []
    for sign in (1, -1):
        p_across, p_along = to_f32(xp, at), to_f32(xp, along) + sign * t
        n_across = scale(xp, to_f32(xp, gap), inv) + to_f32(xp, side)
        n_along = scale(xp, sign * t, inv)
        out.append((
            xp.where(vertical, p_across, p_along), xp.where(vertical, p_along, p_across),
            xp.where(vertical, n_across, n_along), xp.where(vertical, n_along, n_across), ok,
        ))  # fmt: skip
    return _paired(xp, out)


def circle_face(xp: Namespace, c: tuple, r: Array, edge: tuple) -> tuple:
    """Crossings of circle (c, r) with a turned wall's edge line pushed out by BODY.

    The signed distance comes from an exact integer cross product, the same from either end
    of the edge, so a mirrored wall (whose edges run the other way) gives mirrored points.
    """
    ax, ay, ex, ey, length, ux, uy, nx, ny = edge
    wx = xp.clip(c[0] - ax, -SPAN, SPAN)
    wy = xp.clip(c[1] - ay, -SPAN, SPAN)
    cross = wx * ey - wy * ex
    dist = to_f32(xp, cross) / length - F32(BODY)
    rest = to_f32(xp, r * r) - fence(xp, dist * dist)
    ok = rest >= 0
    t = xp.sqrt(xp.maximum(rest, F32(0)))
    fx = to_f32(xp, c[0]) - fence(xp, dist * nx)
    fy = to_f32(xp, c[1]) - fence(xp, dist * ny)
    tx, ty = fence(xp, t * ux), fence(xp, t * uy)
    inv = reciprocal(xp, r)
    out = []
    for px, py in ((fx + tx, fy + ty), (fx - tx, fy - ty)):
        sx = scale(xp, px - to_f32(xp, c[0]), inv) + nx
        sy = scale(xp, py - to_f32(xp, c[1]), inv) + ny
        out.append((px, py, sx, sy, ok))
    return _paired(xp, out)


def projection(xp: Namespace, c: tuple, r: Array, toward_end: Array) -> tuple:
    """Nearest point to h (the origin) on the circle (c, r); from the centre itself, the point
    toward the leaver's own end (`toward_end` is -1 or +1 along x)."""
    length2 = sq(xp, xp.clip(c[0], -SPAN, SPAN), xp.clip(c[1], -SPAN, SPAN))
    length = fence(xp, xp.sqrt(to_f32(xp, xp.maximum(length2, 1))))
    at_centre = length2 == 0
    nx = xp.where(at_centre, to_f32(xp, toward_end), to_f32(xp, -c[0]) / length)
    ny = xp.where(at_centre, F32(0), to_f32(xp, -c[1]) / length)
    fr = to_f32(xp, r)
    px = to_f32(xp, c[0]) + fence(xp, fr * nx)
    py = to_f32(xp, c[1]) + fence(xp, fr * ny)
    return px, py, nx + nx, ny + ny


def edge_projection(xp: Namespace, edge: tuple, toward_end: Array) -> tuple:
    """Nearest point to h on each turned-wall edge grown by BODY (a capsule's boundary)."""
    ax, ay, ex, ey, length, ux, uy, nx, ny = edge
    dot = -(ax * ex + ay * ey)
    ee = sq(xp, ex, ey)
    corner_x = xp.where(dot >= ee, ax + ex, ax)
    corner_y = xp.where(dot >= ee, ay + ey, ay)
    cpx, cpy, csx, csy = projection(xp, (corner_x, corner_y), BODY, toward_end)
    # Inside the edge's span: straight out along the normal, on h's side of the line.
    side = -(ax * ey - ay * ex)  # h's cross product: > 0 outside
    dist = to_f32(xp, side) / length
    sgn = xp.where(side >= 0, F32(1), F32(-1))
    qx, qy = -fence(xp, dist * nx), -fence(xp, dist * ny)
    fpx = qx + fence(xp, F32(BODY) * sgn * nx)
    fpy = qy + fence(xp, F32(BODY) * sgn * ny)
    face = (dot > 0) & (dot < ee)
    pick = lambda a, b: xp.where(face, a, b)  # noqa: E731
    return pick(fpx, cpx), pick(fpy, cpy), pick(2 * sgn * nx, csx), pick(2 * sgn * ny, csy)


def _snap(xp: Namespace, cand: tuple) -> tuple[Array, Array]:
    """Nudge each candidate to the free side of its boundaries and round to the grid."""
    px, py, sx, sy, ok = cand
    ss = fence(xp, sx * sx) + fence(xp, sy * sy)
    q = F32(2.0) / xp.maximum(ss, F32(NUDGE_CAP))
    x = px + fence(xp, q * sx)
    y = py + fence(xp, q * sy)
    # Every square root and division above is guarded, so x and y are finite; `ok` is left
    # as it is (reading x and y here would make XLA compute them twice).
    x = xp.clip(xp.where(ok, x, F32(0)), -LIMIT, LIMIT)
    y = xp.clip(xp.where(ok, y, F32(0)), -LIMIT, LIMIT)
    return xp.stack([xp.round(x), xp.round(y)], -1).astype(I32), ok


def snap_all(xp: Namespace, parts: list[tuple]) -> tuple[Array, Array]:
    """Snap all candidates at once: (C, 2) int32 spots and (C,) whether each exists."""
    return _snap(xp, join(xp, [tuple(q.reshape(-1) for q in p) for p in parts]))
