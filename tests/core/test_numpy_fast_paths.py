"""NumPy-only fast paths give the bits of the general code they stand for.

Each shortcut below skips or merges array calls on NumPy (which pays per call); each is
held here to the plain form it replaces, on many inputs:

- `random_play.random_actions` draws all agents' actions with one `integers` call: the same
  numbers as one `rng.choice(np.flatnonzero(row))` per agent, in order.
- `obstacle_legs._grid_end` on the dense NumPy surfaces asks `body_blocked` alone (which
  counts the arena's edges) instead of OR-ing the edges in a second time.
- `geometry.body_blocked` on NumPy (`numpy_obstacle_tests.numpy_blocked`) keeps the map's
  parts of the test per map and merges steps: the answers of `body_overlap(...).any`, on
  and around every edge.
- `contact.obstacle_entries` on NumPy (`_numpy_entries`) keeps the map's parts per map,
  pieces first and tiled per number of bodies: `_entries`' bits.
- `numpy_obstacle_tests.numpy_lines_blocked` (the sight lines of `sight_pairs` on NumPy)
  gives `sight_blocked`'s answers, on NumPy and in its general form.
- `obstacle_legs._legs` on NumPy (early exits, the turned normal read by column,
  `array_ops.dot2` for the short dot products) and `first_touch.may_meet`'s columns: their
  general form's bits.
- `leg_surfaces.dense_surfaces`' slides ask only the obstacles a slide may meet
  (`leg_surfaces._slide_may_meet`) and leave out the surface slid along: the least contact,
  capped at the slide's end, of every obstacle in reach.
- `contact.bounded_fence` (the body passes' fences: `position_at`, `truncate`,
  `pair_contacts`, `float_circle_entry`) is skipped on NumPy: the fenced bits.
- `pathing.relax` on NumPy steps on a window view and stops at a settled field;
  `pathing.draw`, `grid` and `_downhill` keep what they built for inputs seen before;
  `heading` looks up all eight neighbours at once. Scripted decisions on NumPy are also
  compared with JAX in tests/systems/test_scripted.py and hashed in tests/browser_engine/test_wheel.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.core import (
    classes,
    contact,
    geometry,
    leg_surfaces,
    numpy_obstacle_tests,
    obstacle_legs,
)
from marl_bgs.core.obstacle_rows import Obstacles, obstacle_list, reachable
from marl_bgs.core.position import starting_position
from marl_bgs.random_play import decode, random_actions
from marl_bgs.systems import pathing
from tests.core.test_movement_fidelity import _map


def _choice_loop(game: Game, rng: np.random.Generator) -> list:
    """`random_actions` as it was written first: one `rng.choice` per agent."""
    legal = game.legal_actions()
    return [
        [decode(int(rng.choice(np.flatnonzero(legal[t, k])))) for k in range(game.sizes[t])]
        for t in range(2)
    ]


@pytest.mark.parametrize("seed", range(6))
def test_random_actions_draw_what_one_choice_per_agent_draws(seed):
    pick = np.random.default_rng(100 + seed)
    rosters = tuple(
        tuple(classes.CLASS_NAMES[int(c)] for c in pick.integers(0, 5, pick.integers(1, 6)))
        for _ in range(2)
    )
    game = Game(starting_position([47, 42, 28][seed % 3], rosters, horizon=80))
    fast, slow = np.random.default_rng(seed), np.random.default_rng(seed)
    while not game.done:
        got, want = random_actions(game, fast), _choice_loop(game, slow)
        assert got == want
        assert all(type(v) is int for team in got for act in team for v in act)
        game.step(got)
    assert fast.integers(0, 2**40) == slow.integers(0, 2**40)  # the streams stay in step


@pytest.mark.parametrize("inline", [False, True])
def test_grid_end_with_edges_counted_once_equals_counting_them_again(inline):
    """The dense surfaces' `sunk_at` is `body_blocked`, arena edges included; `_legs` with
    the edges OR-ed in again (the row surfaces' way) plans the same legs."""
    m = _map(inline)
    rng = np.random.default_rng(5)
    obstacles = obstacle_list(np, m)
    lists = Obstacles(*(a[None] for a in obstacles))
    for _ in range(150):
        start = rng.integers([400, 400], [19600, 9600], size=(10, 2)).astype(np.int32)
        # Some bodies pressed to an edge, some still, strides of every length.
        start[:3, 0] = rng.choice([500, 501, 19499, 19500], 3)
        stride = rng.integers(-1500, 1500, size=(10, 2)).astype(np.int32)
        stride[rng.random(10) < 0.2] = 0
        end = rng.integers(0, 2, 10).astype(np.int32)
        near = reachable(np, obstacles, start, stride, leg_surfaces.map_grown_boxes(np, m))
        dense = leg_surfaces.dense_surfaces(m, near)
        assert dense.sunk_counts_arena
        fast, fast_ends = obstacle_legs._legs(np, start, stride, end, lists, dense)
        slow, slow_ends = obstacle_legs._legs(
            np, start, stride, end, lists, dense._replace(sunk_counts_arena=False)
        )
        for a, b in zip((*fast, fast_ends), (*slow, slow_ends), strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)


def _grid_case(rng: np.random.Generator):
    blocked = rng.random((pathing.FINE_H, pathing.FINE_W)) < rng.uniform(0.0, 0.4)
    g = pathing._grid(np, blocked)
    target = rng.uniform([0, 0], [20, 10]).astype(np.float32)
    goal = np.stack(
        [pathing.band_cells(np, g, pathing.ADVANCE_FROM_X), pathing.goal_cells(np, g, target, 1.0)]
    )
    return blocked, g, goal


def test_relax_on_numpy_equals_its_steps():
    rng = np.random.default_rng(0)
    for trial in range(40):
        _, g, goal = _grid_case(rng)
        field = np.where(goal, 0.0, pathing.BIG).astype(np.float32)
        if trial % 2:  # a field part grown already, as memory carries it
            field = (field * rng.uniform(0.0, 1.0, field.shape)).astype(np.float32)
        want = field
        for iters in range(1, 14):
            want = pathing._relax_step(np, want, g, goal)
            got = pathing.relax(np, field, g, goal, iters)
            assert got.dtype == want.dtype and np.array_equal(got, want)
            assert np.array_equal(np.signbit(got), np.signbit(want))


def test_kept_drawings_grids_and_downhill_are_what_building_them_gives():
    rng = np.random.default_rng(1)
    for _ in range(12):
        blocked, g, goal = _grid_case(rng)
        ob = pathing.Obstacles(
            box_lo=rng.uniform(0, 18, (32, 2)).astype(np.float32),
            box_hi=rng.uniform(0, 18, (32, 2)).astype(np.float32) + 1,
            box_radius=rng.uniform(0, 1, 32).astype(np.float32),
            box_valid=rng.random(32) < 0.5,
            wall_corners=rng.uniform(0, 18, (8, 4, 2)).astype(np.float32),
            wall_valid=rng.random(8) < 0.5,
        )
        for _ in range(2):  # built, then kept
            for part in range(pathing.BUILD_TICKS):
                kept = pathing.draw(np, ob, np.int32(part))
                assert not kept.flags.writeable
                assert np.array_equal(kept, pathing._draw(np, ob, part))
            grid = pathing.grid(np, blocked)
            for a, b in zip(grid, pathing._grid(np, blocked), strict=True):
                assert a.dtype == b.dtype and np.array_equal(a, b)
            field = pathing.relax(
                np, np.where(goal, 0.0, pathing.BIG).astype(np.float32), grid, goal, 8
            )
            for f in field:
                for a, b in zip(
                    pathing._downhill(np, f, grid), pathing._downhill_of(np, f, grid), strict=True
                ):
                    assert a.dtype == b.dtype and np.array_equal(a, b)


def test_heading_on_numpy_equals_jax():
    jnp = pytest.importorskip("jax.numpy")
    rng = np.random.default_rng(2)
    for _ in range(10):
        _, g, goal = _grid_case(rng)
        field = pathing.relax(np, np.where(goal, 0.0, pathing.BIG).astype(np.float32), g, goal, 6)[
            1
        ]
        xy = rng.uniform([-0.5, -0.5], [20.5, 10.5], (5, 2)).astype(np.float32)
        aim = rng.uniform([0, 0], [20, 10], (5, 2)).astype(np.float32)
        got = pathing.heading(np, field, g, xy, aim)
        want = pathing.heading(jnp, jnp.asarray(field), pathing.Grid(*map(jnp.asarray, g)), xy, aim)
        for a, b in zip(got, want, strict=True):
            assert np.array_equal(a, np.asarray(b))


def _points_around_obstacles(m, rng: np.random.Generator, count: int) -> np.ndarray:
    """Grid points on, near and far from every obstacle's corners and faces and the arena's
    edges: offsets of exactly a body's radius (and one more or less), then random ones."""
    corners = [np.asarray(m.box_lo), np.asarray(m.box_hi), np.asarray(m.pillar_centre)]
    corners += [np.asarray(m.box_lo)[:, ::-1] * [0, 1] + np.asarray(m.box_hi) * [1, 0]]
    corners += [np.asarray(m.poly_corners).reshape(-1, 2), np.asarray([[500, 500], [19500, 9500]])]
    base = np.concatenate(corners).astype(np.int32)
    exact = np.asarray(
        [[dx, dy] for dx in (-501, -500, -499, -354, -353, 0, 353, 354, 499, 500, 501)
         for dy in (-501, -500, -499, -354, -353, 0, 353, 354, 499, 500, 501)], np.int32
    )  # fmt: skip
    near = (base[:, None, :] + exact[None, :, :]).reshape(-1, 2)
    loose = base[rng.integers(0, len(base), count)] + rng.integers(-1600, 1600, (count, 2))
    anywhere = rng.integers([-200, -200], [20200, 10200], (count, 2))
    return np.concatenate([near, loose, anywhere]).astype(np.int32)


@pytest.mark.parametrize("inline", [False, True])
@pytest.mark.parametrize("padded", [False, True])
def test_numpy_body_blocked_equals_body_overlap(inline, padded):
    m = _map(inline, padded)
    rng = np.random.default_rng(7)
    pts = _points_around_obstacles(m, rng, 4000)
    want = geometry.body_overlap(np, pts, m).any
    assert 0.05 < want.mean() < 0.95  # both answers are well represented
    for shaped in (pts, pts.reshape(-1, 1, 2)[:600], pts[: 6 * 500].reshape(500, 6, 2), pts[:0]):
        got = geometry.body_blocked(np, shaped, m)
        expect = geometry.body_overlap(np, shaped, m).any
        assert got.dtype == expect.dtype and got.shape == expect.shape
        assert np.array_equal(got, expect)


@pytest.mark.parametrize("inline", [False, True])
@pytest.mark.parametrize("padded", [False, True])
def test_numpy_obstacle_entries_equal_the_general_form(inline, padded):
    m = _map(inline, padded)
    rng = np.random.default_rng(11)
    starts = _points_around_obstacles(m, rng, 3000)
    # Strides of every length and direction, none, axis-aligned and diagonal; bodies
    # touching a surface at the start are among the exact offsets.
    stride = rng.integers(-1500, 1500, starts.shape).astype(np.int32)
    stride[rng.random(len(stride)) < 0.1] = 0
    stride[rng.random(len(stride)) < 0.2, 0] = 0
    unit = np.asarray([[0, 1], [1, 0], [0, -1], [-1, 0], [707, 707], [-707, 707]], np.int32)
    pick = rng.random(len(stride)) < 0.2
    stride[pick] = unit[rng.integers(0, len(unit), pick.sum())] * rng.integers(
        1, 1300, (pick.sum(), 1)
    )
    hits = 0
    for begin in range(0, len(starts), 10):  # bodies ten at a time, as a tick has them
        p, v = starts[begin : begin + 10], stride[begin : begin + 10]
        got = contact.obstacle_entries(np, p, v, m)
        want = contact._entries(np, p, v, m)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)
        hits += int((got[:, 4:] < 1).sum())
    assert hits > 500  # many bodies meet an obstacle within their stride
    one = contact.obstacle_entries(np, starts[:1], stride[:1], m)
    assert np.array_equal(one, contact._entries(np, starts[:1], stride[:1], m))
    empty = contact.obstacle_entries(np, starts[:0], stride[:0], m)
    assert empty.shape == contact._entries(np, starts[:0], stride[:0], m).shape


class _Fenced:
    """NumPy under another name: code that asks `xp is np` takes its general path (every
    `fence` in place, as JAX runs it) while computing with NumPy's own functions."""

    def __getattr__(self, name):
        return getattr(np, name)


def _random_legs(m, rng: np.random.Generator, n: int):
    """Legs of `n` bodies planned on map `m`: crowded starts (pairs that meet), strides of
    every length, some still, some pressed to an edge."""
    start = rng.integers([400, 400], [19600, 9600], size=(n, 2)).astype(np.int32)
    start[n // 2 :] = start[: n - n // 2] + rng.integers(-1400, 1400, (n - n // 2, 2))
    start = np.clip(start, 500, [19500, 9500]).astype(np.int32)
    stride = rng.integers(-1500, 1500, size=(n, 2)).astype(np.int32)
    stride[rng.random(n) < 0.15] = 0
    end = rng.integers(0, 2, n).astype(np.int32)
    return start, obstacle_legs.plan_legs(np, start, stride, end, m)[0]


@pytest.mark.parametrize("inline", [False, True])
def test_bounded_fences_skipped_on_numpy_give_the_fenced_bits(inline):
    """The body passes' `bounded_fence`s (`position_at`, `truncate`, `pair_contacts`,
    `float_circle_entry`) are skipped on NumPy: the same values as with every fence."""
    from marl_bgs.core import body_paths, first_touch

    m = _map(inline)
    rng = np.random.default_rng(21)
    fenced = _Fenced()
    met = 0
    for _ in range(120):
        start, paths = _random_legs(m, rng, 10)
        stop = rng.integers(0, body_paths.QUANTA + 1, 10).astype(np.int32)
        stop[rng.random(10) < 0.4] = body_paths.QUANTA
        stop[rng.random(10) < 0.1] = 0
        got, want = body_paths.truncate(np, paths, stop), body_paths.truncate(fenced, paths, stop)
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        t = rng.random((10, 7)).astype(np.float32)
        t[:, :3] = [0, 1, 0.5]
        t[:, 3:] = np.where(rng.random((10, 4)) < 0.5, got.times[:, [1, 2, 1, 2]], t[:, 3:])
        for p in (got, body_paths.truncate(np, paths, np.full(10, body_paths.QUANTA, np.int32))):
            a = body_paths.position_at(np, p.times, p.points, t)
            b = body_paths.position_at(fenced, p.times, p.points, t)
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
            rows = np.flatnonzero(first_touch.may_meet(np, paths, start, np.ones(10, bool)))
            i, j = first_touch.PAIR_I[rows], first_touch.PAIR_J[rows]
            both = body_paths.Paths(*(np.concatenate([x[i], x[j]]) for x in p))
            base = (start[i] - start[j]).astype(np.float32)
            a = first_touch.pair_contacts(np, both, base)
            b = first_touch.pair_contacts(fenced, both, base)
            assert a.dtype == b.dtype and np.array_equal(a, b)
            met += int((a < 1).sum())
    assert met > 100  # many pairs touch within the tick
    # Offsets and motions of every size the passes can see, zero motions and touching starts.
    ax = (rng.integers(-30000, 30000, 4000) * rng.random(4000)).astype(np.float32)
    ay = (rng.integers(-30000, 30000, 4000) * rng.random(4000)).astype(np.float32)
    ux = (rng.integers(-4000, 4000, 4000) * rng.random(4000)).astype(np.float32)
    uy = (rng.integers(-4000, 4000, 4000) * rng.random(4000)).astype(np.float32)
    ux[:500], uy[:500] = 0, 0
    ax[500:1000], ay[500:1000] = np.float32(1000), np.float32(0)
    a = contact.float_circle_entry(np, ax, ay, ux, uy, (1000, 300))
    b = contact.float_circle_entry(fenced, ax, ay, ux, uy, (1000, 300))
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)


@pytest.mark.parametrize("inline", [False, True])
@pytest.mark.parametrize("padded", [False, True])
def test_numpy_lines_blocked_equals_sight_blocked(inline, padded):
    """`numpy_obstacle_tests.numpy_lines_blocked` (the NumPy sight lines of `sight_pairs`) gives
    `sight_blocked`'s answers, on NumPy and in its general form: lines from, to, along and
    past every obstacle's corners and faces, a body's radius off them and one unit more or
    less, points, and random lines."""
    m = _map(inline, padded)
    rng = np.random.default_rng(13)
    pts = _points_around_obstacles(m, rng, 1500)
    pts = np.clip(pts, 0, [20000, 10000]).astype(np.int32)
    a = pts[rng.integers(0, len(pts), 6000)]
    b = pts[rng.integers(0, len(pts), 6000)]
    b[:300] = a[:300]  # lines of no length
    b[300:900, 0] = a[300:900, 0]  # upright and level lines
    b[900:1500, 1] = a[900:1500, 1]
    want = geometry.sight_blocked(np, a, b, m)
    assert 0.05 < want.mean() < 0.95
    assert np.array_equal(want, geometry.sight_blocked(_Fenced(), a, b, m))
    for size in (6000, 45, 7, 1, 0):
        got = numpy_obstacle_tests.numpy_lines_blocked(a[:size], b[:size], m)
        assert got.dtype == want.dtype and got.shape == (size,)
        assert np.array_equal(got, want[:size])


@pytest.mark.parametrize("inline", [False, True])
def test_numpy_legs_equal_their_general_form(inline):
    """`obstacle_legs._legs` on NumPy (its early exits, the turned normal's column read,
    `array_ops.dot2` for the short dot products) plans the legs its general form plans;
    likewise `first_touch.may_meet`'s two columns."""
    from marl_bgs.core import first_touch

    m = _map(inline)
    rng = np.random.default_rng(17)
    obstacles = obstacle_list(np, m)
    lists = Obstacles(*(a[None] for a in obstacles))
    fenced = _Fenced()
    slid = 0
    for _ in range(150):
        start, _paths = _random_legs(m, rng, 10)
        stride = rng.integers(-1500, 1500, size=(10, 2)).astype(np.int32)
        stride[rng.random(10) < 0.15] = 0
        end = rng.integers(0, 2, 10).astype(np.int32)
        near = reachable(np, obstacles, start, stride, leg_surfaces.map_grown_boxes(np, m))
        dense = leg_surfaces.dense_surfaces(m, near)
        fast, fast_ends = obstacle_legs._legs(np, start, stride, end, lists, dense)
        slow, slow_ends = obstacle_legs._legs(fenced, start, stride, end, lists, dense)
        for a, b in zip((*fast, fast_ends), (*slow, slow_ends), strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        slid += int(np.any(fast.points[:, 2] != fast.points[:, 1], axis=1).sum())
        blocking = rng.random(10) < 0.8
        assert np.array_equal(
            first_touch.may_meet(np, fast, start, blocking),
            first_touch.may_meet(fenced, fast, start, blocking),
        )
    assert slid > 200  # many bodies slide after a contact


@pytest.mark.parametrize("inline", [False, True])
def test_numpy_slides_asking_fewer_obstacles_meet_what_all_in_reach_meet(inline):
    """The dense surfaces' slides ask only the obstacles near each slide (`_slide_may_meet`,
    the surface slid along left out): capped at the slide's end, the first contacts of all
    the obstacles in reach. The slides are the ones `_legs` makes, plus slides aimed to end
    just short of, or just past, an obstacle's grown box (where the margin decides)."""
    m = _map(inline)
    rng = np.random.default_rng(29)
    obstacles = obstacle_list(np, m)
    lists = Obstacles(*(a[None] for a in obstacles))
    lo, hi = leg_surfaces.map_grown_boxes(np, m)
    asked, left_out, hits = 0, 0, 0
    for _ in range(150):
        start = rng.integers([400, 400], [19600, 9600], size=(10, 2)).astype(np.int32)
        stride = rng.integers(-1500, 1500, size=(10, 2)).astype(np.int32)
        near = reachable(np, obstacles, start, stride, leg_surfaces.map_grown_boxes(np, m))
        calls = []
        dense = leg_surfaces.dense_surfaces(m, near)
        record = lambda *a, _d=dense, _c=calls: _c.append(a) or _d.slides(*a)  # noqa: E731
        obstacle_legs._legs(
            np, start, stride, np.zeros(10, np.int32), lists, dense._replace(slides=record)
        )
        # Slides aimed at a grown box's edge, ending within 20 of it either side.
        k = rng.integers(0, lo.shape[0], 10)
        edge = np.where(rng.random((10, 1)) < 0.5, lo[k], hi[k]).astype(np.float32)
        p = rng.uniform(-300, 300, (10, 2)).astype(np.float32)
        tip = edge + rng.uniform(-20, 20, (10, 2)).astype(np.float32)
        w = (tip - start - p).astype(np.float32)
        w *= np.float32(rng.uniform(0.0, 1.0)) < 0.9
        skip = rng.integers(0, 4 + lo.shape[0], 10).astype(np.int32)
        aimed = (start, p, w, skip)
        span = (np.abs(p) + np.abs(w)).astype(np.int32) + 1  # the slide lies in its square
        near_aimed = reachable(np, obstacles, start, span, (lo, hi))
        for args, reach in [(a, near) for a in calls] + [(aimed, near_aimed)]:
            s0, p0, w0, skip0 = args
            fast = np.minimum(leg_surfaces.dense_surfaces(m, reach).slides(*args), 1)
            parts = []
            for kind, b, e in leg_surfaces.groups(m):
                body, column = np.nonzero(reach[:, b:e])
                parts.append((kind, body, column + b, np.ones(body.shape, bool)))
            rows = leg_surfaces.make_rows(np, lists, parts)
            slow = np.minimum(leg_surfaces._slide_least(np, s0, p0, w0, skip0, rows), 1)
            assert np.array_equal(fast, slow)
            ask = leg_surfaces._slide_may_meet(s0, p0, w0, (lo, hi)) & reach
            asked += int(ask.sum())
            left_out += int((reach & ~ask).sum())
            hits += int((slow < 1).sum())
    assert asked > 100 and left_out > 1000 and hits > 50  # both kinds of rows, and contacts
