"""What a rule derives from a map alone, built once per NumPy map instead of every tick.

A NumPy game steps one tick at a time on the same `MapArrays`, and NumPy pays a fixed
cost per array call, so arrays that depend only on the map (an obstacle list, the faces'
constants, grown bounding boxes) are kept per map. Under JAX the map may be a traced or
batched value: the builder runs as written and XLA computes it inside the program.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .backend import is_numpy
from .types import Namespace

T = TypeVar("T")
_HELD_MAPS = 16  # maps kept per builder (a season or a test suite cycles through many)


def per_numpy_map(build: Callable[[Any, Any], T]) -> Callable[[Any, Any], T]:
    """`build(xp, m)`, kept per NumPy map. The map itself is held with what was built from
    it, so its id cannot be reused by another map while the entry lives; maps are never
    changed in place (every rule treats them as values)."""
    held: dict[int, tuple[Any, T]] = {}

    def get(xp: Namespace, m: Any) -> T:
        if not is_numpy(xp):
            return build(xp, m)
        hit = held.get(id(m))
        if hit is None or hit[0] is not m:
            if len(held) >= _HELD_MAPS:
                held.clear()
            hit = held[id(m)] = (m, build(np, m))
        return hit[1]

    get.__doc__ = build.__doc__
    get.__name__ = getattr(build, "__name__", "per_numpy_map")
    return get
