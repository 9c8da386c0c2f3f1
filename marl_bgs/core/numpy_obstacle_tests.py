"""The NumPy engine's whole-map obstacle tests in few calls: a body at many points
(`numpy_blocked`, which `geometry.body_blocked` runs on NumPy) and many straight lines
(`numpy_lines_blocked`, the sight lines of `sight_pairs`).

NumPy pays a fixed cost per call, so the operands that depend on the map alone are built
once per map (`map_cache`) and tiled per number of points or lines (`piece_tiles`): every
elementwise step is then between arrays of one shape and every reduction runs over the
leading axis. The integer and float steps are those of `shape_tests`, so the answers are
the same bits as the general form's (`geometry`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .map_cache import per_numpy_map
from .shape_tests import (
    BODY,
    F32,
    I32,
    below_root_where_unsure,
    off_arena,
    segment_meets_rect,
    sq,
    wall_edges,
)
from .state import MapArrays
from .types import Array, Namespace

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
    ax, ay, bx, by = wall_edges(xp, m)
    columns = [c[:, 0], c[:, 1], r, r * r, np.asarray(r).astype(F32), lo[:, 0], lo[:, 1]]
    columns += [hi[:, 0], hi[:, 1]] + [np.asarray(e).T for e in (ax, ay, bx - ax, by - ay)]
    columns += [m.pillar_valid, m.rect_valid, m.poly_valid]
    flat = (np.ascontiguousarray(np.asarray(a).ravel()) for a in columns)
    return _SightParts(*flat, {})


_sight = per_numpy_map(_build_sight)


def numpy_lines_blocked(p0: Array, p1: Array, m: MapArrays) -> Array:
    """`sight_blocked(np, p0, p1, m)` for lines (n, 2) -> (n, 2): the same integer and float
    steps (`segment_meets_pillar`, `segment_meets_rect`, `_walls_meet`) elementwise on
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
    # Square walls: `segment_meets_rect`.
    seg = tuple(a.repeat(lo_x.shape[0], 0) for a in ends)
    meets = segment_meets_rect(np, seg, lo_x, lo_y, hi_x, hi_y)
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


class _Blockers(NamedTuple):
    """`body_overlap`'s operands that depend on the map alone, for NumPy (`map_blockers`),
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
    """The parts of one NumPy map (kept per map by `map_blockers`)."""
    ax, ay, bx, by = wall_edges(xp, m)
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


# A NumPy map's `_Blockers` (what `numpy_blocked` takes), kept per map.
map_blockers = per_numpy_map(_build_blockers)
_ZERO_I = np.asarray(0, I32)
_BODY_SQ = np.asarray(BODY * BODY, I32)


def numpy_blocked(p: Array, b: _Blockers) -> Array:
    """`body_overlap(np, p, m).any` in fewer NumPy calls, the same integer and float steps,
    elementwise on (pieces, points) arrays of one shape (each point's coordinates repeated
    along the pieces once, the map's parts tiled per number of points: `piece_tiles`):

    - boxes: `box_holds_body` against the squared grown radius kept per map (0 for
      padding, which no sum of squares is below: `hit & box_valid`);
    - turned walls (`edge_holds_body`): the map's parts of its test (u, |u|^2, a float32
      reach that decides the side test wherever it is sure, `below_root` elsewhere) kept
      per map; the distance to an edge's end is the distance to the next edge's start (the
      next block of P rows), and `orient >= 0` is `cross <= 0` (both far below 2**31 for
      points within twice the arena, which every caller's points are);
    - the arena's edges as `off_arena`.
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
    edge_x, edge_y = off_arena(flat)
    return (boxes | edge_x | edge_y).reshape(shape)
