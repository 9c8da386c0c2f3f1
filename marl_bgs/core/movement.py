"""Charge relocation, ordinary movement with body blocking, and clearing an ending shield.

Ordinary movement follows the settled rules in continuous time (RULES.md, "Settled
2026-12-01"): each body first meets the obstacles on its own (`plan_legs`: a straight leg to
its first contact, then at most one slide along that surface), and then the bodies' actual
paths are checked against each other pair by pair, earliest contact first (`plan_moves`).
Everything resolves all agents at once from symmetric pairwise tests, so listing the agents
in another order permutes the result and nothing else.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .contact import (
    NO_HIT,
    circle_span,
    f32,
    fence,
    float_circle_entry,
    inverse,
    obstacle_entries,
    surface_normal,
)
from .geometry import (
    CONTACT,
    F32,
    I32,
    body_blocked,
    first_index,
    pair_sq_distances,
    scaled,
    sq,
)
from .loops import settle
from .observe import PAIR_I, PAIR_INDEX, PAIR_J
from .state import LEFT, MILLI, NUM_SLOTS, MapArrays

EYE = np.eye(NUM_SLOTS, dtype=bool)
# For each agent, the indices of the 9 pairs it belongs to (into observe's 45 pairs).
PAIRS_OF_AGENT = PAIR_INDEX[~EYE].reshape(NUM_SLOTS, NUM_SLOTS - 1)
CONTACT_SQ = CONTACT * CONTACT

_DIAG = np.sqrt(0.5)
# Move codes: 0 stay, 1 N, 2 S, 3 E, 4 W, 5 NE, 6 NW, 7 SE, 8 SW; every move has unit length.
MOVE_DIRECTIONS = np.asarray(
    [[0, 0], [0, 1], [0, -1], [1, 0], [-1, 0],
     [_DIAG, _DIAG], [-_DIAG, _DIAG], [_DIAG, -_DIAG], [-_DIAG, -_DIAG]],
    np.float64,
)  # fmt: skip

# Time and legs are resolved in 1/QUANTA of a tick (of a leg): a stop lands within one
# quantum before the exact contact, 1/1024 of the move, inside the settled 1/256.
QUANTA = 1024
# How far (in quanta) a stop backs off when rounding to the grid would put the body into
# what stopped it; the first candidate that stands free is taken.
BACKOFF = np.asarray([0, 1, 2, 4, 16, 1024], np.int32)


def pick_rows(xp: Any, values: Any, index: np.ndarray) -> Any:
    """`values[index]` for float values (or whole numbers below 2**24) and a constant index.

    Under JAX a product with a constant 0/1 matrix, exact for finite values: XLA on the CPU
    fuses a gather with the work that computes what it reads and repeats that work for
    every element read; a dot is never fused with its operands.
    """
    if xp is np:
        return values[index]
    picks = np.zeros((index.size, values.shape[0]), np.float32)
    picks[np.arange(index.size), index.ravel()] = 1.0
    out = xp.asarray(picks) @ f32(values).reshape(values.shape[0], -1)
    return out.reshape(index.shape + values.shape[1:]).astype(values.dtype)


def materialize(xp: Any, x: Any) -> Any:
    """`x` itself (finite float32 values, or whole numbers below 2**24 in magnitude).

    Under JAX a product with an identity matrix: XLA on the CPU duplicates the elementwise
    work that computes a value into every fused consumer of it, which deep chains of small
    steps (the body passes) multiply many times over; a dot is computed once.
    """
    if xp is np:
        return x
    n = x.shape[-1]
    return (f32(x) @ xp.asarray(np.eye(n, dtype=np.float32))).astype(x.dtype)


def overlapping_pairs(xp: Any, pos: Any, bodies: Any) -> Any:
    """(10, 10) pairs of distinct blocking bodies closer than touching."""
    close = pair_sq_distances(xp, pos, pos) < CONTACT_SQ
    return close & bodies[:, None] & bodies[None, :] & ~xp.asarray(EYE)


def _free_of_bodies(xp: Any, pts: Any, pos: Any, others: Any) -> Any:
    """Whether points (S, 2) keep a body's width from every body in `others` at pos (10, 2)."""
    gap = sq(xp, pts[:, None, 0] - pos[None, :, 0], pts[:, None, 1] - pos[None, :, 1])
    return ~xp.any((gap < CONTACT_SQ) & others[None, :], axis=1)


CHARGE_BACKOFF = np.asarray([0, 1, 2, 3, 4], np.int32)  # milli-units back along the line


def charge_landing(xp: Any, start: Any, goal: Any, charging: Any, bodies: Any, m: MapArrays) -> Any:
    """Where each charging Warrior lands on its straight line toward `goal`.

    The exact farthest point, up to touching the target, where its body overlaps no
    obstacle and no blocking body as it stood at the start of the tick. Each obstacle and
    body blocks one open stretch of the line (grown shapes are convex): an obstacle's is
    found as its first contact from either end of the line, a body's from its circle. The
    answer is the line's end or the start of a stretch, whichever is farthest and inside no
    stretch; it is snapped to the grid, backing off by a few thousandths if the snap would
    overlap. Landings depend only on start-of-tick bodies, so Warriors are handled one at a
    time (a tick rarely has more than one Charge) in any order with the same result.
    """
    line = goal - start
    slots = xp.arange(NUM_SLOTS)

    def land_one(carry):
        landing, pending = carry
        if xp is np and not pending.any():
            return (landing, pending), False
        k = xp.argmax(pending)
        p, v, g = start[k], line[k], goal[k]
        blockers = bodies & (slots != k)
        ahead = obstacle_entries(xp, p[None, :], v[None, :], m)[0, 4:]
        behind = obstacle_entries(xp, g[None, :], -v[None, :], m)[0, 4:]
        enters = ahead <= 1
        lo_ob = xp.where(enters, ahead, NO_HIT)
        hi_ob = xp.where(enters, xp.where(behind <= 1, 1 - behind, F32(2)), NO_HIT)
        rel = p[None, :] - start
        lo_b, hi_b = circle_span(xp, rel[:, 0], rel[:, 1], v[0], v[1], CONTACT)
        lo_b = xp.where(blockers, lo_b, NO_HIT)
        hi_b = xp.where(blockers, hi_b, NO_HIT)
        length = fence(xp, xp.sqrt(f32(sq(xp, v[0], v[1]))))
        per_length = inverse(xp, xp.maximum(length, F32(CONTACT)))
        reach = 1 - fence(xp, F32(CONTACT) * per_length)  # touching the target
        lo = xp.concatenate([lo_ob, lo_b])
        hi = xp.concatenate([hi_ob, hi_b])
        cand = xp.concatenate([xp.stack([F32(0) * reach, reach]), lo])
        inside = xp.any((lo[None, :] < cand[:, None]) & (cand[:, None] < hi[None, :]), axis=1)
        ok = (cand >= 0) & (cand <= reach) & ~inside
        best = xp.max(xp.where(ok, cand, F32(0)))
        # Snap to the grid; a snap into the stretch that starts there backs off.
        back = best - fence(xp, f32(xp.asarray(CHARGE_BACKOFF)) * per_length)
        pts = p[None, :] + xp.round(fence(xp, f32(v)[None, :] * back[:, None])).astype(I32)
        free = ~body_blocked(xp, pts, m) & _free_of_bodies(xp, pts, start, blockers)
        spot = xp.where(xp.any(free), pts[xp.minimum(first_index(xp, free), len(free) - 1)], p)
        here = (slots == k) & pending[k]
        landing = xp.where(here[:, None], spot[None, :], landing)
        return (landing, pending & ~here), xp.any(pending & ~here)  # more to land?

    landing, _ = settle(xp, land_one, (start, charging), NUM_SLOTS, xp.any(charging))
    # Two Charges that would land overlapping each other both stay where they were.
    clash = xp.any(overlapping_pairs(xp, landing, charging), axis=1)
    return xp.where((charging & ~clash)[:, None], landing, start)


def _stop_quanta(xp: Any, p: Any, v: Any, lam: Any, m: MapArrays) -> Any:
    """Quanta of v a body travels before a contact at lam (QUANTA if none): the quantum
    before it, backed off (BACKOFF) until the body stands free on the grid."""
    q = xp.where(lam < 1, xp.floor(lam * F32(QUANTA)), F32(QUANTA)).astype(I32)
    cands = xp.maximum(q[:, None] - xp.asarray(BACKOFF)[None, :], 0)
    pts = p[:, None, :] + scaled(xp, v[:, None, :], cands[..., None], QUANTA)
    free = ~body_blocked(xp, pts, m)
    pick = xp.take_along_axis(
        cands, xp.minimum(first_index(xp, free, axis=1), len(BACKOFF) - 1)[:, None], 1
    )
    return xp.where(xp.any(free, axis=1), pick[:, 0], 0).astype(I32)


def _slide(xp: Any, rest: Any, n: Any) -> Any:
    """The part of `rest` along the tangent of a surface with outward normal n, rounded to
    the grid so that it never points into the surface (n . slide >= 0)."""
    t = xp.stack([-n[:, 1], n[:, 0]], -1)
    dot = xp.sum(rest * t, axis=-1)
    tt = xp.maximum(xp.sum(t * t, axis=-1), 1)
    k = f32(dot) / f32(tt)
    w = xp.round(f32(t) * k[:, None]).astype(I32)
    # Rounding may lean into the surface by under a unit; one step along the normal's
    # larger part puts it back (n . w_exact = 0, so one step is always enough).
    major_x = xp.abs(n[:, 0]) >= xp.abs(n[:, 1])
    lean = xp.sum(n * w, axis=-1) < 0
    step = xp.where(major_x[:, None], xp.stack([xp.sign(n[:, 0]), 0 * n[:, 1]], -1),
                    xp.stack([0 * n[:, 0], xp.sign(n[:, 1])], -1))  # fmt: skip
    return xp.where(lean[:, None], w + step, w).astype(I32)


def _two_smallest(xp: Any, lam: Any) -> tuple[Any, Any, Any, Any]:
    """Per row: the least value and its first column, then the same over the other columns."""
    first = first_index(xp, lam == xp.min(lam, axis=1, keepdims=True), axis=1)
    cols = xp.arange(lam.shape[1])
    rest = xp.where(cols[None, :] == first[:, None], NO_HIT, lam)
    second = first_index(xp, rest == xp.min(rest, axis=1, keepdims=True), axis=1)
    return xp.min(lam, axis=1), first, xp.min(rest, axis=1), second


class Paths(NamedTuple):
    """Each body's motion in a tick: straight V0 -> V1 over [0, T1], V1 -> V2 over [T1, T2],
    then standing at V2 until 1."""

    times: Any  # (10, 3) float32: 0, T1, T2
    points: Any  # (10, 3, 2) int32: V0, V1, V2


def plan_legs(xp: Any, start: Any, stride: Any, end: Any, m: MapArrays) -> Paths:
    """Each body against the obstacles alone: to its first contact, then one slide.

    The slide runs from the contact instant along the tangent of the surface met, at the
    part of the velocity along it, until the tick ends or it meets something else. A body
    meeting two surfaces within one quantum slides along one that does not lead into the
    other (the longer; on a tie toward its own spawn end, then south), or stops.
    """
    q = xp.asarray(QUANTA, I32)
    lam1, first, lam2, second = _two_smallest(xp, obstacle_entries(xp, start, stride, m))
    reach1 = _stop_quanta(xp, start, stride, lam1, m)
    contact = start + scaled(xp, stride, reach1[:, None], QUANTA)
    met = lam1 < 1
    t1 = f32(reach1) / F32(QUANTA)
    if xp is np and not met.any():  # nothing met: every body ends at its first leg's end
        return Paths(np.stack([0 * t1, t1, t1], -1), np.stack([start, contact, contact], 1))
    rest = stride - (contact - start)
    n1 = surface_normal(xp, contact, first, m)
    n2 = surface_normal(xp, contact, second, m)
    w1, w2 = _slide(xp, rest, n1), _slide(xp, rest, n2)
    both = met & (lam2 < lam1 + F32(1.0 / QUANTA))
    ok1 = ~both | (xp.sum(w1 * n2, axis=-1) >= 0)
    ok2 = both & (xp.sum(w2 * n1, axis=-1) >= 0)
    l1, l2 = xp.sum(w1 * w1, axis=-1), xp.sum(w2 * w2, axis=-1)
    # On a tie, the slide toward the own spawn end, then the southern one (mirror-safe).
    own = xp.where(end == LEFT, 1, -1)
    key1, key2 = w1[:, 0] * own, w2[:, 0] * own
    prefer2 = (l2 > l1) | ((l2 == l1) & ((key2 < key1) | ((key2 == key1) & (w2[:, 1] < w1[:, 1]))))
    take2 = ok2 & (~ok1 | prefer2)
    slide = xp.where(take2[:, None], w2, xp.where(ok1[:, None], w1, 0))
    slide = xp.where(met[:, None], slide, 0).astype(I32)
    lam_s = xp.min(obstacle_entries(xp, contact, slide, m), axis=1)
    reach2 = _stop_quanta(xp, contact, slide, lam_s, m)
    finish = contact + scaled(xp, slide, reach2[:, None], QUANTA)
    t2 = f32(reach1 * q + (q - reach1) * reach2) / F32(QUANTA * QUANTA)
    times = xp.stack([0 * t1, t1, t2], -1)
    return Paths(times, xp.stack([start, contact, finish], 1))


def _position_at(xp: Any, times: Any, points: Any, t: Any) -> Any:
    """Float offsets (N, K, 2) from V0 of bodies with paths (N, 3) / (N, 3, 2) at times t
    (N, K). Offsets, not positions: x -> 20 - x negates them exactly, so mirrored games
    round alike (a float sum of a coordinate and an offset would not)."""
    t1, t2 = times[:, 1:2], times[:, 2:3]
    per1 = inverse(xp, xp.maximum(t1, F32(1e-9)))
    per2 = inverse(xp, xp.maximum(t2 - t1, F32(1e-9)))
    f0 = xp.where(t1 > 0, xp.clip(fence(xp, t * per1), 0, 1), F32(1))
    f1 = xp.where(t2 > t1, xp.clip(fence(xp, (t - t1) * per2), 0, 1), F32(0))
    v0, v1, v2 = (f32(points[:, k, None, :]) for k in range(3))
    return fence(xp, (v1 - v0) * f0[..., None]) + fence(xp, (v2 - v1) * f1[..., None])


def _truncate(xp: Any, legs: Paths, stop: Any) -> Paths:
    """The paths cut at `stop` (quanta): a body stands from then on where it had got to.

    Points are float offsets from V0 and the cut point is left unrounded: a body following
    one that stops is judged against where it really stopped, not a grid point near it.
    """
    s = f32(stop) / F32(QUANTA)
    here = _position_at(xp, legs.times, legs.points, s[:, None])[:, 0]
    t1, t2 = legs.times[:, 1], legs.times[:, 2]
    rel = f32(legs.points - legs.points[:, :1])
    v1 = xp.where((t1 <= s)[:, None], rel[:, 1], here)
    v2 = xp.where((t2 <= s)[:, None], rel[:, 2], here)
    times = xp.stack([legs.times[:, 0], xp.minimum(t1, s), xp.minimum(t2, s)], -1)
    points = xp.stack([rel[:, 0], v1, v2], 1)
    return Paths(materialize(xp, times), materialize(xp, points))


def _on_grid(xp: Any, start: Any, paths: Paths) -> Paths:
    """Offsets back to whole thousandths, added to the start."""
    return Paths(paths.times, start[:, None, :] + xp.round(paths.points).astype(I32))


def _pair_contacts(xp: Any, pi: Paths, pj: Paths, base: Any) -> Any:
    """(P,) the first instant two bodies with paths pi, pj (one row per pair) touch while
    closing (NO_HIT if never this tick).

    Between the union of the two bodies' breakpoints both move in straight lines, so the
    relative motion is a chain of at most five segments, each tested exactly for entering
    the circle. At its own breakpoints a body is at a vertex of its path; only the other
    body's breakpoints need a position looked up on it. Paths are offsets from each body's
    start; `base` is the exact difference of the two starts.
    """
    a1, a2 = pi.times[:, 1], pi.times[:, 2]
    b1, b2 = pj.times[:, 1], pj.times[:, 2]
    # i's vertices less j's positions at i's breakpoints, and the other way round.
    b = base[:, None, :]
    r_i = (pi.points[:, 1:] - _position_at(xp, pj.times, pj.points, pi.times[:, 1:])) + b
    r_j = (_position_at(xp, pi.times, pi.points, pj.times[:, 1:]) - pj.points[:, 1:]) + b
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
    r0 = base
    r5 = (pi.points[:, 2] - pj.points[:, 2]) + base
    bp = xp.stack([0 * s1, s1, s2, s3, s4, 0 * s1 + 1], -1)
    r = materialize(xp, xp.stack([r0, r1, r2, r3, r4, r5], 1))
    a, u = r[:, :-1], r[:, 1:] - r[:, :-1]
    (lam,) = float_circle_entry(xp, a[..., 0], a[..., 1], u[..., 0], u[..., 1], (CONTACT,))
    t0, t1 = bp[:, :-1], bp[:, 1:]
    when = xp.where((lam <= 1) & (t1 > t0), t0 + fence(xp, lam * (t1 - t0)), NO_HIT)
    return xp.min(when, axis=1)


def _may_meet(xp: Any, legs: Paths, pair_blocks: Any) -> Any:
    """(45,) pairs whose paths' bounding boxes come within a body's width (an exact
    pre-test: any other pair stays at least 1.0 apart all tick)."""
    lo, hi = xp.min(legs.points, axis=1), xp.max(legs.points, axis=1)
    gap = xp.maximum(lo[PAIR_I] - hi[PAIR_J], lo[PAIR_J] - hi[PAIR_I])  # (45, 2)
    moves = xp.any(legs.points[:, 2] != legs.points[:, 0], axis=1)
    return pair_blocks & xp.all(gap < CONTACT, axis=1) & (moves[PAIR_I] | moves[PAIR_J])


BODY_PASSES = 10
# Quanta a stop backs off by when rounding to the grid would make a pair overlap; the last
# returns both to where they started, which is always clear.
BODY_BACKOFF = np.asarray([0, 2, 8, 32, QUANTA], np.int32)


def plan_moves(xp: Any, start: Any, stride: Any, blocking: Any, m: MapArrays, end: Any) -> Paths:
    """Ordinary movement: obstacles and edges slide (`plan_legs`), blocking bodies stop.

    Pass by pass, every pair whose first contact on the actual paths is the earliest for
    both its bodies is taken: both stop one quantum before that instant (backed off further
    if grid rounding would make them overlap) and stand from then on, and the pairs are
    judged again with them standing. Stopping only cuts paths short, so each pass settles at
    least the earliest contact left. A pair still overlapping at the end (a chain too long
    for BODY_PASSES) returns to where both started.
    """
    legs = plan_legs(xp, start, stride, end, m)
    pair_blocks = blocking[PAIR_I] & blocking[PAIR_J]
    full = xp.full((NUM_SLOTS,), QUANTA, dtype=I32)
    # Each pair's two bodies, gathered once: inside the loop every pair quantity is computed
    # from these and the stops, never gathered from a computed per-body value (XLA on the
    # CPU would recompute that value for every element it reads).
    legs_i = Paths(legs.times[PAIR_I], legs.points[PAIR_I])
    legs_j = Paths(legs.times[PAIR_J], legs.points[PAIR_J])
    start_gap = start[PAIR_I] - start[PAIR_J]
    base = f32(start_gap)

    def quanta_before(when):
        return xp.clip(xp.ceil(when * F32(QUANTA)) - 1, 0, QUANTA - 1).astype(I32)

    def cut_pass(stop):
        pi = _truncate(xp, legs_i, stop[PAIR_I])
        pj = _truncate(xp, legs_j, stop[PAIR_J])
        when = _pair_contacts(xp, pi, pj, base)
        when = xp.where(pair_blocks, when, NO_HIT)
        first = xp.min(pick_rows(xp, when, PAIRS_OF_AGENT), axis=1)
        take = (when < 1) & (when <= pick_rows(xp, first, PAIR_I))
        take = take & (when <= pick_rows(xp, first, PAIR_J))
        # Stop a quantum before contact, backed off further if rounding both to the grid
        # would make them overlap (at worst to where they started).
        cands = xp.maximum(quanta_before(when)[:, None] - xp.asarray(BODY_BACKOFF), 0)
        at = f32(cands) / F32(QUANTA)
        qi = xp.round(_position_at(xp, pi.times, pi.points, at)).astype(I32)
        qj = xp.round(_position_at(xp, pj.times, pj.points, at)).astype(I32)
        d = (qi - qj) + start_gap[:, None, :]
        apart = sq(xp, d[..., 0], d[..., 1]) >= CONTACT_SQ
        pick = xp.minimum(first_index(xp, apart, axis=1), len(BODY_BACKOFF) - 1)
        quanta = xp.take_along_axis(cands, pick[:, None], 1)[:, 0]
        per_agent = pick_rows(xp, f32(xp.where(take, quanta, QUANTA)), PAIRS_OF_AGENT)
        new = xp.minimum(stop, xp.min(per_agent, axis=1).astype(I32)).astype(I32)
        return new, xp.any(new != stop)

    first_contact = (legs.times[:, 1] * F32(QUANTA)).astype(I32)

    def fallback_pass(stop):
        now = _on_grid(xp, start, _truncate(xp, legs, stop)).points[:, 2]
        # A stop rounded into an obstacle goes back to the leg's contact point (or start),
        # a vertex of its path and so clear; a pair still overlapping goes back to start.
        sunk = body_blocked(xp, now, m) & (stop > 0)
        back = xp.where(first_contact < stop, first_contact, 0)
        stuck = xp.any(overlapping_pairs(xp, now, blocking), axis=1) & (stop > 0)
        new = xp.where(stuck, 0, xp.where(sunk, back, stop)).astype(I32)
        return new, xp.any(new != stop)

    stop = settle(xp, cut_pass, full, BODY_PASSES, xp.any(_may_meet(xp, legs, pair_blocks)))
    stop = settle(xp, fallback_pass, stop, BODY_PASSES)
    return _on_grid(xp, start, _truncate(xp, legs, stop))


def move_bodies(xp: Any, start: Any, stride: Any, blocking: Any, m: MapArrays, end: Any) -> Any:
    """End positions of `plan_moves`."""
    return plan_moves(xp, start, stride, blocking, m, end).points[:, 2]


def stride_table() -> np.ndarray:
    """Integer move vectors (milli-units) for every speed the rules can produce, per move.

    Indexed [speed_index, move]; see `speed_index`. Built once on the host so that both
    engines look up the same integers instead of multiplying floats.
    """
    from . import classes as C

    speeds = []
    for cls in range(len(C.CLASSES)):
        for slows in range(8):
            active = tuple(
                C.SLOW_FACTORS[effect]
                for bit, effect in enumerate((C.SLOW_HUNTER, C.SLOW_CHARGE, C.SLOW_POISON))
                if slows >> bit & 1
            )
            for blessed in (False, True):
                speeds.append(C.CLASSES[cls].speed * C.speed_factor(active, blessed))
    speeds.append(C.SHIELD_SPEED)
    table = np.asarray(speeds)[:, None, None] * MOVE_DIRECTIONS[None, :, :] * MILLI
    return np.round(table).astype(np.int32)


STRIDES = stride_table()
SHIELD_SPEED_INDEX = STRIDES.shape[0] - 1


def speed_index(xp: Any, cls: Any, slow_bits: Any, blessed: Any, shielded: Any) -> Any:
    idx = (cls * 8 + slow_bits) * 2 + blessed.astype(I32)
    return xp.where(shielded, SHIELD_SPEED_INDEX, idx).astype(I32)
