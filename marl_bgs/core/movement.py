"""Charge relocation, ordinary movement with body blocking, and clearing an ending shield.

All three resolve every agent at once from symmetric pairwise tests on exact integer
positions, so listing the agents in another order permutes the result and nothing else.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .geometry import (
    CONTACT,
    I32,
    body_blocked,
    first_index,
    pair_sq_distances,
    scaled,
    sight_blocked,
    slide_move,
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


def overlapping_pairs(xp: Any, pos: Any, bodies: Any) -> Any:
    """(10, 10) pairs of distinct blocking bodies closer than touching."""
    close = pair_sq_distances(xp, pos, pos) < CONTACT_SQ
    return close & bodies[:, None] & bodies[None, :] & ~xp.asarray(EYE)


def _hits_bodies(xp: Any, pts: Any, pos: Any, bodies: Any) -> Any:
    """Whether points (10, S, 2), one row per agent, overlap another agent's blocking body."""
    d = sq(
        xp, pts[:, :, None, 0] - pos[None, None, :, 0], pts[:, :, None, 1] - pos[None, None, :, 1]
    )
    others = bodies[None, None, :] & ~xp.asarray(EYE)[:, None, :]
    return xp.any((d < CONTACT_SQ) & others, axis=-1)


CHARGE_ROUNDS = (16, 16, 4)  # samples per round; each refines after the best so far
CHARGE_STEPS = 1024


def charge_landing(xp: Any, start: Any, goal: Any, charging: Any, bodies: Any, m: MapArrays) -> Any:
    """Where each charging Warrior lands on its straight line toward `goal`.

    It takes the farthest point, up to touching the target, where its body overlaps no
    obstacle and no blocking body as it stood at the start of the tick: 16 samples along the
    line, then 16 and 4 more after the farthest free one so far, to 1/1024 of the line.
    Landings depend only on start-of-tick bodies, so Warriors are handled one at a time
    (a tick rarely has more than one Charge) in any order with the same result.
    """
    line = goal - start
    slots = xp.arange(NUM_SLOTS)
    others = bodies[None, :] & ~xp.asarray(EYE)

    def land_one(carry):
        landing, pending = carry
        if xp is np and not pending.any():
            return (landing, pending), False
        k = xp.argmax(pending)
        p, v, g = start[k], line[k], goal[k]

        def free(steps):
            pts = p[None, :] + scaled(xp, v[None, :], steps[:, None], CHARGE_STEPS)
            to_goal = sq(xp, pts[:, 0] - g[0], pts[:, 1] - g[1])
            gap = sq(xp, pts[:, None, 0] - start[None, :, 0], pts[:, None, 1] - start[None, :, 1])
            crowded = xp.any((gap < CONTACT_SQ) & others[k][None, :], axis=1)
            return ~body_blocked(xp, pts, m) & ~crowded & (to_goal >= CONTACT_SQ)

        best = xp.zeros((), I32)  # farthest free point found, in 1/1024ths of the line
        span = CHARGE_STEPS
        for count in CHARGE_ROUNDS:
            span //= count
            k_steps = xp.arange(1, count + 1, dtype=I32)
            ok = free(best + k_steps * span)
            best = best + xp.max(xp.where(ok, k_steps, 0)) * span
        spot = p + scaled(xp, v, best, CHARGE_STEPS)
        here = (slots == k) & pending[k]
        landing = xp.where(here[:, None], spot[None, :], landing)
        return (landing, pending & ~here), xp.any(pending & ~here)  # more to land?

    landing, _ = settle(xp, land_one, (start, charging), NUM_SLOTS, xp.any(charging))
    # Two Charges that would land overlapping each other both stay where they were.
    clash = xp.any(overlapping_pairs(xp, landing, charging), axis=1)
    return xp.where((charging & ~clash)[:, None], landing, start)


TIME_STEPS = 16  # samples of each leg of a move for body contacts
BODY_PASSES = 8


def move_bodies(xp: Any, start: Any, stride: Any, blocking: Any, m: MapArrays) -> Any:
    """Ordinary movement: obstacles and edges slide, blocking bodies cut moves at contact.

    Each move is two straight legs (toward the goal, then along the surface that stopped
    it), sampled at 2 * TIME_STEPS + 1 shared instants. A pair of blocking bodies that would
    overlap at some instant both stop at the instant before; passes repeat so every pair
    settles, and any pair still overlapping after BODY_PASSES (a rare chain) stays where it
    started.
    """
    mv = slide_move(xp, start, stride, m)
    n = xp.arange(TIME_STEPS + 1, dtype=I32) * (256 // TIME_STEPS)
    leg1 = start[:, None, :] + scaled(
        xp, mv.leg1[:, None, :], xp.minimum(n[None, :], mv.reach1[:, None])[..., None], 256
    )
    leg2 = mv.contact[:, None, :] + scaled(
        xp, mv.leg2[:, None, :], xp.minimum(n[None, 1:], mv.reach2[:, None])[..., None], 256
    )
    path = xp.concatenate([leg1, leg2], axis=1)  # (10, T, 2)
    last = path.shape[1] - 1
    times = xp.arange(path.shape[1], dtype=I32)
    pair_blocks = blocking[PAIR_I] & blocking[PAIR_J]

    def at(lim):  # (10, T, 2): each agent's position at each instant, stopped at its limit
        stop = xp.take_along_axis(path, lim[:, None, None], axis=1)
        return xp.where((times[None, :] <= lim[:, None])[..., None], path, stop)

    def cut_pass(limit):
        q = at(limit)
        # Contacts are symmetric: test each of the 45 pairs once.
        qi, qj = q[PAIR_I], q[PAIR_J]
        d = sq(xp, qi[..., 0] - qj[..., 0], qi[..., 1] - qj[..., 1])
        hit = (d < CONTACT_SQ) & pair_blocks[:, None]
        # The instant before the first contact; with none, first is last + 1 and cut last.
        cut = xp.maximum(first_index(xp, hit, axis=1) - 1, 0)
        new = xp.minimum(limit, xp.min(cut[PAIRS_OF_AGENT], axis=1)).astype(I32)
        return new, xp.any(new != limit)

    def fallback_pass(limit):
        now = xp.take_along_axis(path, limit[:, None, None], axis=1)[:, 0, :]
        stuck = xp.any(overlapping_pairs(xp, now, blocking), axis=1) & (limit > 0)
        return xp.where(stuck, 0, limit).astype(I32), xp.any(stuck)

    limit = xp.full((NUM_SLOTS,), last, dtype=I32)
    limit = settle(xp, cut_pass, limit, BODY_PASSES)
    limit = settle(xp, fallback_pass, limit, BODY_PASSES)
    return xp.take_along_axis(path, limit[:, None, None], axis=1)[:, 0, :]


def _ring() -> np.ndarray:
    """Candidate offsets for the left end's agents, in order of preference.

    Nearest first: the spot itself, then rings of 16 points every 0.25 units out to 2; among
    equally near points, toward the agent's own spawn end, then south. The right end uses
    the mirror image, so mirrored games choose mirrored spots.
    """
    angles = np.arange(16) * (2 * np.pi / 16)
    pts = {(0, 0)}
    for r in np.arange(1, 9) * 250:
        for a in angles:
            pts.add((round(r * np.cos(a)), round(r * np.sin(a))))
    ordered = sorted(pts, key=lambda p: (p[0] ** 2 + p[1] ** 2, p[0], p[1]))
    return np.asarray(ordered, np.int32)


RING_LEFT = _ring()
RING_BY_END = np.stack([RING_LEFT, RING_LEFT * np.asarray([-1, 1], np.int32)])  # (end, C, 2)
CLEAR_PASSES = 10
LINE_CHECKS = 8  # free spots, in order of preference, tested for a clear line
_NONE = np.iinfo(np.int32).max


def clear_of_bodies(xp: Any, pos: Any, leaving: Any, others: Any, end: Any, m: MapArrays) -> Any:
    """Move each agent whose shield ends (`leaving`) off any body it overlaps.

    It goes to the first candidate of its end's ring (`RING_BY_END`) that overlaps no body or
    obstacle and has a clear line from where it stood (among the first LINE_CHECKS free ones). One agent moves per pass, the one
    nearest its own spawn edge first (then southmost): the order depends on where agents
    stand, never on their slots, and mirrors with the map. Up to CLEAR_PASSES agents are
    cleared in one tick.
    """
    rings = xp.asarray(RING_BY_END)
    bodies = others | leaving
    slots = xp.arange(NUM_SLOTS)

    def needing(pos, tried):
        return leaving & ~tried & xp.any(overlapping_pairs(xp, pos, bodies), axis=1)

    def clear_one(carry):
        pos, tried = carry
        needs = needing(pos, tried)
        if xp is np and not needs.any():
            return (pos, tried), False  # nothing left to clear: the rest would change nothing
        from_edge = xp.where(end == LEFT, pos[:, 0], 20 * MILLI - pos[:, 0])
        k = xp.argmin(xp.where(needs, from_edge * 16384 + pos[:, 1], _NONE))
        here = pos[k]
        cand = here[None, :] + rings[end[k]]
        gap = sq(xp, cand[:, None, 0] - pos[None, :, 0], cand[:, None, 1] - pos[None, :, 1])
        crowded = xp.any((gap < CONTACT_SQ) & (bodies & (slots != k))[None, :], axis=1)
        free = ~body_blocked(xp, cand, m) & ~crowded
        # The line test is dearer: run it on the first LINE_CHECKS free spots only.
        rank = xp.cumsum(free.astype(I32)) - 1
        nth = free[None, :] & (rank[None, :] == xp.arange(LINE_CHECKS)[:, None])
        pick = xp.minimum(first_index(xp, nth, axis=1), cand.shape[0] - 1)
        shortlist = cand[pick]
        usable = free[pick] & (rank[pick] == xp.arange(LINE_CHECKS))
        clear = usable & ~sight_blocked(xp, xp.broadcast_to(here, shortlist.shape), shortlist, m)
        best = shortlist[xp.argmax(clear)]
        move = needs[k] & xp.any(clear)
        pos = xp.where(((slots == k) & move)[:, None], best[None, :], pos)
        tried = tried | ((slots == k) & needs[k])
        return (pos, tried), xp.any(needing(pos, tried))  # does the next pass have work?

    untried = xp.zeros(NUM_SLOTS, bool)
    first = xp.any(needing(pos, untried))
    return settle(xp, clear_one, (pos, untried), CLEAR_PASSES, first)[0]


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
