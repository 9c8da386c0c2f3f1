"""Exact geometry against a whole map: whether a straight line touches an obstacle
(`sight_blocked`) and whether a body can stand at a point (`body_blocked`, `body_overlap`).

Obstacles come in two groups (see `MapArrays`): boxes (pillars and walls square to the
axes, "a rectangle grown by a radius") with a handful of integer operations per test, and
turned walls as convex polygons. Each test is written once for one shape (`shape_tests`,
exact on the milli-unit grid) and run here over all of a map's obstacles; on NumPy,
`body_blocked` takes the same steps in fewer calls (`numpy_obstacle_tests`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .backend import is_numpy
from .map_cache import per_numpy_map
from .numpy_obstacle_tests import map_blockers, numpy_blocked
from .shape_tests import (
    box_holds_body,
    edge_holds_body,
    off_arena,
    segment_meets_pillar,
    segment_meets_rect,
    segment_meets_wall,
    wall_edges,
)
from .state import MapArrays
from .types import Array, Namespace

_edges = per_numpy_map(wall_edges)


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
        if isinstance(valid, np.ndarray):  # a map known when tracing: its padding left out
            if valid[k]:
                out = out | test(pts, *(c[k] for c in columns))
        else:
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
        if isinstance(m.poly_valid, np.ndarray) and not m.poly_valid[w]:
            continue  # a map known when tracing: its padding left out
        some, alls = None, None
        for e in range(4):
            s, a = test(pts, ax[w, e], ay[w, e], bx[w, e], by[w, e])
            some = s if some is None else some | s
            alls = a if alls is None else tuple(x & y for x, y in zip(alls, a, strict=True))
        hit = some
        for term in alls:
            hit = hit | term
        valid = m.poly_valid[w]
        out = out | (hit if isinstance(valid, np.bool_) else hit & valid)
    return out


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
        return segment_meets_wall(xp, q, tuple(zip(values[0::2], values[1::2], strict=True)))

    return _any_of(xp, seg, columns, m.poly_valid, test)


def sight_blocked(xp: Namespace, p0: Array, p1: Array, m: MapArrays) -> Array:
    """Whether segment p0 -> p1 (int arrays (..., 2)) touches any obstacle (closed shapes)."""
    seg = (p0[..., 0], p0[..., 1], p1[..., 0], p1[..., 1])
    c = m.pillar_centre
    pillars = _any_of(
        xp, seg, (c[:, 0], c[:, 1], m.pillar_radius), m.pillar_valid,
        lambda q, *pillar: segment_meets_pillar(xp, q, *pillar),
    )  # fmt: skip
    lo, hi = m.rect_lo, m.rect_hi
    rects = _any_of(
        xp, seg, (lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]), m.rect_valid,
        lambda q, *rect: segment_meets_rect(xp, q, *rect),
    )  # fmt: skip
    return pillars | rects | _walls_meet(xp, m, seg)


def body_blocked(xp: Namespace, p: Array, m: MapArrays) -> Array:
    """Whether a body centred at p (int (..., 2)) cannot stand there: `body_overlap(...).any`,
    computed without the per-obstacle detail (the form the sweeps and searches need)."""
    if is_numpy(xp):
        return numpy_blocked(p, map_blockers(np, m))
    pt = (p[..., 0], p[..., 1])
    edge_x, edge_y = off_arena(p)
    boxes = _boxes_any(xp, m, pt, lambda q, *box: box_holds_body(xp, q, *box))
    walls = _walls_any(xp, m, pt, lambda q, *edge: edge_holds_body(xp, q, *edge))
    return boxes | walls | edge_x | edge_y


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
        hit = box_holds_body(xp, (px, py), lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1], m.box_radius)
        parts.append(hit & m.box_valid)
    if m.poly_corners.shape[0]:
        near, (inner,) = edge_holds_body(xp, (px[..., None], py[..., None]), *_edges(xp, m))
        parts.append((near.any(axis=-1) | inner.all(axis=-1)) & m.poly_valid)
    edge_x, edge_y = off_arena(p)
    x = p[..., 0]
    if not parts:
        obstacle = xp.zeros(x.shape + (0,), bool)
        return Overlap(edge_x | edge_y, obstacle, edge_x, edge_y)
    obstacle = parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=-1)
    return Overlap(obstacle.any(axis=-1) | edge_x | edge_y, obstacle, edge_x, edge_y)
