"""Array operations that NumPy runs several times slower through its generic entry points.

A NumPy tick is about a thousand operations on arrays of ten to a few hundred elements,
so each operation's fixed cost is what the engine spends (`benchmarks/PROFILE.md`). A few
entry points cost several plain operations each: `np.stack` (a Python loop around a
concatenate), `np.take_along_axis`, `np.round` and the function forms of reductions
(`np.any(x)` rather than `x.any()`). These helpers give the same values by a cheaper
route on NumPy and call the usual function under JAX, where tracing cost is paid once.
"""

from __future__ import annotations

import numpy as np

from .backend import is_numpy
from .types import Array, Namespace

_PERMUTATIONS: dict[tuple[int, int], tuple[int, ...]] = {}


def stack(xp: Namespace, arrays: list, axis: int = 0) -> Array:
    """`xp.stack(arrays, axis)` for arrays of one shape and dtype."""
    if not is_numpy(xp):
        return xp.stack(arrays, axis)
    out = np.array(arrays)  # a new leading axis, in one call
    ndim = out.ndim
    axis = axis % ndim
    if axis == 0:
        return out
    perm = _PERMUTATIONS.get((axis, ndim))
    if perm is None:
        perm = _PERMUTATIONS[(axis, ndim)] = (*range(1, axis + 1), 0, *range(axis + 1, ndim))
    return np.ascontiguousarray(out.transpose(perm))


def dot2(xp: Namespace, a: Array, b: Array) -> Array:
    """`(a * b).sum(axis=-1)` for integer vectors on a last axis of length 2.

    On NumPy two products and one sum of the halves, in the operands' dtype: a reduction
    over a short last axis costs several times one elementwise operation, and NumPy would
    sum int32 in int64. Callers keep each value below 2**31 in size (JAX, whose sum is
    int32, computes it in int32 as well), so the values are the same.
    """
    if is_numpy(xp):
        return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]
    return (a * b).sum(axis=-1)


def rint(xp: Namespace, x: Array) -> Array:
    """Floats rounded to the nearest integer, halves to even (what `xp.round` does)."""
    return np.rint(x) if is_numpy(xp) else xp.round(x)


def pick(xp: Namespace, values: Array, index: Array) -> Array:
    """values[i, index[i]] for each row i of a 2-D array."""
    if is_numpy(xp):
        return values[np.arange(values.shape[0]), index]
    return xp.take_along_axis(values, index[:, None], 1)[:, 0]
