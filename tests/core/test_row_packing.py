"""Obstacle rows and sight pairs give one answer however they are batched.

`obstacle_legs` tests each body only against the obstacles it can reach (`obstacle_rows`) and
`sight_pairs` tests only the lines of pairs close enough to see each other. NumPy builds
just those rows, one JAX game masks the rest, and a `vmap` batch packs every game's rows
into one list (games a list at a time when one list is too short). The per-row tests
must equal the whole-map tests they stand for, and every game of a batch must come out
exactly as it does alone on the NumPy engine, whichever way its batch went.
"""

from __future__ import annotations

import numpy as np
import pytest

from marl_bgs.core import obstacle_legs, obstacle_rows, sight_pairs
from marl_bgs.core.body_paths import QUANTA
from marl_bgs.core.contact import obstacle_entries
from marl_bgs.core.geometry import body_blocked, sight_blocked
from marl_bgs.core.shape_tests import off_arena
from marl_bgs.core.sight import PAIR_I, PAIR_J, sight_lines
from tests.core.test_movement_fidelity import _map, draw_case


@pytest.mark.parametrize("inline", [False, True])
def test_row_tests_equal_the_whole_map_tests(inline):
    """Every (body, obstacle) row gives `obstacle_entries`' column and `body_blocked`'s
    verdict, and every obstacle met before a quantum past the move's end is reachable."""
    m = _map(inline)
    rng = np.random.default_rng(3)
    n = 400
    p = rng.integers([500, 500], [19500, 9500], size=(n, 2)).astype(np.int32)
    v = rng.integers(-1500, 1500, size=(n, 2)).astype(np.int32)
    obstacles = obstacle_rows.obstacle_list(np, m)
    k = obstacles.kind.shape[0]
    whole = obstacle_entries(np, p, v, m)[:, 4:]
    body = np.repeat(np.arange(n), k)
    column = np.tile(np.arange(k), n)
    per_row = np.empty(n * k, np.float32)
    blocked = np.empty(n * k, bool)
    for kind, begin, end in obstacle_rows.groups(m):
        rows = (column >= begin) & (column < end)
        ob = obstacle_rows.Obstacles(*(a[column[rows]] for a in obstacles))
        per_row[rows] = obstacle_rows.row_entries(np, p[body[rows]], v[body[rows]], ob, kind)
        blocked[rows] = obstacle_rows.row_blocked(np, p[body[rows], None, :], ob, kind)[:, 0]
    np.testing.assert_array_equal(per_row.reshape(n, k).view(np.int32), whole.view(np.int32))
    edge_x, edge_y = off_arena(p)
    sunk = blocked.reshape(n, k).any(axis=1) | edge_x | edge_y
    np.testing.assert_array_equal(sunk, body_blocked(np, p, m))
    near = obstacle_rows.reachable(np, obstacles, p, v)
    met = whole <= 1 + 2 / QUANTA
    assert met.any() and not np.any(met & ~near), "an obstacle met but not reachable"
    assert near.sum() < near.size / 4, "the pre-test should leave most obstacles out"


def _games(count: int) -> list[tuple]:
    return [draw_case(seed, inline=False, cluster=seed % 2 == 0) for seed in range(count)]


@pytest.fixture(scope="module")
def stacked():
    games = _games(4)
    m = games[0][3]
    return games, m, [np.stack([g[k] for g in games]) for k in (0, 1, 4)]


@pytest.mark.parametrize("room", ["packed", "overflowing", "few overflowing", "few whole"])
def test_packed_and_fallback_legs_match_numpy_game_by_game(monkeypatch, stacked, room):
    """Also the slides' and grid ends' shorter lists (`GRID_END_SHARE`): one row a list
    (they overflow: all rows again) and as long as the rows (they never do)."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    games, m, (start, stride, end) = stacked
    if room == "overflowing":
        monkeypatch.setattr(obstacle_legs, "OBSTACLE_ROWS_PER_GAME", {0: 1, 1: 1, 2: 1})
    if room.startswith("few"):
        monkeypatch.setattr(
            obstacle_legs, "GRID_END_SHARE", 10**6 if room == "few overflowing" else 1
        )
    shared = jax.tree.map(jnp.asarray, m)

    def plan(s, v, e):
        paths, ends = obstacle_legs.plan_legs(jnp, s, v, e, shared)
        return paths.times, paths.points, ends

    times, points, ends = (np.asarray(a) for a in jax.jit(jax.vmap(plan))(start, stride, end))
    for g, (s, v, _, _, e) in enumerate(games):
        want, want_ends = obstacle_legs.plan_legs(np, s, v, e, m)
        np.testing.assert_array_equal(times[g].view(np.int32), want.times.view(np.int32))
        np.testing.assert_array_equal(points[g].view(np.int32), want.points.view(np.int32))
        np.testing.assert_array_equal(ends[g], want_ends, err_msg=f"game {g}")


@pytest.mark.parametrize("room", ["packed", "overflowing"])
def test_packed_and_fallback_sight_match_numpy_game_by_game(monkeypatch, stacked, room):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    _, m, (start, _, _) = stacked
    if room == "overflowing":
        monkeypatch.setattr(sight_pairs, "SIGHT_PAIRS_PER_GAME", 1)
    shared = jax.tree.map(jnp.asarray, m)
    got = np.asarray(jax.jit(jax.vmap(lambda p: sight_lines(jnp, p, shared)))(start))
    for g, pos in enumerate(start):
        want = sight_lines(np, pos, m)
        np.testing.assert_array_equal(got[g], want, err_msg=f"game {g}")
        # Pairs within sight range: the whole-map line test; farther pairs: never clear.
        d = pos[PAIR_I].astype(np.int64) - pos[PAIR_J]
        near = (d * d).sum(-1) <= sight_pairs.MAX_SIGHT_SQ
        line = ~sight_blocked(np, pos[PAIR_I], pos[PAIR_J], m)
        np.testing.assert_array_equal(want[PAIR_I, PAIR_J], line & near)


def test_materialised_keeps_the_work_before_it_out_of_a_gather():
    # XLA on the CPU fuses a gather's producer into it (once per element read) and drops
    # optimization barriers before fusing; `materialised` must still stand between them.
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")

    def read(x, index):
        return obstacle_rows.materialised(jnp, (jnp.sin(x), x > 0))[0][index]

    text = jax.jit(read).lower(jnp.ones(64), jnp.zeros(256, jnp.int32)).compile().as_text()
    computations = text.split("\n\n")
    assert any("sine(" in c for c in computations)
    assert not any("gather(" in c and "sine(" in c for c in computations)
    np.testing.assert_array_equal(
        jax.jit(read)(jnp.arange(3.0), jnp.array([2, 0])), np.sin([2.0, 0.0]).astype(np.float32)
    )
