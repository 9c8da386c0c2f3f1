"""Where a body stands on the grid at the end of its path: the corners of the
thousandth square around a float point (`cell_corners`), and for bodies stopped by bodies
the corner that keeps them apart and clear of the obstacles (`grid_ends`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .array_ops import first_index, max_over, rint, stack
from .backend import is_numpy, known_none, min_at
from .body_paths import QUANTA, Paths
from .contact import f32, fenced_dot
from .shape_tests import CONTACT, F32, I32
from .types import Array, Namespace

# A body stopped by a body whose nearest grid point lies this near (squared) to a partner's
# exact stop takes the grid point of its square farthest from its partners (`grid_ends`):
# a thousandth more than touching covers the partner's own rounding (at most 0.0007).
_CROWDED_SQ_F = np.asarray((CONTACT + 1) ** 2, F32)
_FAR_F = np.asarray(1e12, F32)
_SUNK_F = np.asarray(-1, F32)  # the score of a grid point where the body would sink


def grid_ends(
    xp: Namespace,
    start: Array,
    paths: Paths,
    stop: Array,
    leg_ends: Array,
    rows: tuple,
    blocked: Any,
) -> Array:
    """(N, 2) where each body stands on the grid: a body no body stopped where its legs
    end (`obstacle_legs.plan_legs` chose that point clear of every obstacle); one stopped by a body
    at a corner of the thousandth square around its stop where it overlaps no obstacle
    (`blocked(points (N, 4, 2), need (N,))` says where it would, for the bodies `need`
    marks: the stopped ones; what it says of the others is never read): the nearest,
    unless that lies within touching (and a thousandth) of the exact stop of a partner in
    `rows` (rows_i, rows_j, valid: pairs of the N bodies), where it takes the free corner
    farthest from its partners' exact stops. Two bodies stopped touching thus round away
    from each other, each coordinate at least as far apart as they really are (RULES.md:
    no overlap, and within 1/256 of the move of the exact stop). A body with no free
    corner takes the nearest (`sink_back` then moves its stop)."""
    return grid_ends_sinking(xp, start, paths, stop, leg_ends, rows, blocked)[0]


def grid_ends_sinking(
    xp: Namespace,
    start: Array,
    paths: Paths,
    stop: Array,
    leg_ends: Array,
    rows: tuple,
    blocked: Any,
) -> tuple[Array, Array]:
    """`grid_ends`, and (N,) which stopped bodies' ends overlap an obstacle: those with no
    free corner (the nearest, taken then, is the one end that can overlap), so `sink_back`
    need not test the ends again."""
    off = paths.points[:, 2]
    cut = stop < QUANTA
    if known_none(xp, cut):
        return leg_ends, xp.zeros(cut.shape, bool)
    rows_i, rows_j, valid = rows
    cands = cell_corners(xp, off)  # (N, 4, 2), nearest first
    # Each row's candidates of one body against the other's exact stop, both ways.
    gap = f32(start[rows_i] - start[rows_j])  # exact: whole numbers
    d_i = (cands[rows_i] - off[rows_j][:, None, :]) + gap[:, None, :]
    d_j = (cands[rows_j] - off[rows_i][:, None, :]) - gap[:, None, :]
    score_i = xp.where(valid[:, None], fenced_dot(xp, *(d_i[..., k] for k in (0, 1, 0, 1))), _FAR_F)
    score_j = xp.where(valid[:, None], fenced_dot(xp, *(d_j[..., k] for k in (0, 1, 0, 1))), _FAR_F)
    far = xp.full(cands.shape[:2], _FAR_F, dtype=F32)
    score = min_at(xp, far, xp.concatenate([rows_i, rows_j]), xp.concatenate([score_i, score_j]))
    sunk = blocked(start[:, None, :] + cands.astype(I32), cut)
    score = xp.where(sunk, _SUNK_F, score)
    crowded = cut & ((score[:, 0] < _CROWDED_SQ_F) | sunk[:, 0])
    best = first_index(xp, score == max_over(xp, score, 1, keepdims=True), axis=1)
    sinks = cut & sunk.all(axis=1)
    choice = xp.where(crowded & ~sinks, best, 0)
    at = start + pick_point(xp, cands, choice).astype(I32)
    return xp.where(cut[:, None], at, leg_ends), sinks


def cell_corners(xp: Namespace, off: Array) -> Array:
    """(..., 4, 2) the corners of the thousandth square around float points (..., 2),
    nearest first: the nearest grid point, the two that move one coordinate to its other
    neighbour (the nearer of those first, x on a tie), then the far corner. Offsets, not
    positions: a mirrored game negates them, and rounds them alike."""
    near = rint(xp, off)
    other = near + xp.sign(off - near)  # the neighbour on the far side of each coordinate
    x_first = xp.abs(off[..., 0] - other[..., 0]) <= xp.abs(off[..., 1] - other[..., 1])
    nx, ny, ox, oy = near[..., 0], near[..., 1], other[..., 0], other[..., 1]
    second = stack(xp, [xp.where(x_first, ox, nx), xp.where(x_first, ny, oy)], -1)
    third = stack(xp, [xp.where(x_first, nx, ox), xp.where(x_first, oy, ny)], -1)
    return stack(xp, [near, second, third, other], -2)


def pick_point(xp: Namespace, pts: Array, index: Array) -> Array:
    """pts[i, index[i]] for points (N, K, 2): (N, 2)."""
    if is_numpy(xp):
        return pts[np.arange(pts.shape[0]), index]
    return xp.take_along_axis(pts, index[:, None, None], 1)[:, 0]
