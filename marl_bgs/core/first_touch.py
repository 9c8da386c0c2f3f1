"""When two bodies on their paths first touch (`pair_contacts`), and which pairs of a
game may touch at all this tick (`may_meet`, an exact bounding-box pre-test).

A row names a pair of bodies; the rows' instants are exact to float32 on both engines
(the fences are those `body_paths` describes).
"""

from __future__ import annotations

import numpy as np

from .array_ops import max_over, min_over, stack
from .backend import is_numpy
from .body_paths import Paths, position_at
from .contact import NO_HIT, bounded_fence, f32, float_circle_entry
from .shape_tests import CONTACT, F32
from .sight import PAIR_I, PAIR_J
from .types import Array, Namespace

_MEET_F = np.asarray(CONTACT + 1, F32)  # `may_meet`'s reach


def _halves(paths: Paths, n: int) -> tuple[Paths, Paths]:
    return Paths(paths.times[:n], paths.points[:n]), Paths(paths.times[n:], paths.points[n:])


def _swapped(xp: Namespace, paths: Paths, n: int) -> Paths:
    return Paths(*(xp.concatenate([a[n:], a[:n]]) for a in paths))


def pair_contacts(xp: Namespace, both: Paths, base: Array) -> Array:
    """(P,) the first instant two bodies touch while closing (NO_HIT if never this tick);
    `both` holds the P rows' first bodies' paths, then their second bodies'.

    Between the union of the two bodies' breakpoints both move in straight lines, so the
    relative motion is a chain of at most five segments, each tested exactly for entering
    the circle. At its own breakpoints a body is at a vertex of its path; only the other
    body's breakpoints need a position looked up on it (one lookup for both halves: NumPy
    pays per call). Paths are offsets from each body's start; `base` is the exact
    difference of the two starts.
    """
    n = base.shape[0]
    pi, pj = _halves(both, n)
    a1, a2 = pi.times[:, 1], pi.times[:, 2]
    b1, b2 = pj.times[:, 1], pj.times[:, 2]
    # i's vertices less j's positions at i's breakpoints, and the other way round.
    other = _swapped(xp, both, n)
    seen = position_at(xp, other.times, other.points, both.times[:, 1:])
    b = base[:, None, :]
    r_i = (pi.points[:, 1:] - seen[:n]) + b
    r_j = (seen[n:] - pj.points[:, 1:]) + b
    # Merge the two sorted pairs of instants (a1 <= a2, b1 <= b2), carrying the offsets.
    first_a, last_a = a1 <= b1, a2 >= b2
    s1 = xp.where(first_a, a1, b1)
    r1 = xp.where(first_a[:, None], r_i[:, 0], r_j[:, 0])
    s4 = xp.where(last_a, a2, b2)
    r4 = xp.where(last_a[:, None], r_i[:, 1], r_j[:, 1])
    x = xp.where(first_a, b1, a1)
    rx = xp.where(first_a[:, None], r_j[:, 0], r_i[:, 0])
    y = xp.where(last_a, b2, a2)
    ry = xp.where(last_a[:, None], r_j[:, 1], r_i[:, 1])
    x_first = x <= y
    s2, s3 = xp.where(x_first, x, y), xp.where(x_first, y, x)
    r2 = xp.where(x_first[:, None], rx, ry)
    r3 = xp.where(x_first[:, None], ry, rx)
    r5 = (pi.points[:, 2] - pj.points[:, 2]) + base
    instants = [0 * s1, s1, s2, s3, s4, 0 * s1 + 1]
    offsets = [xp.broadcast_to(base, r1.shape), r1, r2, r3, r4, r5]
    if is_numpy(xp):  # the five segments stacked: each step one array call for all five
        bp = stack(xp, instants, -1)
        r = bounded_fence(xp, stack(xp, offsets, 1))
        when = _segment_contacts(xp, r[:, :-1], r[:, 1:], bp[:, :-1], bp[:, 1:])
        # The five as columns: a short last-axis reduction costs more.
        first_two = xp.minimum(
            xp.minimum(when[:, 0], when[:, 1]), xp.minimum(when[:, 2], when[:, 3])
        )
        return xp.minimum(first_two, when[:, 4])
    # Under XLA one segment at a time: a stacked array is built element by element on the
    # CPU, each element computing its offset anew (1.8 ms a tick at 1,024 games); the
    # columns fuse into plain loops. The same operations on each value, so the same bits.
    r = [bounded_fence(xp, x) for x in offsets]
    out = None
    for k in range(5):
        when = _segment_contacts(xp, r[k], r[k + 1], instants[k], instants[k + 1])
        out = when if out is None else xp.minimum(out, when)
    return out


def _segment_contacts(xp: Namespace, r0: Array, r1: Array, t0: Array, t1: Array) -> Array:
    """The instant the relative offset, moving in a straight line from r0 at t0 to r1 at t1
    (offsets (..., 2)), first comes within a body's width: NO_HIT if it does not."""
    u = r1 - r0
    (lam,) = float_circle_entry(xp, r0[..., 0], r0[..., 1], u[..., 0], u[..., 1], (CONTACT,))
    return xp.where((lam <= 1) & (t1 > t0), t0 + bounded_fence(xp, lam * (t1 - t0)), NO_HIT)


def may_meet(xp: Namespace, legs: Paths, start: Array, blocking: Array) -> Array:
    """(45,) pairs of blocking bodies whose paths' bounding boxes come within a body's
    width (and a thousandth, for float32 rounding), one moving: a safe pre-test, any other
    pair stays 1.0 apart all tick. Paths are float offsets from each body's start."""
    lo = min_over(xp, legs.points, 1) + f32(start)
    hi = max_over(xp, legs.points, 1) + f32(start)
    gap = xp.maximum(lo[PAIR_I] - hi[PAIR_J], lo[PAIR_J] - hi[PAIR_I])  # (45, 2)
    moved = legs.points[:, 2] != legs.points[:, 0]
    reach = _MEET_F
    if is_numpy(xp):  # the two coordinates as two columns: a short last-axis reduction costs more
        moves = moved[:, 0] | moved[:, 1]
        near = (gap[:, 0] < reach) & (gap[:, 1] < reach) & (moves[PAIR_I] | moves[PAIR_J])
    else:
        moves = moved.any(axis=1)
        near = (gap < reach).all(axis=1) & (moves[PAIR_I] | moves[PAIR_J])
    return near & blocking[PAIR_I] & blocking[PAIR_J]
