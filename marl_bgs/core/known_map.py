"""Map arrays that also carry the one map every game of a batch is expected to play.

Why: the batch rules of `sight_pairs` and `body_contacts` test many rows (sight lines,
stopped bodies) against each row's own game's obstacles, gathered row by row. When every
game of the batch plays one map, the same tests can read that map's obstacles as
constants of the compiled program instead: no gather, and XLA folds the padding, the radii
and the edges into the code (random play on map 47, 1,024 games: about a fifth more steps
per second). An env with one map hands its games' maps in this form (`expecting`); each
rule checks at run time that every game's map equals the expected one and takes the
row-by-row path when not (an authored map, a mixed batch), so no result depends on the
hint: both paths evaluate the same exact expressions.
"""

from __future__ import annotations

import copyreg
from collections.abc import Callable
from typing import Any

import numpy as np

from .state import MapArrays


class _KnownMapType(type):
    """The metaclass of the types `expecting` makes, so that they pickle (as the call that
    makes them again) and an env holding one stays picklable."""


_TYPES: dict[bytes, type] = {}  # one type per expected map, so traced programs are shared


def _key(m: MapArrays) -> bytes:
    return b"|".join(
        str(a.shape).encode() + a.dtype.str.encode() + np.ascontiguousarray(a).tobytes() for a in m
    )


def expecting(expected: MapArrays) -> type:
    """A `MapArrays` subclass whose instances say "this batch should be playing `expected`"
    (one game's arrays, any array type; held as NumPy). Wrap a map with `T(*m)`: it stays
    a `MapArrays` to every rule, and a JAX pytree (a namedtuple of its own type)."""
    held = MapArrays(*(np.asarray(a) for a in expected))
    key = _key(held)
    if key not in _TYPES:
        attributes = {"__slots__": (), "EXPECTED": held}
        _TYPES[key] = _KnownMapType("KnownMap", (MapArrays,), attributes)
    return _TYPES[key]


copyreg.pickle(_KnownMapType, lambda known: (expecting, (known.EXPECTED,)))


def expected_map(m: Any) -> MapArrays | None:
    """The map `m`'s batch is expected to play, or None for plain map arrays."""
    return getattr(type(m), "EXPECTED", None)


def plays_expected(m: MapArrays, expected: MapArrays) -> Any:
    """() bool: every game of a batch's `m` (leaves with a leading games axis, or one
    game's) holds exactly the expected map's arrays."""
    import jax.numpy as jnp

    same = [jnp.all(a == e) for a, e in zip(m, expected, strict=True)]
    return jnp.all(jnp.stack(same))


def on_expected_or_rows(
    m: MapArrays, expected: MapArrays | None, on_expected: Callable, on_rows: Callable
) -> Any:
    """`on_expected()` when every game of the batch plays the expected map, else
    `on_rows()` (always `on_rows()` without an expected map); the two give the same
    values, the first faster."""
    if expected is None:
        return on_rows()
    import jax

    return jax.lax.cond(plays_expected(m, expected), on_expected, on_rows)
