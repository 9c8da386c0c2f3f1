"""The body passes give one answer however they are batched.

`body_contacts` runs the same pair rows three ways: NumPy on the candidate rows alone, one
JAX game on all 45 rows with the rest masked, and a `vmap` batch that packs every game's
candidate rows into one list (games a list at a time when one list is too short). Each game of a batch must move exactly as it does alone on the NumPy engine,
whichever way its batch went.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.test_movement_fidelity import draw_case

jax = pytest.importorskip("jax")


def _crowded(seed: int) -> tuple:
    """Ten bodies packed a body's width and a little apart: most of the 45 pairs may meet."""
    from marl_bgs.core.movement import STRIDES

    _, _, _, m, end = draw_case(seed, inline=True, cluster=False)
    rng = np.random.default_rng(seed)
    grid = np.asarray([(x, y) for x in range(5) for y in range(2)], np.int32)
    start = np.asarray([7000, 4000], np.int32) + grid * 1010
    stride = STRIDES[0, rng.integers(0, 9, 10)].astype(np.int32)
    return start, stride, np.ones(10, bool), m, end


def test_packed_and_fallback_batches_match_numpy_game_by_game(monkeypatch):
    """A nested vmap (2 batches of 3 games, the map shared, not batched): with room for two
    rows per game, the crowded batch overflows and runs a list at a time, the sparse one
    fits in one list; with room for one stopped body per game in the map test's list, the
    crowded batch's stopped bodies take several lists too."""
    import jax.numpy as jnp

    from marl_bgs.core import body_contacts, first_touch
    from marl_bgs.core.movement import plan_legs, plan_moves

    monkeypatch.setattr(body_contacts, "ROWS_PER_GAME", 2)
    monkeypatch.setattr(body_contacts, "BLOCKED_PER_GAME", 1)
    crowded = [_crowded(seed) for seed in range(3)]
    sparse = [draw_case(seed, inline=True, cluster=False) for seed in range(3)]
    m = crowded[0][3]
    batches = [crowded, sparse]
    # Two rows per game is room for 6; the crowded batch has far more, the sparse fewer.
    for batch, overflows in zip(batches, (True, False), strict=True):
        counts = [
            int(first_touch.may_meet(np, plan_legs(np, s, v, e, m)[0], s, b).sum())
            for s, v, b, _, e in batch
        ]
        assert (sum(counts) > 2 * len(batch)) == overflows, counts
    stopped = [
        int((body_contacts.numpy_cuts(*plan_legs(np, s, v, e, m), s, b, m)[0] < 1024).sum())
        for s, v, b, _, e in crowded
    ]
    assert sum(stopped) > len(crowded), stopped
    stacked = [
        np.stack([np.stack([game[k] for game in batch]) for batch in batches]) for k in (0, 1, 2, 4)
    ]

    shared = jax.tree.map(jnp.asarray, m)

    def one(start, stride, blocking, end):
        moves = plan_moves(jnp, start, stride, blocking, shared, end)
        return moves.paths.times, moves.paths.points, moves.end

    run = jax.jit(jax.vmap(jax.vmap(one)))
    got = [np.asarray(a) for a in run(*stacked)]
    for b, batch in enumerate(batches):
        for g, (start, stride, blocking, _, end) in enumerate(batch):
            want = plan_moves(np, start, stride, blocking, m, end)
            for name, have, exact in zip(
                ("times", "points", "end"), got, (*want.paths, want.end), strict=True
            ):
                np.testing.assert_array_equal(
                    have[b, g], exact, err_msg=f"{name}, batch {b}, game {g}"
                )
