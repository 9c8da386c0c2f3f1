"""First contact in continuous time: when a moving body first touches each obstacle.

A body centred at p moving by v (both int32 milli-units) first touches a grown obstacle at
the fraction lam of v where its centre reaches the obstacle's grown boundary while moving
into it. The grown shapes are unions of pieces whose boundaries are straight faces and
circles (a pillar is a circle; a square wall is two slabs and four corner circles; a turned
wall is its four offset edges and four corner circles), so lam is the least entry over the
pieces: linear for faces, a quadratic root for circles. A body already touching a surface
enters it at 0 only if it moves into it; touching while moving along or away is no contact.

Floats and the two engines: every decision that can be made in integers is (who moves
toward what, whether a face's contact lies on the face), and the float steps are single,
correctly rounded operations in one fixed order. XLA on the CPU fuses a product feeding a
sum into one FMA and rewrites a division by a square root as a reciprocal-root product;
both round differently from NumPy, so `fence` sits between such operations. XLA also
turns a division by a value broadcast along an axis into a product with its reciprocal, so
every division here is written that way on both engines (`inverse`, then a product).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .geometry import ARENA_HI, ARENA_LO, BODY, F32, I32
from .state import MapArrays

NO_HIT = F32(1e6)  # lam of a piece that is never entered
_CAP = F32(3e38)


def fence(xp: Any, x: Any) -> Any:
    """`x`, unchanged for finite values, in a form XLA cannot fuse into its neighbours."""
    return xp.minimum(x, _CAP)


def f32(x: Any) -> Any:
    return x.astype(F32)


def inverse(xp: Any, x: Any) -> Any:
    """1 / x as a fenced value, to multiply by: the form XLA gives a broadcast divisor."""
    return fence(xp, F32(1) / x)


def circle_entry(xp: Any, ax: Any, ay: Any, vx: Any, vy: Any, g: Any) -> Any:
    """First lam >= 0 at which a + lam * v comes strictly within g of the origin.

    a (offset from the circle's centre), v and g are integers; a point touching the circle
    at lam = 0 enters it only if it moves inward (a . v < 0).
    """
    ab = ax * vx + ay * vy
    bb = vx * vx + vy * vy
    aa = ax * ax + ay * ay
    cross = xp.abs(ax * vy - ay * vx)
    g_f = f32(xp.asarray(g))
    per_speed = inverse(xp, xp.maximum(fence(xp, xp.sqrt(f32(bb))), F32(1)))
    miss = fence(xp, f32(cross) * per_speed)  # distance of the line from the centre
    near = miss < g_f
    half = xp.sqrt(fence(xp, xp.maximum(g_f - miss, F32(0)) * (g_f + miss)))
    mid = fence(xp, f32(-ab) * inverse(xp, f32(xp.maximum(bb, 1))))
    lam = mid - fence(xp, half * per_speed)
    closing = ab < 0
    touching = aa <= g * g  # on (or, by rounding, inside) the circle at the start
    lam = xp.where(touching, F32(0), xp.maximum(lam, F32(0)))
    return xp.where(closing & (near | touching) & (bb > 0), lam, NO_HIT)


def circle_span(xp: Any, ax: Any, ay: Any, vx: Any, vy: Any, g: Any) -> tuple[Any, Any]:
    """The open interval of lam over which a + lam * v lies strictly within g of the origin
    (integers in; (NO_HIT, NO_HIT), an empty interval, when the line passes at g or more)."""
    ab = ax * vx + ay * vy
    bb = vx * vx + vy * vy
    cross = xp.abs(ax * vy - ay * vx)
    g_f = f32(xp.asarray(g))
    per_speed = inverse(xp, xp.maximum(fence(xp, xp.sqrt(f32(bb))), F32(1)))
    miss = fence(xp, f32(cross) * per_speed)
    half = xp.sqrt(fence(xp, xp.maximum(g_f - miss, F32(0)) * (g_f + miss)))
    mid = fence(xp, f32(-ab) * inverse(xp, f32(xp.maximum(bb, 1))))
    spread = fence(xp, half * per_speed)
    crosses = (miss < g_f) & (bb > 0)
    return xp.where(crosses, mid - spread, NO_HIT), xp.where(crosses, mid + spread, NO_HIT)


def float_circle_entry(xp: Any, ax: Any, ay: Any, ux: Any, uy: Any, radii: tuple) -> list:
    """`circle_entry` for float offsets and motions (the relative paths of two bodies), for
    each radius in `radii` (the products are shared)."""
    ab = fence(xp, ax * ux) + fence(xp, ay * uy)
    bb = fence(xp, ux * ux) + fence(xp, uy * uy)
    aa = fence(xp, ax * ax) + fence(xp, ay * ay)
    cross = xp.abs(fence(xp, ax * uy) - fence(xp, ay * ux))
    per_speed = inverse(xp, xp.maximum(fence(xp, xp.sqrt(bb)), F32(1e-6)))
    miss = fence(xp, cross * per_speed)
    mid = fence(xp, -ab * inverse(xp, xp.maximum(bb, F32(1e-12))))
    moving_in = (ab < 0) & (bb > 0)
    out = []
    for g in radii:
        g_f = F32(g)
        half = xp.sqrt(fence(xp, xp.maximum(g_f - miss, F32(0)) * (g_f + miss)))
        lam = mid - fence(xp, half * per_speed)
        touching = aa <= F32(g * g)
        # Touching at the start counts only if they close by more than float noise (a
        # body standing where a follower meets it is reached at that instant, not before).
        pressing = touching & (ab < -F32(g) * F32(0.01))
        lam = xp.where(touching, F32(0), xp.maximum(lam, F32(0)))
        out.append(xp.where(moving_in & (((miss < g_f) & ~touching) | pressing), lam, NO_HIT))
    return out


def face_entry(xp: Any, dist: Any, speed: Any, along: Any, drift: Any, length: Any) -> Any:
    """First lam >= 0 at which a point reaches a straight face ahead of it.

    `dist` (>= 0 on the outer side) is its distance to the face's line and `speed` how fast
    it closes on it, both in the same integer scale; `along` is its position along the face
    from one end and `drift` how fast that changes, scaled like `dist`/`speed`. The face holds
    positions 0..`length`. The contact lies on the face when along * speed + drift * dist is
    within 0..length * speed, an exact integer test.
    """
    at = along * speed + drift * dist
    on_face = (at >= 0) & (at <= length * speed)
    lam = fence(xp, f32(dist) * inverse(xp, f32(xp.maximum(speed, 1))))
    return xp.where((speed > 0) & (dist >= 0) & on_face, lam, NO_HIT)


def arena_entries(xp: Any, p: Any, v: Any) -> Any:
    """(..., 4) lam at which the body reaches the left, right, bottom and top edges."""
    x, y = p[..., 0], p[..., 1]
    vx, vy = v[..., 0], v[..., 1]
    dist = xp.stack([x - ARENA_LO[0], ARENA_HI[0] - x, y - ARENA_LO[1], ARENA_HI[1] - y], -1)
    speed = xp.stack([-vx, vx, -vy, vy], -1)
    whole = xp.zeros_like(dist)
    return face_entry(xp, dist, speed, whole, whole, whole + 1)  # one call: NumPy's cost


def _poly_edge(xp: Any, px, py, vx, vy, ax, ay, bx, by) -> Any:
    """First contact with edge a -> b of a turned wall (counter-clockwise), offset by a body."""
    ex, ey = bx - ax, by - ay
    outer = ey * (px - ax) - ex * (py - ay)  # |e| times the distance outside the edge
    closing = ex * vy - ey * vx  # how fast `outer` falls, per unit of lam
    ee = ex * ex + ey * ey
    offset = fence(xp, F32(BODY) * fence(xp, xp.sqrt(f32(ee))))
    dist = f32(outer) - offset
    lam = fence(xp, xp.maximum(dist, F32(0)) * inverse(xp, f32(xp.maximum(closing, 1))))
    along = f32(ex * (px - ax) + ey * (py - ay)) + fence(xp, lam * f32(ex * vx + ey * vy))
    on_edge = (along >= 0) & (along <= f32(ee))
    # A start within 1/100 of a thousandth of touching counts as touching (float rounding).
    fine = (closing > 0) & (outer > 0) & (dist > -fence(xp, offset * F32(0.01 / BODY))) & on_edge
    return xp.where(fine, lam, NO_HIT)


def _rect_faces(xp: Any, px, py, vx, vy, lo_x, lo_y, hi_x, hi_y) -> Any:
    """(..., S, 4) first contact with the four faces of each square wall grown by a body:
    west, east, south, north (one call of `face_entry`: NumPy pays per call)."""
    g = BODY
    w, h = hi_x - lo_x, hi_y - lo_y
    dx, dy = py - lo_y, px - lo_x
    stack = lambda *parts: xp.stack(xp.broadcast_arrays(*parts), -1)  # noqa: E731
    return face_entry(
        xp,
        stack(lo_x - g - px, px - hi_x - g, lo_y - g - py, py - hi_y - g),
        stack(vx, -vx, vy, -vy),
        stack(dx, dx, dy, dy),
        stack(vy, vy, vx, vx),
        stack(h, h, w, w),
    )


def obstacle_entries(xp: Any, p: Any, v: Any, m: MapArrays) -> Any:
    """(..., 4 + Q + S + P) lam of first contact with each arena edge (left, right, bottom,
    top), then each pillar, square wall and turned wall; NO_HIT for none.

    The order is the tie order: mirrored maps list their obstacles in the same order and
    the two x edges never tie with each other, so ties break the same way in mirror games.
    Every circle piece (pillars, square walls' and turned walls' corners) is one array, then
    every face and every edge: few array calls for NumPy, where each call has a fixed cost,
    and wide elementwise work that XLA compiles quickly and vectorises well.
    """
    px, py, vx, vy = (a[..., None] for a in (p[..., 0], p[..., 1], v[..., 0], v[..., 1]))
    lo, hi = m.rect_lo, m.rect_hi
    rect_corners = xp.stack(
        [xp.stack([lo[:, 0], lo[:, 1]], -1), xp.stack([hi[:, 0], lo[:, 1]], -1),
         xp.stack([hi[:, 0], hi[:, 1]], -1), xp.stack([lo[:, 0], hi[:, 1]], -1)], 1,
    ).reshape(-1, 2)  # fmt: skip
    poly_corners = m.poly_corners.reshape(-1, 2)
    centres = xp.concatenate([m.pillar_centre, rect_corners, poly_corners])
    reach = xp.concatenate(
        [
            m.pillar_radius + BODY,
            xp.full((rect_corners.shape[0] + poly_corners.shape[0],), BODY, dtype=I32),
        ]
    )
    nq, ns, npoly = m.pillar_centre.shape[0], lo.shape[0], m.poly_corners.shape[0]
    with np.errstate(all="ignore"):  # masked padding divides by zero
        circles = circle_entry(xp, px - centres[:, 0], py - centres[:, 1], vx, vy, reach)
        shape = p.shape[:-1]
        rect_c = circles[..., nq : nq + 4 * ns].reshape(shape + (ns, 4)).min(-1)
        poly_c = circles[..., nq + 4 * ns :].reshape(shape + (npoly, 4)).min(-1)
        faces = _rect_faces(xp, px, py, vx, vy, lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1])
        rects = xp.minimum(faces.min(-1), rect_c)
        a = m.poly_corners
        b = xp.roll(a, -1, axis=1)
        edges = _poly_edge(
            xp, px[..., None], py[..., None], vx[..., None], vy[..., None],
            a[..., 0], a[..., 1], b[..., 0], b[..., 1],
        ).min(-1)  # fmt: skip
        walls = xp.minimum(edges, poly_c)
    return xp.concatenate(
        [
            arena_entries(xp, p, v),
            xp.where(m.pillar_valid, circles[..., :nq], NO_HIT),
            xp.where(m.rect_valid, rects, NO_HIT),
            xp.where(m.poly_valid, walls, NO_HIT),
        ],
        axis=-1,
    )
