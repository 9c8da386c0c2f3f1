"""Array operations that NumPy runs several times slower through its generic entry points.

A NumPy tick is about a thousand operations on arrays of ten to a few hundred elements,
so each operation's fixed cost is what the engine spends (`benchmarks/PROFILE.md`). A few
entry points cost several plain operations each: `np.stack` (a Python loop around a
concatenate), `np.take_along_axis`, `np.round` and the function forms of reductions
(`np.any(x)` rather than `x.any()`). These helpers give the same values by a cheaper
route on NumPy and call the usual function under JAX, where tracing cost is paid once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_PERMUTATIONS: dict[tuple[int, int], tuple[int, ...]] = {}


def stack(xp: Any, arrays: list, axis: int = 0) -> Any:
    """`xp.stack(arrays, axis)` for arrays of one shape and dtype."""
    if xp is not np:
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


def dot2(xp: Any, a: Any, b: Any) -> Any:
    """`(a * b).sum(axis=-1)` for integer vectors on a last axis of length 2.

    On NumPy two products and one sum of the halves, in the operands' dtype: a reduction
    over a short last axis costs several times one elementwise operation, and NumPy would
    sum int32 in int64. Callers keep each value below 2**31 in size (JAX, whose sum is
    int32, computes it in int32 as well), so the values are the same.
    """
    if xp is np:
        return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]
    return (a * b).sum(axis=-1)


def rint(xp: Any, x: Any) -> Any:
    """Floats rounded to the nearest integer, halves to even (what `xp.round` does)."""
    return np.rint(x) if xp is np else xp.round(x)


def pick(xp: Any, values: Any, index: Any) -> Any:
    """values[i, index[i]] for each row i of a 2-D array."""
    if xp is np:
        return values[np.arange(values.shape[0]), index]
    return xp.take_along_axis(values, index[:, None], 1)[:, 0]
