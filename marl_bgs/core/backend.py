"""The one place that tells the two array backends apart.

The rules are written once over the array namespace `xp`, and both engines must give the
same bits. A few functions still take a different route on each, because what costs time
differs: NumPy runs one game eagerly and pays a fixed price for every array call, so it may
skip work whose result is already known from the values (`known_none`), while JAX traces
each function once, cannot branch on a traced value, and compiles whatever it is given
(XLA on the CPU has its own costs, noted where a branch avoids one). Such a branch asks
`is_numpy(xp)`, never `xp is np` inline, and the helpers below name the branches that more
than one module needs.

This module must not import JAX: the browser's engine wheel ships `core/` without it, so a
JAX-only branch imports JAX where it runs.
"""

from __future__ import annotations

import numpy as np

from .types import Array, Namespace


def is_numpy(xp: Namespace) -> bool:
    """Whether `xp` is NumPy (the eager engine); otherwise it is `jax.numpy`, maybe traced."""
    return xp is np


def known_none(xp: Namespace, mask: Array) -> bool:
    """Whether `mask` is known to hold nowhere: on NumPy, where values can steer Python, a
    step whose result is then known may be skipped. Under JAX never (the values are traced),
    so the step is traced and its result is the same. Pass a mask already computed: the
    argument is built on both backends."""
    return xp is np and not mask.any()


def min_at(xp: Namespace, init: Array, index: Array, values: Array) -> Array:
    """A copy of `init` with `init[index[k]]` lowered to `values[k]` where that is less
    (repeated indices take the least), `np.minimum.at` or `.at[].min` by backend."""
    if xp is np:
        out = init.copy()
        np.minimum.at(out, index, values)
        return out
    return init.at[index].min(values)


def clip(xp: Namespace, a: Array, lo: Array, hi: Array) -> Array:
    """`xp.clip(a, lo, hi)`: on NumPy the two plain operations it is (without `np.clip`'s
    wrapper, several times dearer on small arrays, and more so in Pyodide)."""
    if xp is np:
        return np.minimum(np.maximum(a, lo), hi)
    return xp.clip(a, lo, hi)


def pad_last2(xp: Namespace, a: Array, width: int, fill: object) -> Array:
    """`a` with `width` cells of `fill` around its last two axes: `xp.pad`, which NumPy
    runs as a Python function dearer than the copy (on NumPy: a filled array, `a` written
    into its middle; the same values and dtype)."""
    if xp is np:
        shape = a.shape[:-2] + (a.shape[-2] + 2 * width, a.shape[-1] + 2 * width)
        out = np.full(shape, fill, dtype=a.dtype)
        out[..., width:-width, width:-width] = a
        return out
    pad = [(0, 0)] * (a.ndim - 2) + [(width, width), (width, width)]
    return xp.pad(a, pad, constant_values=fill)


__all__ = ["clip", "is_numpy", "known_none", "min_at", "pad_last2"]
