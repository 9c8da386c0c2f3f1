"""Action and observation spaces with JaxMARL's interface (`sample`, `contains`, `shape`).

They take the same arguments and hold the same attributes as
`jaxmarl.environments.spaces`, so code written for JaxMARL reads them unchanged. This module
does not import JaxMARL (that takes seconds); `marl_bgs.jaxmarl_api` subclasses these
together with JaxMARL's own classes, so that JaxMARL's `isinstance` checks (its Q-learning
wrappers size networks by them) see its spaces.
"""

from __future__ import annotations

import operator
from typing import Any

import jax
import jax.numpy as jnp


class Box:
    """Values in [low, high] (scalars or arrays broadcast to `shape`)."""

    def __init__(self, low: Any, high: Any, shape: tuple[int, ...], dtype: Any = jnp.float32):
        self.low = low
        self.high = high
        self.shape = tuple(shape)
        self.dtype = dtype

    def sample(self, rng: jax.Array) -> jax.Array:
        """Uniform in the box."""
        return jax.random.uniform(rng, shape=self.shape, minval=self.low, maxval=self.high).astype(
            self.dtype
        )

    def contains(self, x: Any) -> jax.Array:
        """True if every entry lies within the bounds."""
        x = jnp.asarray(x)
        return jnp.logical_and(jnp.all(x >= self.low), jnp.all(x <= self.high))

    def __repr__(self) -> str:
        return f"Box(low={self.low!r}, high={self.high!r}, shape={self.shape}, dtype={self.dtype})"


class Discrete:
    """One whole number in [0, n)."""

    def __init__(self, num_categories: int, dtype: Any = jnp.int32):
        if isinstance(num_categories, bool):
            raise ValueError(f"num_categories: {num_categories!r} must be a whole number")
        try:
            n = operator.index(num_categories)
        except TypeError:
            raise ValueError(f"num_categories: {num_categories!r} must be a whole number") from None
        if n < 0:
            raise ValueError(f"num_categories: {n} must not be negative")
        self.n = n
        self.shape: tuple[int, ...] = ()
        self.dtype = dtype

    def sample(self, rng: jax.Array) -> jax.Array:
        """Uniform over the n choices (legality is the masks' business, not the space's)."""
        return jax.random.randint(rng, shape=self.shape, minval=0, maxval=self.n).astype(self.dtype)

    def contains(self, x: Any) -> jax.Array:
        x = jnp.asarray(x)
        return jnp.logical_and(x >= 0, x < self.n)

    def __repr__(self) -> str:
        return f"Discrete({self.n})"


class MultiDiscrete:
    """One whole number per head, head k in [0, num_categories[k])."""

    def __init__(self, num_categories: tuple[int, ...] | list[int]):
        self.num_categories = jnp.asarray(num_categories, jnp.int32)
        self.shape = (len(num_categories),)
        self.dtype = jnp.int32

    def sample(self, rng: jax.Array) -> jax.Array:
        return jax.random.randint(
            rng, shape=self.shape, minval=0, maxval=self.num_categories, dtype=self.dtype
        )

    def contains(self, x: Any) -> jax.Array:
        x = jnp.asarray(x)
        return jnp.all(jnp.logical_and(x >= 0, x < self.num_categories))

    def __repr__(self) -> str:
        return f"MultiDiscrete({[int(n) for n in self.num_categories]})"
