"""Rank correlation with an exact permutation p, and Holm's correction.

A season has few entrants (five in Season 0), so no large-sample formula for Spearman's rho
is trustworthy; with n entrants there are only n! orderings of their ratings, and the
exact p counts how many of them correlate at least as strongly as the one observed. Up to
nine entrants (362,880 orderings) that is a single NumPy product.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

MAX_EXACT = 9  # 9! = 362,880 orderings; beyond that the table gets too large to enumerate
_TOLERANCE = 1e-9  # rho values equal up to float error count as "at least as strong"


def ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks from 1, ties sharing their mean rank (as Spearman's rho needs)."""
    x = np.asarray(values, np.float64)
    order = np.argsort(x, kind="stable")
    out = np.empty(len(x))
    sorted_x = x[order]
    start = 0
    while start < len(x):
        stop = start
        while stop + 1 < len(x) and sorted_x[stop + 1] == sorted_x[start]:
            stop += 1
        out[order[start : stop + 1]] = (start + stop) / 2.0 + 1.0
        start = stop + 1
    return out


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson correlation of each row of `y` (k, n) with `x` (n,)."""
    xc = x - x.mean()
    yc = y - y.mean(axis=-1, keepdims=True)
    den = np.sqrt((xc**2).sum() * (yc**2).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (yc @ xc) / den


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's correlation of the ranks; NaN when either side is constant."""
    if len(x) != len(y):
        raise ValueError(f"spearman: {len(x)} values against {len(y)}")
    return float(_pearson_rows(ranks(x), ranks(y)[None, :])[0])


def spearman_exact(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """(rho, two-sided exact p): p is the share of all orderings of `y` whose |rho| with `x`
    is at least the observed |rho|. NaN for both when either side is constant."""
    n = len(x)
    if n != len(y):
        raise ValueError(f"spearman: {n} values against {len(y)}")
    if not 3 <= n <= MAX_EXACT:
        raise ValueError(f"spearman: the exact test takes 3 to {MAX_EXACT} values, got {n}")
    rx, ry = ranks(x), ranks(y)
    rho = float(_pearson_rows(rx, ry[None, :])[0])
    if math.isnan(rho):
        return rho, float("nan")
    every = np.array(list(itertools.permutations(ry)))  # (n!, n)
    null = np.abs(_pearson_rows(rx, every))
    return rho, float(np.mean(null >= abs(rho) - _TOLERANCE))


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries stay NaN and are not counted)."""
    p = np.asarray(p_values, np.float64)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    m = len(tested)
    running = 0.0
    for k, i in enumerate(tested[np.argsort(p[tested], kind="stable")]):
        running = max(running, min(1.0, (m - k) * p[i]))
        out[i] = running
    return out


__all__ = ["MAX_EXACT", "holm", "ranks", "spearman", "spearman_exact"]
