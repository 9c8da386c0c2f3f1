"""The passes that stop bodies against each other, on rows of pairs that may meet.

`cut_stops` cuts paths short where two blocking bodies first touch, earliest first, pass
by pass until no pair touches any more; `sink_back` and `cut_and_sink` move back a stop
that grid rounding put into an obstacle; `part_overlaps` moves apart what still overlaps
on the grid, and `refresh_ends` finds the grid ends again for the bodies a pass moved.
Per-body results are gathered by a minimum over the rows a body is in; each repeat runs
through `settle_loop.settle` (the fences are those `body_paths` describes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .array_ops import first_index, pick
from .backend import is_numpy, known_none, min_at
from .body_paths import QUANTA, QUANTA_F, Paths, position_at, truncate
from .contact import NO_HIT, f32, fenced_dot
from .first_touch import pair_contacts
from .geometry import body_blocked
from .grid_ends import grid_ends, grid_ends_sinking
from .settle_loop import settle
from .shape_tests import CONTACT_SQ, F32, I32, sq
from .state import NUM_SLOTS, MapArrays
from .types import Array, Namespace

BODY_PASSES = 10
_CONTACT_SQ_F = np.asarray(CONTACT_SQ, F32)
# Quanta a stop backs off by when the two bodies' exact positions one quantum before contact
# still overlap (float32 rounding of the contact instant); the last returns both to where
# they started, which is always clear.
BODY_BACKOFF = np.asarray([0, 2, 8, 32, QUANTA], np.int32)
# How far (quanta) `part_overlaps` moves a pair back, pass by pass: 10 passes reach the start.
PART_STEPS = np.asarray([2, 4, 8, 16, 32, 64, 128, 256, 512, QUANTA], np.int32)


def _row_min(xp: Namespace, init: Array, rows_i: Array, rows_j: Array, values: Array) -> Array:
    """Per body, the least of `init` and the values of the rows it is in."""
    index = xp.concatenate([rows_i, rows_j])
    return min_at(xp, init, index, xp.concatenate([values, values]))


def linked_groups(xp: Namespace, n: int, rows_i: Array, rows_j: Array, valid: Array) -> Array:
    """(N,) for each body the least index of the bodies it is linked to through valid rows
    (directly or by a chain): one label per group. Bodies of different games never share a
    row, so groups stay within a game and take at most NUM_SLOTS - 1 rounds to settle."""
    if is_numpy(xp):
        return _numpy_groups(n, rows_i[valid].tolist(), rows_j[valid].tolist())
    big = xp.asarray(2**30, I32)

    def spread(label):
        ai = xp.where(valid, label[rows_j], big)
        aj = xp.where(valid, label[rows_i], big)
        new = min_at(xp, min_at(xp, label, rows_i, ai), rows_j, aj)
        return new, xp.any(new != label)

    return settle(xp, spread, xp.arange(n, dtype=I32), NUM_SLOTS - 1, xp.any(valid))


def _numpy_groups(n: int, rows_i: list, rows_j: list) -> np.ndarray:
    """`linked_groups` for one NumPy game, in plain Python over its few rows (NumPy pays
    per call): the least index of each body's component, as the spreading passes give."""
    label = list(range(n))
    changed = bool(rows_i)
    while changed:
        changed = False
        for i, j in zip(rows_i, rows_j, strict=True):
            least = min(label[i], label[j])
            if label[i] != least or label[j] != least:
                label[i] = label[j] = least
                changed = True
    return np.asarray(label, I32)


def _group_min(xp: Namespace, group: Array, values: Array) -> Array:
    """(N,) the least of `values` over each body's group (labels from `linked_groups`)."""
    least = min_at(xp, xp.full(values.shape, NO_HIT, dtype=values.dtype), group, values)
    return least[group]


def cut_stops(
    xp: Namespace,
    legs: Paths,
    start: Array,
    rows_i: Array,
    rows_j: Array,
    valid: Array,
    caps: Array = None,
) -> Array:
    """(N,) quanta each of N bodies travels before a body stops it (QUANTA: never), each
    body standing from its cap on (`caps`, quanta; none by default).

    Rows name pairs of bodies (indices into the N); rows not `valid` are ignored. Pass by
    pass, in each group of bodies linked by rows (`linked_groups`), the rows whose first
    contact on the actual paths is the group's earliest are taken: both bodies stop one
    quantum before that instant (backed off further in the rare case float rounding leaves
    them overlapping there) and stand from then on, and the rows are judged again with
    them standing.
    Only the earliest: a stop can bring a later contact of its group earlier (a body that
    now stands is met sooner, and whoever meets it stops sooner), so a later contact is
    known only once the earlier ones are settled. Stopping only cuts paths short, so each
    pass settles at least the earliest contact left in each group.
    """
    n, rows = start.shape[0], rows_i.shape[0]
    group = linked_groups(xp, n, rows_i, rows_j, valid)
    # Each row's two bodies, gathered once from the inputs: inside the loop a row reads only
    # these and the stops (XLA on the CPU recomputes a computed value for every read).
    ends = xp.concatenate([rows_i, rows_j])
    legs_ij = Paths(legs.times[ends], legs.points[ends])
    start_gap = start[rows_i] - start[rows_j]
    base = f32(start_gap)
    full = xp.full((n,), QUANTA, dtype=I32)

    def cut_pass(stop):
        both = truncate(xp, legs_ij, stop[ends])
        when = xp.where(valid, pair_contacts(xp, both, base), NO_HIT)
        first = _row_min(xp, xp.full((n,), NO_HIT, dtype=F32), rows_i, rows_j, when)
        earliest = _group_min(xp, group, first)  # a row's two bodies share their group
        take = (when < 1) & (when <= earliest[rows_i])
        if known_none(xp, take):  # settled: the rest only cuts where a row is taken
            return stop, False
        # Stop a quantum before contact, backed off further if rounding both to the grid
        # would make them overlap (at worst to where they started).
        before = xp.minimum(xp.maximum(xp.ceil(when * QUANTA_F) - 1, 0), QUANTA - 1)
        before = before.astype(I32)
        cands = xp.maximum(before[:, None] - xp.asarray(BODY_BACKOFF), 0)
        at = f32(cands) / QUANTA_F
        q = position_at(xp, both.times, both.points, xp.concatenate([at, at]))
        d = (q[:rows] - q[rows:]) + base[:, None, :]
        # Apart where they really are: `grid_ends` rounds each away from the other.
        apart = fenced_dot(xp, d[..., 0], d[..., 1], d[..., 0], d[..., 1]) >= _CONTACT_SQ_F
        first_apart = xp.minimum(first_index(xp, apart, axis=1), len(BODY_BACKOFF) - 1)
        quanta = pick(xp, cands, first_apart)
        cut = xp.where(take, quanta, QUANTA).astype(I32)
        new = xp.minimum(stop, _row_min(xp, full, rows_i, rows_j, cut)).astype(I32)
        return new, (new != stop).any()

    first = full if caps is None else caps
    return settle(xp, cut_pass, first, BODY_PASSES, xp.any(valid))


def sink_back(
    xp: Namespace,
    legs: Paths,
    start: Array,
    stop: Array,
    m: MapArrays,
    rows: tuple,
    sinks: Array = None,
) -> Array:
    """Stops of one game's bodies, with each stop that grid rounding puts into an obstacle
    moved back to its leg's contact point (or the start): a vertex of its path, so clear.
    A body that was not cut ends where its legs end, clear as well. `sinks` may pass
    which grid ends overlap an obstacle (`grid_ends_sinking` with `rows`, of the paths cut
    at `stop`) if the caller already knows."""
    if is_numpy(xp) and not np.any((stop > 0) & (stop < QUANTA)):
        return stop
    if sinks is None:  # bodies not cut are not asked: their legs' ends stand in as the start
        blocked = lambda p, need: body_blocked(xp, p, m)  # noqa: E731
        paths = truncate(xp, legs, stop)
        sinks = grid_ends_sinking(xp, start, paths, stop, start, rows, blocked)[1]
    sunk = sinks & (stop > 0)
    first_contact = (legs.times[:, 1] * QUANTA_F).astype(I32)
    back = xp.where(first_contact < stop, first_contact, 0)
    return xp.where(sunk, back, stop).astype(I32)


def cut_and_sink(
    xp: Namespace, legs: Paths, start: Array, rows: tuple, m: MapArrays, caps: Array, rounds: int
) -> Array:
    """Stops of one game's bodies: `cut_stops`, then `sink_back`; when a stop sank, the
    passes run again with it as that body's cap (from the start of the tick, so a partner
    it stopped is judged against where it really stands), up to `rounds` times in all.
    The last round's sunk stops stand as they are."""
    rows_i, rows_j, valid = rows

    def one_round(value):
        caps, _ = value
        stop = cut_stops(xp, legs, start, rows_i, rows_j, valid, caps)
        sunk = sink_back(xp, legs, start, stop, m, rows)
        moved = sunk != stop
        return (xp.where(moved, xp.minimum(caps, sunk), caps), sunk), xp.any(moved)

    return settle(xp, one_round, (caps, caps), rounds)[1]


def part_overlaps(
    xp: Namespace,
    legs: Paths,
    start: Array,
    rows: tuple,
    stop: Array,
    ends: Array,
    leg_ends: Array,
    blocked: Any,
) -> tuple[Array, Array]:
    """Stops with both bodies of every row that still overlaps on the grid moved back along
    their paths, 2 quanta before the earlier of the two stops, then 4, 8, ... pass by pass
    (the 10th sends them to where they started, always clear), until none overlaps: the
    last resort for chains too long for the passes and for stops whose grid points cannot
    round apart (a body pressed to a wall, its partner touching it). `ends` are the grid
    ends of `stop` (`grid_ends`); returns the new stops and their grid ends, each pass
    finding the ends again only for the bodies it moved and their partners
    (`refresh_ends`)."""
    rows_i, rows_j, valid = rows
    full = xp.full((start.shape[0],), QUANTA, dtype=I32)

    def part_pass(value):
        stop, ends, k = value
        d = ends[rows_i] - ends[rows_j]
        overlap = valid & (sq(xp, d[:, 0], d[:, 1]) < CONTACT_SQ)
        if known_none(xp, overlap):  # NumPy: nothing overlaps, nothing moves
            return value, False
        step = xp.asarray(PART_STEPS)[xp.minimum(k, len(PART_STEPS) - 1)]
        back = xp.maximum(xp.minimum(stop[rows_i], stop[rows_j]) - step, 0)
        cut = xp.where(overlap, back, QUANTA).astype(I32)
        new = xp.minimum(stop, _row_min(xp, full, rows_i, rows_j, cut)).astype(I32)
        moved = new != stop
        ends = refresh_ends(xp, start, legs, new, ends, moved, leg_ends, rows, blocked)
        return (new, ends, k + 1), xp.any(moved)

    start_pass = xp.asarray(0, I32)
    stop, ends, _ = settle(xp, part_pass, (stop, ends, start_pass), BODY_PASSES, xp.any(valid))
    return stop, ends


def refresh_ends(
    xp: Namespace,
    start: Array,
    legs: Paths,
    stop: Array,
    ends: Array,
    moved: Array,
    leg_ends: Array,
    rows: tuple,
    blocked: Any,
) -> Array:
    """The grid ends of `stop`, given `ends` of stops that differ only where `moved`: a
    body's grid end depends on its own stop and its row partners' stops alone, so only
    the moved bodies and their partners are found again (and only their points tested
    against the map); the others keep theirs, the same bits."""
    paths = truncate(xp, legs, stop)
    if is_numpy(xp):  # NumPy pays per call, not per body: all of them, once
        return grid_ends(xp, start, paths, stop, leg_ends, rows, blocked)
    rows_i, rows_j, valid = rows
    touched = (valid & (moved[rows_i] | moved[rows_j])).astype(I32)
    partner = _row_min(xp, xp.ones(moved.shape, I32), rows_i, rows_j, 1 - touched) == 0
    again = moved | partner
    ask = lambda p, need: blocked(p, need & again)  # noqa: E731
    fresh = grid_ends(xp, start, paths, stop, leg_ends, rows, ask)
    return xp.where(again[:, None], fresh, ends)
