"""`random`: uniform over each agent's legal joint actions."""

from __future__ import annotations

from .base import System, TeamInputs, jax_system


def _uniform(key, inputs: TeamInputs):
    import jax
    import jax.numpy as jnp

    logits = jnp.where(inputs.avail, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


def random_system() -> System:
    """Uniform over legal choices (never an illegal one)."""
    return jax_system(_uniform, name="random")
