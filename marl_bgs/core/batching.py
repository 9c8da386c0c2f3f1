"""Per-game functions with their own rule for batches of games under `jax.vmap`.

A few steps of a tick (obstacle rows, body pairs, sight pairs) do work that scales with
what is near, not with all there is: a batch of games packs every game's few candidates
into one short list, which plain `vmap` cannot do. Each such step is written for one game,
with a batch rule beside it (a `jax.custom_batching.custom_vmap`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .array_ops import row_bits


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


def in_chunks(counts: Any, room: Any, run: Callable[[Any], Any], empty: Any) -> Any:
    """`run(take)` over a batch's games in order, as many games at a time as fit, until
    every game has run; each game's results from the run that took it.

    Why: a batch rule packs every game's candidates into one list of `room` rows. Packing
    games a chunk at a time (one chunk, almost always) keeps one compiled copy of the
    work; a second, unpacked copy for batches that overflow the list doubled the program.

    Args:
        counts: (games, kinds) int, each game's candidates of each kind.
        room: (kinds,) rows of each kind one run holds; every game alone must fit.
        run: (games,) bool, the games to resolve -> results with a leading games axis
            (what it gives for the other games is ignored).
        empty: results of the shapes and dtypes `run` gives (their values are replaced).
    """
    import jax
    import jax.numpy as jnp

    games = counts.shape[0]
    room = jnp.asarray(room)

    def one_chunk(carry: tuple) -> tuple:
        left, out = carry
        taken = jnp.cumsum(jnp.where(left[:, None], counts, 0), axis=0)
        take = left & jnp.all(taken <= room, axis=1)  # a prefix of the games left
        new = run(take)
        keep = lambda o, n: jnp.where(take.reshape((games,) + (1,) * (o.ndim - 1)), n, o)  # noqa: E731
        return left & ~take, jax.tree.map(keep, out, new)

    left = jnp.ones(games, bool)
    return jax.lax.while_loop(lambda c: jnp.any(c[0]), one_chunk, (left, empty))[1]


def in_lists(left: Any, size: int, compute: Callable[[Any], Any], out: Any) -> Any:
    """`out` with the rows `left` marks replaced by `compute(index)`, `size` rows at a time.

    Why: a step that only a few rows of a batch need (a few games' redone passes, a few
    bodies' map tests) runs on a short list of those rows instead of on every row; a batch
    needing more runs another list, none when no row is marked.

    Args:
        left: (n,) bool, the rows to compute.
        size: rows one list holds.
        compute: (size,) row indices -> their results (size, ...), as `out`'s rows.
        out: (n, ...) results for every row; the marked ones are replaced.
    """
    import jax
    import jax.numpy as jnp

    n = left.shape[0]

    def one_list(value: tuple) -> tuple:
        left, out = value
        which = nonzero(left, size, n)[0]  # n: past the end, dropped
        new = compute(jnp.minimum(which, n - 1))
        return left.at[which].set(False, mode="drop"), out.at[which].set(new, mode="drop")

    return jax.lax.while_loop(lambda v: jnp.any(v[0]), one_list, (left, out))[1]


# `nonzero` counts each element's place within rows of this many elements.
NONZERO_ROW = 16  # at most 32: a row's elements are the bits of one uint32


def nonzero(mask: Any, size: int, fill_value: int = 0) -> tuple:
    """`jnp.nonzero(mask, size=size, fill_value=fill_value)`: the same indices, cheaper.

    Why: `jnp.nonzero` counts with a cumulative sum over every element, which XLA on the CPU
    computes as a tree of windowed sums, then adds each element into a histogram of the
    `size` places and sums that again. Here an element's place is its count within a row of
    NONZERO_ROW elements (a population count of the row's bits up to it) plus its row's
    offset (a cumulative sum over the rows only), and the flat indices are written to their
    places in one scatter (places past `size` dropped, so the first `size` are kept, as
    `jnp.nonzero` keeps them).
    """
    import jax
    import jax.numpy as jnp

    shape, n = mask.shape, mask.size
    rows = -(-n // NONZERO_ROW)
    flat = jnp.pad(mask.reshape(-1).astype(jnp.int32), (0, rows * NONZERO_ROW - n))
    flat = flat.reshape(rows, NONZERO_ROW)
    # the count up to each element within its row: a population count of the row's bits
    # (XLA's cumulative sum adds a window of the row per element)
    bits = row_bits(jnp, flat > 0)
    upto = (np.left_shift(np.uint64(2), np.arange(NONZERO_ROW, dtype=np.uint64)) - 1).astype(
        np.uint32
    )  # the bits up to and including each element
    within = jax.lax.population_count(bits[:, None] & upto).astype(jnp.int32)
    count = within[:, -1]
    before = jax.lax.associative_scan(jnp.add, count) - count
    place = jnp.where(flat > 0, before[:, None] + within - 1, size).reshape(-1)
    index = jnp.arange(rows * NONZERO_ROW, dtype=jnp.int32)
    found = jnp.full((size,), -1, jnp.int32).at[place].set(index, mode="drop")
    coords = jnp.unravel_index(jnp.maximum(found, 0), shape)
    return tuple(jnp.where(found < 0, fill_value, c).astype(jnp.int32) for c in coords)
