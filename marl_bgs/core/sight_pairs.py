"""Which of a game's 45 pairs of bodies have their straight line blocked, tested only for
pairs close enough for some class to see the other.

No class sees farther than `MAX_SIGHT_SQ`, so a longer line never decides anything; random
play leaves about a third of the pairs within it. NumPy tests those; one JAX game tests all
45 and masks the rest; a batch of games under `vmap` packs every game's near pairs into one
list (the `custom_vmap` rule below), each row with its own game's obstacles.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import classes
from .backend import is_numpy
from .batching import every_game, in_chunks, nonzero, with_batch_rule
from .geometry import sight_blocked
from .known_map import expected_map, on_expected_or_rows
from .numpy_obstacle_tests import numpy_lines_blocked
from .shape_tests import sq
from .state import NUM_SLOTS
from .types import Array, Namespace

PAIR_I, PAIR_J = np.triu_indices(NUM_SLOTS, k=1)
MAX_SIGHT_SQ = int(np.max(classes.SIGHT_SQ))
# Near pairs a batch of games packs per game; a batch with more runs its games a list at a
# time (random play on map 47 averages about 15; a fresh game has its 20 teammate pairs).
SIGHT_PAIRS_PER_GAME = 20


def _near(xp: Namespace, pos: Array) -> Array:
    d = pos[..., PAIR_I, :] - pos[..., PAIR_J, :]
    return sq(xp, d[..., 0], d[..., 1]) <= MAX_SIGHT_SQ


def blocked_pairs(xp: Namespace, pos: Array, m: Any) -> Array:
    """(45,) for pairs (PAIR_I, PAIR_J) of one game: the line between the centres touches an
    obstacle, or the two stand farther apart than any class can see."""
    if is_numpy(xp):
        near = np.flatnonzero(_near(np, pos))
        blocked = np.ones(len(PAIR_I), bool)
        blocked[near] = numpy_lines_blocked(pos[PAIR_I[near]], pos[PAIR_J[near]], m)
        return blocked
    return _blocked_pairs_jax(pos, m)


def _one_game(pos: Array, m: Any) -> Array:
    import jax.numpy as jnp

    return sight_blocked(jnp, pos[PAIR_I], pos[PAIR_J], m) | ~_near(jnp, pos)


def _many_games(axis_size: int, in_batched: Any, pos: Array, m: Any) -> tuple[Array, bool]:
    """`vmap` of `_one_game`: the near pairs of every game in one list. A batch with more
    than the list holds tests its games a list at a time (`in_chunks`); the result is the
    same."""
    import jax
    import jax.numpy as jnp

    games = axis_size
    expected = expected_map(m)
    pos, m = every_game(games, (pos, m), in_batched)
    near = _near(jnp, pos)
    capacity = max(SIGHT_PAIRS_PER_GAME * games, len(PAIR_I))  # any one game fits

    def packed(take):
        mine = near & take[:, None]
        game, pair = nonzero(mine, capacity)
        ends = jnp.stack([jnp.asarray(PAIR_I)[pair], jnp.asarray(PAIR_J)[pair]], 1)
        ends = pos[game[:, None], ends]  # (R, 2, 2): each row's two centres

        def on_rows():
            # Each row's obstacles with the rows last: an obstacle's values for all rows
            # are then contiguous, which XLA's loop over the rows vectorises.
            own_map = jax.tree.map(lambda a: jnp.moveaxis(a[game], 0, -1), m)
            return sight_blocked(jnp, ends[:, 0], ends[:, 1], own_map)

        hit = on_expected_or_rows(
            m, expected, lambda: sight_blocked(jnp, ends[:, 0], ends[:, 1], expected), on_rows
        )
        hit = jnp.where(jnp.arange(capacity) < jnp.sum(mine), hit, True).astype(jnp.int32)
        # A no-op on the CPU (XLA drops barriers before it fuses; `materialised`'s
        # conditional measured no faster here, PROFILE.md): kept until removal is measured.
        hit = jax.lax.optimization_barrier(hit)
        return jnp.ones(near.shape, jnp.int32).at[game, pair].min(hit) > 0

    counts = jnp.sum(near, axis=1, dtype=jnp.int32)[:, None]
    return in_chunks(counts, [capacity], packed, jnp.ones(near.shape, bool)), True


_blocked_pairs_jax = with_batch_rule(_one_game, _many_games)
