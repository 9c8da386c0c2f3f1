"""Repeat-until-settled loops that run the same passes on NumPy and under JAX.

A rule that needs "repeat until nothing changes" (bodies cutting each other's moves, agents
leaving a shield one at a time) is written as an update returning the new value and whether
it changed. NumPy stops at the first pass that changes nothing; JAX runs the same passes in a
`lax.while_loop`, which under `vmap` stops when every game in the batch has settled. The
result is the same either way, since a settled value is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .backend import is_numpy
from .types import Namespace


def settle(
    xp: Namespace,
    update: Callable[[Any], tuple[Any, Any]],
    value: Any,
    passes: int,
    first: Any = True,
) -> Any:
    """Apply `update` until it reports no change, at most `passes` times.

    `first` says whether a first pass can change anything at all (a cheap exact pre-test):
    under `vmap` a batch where no game needs the pass then skips it entirely.
    """
    if is_numpy(xp):
        if not first:
            return value
        for _ in range(passes):
            value, changed = update(value)
            if not changed:
                break
        return value
    from jax import lax  # only reached with xp = jax.numpy

    def keep_going(carry):
        count, _, changed = carry
        return (count < passes) & changed

    def one_pass(carry):
        count, v, _ = carry
        v, changed = update(v)
        return count + 1, v, xp.asarray(changed)

    return lax.while_loop(keep_going, one_pass, (0, value, xp.asarray(first)))[1]
