"""Each body's motion in a tick (`Paths`): where it is at an instant, and the path cut
short where it stops.

A tick (a leg) is QUANTA quanta; a body stopped by another stands from a whole quantum on.
Paths are float offsets from each body's start, so a mirrored game negates them exactly.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .array_ops import stack
from .backend import is_numpy
from .contact import bounded_fence, bounded_inverse, f32
from .shape_tests import F32
from .types import Array, Namespace

QUANTA = 1024  # a tick (a leg) in quanta; stops land within one quantum of contact
# Constants as 0-d arrays: NumPy's `where` converts a scalar argument on every call.
_ZERO, _ONE, _TINY, QUANTA_F = (np.asarray(v, F32) for v in (0, 1, 1e-9, QUANTA))
# The passes' fences are `bounded_fence`s (kept under JAX, skipped on NumPy): every instant
# lies in [0, 1], every offset is a difference of positions within a few arena widths (below
# 1e5 in size), each divisor is floored (1e-9 for the legs' lengths of time) and `lam` is at
# most NO_HIT (1e6), so no fenced value exceeds about 1e14 (`float_circle_entry` states its own).


class Paths(NamedTuple):
    """Each body's motion in a tick: straight V0 -> V1 over [0, T1], V1 -> V2 over [T1, T2],
    then standing at V2 until 1."""

    times: Array  # (N, 3) float32: 0, T1, T2
    points: Array  # (N, 3, 2) int32 V0, V1, V2 (float offsets from V0 once truncated)


def position_at(xp: Namespace, times: Array, points: Array, t: Array) -> Array:
    """Float offsets (N, K, 2) from V0 of bodies with paths (N, 3) / (N, 3, 2) at times t
    (N, K). Offsets, not positions: x -> 20 - x negates them exactly, so mirrored games
    round alike (a float sum of a coordinate and an offset would not)."""
    t1, t2 = times[:, 1:2], times[:, 2:3]
    per1 = bounded_inverse(xp, xp.maximum(t1, _TINY))
    per2 = bounded_inverse(xp, xp.maximum(t2 - t1, _TINY))
    # min(max(., 0), 1) is what clip computes on both engines, without NumPy's clip wrapper.
    f0 = xp.where(t1 > 0, xp.minimum(xp.maximum(bounded_fence(xp, t * per1), _ZERO), _ONE), _ONE)
    f1 = xp.where(
        t2 > t1, xp.minimum(xp.maximum(bounded_fence(xp, (t - t1) * per2), _ZERO), _ONE), _ZERO
    )
    v = f32(points)[:, :, None, :]  # one conversion for the three vertices
    v0, v1, v2 = v[:, 0], v[:, 1], v[:, 2]
    return bounded_fence(xp, (v1 - v0) * f0[..., None]) + bounded_fence(
        xp, (v2 - v1) * f1[..., None]
    )


def truncate(xp: Namespace, legs: Paths, stop: Array) -> Paths:
    """The paths cut at `stop` (quanta): a body stands from then on where it had got to.

    Points are float offsets from V0 and the cut point is left unrounded: a body following
    one that stops is judged against where it really stopped, not a grid point near it.
    """
    if is_numpy(xp) and stop.min() >= QUANTA:  # nothing cut: the same values, fewer calls
        return Paths(legs.times.astype(F32), f32(legs.points - legs.points[:, :1]))
    s = f32(stop) / QUANTA_F
    here = position_at(xp, legs.times, legs.points, s[:, None])[:, 0]
    t1, t2 = legs.times[:, 1], legs.times[:, 2]
    rel = f32(legs.points - legs.points[:, :1])
    v1 = xp.where((t1 <= s)[:, None], rel[:, 1], here)
    v2 = xp.where((t2 <= s)[:, None], rel[:, 2], here)
    times = stack(xp, [legs.times[:, 0], xp.minimum(t1, s), xp.minimum(t2, s)], -1)
    return Paths(bounded_fence(xp, times), bounded_fence(xp, stack(xp, [rel[:, 0], v1, v2], 1)))
