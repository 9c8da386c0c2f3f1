"""Bodies stopping each other: pair contacts on the actual paths, earliest first.

Each body's motion in a tick is a `Paths` (from `movement.plan_legs`). The passes here cut
paths short where two blocking bodies first touch, pass by pass, until no pair touches
any more. They work on rows, one per pair of bodies that may meet (an exact bounding-box
pre-test), with per-body results gathered by a minimum over the rows a body is in. Rows
make the work scale with the pairs that matter, not with all 45: NumPy computes only
those; one JAX game computes all 45 with the others masked; a batch of games under `vmap`
packs every game's candidate rows into one short list (`custom_vmap` rule below), which
is a few per game instead of 45.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .array_ops import first_index, pick, rint, stack
from .backend import is_numpy, known_none, min_at
from .batching import every_game, in_chunks, in_lists, with_batch_rule
from .contact import NO_HIT, bounded_fence, bounded_inverse, f32, fenced_dot, float_circle_entry
from .geometry import body_blocked
from .settle_loop import settle
from .shape_tests import CONTACT, CONTACT_SQ, F32, I32, sq
from .sight import PAIR_I, PAIR_J
from .state import NUM_SLOTS, MapArrays
from .types import Array, Namespace

QUANTA = 1024  # a tick (a leg) in quanta; stops land within one quantum of contact
BODY_PASSES = 10
# Constants as 0-d arrays: NumPy's `where` converts a scalar argument on every call.
_ZERO, _ONE, _TINY, _QUANTA_F = (np.asarray(v, F32) for v in (0, 1, 1e-9, QUANTA))
_MEET_F = np.asarray(CONTACT + 1, F32)  # `may_meet`'s reach
_CONTACT_SQ_F = np.asarray(CONTACT_SQ, F32)
# A body stopped by a body whose nearest grid point lies this near (squared) to a partner's
# exact stop takes the grid point of its square farthest from its partners (`grid_ends`):
# a thousandth more than touching covers the partner's own rounding (at most 0.0007).
_CROWDED_SQ_F = np.asarray((CONTACT + 1) ** 2, F32)
_FAR_F = np.asarray(1e12, F32)
_SUNK_F = np.asarray(-1, F32)  # the score of a grid point where the body would sink
# The passes' fences are `bounded_fence`s (kept under JAX, skipped on NumPy): every instant
# lies in [0, 1], every offset is a difference of positions within a few arena widths (below
# 1e5 in size), each divisor is floored (1e-9 for the legs' lengths of time) and `lam` is at
# most NO_HIT (1e6), so no fenced value exceeds about 1e14 (`float_circle_entry` states its own).
# Quanta a stop backs off by when the two bodies' exact positions one quantum before contact
# still overlap (float32 rounding of the contact instant); the last returns both to where
# they started, which is always clear.
BODY_BACKOFF = np.asarray([0, 2, 8, 32, QUANTA], np.int32)
# How far (quanta) `part_overlaps` moves a pair back, pass by pass: 10 passes reach the start.
PART_STEPS = np.asarray([2, 4, 8, 16, 32, 64, 128, 256, 512, QUANTA], np.int32)
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


class Paths(NamedTuple):
    """Each body's motion in a tick: straight V0 -> V1 over [0, T1], V1 -> V2 over [T1, T2],
    then standing at V2 until 1."""

    times: Array  # (N, 3) float32: 0, T1, T2
    points: Array  # (N, 3, 2) int32 V0, V1, V2 (float offsets from V0 once truncated)


def position_at(xp: Namespace, times: Array, points: Array, t: Array) -> Array:
    """Float offsets (N, K, 2) from V0 of bodies with paths (N, 3) / (N, 3, 2) at times t
    (N, K). Offsets, not positions: x -> 20 - x negates them exactly, so mirrored games
    round alike (a float sum of a coordinate and an offset would not)."""
    t1, t2 = times[:, 1:2], times[:, 2:3]
    per1 = bounded_inverse(xp, xp.maximum(t1, _TINY))
    per2 = bounded_inverse(xp, xp.maximum(t2 - t1, _TINY))
    # min(max(., 0), 1) is what clip computes on both engines, without NumPy's clip wrapper.
    f0 = xp.where(t1 > 0, xp.minimum(xp.maximum(bounded_fence(xp, t * per1), _ZERO), _ONE), _ONE)
    f1 = xp.where(
        t2 > t1, xp.minimum(xp.maximum(bounded_fence(xp, (t - t1) * per2), _ZERO), _ONE), _ZERO
    )
    v = f32(points)[:, :, None, :]  # one conversion for the three vertices
    v0, v1, v2 = v[:, 0], v[:, 1], v[:, 2]
    return bounded_fence(xp, (v1 - v0) * f0[..., None]) + bounded_fence(
        xp, (v2 - v1) * f1[..., None]
    )


def truncate(xp: Namespace, legs: Paths, stop: Array) -> Paths:
    """The paths cut at `stop` (quanta): a body stands from then on where it had got to.

    Points are float offsets from V0 and the cut point is left unrounded: a body following
    one that stops is judged against where it really stopped, not a grid point near it.
    """
    if is_numpy(xp) and stop.min() >= QUANTA:  # nothing cut: the same values, fewer calls
        return Paths(legs.times.astype(F32), f32(legs.points - legs.points[:, :1]))
    s = f32(stop) / _QUANTA_F
    here = position_at(xp, legs.times, legs.points, s[:, None])[:, 0]
    t1, t2 = legs.times[:, 1], legs.times[:, 2]
    rel = f32(legs.points - legs.points[:, :1])
    v1 = xp.where((t1 <= s)[:, None], rel[:, 1], here)
    v2 = xp.where((t2 <= s)[:, None], rel[:, 2], here)
    times = stack(xp, [legs.times[:, 0], xp.minimum(t1, s), xp.minimum(t2, s)], -1)
    return Paths(bounded_fence(xp, times), bounded_fence(xp, stack(xp, [rel[:, 0], v1, v2], 1)))


def grid_ends(
    xp: Namespace,
    start: Array,
    paths: Paths,
    stop: Array,
    leg_ends: Array,
    rows: tuple,
    blocked: Any,
) -> Array:
    """(N, 2) where each body stands on the grid: a body no body stopped where its legs
    end (`obstacle_legs.plan_legs` chose that point clear of every obstacle); one stopped by a body
    at a corner of the thousandth square around its stop where it overlaps no obstacle
    (`blocked(points (N, 4, 2), need (N,))` says where it would, for the bodies `need`
    marks: the stopped ones; what it says of the others is never read): the nearest,
    unless that lies within touching (and a thousandth) of the exact stop of a partner in
    `rows` (rows_i, rows_j, valid: pairs of the N bodies), where it takes the free corner
    farthest from its partners' exact stops. Two bodies stopped touching thus round away
    from each other, each coordinate at least as far apart as they really are (RULES.md:
    no overlap, and within 1/256 of the move of the exact stop). A body with no free
    corner takes the nearest (`sink_back` then moves its stop)."""
    return grid_ends_sinking(xp, start, paths, stop, leg_ends, rows, blocked)[0]


def grid_ends_sinking(
    xp: Namespace,
    start: Array,
    paths: Paths,
    stop: Array,
    leg_ends: Array,
    rows: tuple,
    blocked: Any,
) -> tuple[Array, Array]:
    """`grid_ends`, and (N,) which stopped bodies' ends overlap an obstacle: those with no
    free corner (the nearest, taken then, is the one end that can overlap), so `sink_back`
    need not test the ends again."""
    off = paths.points[:, 2]
    cut = stop < QUANTA
    if known_none(xp, cut):
        return leg_ends, xp.zeros(cut.shape, bool)
    rows_i, rows_j, valid = rows
    cands = cell_corners(xp, off)  # (N, 4, 2), nearest first
    # Each row's candidates of one body against the other's exact stop, both ways.
    gap = f32(start[rows_i] - start[rows_j])  # exact: whole numbers
    d_i = (cands[rows_i] - off[rows_j][:, None, :]) + gap[:, None, :]
    d_j = (cands[rows_j] - off[rows_i][:, None, :]) - gap[:, None, :]
    score_i = xp.where(valid[:, None], fenced_dot(xp, *(d_i[..., k] for k in (0, 1, 0, 1))), _FAR_F)
    score_j = xp.where(valid[:, None], fenced_dot(xp, *(d_j[..., k] for k in (0, 1, 0, 1))), _FAR_F)
    far = xp.full(cands.shape[:2], _FAR_F, dtype=F32)
    score = min_at(xp, far, xp.concatenate([rows_i, rows_j]), xp.concatenate([score_i, score_j]))
    sunk = blocked(start[:, None, :] + cands.astype(I32), cut)
    score = xp.where(sunk, _SUNK_F, score)
    crowded = cut & ((score[:, 0] < _CROWDED_SQ_F) | sunk[:, 0])
    best = first_index(xp, score == xp.max(score, axis=1, keepdims=True), axis=1)
    sinks = cut & sunk.all(axis=1)
    choice = xp.where(crowded & ~sinks, best, 0)
    at = start + pick_point(xp, cands, choice).astype(I32)
    return xp.where(cut[:, None], at, leg_ends), sinks


def cell_corners(xp: Namespace, off: Array) -> Array:
    """(..., 4, 2) the corners of the thousandth square around float points (..., 2),
    nearest first: the nearest grid point, the two that move one coordinate to its other
    neighbour (the nearer of those first, x on a tie), then the far corner. Offsets, not
    positions: a mirrored game negates them, and rounds them alike."""
    near = rint(xp, off)
    other = near + xp.sign(off - near)  # the neighbour on the far side of each coordinate
    x_first = xp.abs(off[..., 0] - other[..., 0]) <= xp.abs(off[..., 1] - other[..., 1])
    nx, ny, ox, oy = near[..., 0], near[..., 1], other[..., 0], other[..., 1]
    second = stack(xp, [xp.where(x_first, ox, nx), xp.where(x_first, ny, oy)], -1)
    third = stack(xp, [xp.where(x_first, nx, ox), xp.where(x_first, oy, ny)], -1)
    return stack(xp, [near, second, third, other], -2)


def pick_point(xp: Namespace, pts: Array, index: Array) -> Array:
    """pts[i, index[i]] for points (N, K, 2): (N, 2)."""
    if is_numpy(xp):
        return pts[np.arange(pts.shape[0]), index]
    return xp.take_along_axis(pts, index[:, None, None], 1)[:, 0]


def _halves(paths: Paths, n: int) -> tuple[Paths, Paths]:
    return Paths(paths.times[:n], paths.points[:n]), Paths(paths.times[n:], paths.points[n:])


def _swapped(xp: Namespace, paths: Paths, n: int) -> Paths:
    return Paths(*(xp.concatenate([a[n:], a[:n]]) for a in paths))


def pair_contacts(xp: Namespace, both: Paths, base: Array) -> Array:
    """(P,) the first instant two bodies touch while closing (NO_HIT if never this tick);
    `both` holds the P rows' first bodies' paths, then their second bodies'.

    Between the union of the two bodies' breakpoints both move in straight lines, so the
    relative motion is a chain of at most five segments, each tested exactly for entering
    the circle. At its own breakpoints a body is at a vertex of its path; only the other
    body's breakpoints need a position looked up on it (one lookup for both halves: NumPy
    pays per call). Paths are offsets from each body's start; `base` is the exact
    difference of the two starts.
    """
    n = base.shape[0]
    pi, pj = _halves(both, n)
    a1, a2 = pi.times[:, 1], pi.times[:, 2]
    b1, b2 = pj.times[:, 1], pj.times[:, 2]
    # i's vertices less j's positions at i's breakpoints, and the other way round.
    other = _swapped(xp, both, n)
    seen = position_at(xp, other.times, other.points, both.times[:, 1:])
    b = base[:, None, :]
    r_i = (pi.points[:, 1:] - seen[:n]) + b
    r_j = (seen[n:] - pj.points[:, 1:]) + b
    # Merge the two sorted pairs of instants (a1 <= a2, b1 <= b2), carrying the offsets.
    first_a, last_a = a1 <= b1, a2 >= b2
    s1 = xp.where(first_a, a1, b1)
    r1 = xp.where(first_a[:, None], r_i[:, 0], r_j[:, 0])
    s4 = xp.where(last_a, a2, b2)
    r4 = xp.where(last_a[:, None], r_i[:, 1], r_j[:, 1])
    x = xp.where(first_a, b1, a1)
    rx = xp.where(first_a[:, None], r_j[:, 0], r_i[:, 0])
    y = xp.where(last_a, b2, a2)
    ry = xp.where(last_a[:, None], r_j[:, 1], r_i[:, 1])
    x_first = x <= y
    s2, s3 = xp.where(x_first, x, y), xp.where(x_first, y, x)
    r2 = xp.where(x_first[:, None], rx, ry)
    r3 = xp.where(x_first[:, None], ry, rx)
    r5 = (pi.points[:, 2] - pj.points[:, 2]) + base
    bp = stack(xp, [0 * s1, s1, s2, s3, s4, 0 * s1 + 1], -1)
    r = bounded_fence(xp, stack(xp, [base, r1, r2, r3, r4, r5], 1))
    a, u = r[:, :-1], r[:, 1:] - r[:, :-1]
    (lam,) = float_circle_entry(xp, a[..., 0], a[..., 1], u[..., 0], u[..., 1], (CONTACT,))
    t0, t1 = bp[:, :-1], bp[:, 1:]
    when = xp.where((lam <= 1) & (t1 > t0), t0 + bounded_fence(xp, lam * (t1 - t0)), NO_HIT)
    if is_numpy(xp):  # the five segments as columns: a short last-axis reduction costs more
        return np.minimum(
            np.minimum(np.minimum(when[:, 0], when[:, 1]), np.minimum(when[:, 2], when[:, 3])),
            when[:, 4],
        )
    return when.min(axis=1)


def may_meet(xp: Namespace, legs: Paths, start: Array, blocking: Array) -> Array:
    """(45,) pairs of blocking bodies whose paths' bounding boxes come within a body's
    width (and a thousandth, for float32 rounding), one moving: a safe pre-test, any other
    pair stays 1.0 apart all tick. Paths are float offsets from each body's start."""
    lo = legs.points.min(axis=1) + f32(start)
    hi = legs.points.max(axis=1) + f32(start)
    gap = xp.maximum(lo[PAIR_I] - hi[PAIR_J], lo[PAIR_J] - hi[PAIR_I])  # (45, 2)
    moved = legs.points[:, 2] != legs.points[:, 0]
    reach = _MEET_F
    if is_numpy(xp):  # the two coordinates as two columns: a short last-axis reduction costs more
        moves = moved[:, 0] | moved[:, 1]
        near = (gap[:, 0] < reach) & (gap[:, 1] < reach) & (moves[PAIR_I] | moves[PAIR_J])
    else:
        moves = moved.any(axis=1)
        near = (gap < reach).all(axis=1) & (moves[PAIR_I] | moves[PAIR_J])
    return near & blocking[PAIR_I] & blocking[PAIR_J]


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
        before = xp.minimum(xp.maximum(xp.ceil(when * _QUANTA_F) - 1, 0), QUANTA - 1)
        before = before.astype(I32)
        cands = xp.maximum(before[:, None] - xp.asarray(BODY_BACKOFF), 0)
        at = f32(cands) / _QUANTA_F
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
    first_contact = (legs.times[:, 1] * _QUANTA_F).astype(I32)
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
    # The barrier makes XLA compute the paths once: the rows gather from them, and XLA on
    # the CPU would otherwise repeat the work computing each gathered element.
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
        game, pair = jnp.nonzero(mine, size=capacity, fill_value=0)
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
        own = jax.tree.map(lambda a: a[body // NUM_SLOTS], m)
        return jax.vmap(lambda q, mm: body_blocked(jnp, q, mm))(p[body], own)

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
