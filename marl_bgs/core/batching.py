"""Per-game functions with their own rule for batches of games under `jax.vmap`.

A few steps of a tick (obstacle rows, body pairs, sight pairs) do work that scales with
what is near, not with all there is: a batch of games packs every game's few candidates
into one short list, which plain `vmap` cannot do. Each such step is written for one game,
with a batch rule beside it (a `jax.custom_batching.custom_vmap`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def with_batch_rule(one_game: Callable, many_games: Callable) -> Callable:
    """`one_game`, run as `many_games(axis_size, in_batched, *args)` under `vmap`. Built on
    first use, so NumPy users never import JAX."""
    built = None

    def call(*args: Any) -> Any:
        nonlocal built
        if built is None:
            from jax.custom_batching import custom_vmap

            built = custom_vmap(one_game)
            built.def_vmap(many_games)
        return built(*args)

    return call


def every_game(games: int, args: tuple, in_batched: Any) -> tuple:
    """The arguments of a batch rule with the unbatched ones (a map shared by all games)
    given a leading axis of `games` as well."""
    import jax
    import jax.numpy as jnp

    return jax.tree.map(
        lambda a, batched: a if batched else jnp.broadcast_to(a, (games,) + a.shape),
        args,
        tuple(in_batched),
    )
