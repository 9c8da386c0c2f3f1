"""Charge relocation, ordinary movement with body blocking, and clearing an ending shield.

Ordinary movement follows the settled rules in continuous time (RULES.md, "Settled
2026-12-01"): each body first meets the obstacles on its own (`plan_legs`: a straight leg to
its first contact, then at most one slide along that surface), and then the bodies' actual
paths are checked against each other pair by pair, earliest contact first (`plan_moves`).
Everything resolves all agents at once from symmetric pairwise tests, so listing the agents
in another order permutes the result and nothing else.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .body_contacts import QUANTA, Paths, body_stops, on_grid, truncate
from .contact import NO_HIT, circle_span, f32, fence, inverse, obstacle_entries, surface_normal
from .geometry import (
    CONTACT,
    CONTACT_SQ,
    F32,
    I32,
    body_blocked,
    first_index,
    pair_sq_distances,
    scaled,
    sq,
)
from .loops import settle
from .state import LEFT, MILLI, NUM_SLOTS, MapArrays

EYE = np.eye(NUM_SLOTS, dtype=bool)

_DIAG = np.sqrt(0.5)
# Move codes: 0 stay, 1 N, 2 S, 3 E, 4 W, 5 NE, 6 NW, 7 SE, 8 SW; every move has unit length.
MOVE_DIRECTIONS = np.asarray(
    [[0, 0], [0, 1], [0, -1], [1, 0], [-1, 0],
     [_DIAG, _DIAG], [-_DIAG, _DIAG], [_DIAG, -_DIAG], [-_DIAG, -_DIAG]],
    np.float64,
)  # fmt: skip

# Time and legs are resolved in 1/QUANTA of a tick (of a leg, `body_contacts.QUANTA`): a
# stop lands within one quantum before the exact contact, 1/1024 of the move, inside the
# settled 1/256.
# How far (in quanta) a stop backs off when rounding to the grid would put the body into
# what stopped it; the first candidate that stands free is taken.
BACKOFF = np.asarray([0, 1, 2, 4, 16, 1024], np.int32)


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
    w1 = _slide(xp, rest, n1)
    both = met & (lam2 < lam1 + F32(1.0 / QUANTA))
    if xp is np and not both.any():  # the second surface only matters to `both`
        n2, w2 = n1, w1
    else:
        n2 = surface_normal(xp, contact, second, m)
        w2 = _slide(xp, rest, n2)
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


def plan_moves(xp: Any, start: Any, stride: Any, blocking: Any, m: MapArrays, end: Any) -> Paths:
    """Ordinary movement: obstacles and edges slide (`plan_legs`), blocking bodies stop
    (`body_contacts.body_stops`, earliest contact first on the actual paths).

    Stops are rounded to the grid; the rare stop that rounding puts into an obstacle goes
    back to its leg's contact point, and then a pair still overlapping (a chain too long
    for the passes, or rounding) returns to where both started.
    """
    legs = plan_legs(xp, start, stride, end, m)
    return on_grid(xp, start, truncate(xp, legs, body_stops(xp, legs, start, blocking, m)))


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
