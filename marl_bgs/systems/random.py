"""`random`: uniform over each agent's legal joint actions."""

from __future__ import annotations

import numpy as np

from .base import System, TeamInputs, jax_system


def _uniform(key, inputs: TeamInputs):
    import jax
    import jax.numpy as jnp

    logits = jnp.where(inputs.avail, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


def uniform_numpy(rng: np.random.Generator, inputs: TeamInputs) -> np.ndarray:
    """The same choice drawn with NumPy (for one game; no JAX): one legal flat action per
    slot, 0 (stay, no target) for a slot with nothing legal. Its draws are NumPy's, so they
    are not the JAX System's draws for any key.

    Args:
        rng: A NumPy random generator.
        inputs: One game's `TeamInputs` (NumPy).

    Returns:
        int32 `(5,)` flat actions.
    """
    avail = np.asarray(inputs.avail, bool)
    out = np.zeros(avail.shape[0], np.int32)
    for k in range(avail.shape[0]):
        legal = np.flatnonzero(avail[k])
        if legal.size:
            out[k] = legal[rng.integers(legal.size)]
    return out


def random_system() -> System:
    """Uniform over legal choices (never an illegal one).

    The `"random"` baseline: each agent draws uniformly among its legal flat actions.

    Returns:
        A JAX `System` named `"random"`.
    """
    return jax_system(_uniform, name="random")
