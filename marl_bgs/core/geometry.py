"""Exact geometry on the milli-unit grid: sight lines, body overlap, swept moves.

All coordinates are int32 milli-units. Orientation tests, dot products and squared
distances are exact integers (every value stays below 2**31 for points near the 20 x 10
arena); the one float step compares |cross| with r * sqrt(|u|^2), which is a chain of single,
correctly rounded operations and so gives the same answer on every backend. Functions take
the array namespace `xp` and never branch on values.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .state import MILLI, OBSTACLE_PILLAR, OBSTACLE_WALL, MapArrays

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
    """Each wall's edges as (K, 4) start and end coordinates."""
    a = m.corners
    b = m.corners[:, [1, 2, 3, 0], :]
    return a[..., 0], a[..., 1], b[..., 0], b[..., 1]


def _sign(xp: Any, v: Any) -> Any:
    return (v > 0).astype(I32) - (v < 0).astype(I32)


def in_walls(xp: Any, px: Any, py: Any, m: MapArrays) -> Any:
    """Point (...,) inside or on each wall polygon: (..., K)."""
    ax, ay, bx, by = _edges(m)
    o = orient(ax, ay, bx, by, px[..., None, None], py[..., None, None])
    return xp.all(o >= 0, axis=-1)


def sight_blocked(xp: Any, p0: Any, p1: Any, m: MapArrays) -> Any:
    """Whether segment p0 -> p1 (int arrays (..., 2)) touches any obstacle (closed shapes)."""
    x0, y0, x1, y1 = (v[..., None] for v in (p0[..., 0], p0[..., 1], p1[..., 0], p1[..., 1]))
    # Pillars: the centre lies within the radius of the segment.
    pillar = near_segment(
        xp, m.center[:, 0], m.center[:, 1], x0, y0, x1, y1, m.radius, strict=False
    )
    pillar = pillar & (m.kind == OBSTACLE_PILLAR)
    # Walls: an end inside the polygon, or the segment meets one of its edges.
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
    wall = (xp.any(crosses, axis=-1) | inside) & (m.kind == OBSTACLE_WALL)
    return xp.any(pillar | wall, axis=-1)


class Overlap(NamedTuple):
    """Why a body centred at a point cannot stand there."""

    any: Any  # (...,) bool
    obstacle: Any  # (..., K) the body overlaps obstacle k
    edge_x: Any  # (...,) beyond the left or right arena edge
    edge_y: Any  # (...,) beyond the bottom or top arena edge


def body_overlap(xp: Any, p: Any, m: MapArrays) -> Overlap:
    """Whether a body centred at p (int (..., 2)) sinks into an obstacle or leaves the arena.

    Touching is allowed: only a centre closer than the body radius counts.
    """
    px, py = p[..., 0], p[..., 1]
    dx = px[..., None] - m.center[:, 0]
    dy = py[..., None] - m.center[:, 1]
    grown = m.radius + BODY
    pillar = (sq(xp, dx, dy) < grown * grown) & (m.kind == OBSTACLE_PILLAR)
    ax, ay, bx, by = _edges(m)
    near = near_segment(
        xp, px[..., None, None], py[..., None, None], ax, ay, bx, by, BODY, strict=True
    )
    wall = (xp.any(near, axis=-1) | in_walls(xp, px, py, m)) & (m.kind == OBSTACLE_WALL)
    obstacle = pillar | wall
    edge_x = (px < ARENA_LO[0]) | (px > ARENA_HI[0])
    edge_y = (py < ARENA_LO[1]) | (py > ARENA_HI[1])
    return Overlap(xp.any(obstacle, axis=-1) | edge_x | edge_y, obstacle, edge_x, edge_y)


def scaled(xp: Any, v: Any, num: Any, den: int) -> Any:
    """round(v * num / den) exactly (den a power of two, |v * num| < 2**24)."""
    return xp.round(v.astype(F32) * xp.asarray(num).astype(F32) / F32(den)).astype(I32)


SWEEP_COARSE = 16  # samples along a move; 2 units / 16 is far thinner than any grown wall
SWEEP_FINE = 16  # samples between the last free and first blocked coarse sample
SWEEP_STEPS = SWEEP_COARSE * SWEEP_FINE  # 256: a move ends within 1/256 of it from contact


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
    ob_lo = np.minimum(m.corners.min(axis=1), m.center - m.radius[:, None])
    ob_hi = np.maximum(m.corners.max(axis=1), m.center + m.radius[:, None])
    keep = (m.kind != 0) & np.all(ob_hi >= lo, axis=1) & np.all(ob_lo <= hi, axis=1)
    return MapArrays(*(a[keep] for a in m))


def _sweep(xp: Any, p: Any, v: Any, m: MapArrays) -> tuple[Any, Any]:
    """Coarse samples find the first blocked sixteenth; fine samples refine inside it."""
    k = xp.arange(SWEEP_COARSE + 1, dtype=I32) * SWEEP_FINE
    pts = p[:, None, :] + scaled(xp, v[:, None, :], k[None, :, None], SWEEP_STEPS)
    bad = body_overlap(xp, pts, m).any & (k[None, :] > 0)
    first_bad = xp.argmax(bad, axis=1)  # 0 when nothing blocks
    blocked = xp.any(bad, axis=1)
    base = xp.where(blocked, (first_bad - 1) * SWEEP_FINE, SWEEP_STEPS)
    j = xp.arange(1, SWEEP_FINE + 1, dtype=I32)
    fine_k = base[:, None] + j[None, :]
    fine = p[:, None, :] + scaled(xp, v[:, None, :], fine_k[:, :, None], SWEEP_STEPS)
    fine_bad = body_overlap(xp, fine, m).any | (j[None, :] == SWEEP_FINE)
    reach = xp.where(blocked, base + xp.argmax(fine_bad, axis=1), SWEEP_STEPS)
    return reach.astype(I32), blocked


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
    lowest index. For a wall the nearest edge or corner of the polygon decides the tangent.
    """
    ov = body_overlap(xp, blocked_at, m)
    cx, cy = contact[:, 0], contact[:, 1]
    first = xp.argmax(ov.obstacle, axis=-1)
    kind, center, corners = m.kind[first], m.center[first], m.corners[first]
    # Pillar: perpendicular to the line from its centre.
    nx, ny = cx - center[:, 0], cy - center[:, 1]
    pillar_t = xp.stack([-ny, nx], axis=-1)
    # Wall: the edge or corner whose region holds the contact point (exact orientation tests;
    # the contact point lies outside the polygon, so exactly one region holds it).
    ax, ay = corners[:, :, 0], corners[:, :, 1]
    bx, by = xp.roll(ax, -1, axis=1), xp.roll(ay, -1, axis=1)
    ux, uy = bx - ax, by - ay
    wx, wy = cx[:, None] - ax, cy[:, None] - ay
    dot = wx * ux + wy * uy
    uu = ux * ux + uy * uy
    outside = orient(ax, ay, bx, by, cx[:, None], cy[:, None]) < 0
    on_edge = outside & (dot > 0) & (dot < uu)
    # Corner j closes edge j-1 and opens edge j.
    on_corner = (xp.roll(dot >= uu, 1, axis=1)) & (dot <= 0)
    edge_t = xp.stack(
        [xp.sum(xp.where(on_edge, ux, 0), 1), xp.sum(xp.where(on_edge, uy, 0), 1)], -1
    )
    corner_t = xp.stack(
        [xp.sum(xp.where(on_corner, -wy, 0), 1), xp.sum(xp.where(on_corner, wx, 0), 1)], -1
    )
    wall_t = xp.where(xp.any(on_edge, axis=1)[:, None], edge_t, corner_t)
    tangent = xp.where((kind == OBSTACLE_PILLAR)[:, None], pillar_t, wall_t)
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
