"""Exact geometry on the milli-unit grid: sight lines, body overlap, swept moves.

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

from typing import Any, NamedTuple

import numpy as np

from .state import MILLI, MapArrays

I32 = np.int32
F32 = np.float32
BODY = 500  # body radius in milli-units
CONTACT = 2 * BODY  # centre distance of two touching bodies
ARENA_LO = (BODY, BODY)
ARENA_HI = (20 * MILLI - BODY, 10 * MILLI - BODY)


def sq(xp: Any, dx: Any, dy: Any) -> Any:
    return dx * dx + dy * dy


def orient(ax, ay, bx, by, px, py):
    """Twice the signed area of (a, b, p): > 0 when p lies left of a -> b."""
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


def near_segment(xp: Any, px, py, ax, ay, bx, by, r: Any, strict: bool) -> Any:
    """Whether point p lies within r of segment a-b (closer than r if `strict`)."""
    ux, uy = bx - ax, by - ay
    wx, wy = px - ax, py - ay
    dot = wx * ux + wy * uy
    uu = ux * ux + uy * uy
    r2 = r * r
    d_a = wx * wx + wy * wy
    d_b = sq(xp, px - bx, py - by)
    cross = xp.abs(wx * uy - wy * ux).astype(F32)
    reach = xp.asarray(r).astype(F32) * xp.sqrt(uu.astype(F32))
    if strict:
        ends_a, ends_b, side = d_a < r2, d_b < r2, cross < reach
    else:
        ends_a, ends_b, side = d_a <= r2, d_b <= r2, cross <= reach
    return xp.where(dot <= 0, ends_a, xp.where(dot >= uu, ends_b, side))


def _edges(m: MapArrays):
    """Each turned wall's edges as (P, 4) start and end coordinates."""
    a = m.poly_corners
    b = m.poly_corners[:, [1, 2, 3, 0], :]
    return a[..., 0], a[..., 1], b[..., 0], b[..., 1]


def _sign(xp: Any, v: Any) -> Any:
    return (v > 0).astype(I32) - (v < 0).astype(I32)


def _box_gap(xp: Any, px: Any, py: Any, m: MapArrays) -> tuple[Any, Any]:
    """Per box, how far a point lies beyond its rectangle along x and y (0 if within)."""
    gx = xp.maximum(xp.maximum(m.box_lo[:, 0] - px, px - m.box_hi[:, 0]), 0)
    gy = xp.maximum(xp.maximum(m.box_lo[:, 1] - py, py - m.box_hi[:, 1]), 0)
    return gx, gy


def sight_blocked(xp: Any, p0: Any, p1: Any, m: MapArrays) -> Any:
    """Whether segment p0 -> p1 (int arrays (..., 2)) touches any obstacle (closed shapes)."""
    x0, y0, x1, y1 = (v[..., None] for v in (p0[..., 0], p0[..., 1], p1[..., 0], p1[..., 1]))
    lo, hi, r = m.box_lo, m.box_hi, m.box_radius
    # Pillars: the centre lies within the radius of the segment.
    pillar = near_segment(xp, lo[:, 0], lo[:, 1], x0, y0, x1, y1, r, strict=False) & (r > 0)
    # Square walls: the bounding boxes meet and the corners are not all on one side.
    overlap = (
        (xp.maximum(x0, x1) >= lo[:, 0])
        & (xp.minimum(x0, x1) <= hi[:, 0])
        & (xp.maximum(y0, y1) >= lo[:, 1])
        & (xp.minimum(y0, y1) <= hi[:, 1])
    )
    sides = [
        _sign(xp, orient(x0, y0, x1, y1, cx, cy))
        for cx, cy in (
            (lo[:, 0], lo[:, 1]),
            (hi[:, 0], lo[:, 1]),
            (hi[:, 0], hi[:, 1]),
            (lo[:, 0], hi[:, 1]),
        )
    ]
    apart = (
        (sides[0] == sides[1]) & (sides[1] == sides[2]) & (sides[2] == sides[3]) & (sides[0] != 0)
    )
    box = (pillar | (overlap & ~apart & (r == 0))) & m.box_valid
    # Turned walls: an end inside the polygon, or the segment meets one of its edges.
    ax, ay, bx, by = _edges(m)
    x0e, y0e, x1e, y1e = (v[..., None] for v in (x0, y0, x1, y1))
    s1 = _sign(xp, orient(ax, ay, bx, by, x0e, y0e))
    s2 = _sign(xp, orient(ax, ay, bx, by, x1e, y1e))
    s3 = _sign(xp, orient(x0e, y0e, x1e, y1e, ax, ay))
    s4 = _sign(xp, orient(x0e, y0e, x1e, y1e, bx, by))
    collinear = (s1 == 0) & (s2 == 0)
    boxes = (
        (xp.maximum(ax, bx) >= xp.minimum(x0e, x1e))
        & (xp.maximum(x0e, x1e) >= xp.minimum(ax, bx))
        & (xp.maximum(ay, by) >= xp.minimum(y0e, y1e))
        & (xp.maximum(y0e, y1e) >= xp.minimum(ay, by))
    )
    crosses = (s1 * s2 <= 0) & (s3 * s4 <= 0) & (~collinear | boxes)
    inside = xp.all(s1 >= 0, axis=-1) | xp.all(s2 >= 0, axis=-1)
    poly = (xp.any(crosses, axis=-1) | inside) & m.poly_valid
    return xp.any(box, axis=-1) | xp.any(poly, axis=-1)


class Overlap(NamedTuple):
    """Why a body centred at a point cannot stand there."""

    any: Any  # (...,) bool
    obstacle: Any  # (..., B + P) the body overlaps box b, then turned wall p
    edge_x: Any  # (...,) beyond the left or right arena edge
    edge_y: Any  # (...,) beyond the bottom or top arena edge


def body_overlap(xp: Any, p: Any, m: MapArrays) -> Overlap:
    """Whether a body centred at p (int (..., 2)) sinks into an obstacle or leaves the arena.

    Touching is allowed: only a centre closer than the body radius counts. An empty group
    (a shape known when tracing) is skipped.
    """
    px, py = p[..., 0:1], p[..., 1:2]
    parts = []
    if m.box_lo.shape[0]:
        gx, gy = _box_gap(xp, px, py, m)
        grown = m.box_radius + BODY
        parts.append((sq(xp, gx, gy) < grown * grown) & m.box_valid)
    if m.poly_corners.shape[0]:
        ax, ay, bx, by = _edges(m)
        pxe, pye = px[..., None], py[..., None]
        near = near_segment(xp, pxe, pye, ax, ay, bx, by, BODY, strict=True)
        inside = xp.all(orient(ax, ay, bx, by, pxe, pye) >= 0, axis=-1)
        parts.append((xp.any(near, axis=-1) | inside) & m.poly_valid)
    x, y = p[..., 0], p[..., 1]
    edge_x = (x < ARENA_LO[0]) | (x > ARENA_HI[0])
    edge_y = (y < ARENA_LO[1]) | (y > ARENA_HI[1])
    if not parts:
        obstacle = xp.zeros(x.shape + (0,), bool)
        return Overlap(edge_x | edge_y, obstacle, edge_x, edge_y)
    obstacle = parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=-1)
    return Overlap(xp.any(obstacle, axis=-1) | edge_x | edge_y, obstacle, edge_x, edge_y)


def scaled(xp: Any, v: Any, num: Any, den: int) -> Any:
    """round(v * num / den) exactly (den a power of two, |v * num| < 2**24)."""
    return xp.round(v.astype(F32) * xp.asarray(num).astype(F32) / F32(den)).astype(I32)


# A move is searched in three rounds: 8 samples along it, 8 inside the first blocked eighth,
# then 4 inside the first blocked 1/32. 2 units / 8 is far thinner than any grown obstacle
# (at least 1 unit), and a move ends within 1/256 of it from contact.
SWEEP_ROUNDS = (8, 8, 4)
SWEEP_STEPS = 256


def sweep(xp: Any, p: Any, v: Any, m: MapArrays) -> tuple[Any, Any]:
    """How far along v bodies at p (both (N, 2)) get before something blocks them.

    Returns `reach` in 1/256ths of v (256 = all the way) and whether the move was blocked.
    On NumPy, only moving bodies and obstacles near their moves are examined: the result is
    the same, since a body that does not move, or an obstacle out of reach, blocks nothing.
    """
    if xp is np:
        reach = np.full(len(p), SWEEP_STEPS, I32)
        blocked = np.zeros(len(p), bool)
        rows = np.flatnonzero((v != 0).any(axis=1))
        if rows.size:
            near = _obstacles_near(m, p[rows], v[rows])
            reach[rows], blocked[rows] = _sweep(xp, p[rows], v[rows], near)
        return reach, blocked
    return _sweep(xp, p, v, m)


def _obstacles_near(m: MapArrays, p: np.ndarray, v: np.ndarray) -> MapArrays:
    """The obstacles whose bounding boxes come within a body of the moves' bounding box."""
    lo = np.minimum(p, p + v).min(axis=0) - BODY - 1
    hi = np.maximum(p, p + v).max(axis=0) + BODY + 1
    box_keep = (
        m.box_valid
        & np.all(m.box_hi + m.box_radius[:, None] >= lo, axis=1)
        & np.all(m.box_lo - m.box_radius[:, None] <= hi, axis=1)
    )
    poly_keep = (
        m.poly_valid
        & np.all(m.poly_corners.max(axis=1) >= lo, axis=1)
        & np.all(m.poly_corners.min(axis=1) <= hi, axis=1)
    )
    box = [a[box_keep] for a in (m.box_lo, m.box_hi, m.box_radius, m.box_valid)]
    poly = [a[poly_keep] for a in (m.poly_corners, m.poly_valid)]
    return MapArrays(*box, *poly)


def _sweep(xp: Any, p: Any, v: Any, m: MapArrays) -> tuple[Any, Any]:
    """Each round samples the span after the last free point; the first blocked one narrows it."""
    free = xp.zeros(p.shape[0], I32)  # last known free step (in 1/256ths)
    span = SWEEP_STEPS
    blocked = None
    for count in SWEEP_ROUNDS:
        span //= count
        k = xp.arange(1, count + 1, dtype=I32)
        steps = free[:, None] + k[None, :] * span
        pts = p[:, None, :] + scaled(xp, v[:, None, :], steps[..., None], SWEEP_STEPS)
        bad = body_overlap(xp, pts, m).any
        if blocked is None:
            blocked = xp.any(bad, axis=1)
        else:
            bad = bad | (k == count)[None, :]  # the round's end is known to be blocked
        first = xp.argmax(bad, axis=1)  # index of the first blocked sample
        free = xp.where(blocked, free + first * span, SWEEP_STEPS).astype(I32)
    return xp.where(blocked, free, SWEEP_STEPS).astype(I32), blocked


def point_at(xp: Any, p: Any, v: Any, reach: Any) -> Any:
    return p + scaled(xp, v, reach[:, None], SWEEP_STEPS)


def _shrink(xp: Any, t: Any, limit: int = 64, rounds: int = 10) -> Any:
    """Halve a direction (truncating toward zero) until both parts fit within `limit`."""
    for _ in range(rounds):
        big = xp.max(xp.abs(t), axis=-1, keepdims=True) > limit
        t = xp.where(big, xp.sign(t) * (xp.abs(t) // 2), t)
    return t


def surface_tangent(xp: Any, contact: Any, blocked_at: Any, m: MapArrays) -> Any:
    """Direction along the surface that stopped each body (int (N, 2), zero if unknown).

    The blocker is read at the first blocked point: an arena edge first, else the obstacle of
    lowest index (boxes, then turned walls). For a box the nearest point of its rectangle
    decides (a face gives the face's direction, a corner or a pillar's centre the
    perpendicular to the line from it); for a turned wall, the edge or corner whose region
    holds the contact point, by exact orientation tests.
    """
    ov = body_overlap(xp, blocked_at, m)
    cx, cy = contact[:, 0], contact[:, 1]
    nb = m.box_lo.shape[0]
    first = xp.argmax(ov.obstacle, axis=-1)
    is_box = first < nb
    # Box: offset from the nearest point of the rectangle.
    b = xp.minimum(first, nb - 1)
    nx = cx - xp.clip(cx, m.box_lo[b, 0], m.box_hi[b, 0])
    ny = cy - xp.clip(cy, m.box_lo[b, 1], m.box_hi[b, 1])
    box_t = xp.where(
        ((nx != 0) & (ny != 0))[:, None],
        xp.stack([-ny, nx], -1),
        xp.where((nx != 0)[:, None], xp.asarray([0, 1], dtype=I32), xp.asarray([1, 0], dtype=I32)),
    )
    # Turned wall: exactly one edge or corner region holds the (outside) contact point.
    corners = m.poly_corners[xp.clip(first - nb, 0, m.poly_corners.shape[0] - 1)]
    ax, ay = corners[:, :, 0], corners[:, :, 1]
    bx, by = xp.roll(ax, -1, axis=1), xp.roll(ay, -1, axis=1)
    ux, uy = bx - ax, by - ay
    wx, wy = cx[:, None] - ax, cy[:, None] - ay
    dot = wx * ux + wy * uy
    uu = ux * ux + uy * uy
    outside = orient(ax, ay, bx, by, cx[:, None], cy[:, None]) < 0
    on_edge = outside & (dot > 0) & (dot < uu)
    on_corner = (xp.roll(dot >= uu, 1, axis=1)) & (dot <= 0)  # corner j closes edge j-1
    edge_t = xp.stack(
        [xp.sum(xp.where(on_edge, ux, 0), 1), xp.sum(xp.where(on_edge, uy, 0), 1)], -1
    )
    corner_t = xp.stack(
        [xp.sum(xp.where(on_corner, -wy, 0), 1), xp.sum(xp.where(on_corner, wx, 0), 1)], -1
    )
    poly_t = xp.where(xp.any(on_edge, axis=1)[:, None], edge_t, corner_t)
    tangent = xp.where(is_box[:, None], box_t, poly_t)
    tangent = xp.where(xp.any(ov.obstacle, axis=-1)[:, None], tangent, 0)
    tangent = xp.where(ov.edge_y[:, None], xp.asarray([1, 0], dtype=I32), tangent)
    tangent = xp.where(ov.edge_x[:, None], xp.asarray([0, 1], dtype=I32), tangent)
    return _shrink(xp, tangent.astype(I32))


def project(xp: Any, rest: Any, tangent: Any) -> Any:
    """rest . t / |t|^2 * t, rounded: the part of the leftover move along the surface.

    Integer division, not float: XLA turns a float division by a shared divisor into a
    multiplication by its reciprocal, which rounds differently from NumPy.
    """
    dot = xp.sum(rest * tangent, axis=-1, keepdims=True)
    tt = xp.maximum(xp.sum(tangent * tangent, axis=-1, keepdims=True), 1)
    num = dot * tangent
    # Integer division rounding half away from zero: symmetric, so mirrored moves mirror.
    out = xp.sign(num) * ((2 * xp.abs(num) + tt) // (2 * tt))
    return out.astype(I32)


class Move(NamedTuple):
    """A move split in two straight legs: toward the goal, then sliding along a surface."""

    start: Any  # (N, 2)
    leg1: Any  # (N, 2) full first-leg vector
    reach1: Any  # (N,) 1/256ths of leg1 travelled
    contact: Any  # (N, 2) where leg 1 ended
    leg2: Any  # (N, 2) slide vector
    reach2: Any  # (N,) 1/256ths of leg2 travelled
    end: Any  # (N, 2)


def slide_move(xp: Any, p: Any, v: Any, m: MapArrays) -> Move:
    """Move bodies from p by v; a blocked move keeps its leftover part along the surface."""
    reach1, blocked = sweep(xp, p, v, m)
    contact = point_at(xp, p, v, reach1)
    if xp is np and not blocked.any():  # nothing to slide along: the second leg is empty
        full = np.full(len(p), SWEEP_STEPS, I32)
        return Move(p, v, reach1, contact, np.zeros_like(v), full, contact)
    blocked_at = point_at(xp, p, v, xp.minimum(reach1 + 1, SWEEP_STEPS))
    tangent = surface_tangent(xp, contact, blocked_at, m)
    rest = v - scaled(xp, v, reach1[:, None], SWEEP_STEPS)
    leg2 = xp.where(blocked[:, None], project(xp, rest, tangent), 0)
    reach2, _ = sweep(xp, contact, leg2, m)
    end = point_at(xp, contact, leg2, reach2)
    return Move(p, v, reach1, contact, leg2, reach2, end)


def pair_sq_distances(xp: Any, a: Any, b: Any) -> Any:
    """Squared distances between every point of a (N, 2) and b (M, 2), exact integers."""
    return sq(xp, a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
