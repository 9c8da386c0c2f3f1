"""Bodies stopping each other: each body's stop and grid end for one game's tick.

Each body's motion in a tick is a `Paths` (from `obstacle_legs.plan_legs`). `body_stops`
runs the passes of `stop_passes` on rows, one per pair of bodies that may meet
(`first_touch.may_meet`). Rows make the work scale with the pairs that matter, not with
all 45: NumPy computes only those (`numpy_cuts`); one JAX game computes all 45 with the
others masked; a batch of games under `vmap` packs every game's candidate rows into one
short list (`custom_vmap` rule below), which is a few per game instead of 45.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .backend import is_numpy
from .batching import every_game, in_chunks, in_lists, nonzero, with_batch_rule
from .body_paths import QUANTA, Paths, truncate
from .first_touch import may_meet
from .geometry import body_blocked
from .grid_ends import grid_ends, grid_ends_sinking
from .known_map import expected_map, on_expected_or_rows
from .sight import PAIR_I, PAIR_J
from .state import NUM_SLOTS, MapArrays
from .stop_passes import cut_and_sink, cut_stops, part_overlaps, refresh_ends, sink_back
from .types import Array, Namespace

# Rows a batch of games packs per game before it falls back to all 45 pairs of every game
# (random play averages about two; fresh games at their spawns have more).
ROWS_PER_GAME = 5
# Rounds of passes redone after a stop sank into an obstacle (`cut_and_sink`), and how many
# games of a batch redo theirs in one packed list (random play: about 3 in 1,024 per tick).
REDO_ROUNDS = 2
REDO_GAMES = 16
# Stopped bodies per game whose grid corners a batch tests against the map in one list
# (a batch with more takes another list; random play on map 47 stops 2.03 bodies per game
# and tick, so two would take two lists in most ticks).
BLOCKED_PER_GAME = 3
# The bodies a later pass moves, and their partners, are fewer: their map tests run in
# lists this many times shorter.
BLOCKED_FEW_SHARE = 8


def body_stops(
    xp: Namespace, legs: Paths, leg_ends: Array, start: Array, blocking: Array, m: MapArrays
) -> tuple[Array, Array]:
    """(10,) quanta each body of one game travels before a blocking body stops it
    (`cut_stops`, then `sink_back` and `part_overlaps` for what rounding leaves), and
    (10, 2) where each body then stands on the grid (`grid_ends`); `leg_ends` are where
    the legs leave each body on the grid (`obstacle_legs.plan_legs`)."""
    if is_numpy(xp):
        stop, _, ends = numpy_cuts(legs, leg_ends, start, blocking, m)
        return stop, ends
    return _body_stops_jax(legs.times, legs.points, leg_ends, start, blocking, m)


def numpy_cuts(
    legs: Paths, leg_ends: Array, start: Array, blocking: Array, m: MapArrays
) -> tuple[Array, Paths, Array]:
    """`body_stops` of one NumPy game with the paths it leaves and their grid ends: the
    same steps (`cut_and_sink`, then `part_overlaps`), each cut paths computed once and
    shared by the sink test, the overlap test and the caller (NumPy pays per call)."""
    full = np.full(NUM_SLOTS, QUANTA, np.int32)
    rows = np.flatnonzero(may_meet(np, legs, start, blocking))

    def cut(stop: Array) -> tuple[Array, Paths, Array, Array]:
        paths = truncate(np, legs, stop)
        return stop, paths, *grid_ends_sinking(np, start, paths, stop, leg_ends, pairs, blocked)

    def blocked(p: Array, need: Array) -> Array:  # only the bodies asked about
        out = np.zeros(p.shape[:-1], bool)
        out[need] = body_blocked(np, p[need], m)
        return out

    if not rows.size:  # no pair can meet: nothing is cut
        pairs = None
        return cut(full)[:3]
    ok = np.ones(rows.size, bool)
    rows_i, rows_j = PAIR_I[rows], PAIR_J[rows]
    pairs = (rows_i, rows_j, ok)
    caps = full
    for _ in range(1 + REDO_ROUNDS):  # cut_and_sink's rounds
        stop, paths, ends, sinks = cut(cut_stops(np, legs, start, rows_i, rows_j, ok, caps))
        sunk = sink_back(np, legs, start, stop, m, pairs, sinks)
        moved = sunk != stop
        if not moved.any():
            break
        caps = np.where(moved, np.minimum(caps, sunk), caps)
        stop, paths, ends, sinks = cut(sunk)
    final, ends = part_overlaps(np, legs, start, pairs, stop, ends, leg_ends, blocked)
    if final is not stop:  # a pass moved stops: the paths they leave
        paths = truncate(np, legs, final)
    return final, paths, ends


def _one_game(
    times: Array, points: Array, leg_ends: Array, start: Array, blocking: Array, m: MapArrays
) -> tuple[Array, Array]:
    import jax.numpy as jnp

    legs = Paths(times, points)
    valid = may_meet(jnp, legs, start, blocking)
    rows_i, rows_j = jnp.asarray(PAIR_I), jnp.asarray(PAIR_J)
    full = jnp.full(NUM_SLOTS, QUANTA, jnp.int32)
    rows = (rows_i, rows_j, valid)
    stop = cut_and_sink(jnp, legs, start, rows, m, full, 1 + REDO_ROUNDS)
    blocked = lambda p, need: body_blocked(jnp, p, m)  # noqa: E731
    ends = grid_ends(jnp, start, truncate(jnp, legs, stop), stop, leg_ends, rows, blocked)
    return part_overlaps(jnp, legs, start, rows, stop, ends, leg_ends, blocked)


def _redo(
    times: Array, points: Array, start: Array, blocking: Array, m: MapArrays, caps: Array
) -> Array:
    """The rounds after the first of one game whose first round sank a stop (`caps`)."""
    import jax.numpy as jnp

    legs = Paths(times, points)
    rows = (jnp.asarray(PAIR_I), jnp.asarray(PAIR_J), may_meet(jnp, legs, start, blocking))
    return cut_and_sink(jnp, legs, start, rows, m, caps, REDO_ROUNDS)


def _many_games(axis_size: int, in_batched: Any, *args: Any) -> tuple[tuple, tuple]:
    """`vmap` of `_one_game`: every game's candidate rows in one list of the batch's bodies.

    The passes then cost what the pairs that may meet cost, and the loops run until the
    slowest game has settled (as `vmap` of a loop would). A batch with more candidates than
    the list holds runs its games a list at a time (`in_chunks`); the result is the same.
    """
    import jax
    import jax.numpy as jnp

    games = axis_size
    expected = expected_map(args[-1])
    # A no-op on the CPU (XLA drops barriers before it fuses; `materialised`'s conditional
    # measured no faster here, PROFILE.md): kept until removal is measured.
    times, points, leg_ends, start, blocking, m = jax.lax.optimization_barrier(
        every_game(games, args, in_batched)
    )
    valid = jax.vmap(lambda t, p, s, b: may_meet(jnp, Paths(t, p), s, b))(
        times, points, start, blocking
    )
    legs = Paths(times.reshape(-1, 3), points.reshape(-1, 3, 2))
    flat_start = start.reshape(-1, 2)
    flat_ends = leg_ends.reshape(-1, 2)
    capacity = max(ROWS_PER_GAME * games, len(PAIR_I))  # any one game fits
    pair_i, pair_j = jnp.asarray(PAIR_I), jnp.asarray(PAIR_J)

    def resolve(take):
        mine = valid & take[:, None]
        game, pair = nonzero(mine, capacity)
        body = game * NUM_SLOTS
        rows_i, rows_j = body + pair_i[pair], body + pair_j[pair]
        ok = jnp.arange(capacity) < jnp.sum(mine)
        rows = (rows_i, rows_j, ok)
        stop = cut_stops(jnp, legs, flat_start, rows_i, rows_j, ok)
        cut = truncate(jnp, legs, stop)
        ends, sinks = grid_ends_sinking(jnp, flat_start, cut, stop, flat_ends, rows, blocked)
        sunk = sink_back(jnp, legs, flat_start, stop, None, rows, sinks)
        caps = jnp.where((sunk != stop) & jnp.repeat(take, NUM_SLOTS), sunk, QUANTA)
        caps = caps.reshape(games, NUM_SLOTS)
        redone = _redo_games(times, points, start, blocking, m, caps, sunk.reshape(caps.shape))
        redone = redone.ravel()
        ends = jax.lax.cond(  # the grid ends of the stops sink_back or a redo moved
            jnp.any(redone != stop),
            lambda: refresh_ends(
                jnp, flat_start, legs, redone, ends, redone != stop, flat_ends, rows, few
            ),
            lambda: ends,
        )
        stop, ends = part_overlaps(jnp, legs, flat_start, rows, redone, ends, flat_ends, few)
        return stop.reshape(games, NUM_SLOTS), ends.reshape(games, NUM_SLOTS, 2)

    def hit(p, body):
        def on_rows():
            own = jax.tree.map(lambda a: a[body // NUM_SLOTS], m)
            return jax.vmap(lambda q, mm: body_blocked(jnp, q, mm))(p[body], own)

        return on_expected_or_rows(
            m, expected, lambda: body_blocked(jnp, p[body], expected), on_rows
        )

    def blocked(p, need):
        """Only the bodies asked about (the stopped ones, a few per game), a list of
        BLOCKED_PER_GAME per game at a time, each against its own game's map: testing
        every body's points against the whole map was most of a tick's time."""
        no = jnp.zeros(p.shape[:-1], bool)
        return in_lists(need, BLOCKED_PER_GAME * games, lambda b: hit(p, b), no)

    def few(p, need):
        """The same for the few bodies a later pass moves (and their partners): a shorter
        list, BLOCKED_FEW_SHARE of the first one."""
        size = max(NUM_SLOTS, BLOCKED_PER_GAME * games // BLOCKED_FEW_SHARE)
        return in_lists(need, size, lambda b: hit(p, b), jnp.zeros(p.shape[:-1], bool))

    counts = jnp.sum(valid, axis=1, dtype=jnp.int32)[:, None]
    empty = (jnp.zeros((games, NUM_SLOTS), jnp.int32), jnp.zeros((games, NUM_SLOTS, 2), jnp.int32))
    return in_chunks(counts, [capacity], resolve, empty), (True, True)


def _redo_games(times, points, start, blocking, m, caps, sunk) -> Array:
    """The later rounds of `cut_and_sink` for the games whose first round sank a stop (a few
    in a thousand per tick), REDO_GAMES at a time, none when no stop sank."""
    import jax
    import jax.numpy as jnp

    args = (times, points, start, blocking, m, caps)

    def redo(game):
        return jax.vmap(_redo)(*jax.tree.map(lambda a: a[game], args))

    return in_lists(jnp.any(caps < QUANTA, axis=1), REDO_GAMES, redo, sunk)


_body_stops_jax = with_batch_rule(_one_game, _many_games)
