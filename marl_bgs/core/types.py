"""Type aliases for the signatures of the rule functions (annotations only).

Every rule function takes the array namespace `xp` first: `numpy` for the NumPy engine,
`jax.numpy` for the JAX engine. Its arrays are NumPy arrays or JAX arrays (traced under jit
or vmap), so `Array` stays `Any`: naming one of the two would be wrong for the other, and
this module must not import JAX (the browser's engine wheel ships `core/` without it).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

Array = Any  # a NumPy or JAX array (or a scalar of either), int32, float32 or bool
Namespace = ModuleType  # the array namespace `xp`: the module numpy or jax.numpy

__all__ = ["Array", "Namespace"]
