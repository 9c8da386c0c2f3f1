"""Array operations given a cheaper route on one engine, with the same values on both.

A NumPy tick is about a thousand operations on arrays of ten to a few hundred elements,
so each operation's fixed cost is what the engine spends (`benchmarks/PROFILE.md`). A few
entry points cost several plain operations each: `np.stack` (a Python loop around a
concatenate), `np.take_along_axis`, `np.round` and the function forms of reductions
(`np.any(x)` rather than `x.any()`). These helpers give the same values by a cheaper
route on NumPy and call the usual function under JAX, where tracing cost is paid once.
Some are written for XLA on the CPU instead: `spread` (a lookup as a product with a
constant matrix, which XLA does not fuse), `first_index` (a min over indices, not an
argmax), and `min_over`, `max_over` and `sum_over` (a float reduction over a short axis as a few
elementwise operations: XLA gives float reductions to YNNPACK, whose fused call costs far
more than the work on a short axis).
"""

from __future__ import annotations

import numpy as np

from .backend import is_numpy
from .shape_tests import F32, I32
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


# Axes up to this long are reduced elementwise under JAX (`_fold`).
SHORT_AXIS = 8


def _fold(xp: Namespace, op, a: Array, axis: int, keepdims: bool) -> Array:
    """`op` folded over a short `axis` of `a` from the first element on, as elementwise
    operations on static slices.

    Why: XLA on the CPU hands a float reduction to YNNPACK (a "YNN fusion"), and on a short
    axis that call costs some 25 times the elementwise operations it replaces: the maximum
    over (10240, 4) float32 took 0.22 ms as a reduction against 0.009 ms folded (2-core
    development machine). A minimum or maximum is exact in any order; a sum is summed in
    the axis's order, as NumPy sums a short strided axis. Floats only: folding integer and
    boolean reductions (and `first_index`) as well made the 1,024-game loop slower (an
    A/B in one process: 37,127 against 40,963 steps/s).
    """
    axis = axis % a.ndim
    index = [slice(None)] * a.ndim
    out = None
    for k in range(a.shape[axis]):
        index[axis] = k
        part = a[tuple(index)]
        out = part if out is None else op(out, part)
    return xp.expand_dims(out, axis) if keepdims else out


def _short_float(xp: Namespace, a: Array, axis: int) -> bool:
    return (
        not is_numpy(xp) and 0 < a.shape[axis] <= SHORT_AXIS and np.issubdtype(a.dtype, np.floating)
    )


def min_over(xp: Namespace, a: Array, axis: int = -1, keepdims: bool = False) -> Array:
    """`a.min(axis)`; under JAX a short float axis is folded (`_fold`: the same values)."""
    if _short_float(xp, a, axis):
        return _fold(xp, xp.minimum, a, axis, keepdims)
    return a.min(axis=axis, keepdims=keepdims)


def max_over(xp: Namespace, a: Array, axis: int = -1, keepdims: bool = False) -> Array:
    """`a.max(axis)`; under JAX a short float axis is folded (`_fold`: the same values)."""
    if _short_float(xp, a, axis):
        return _fold(xp, xp.maximum, a, axis, keepdims)
    return a.max(axis=axis, keepdims=keepdims)


def sum_over(xp: Namespace, a: Array, axis: int = -1) -> Array:
    """`a.sum(axis)`; under JAX a short float axis is added up in order (`_fold`)."""
    if _short_float(xp, a, axis):
        return _fold(xp, lambda x, y: x + y, a, axis, False)
    return a.sum(axis=axis)


def rint(xp: Namespace, x: Array) -> Array:
    """Floats rounded to the nearest integer, halves to even (what `xp.round` does)."""
    return np.rint(x) if is_numpy(xp) else xp.round(x)


def pick(xp: Namespace, values: Array, index: Array) -> Array:
    """values[i, index[i]] for each row i of a 2-D array."""
    if is_numpy(xp):
        return values[np.arange(values.shape[0]), index]
    return xp.take_along_axis(values, index[:, None], 1)[:, 0]


def spread(xp: Namespace, values: Array, index: np.ndarray) -> Array:
    """`values[..., index]` for a boolean vector and a constant integer `index` table.

    Under JAX the lookup is a product with a constant 0/1 matrix (exact for 0/1 values).
    XLA on the CPU fuses a gather with the work that feeds it and repeats that work for
    every element read: spreading the 45 sight lines to a (10, 10) table that way tested
    each line more than twice, inside one fusion that took half of every tick. A dot is
    never fused with its operands, so each line is tested once. NumPy just indexes.
    """
    if is_numpy(xp):
        return values[..., index]
    picks = np.zeros((values.shape[-1], index.size), np.float32)
    picks[index.ravel(), np.arange(index.size)] = 1.0
    counts = xp.asarray(values, dtype=np.float32) @ xp.asarray(picks)
    return (counts > 0.5).reshape(values.shape[:-1] + index.shape)


def first_index(xp: Namespace, mask: Array, axis: int = -1) -> Array:
    """Index of the first True along `axis`, or the axis length where there is none.

    Under XLA on the CPU an argmax is a two-value reduction that does not vectorise; a min
    over indices (kept where the mask holds) gives the same index several times faster.
    """
    n = mask.shape[axis]
    if is_numpy(xp):
        return np.where(mask.any(axis=axis), mask.argmax(axis=axis), n).astype(I32)
    shape = [1] * mask.ndim
    shape[axis] = n
    index = xp.arange(n, dtype=I32).reshape(shape)
    return xp.where(mask, index, n).min(axis=axis)


def row_bits(xp: Namespace, mask: Array) -> Array:
    """(...,) uint32 whose bit k is mask[..., k], for a last axis of at most 32.

    Why: a row of booleans in one word lets a population count stand in for a cumulative
    sum along the row, which XLA on the CPU computes as a sum over a window per element.
    """
    width = mask.shape[-1]
    if width > 32:
        raise ValueError(f"row_bits: a row of {width} does not fit in 32 bits")
    weights = np.left_shift(np.uint32(1), np.arange(width, dtype=np.uint32))
    return xp.sum(xp.where(mask, weights, np.uint32(0)), axis=-1, dtype=np.uint32)


def scaled(xp: Namespace, v: Array, num: Array, den: int) -> Array:
    """round(v * num / den) exactly (den a power of two, |v * num| < 2**24)."""
    product = v.astype(F32) * xp.asarray(num).astype(F32) / F32(den)
    return rint(xp, product).astype(I32)
