"""Charge relocation, ordinary movement with body blocking, and clearing an ending shield.

Ordinary movement follows the settled rules in continuous time (RULES.md, "Settled
2026-12-01"): each body first meets the obstacles on its own (`plan_legs`: a straight leg to
its first contact, then at most one slide along that surface), and then the bodies' actual
paths are checked against each other pair by pair, earliest contact first (`plan_moves`).
Everything resolves all agents at once from symmetric pairwise tests, so listing the agents
in another order permutes the result and nothing else.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import classes
from .array_ops import first_index
from .backend import is_numpy, known_none
from .body_contacts import body_stops, numpy_cuts
from .body_paths import Paths, truncate
from .contact import NO_HIT, circle_span, f32, fence, inverse, obstacle_entries
from .geometry import body_blocked
from .obstacle_legs import plan_legs
from .settle_loop import settle
from .shape_tests import CONTACT, CONTACT_SQ, F32, I32, pair_sq_distances, sq
from .sight import stunned
from .state import MILLI, NUM_SLOTS, MapArrays, State
from .types import Array, Namespace

EYE = np.eye(NUM_SLOTS, dtype=bool)

_DIAG = np.sqrt(0.5)
# Move codes: 0 stay, 1 N, 2 S, 3 E, 4 W, 5 NE, 6 NW, 7 SE, 8 SW; every move has unit length.
MOVE_DIRECTIONS = np.asarray(
    [[0, 0], [0, 1], [0, -1], [1, 0], [-1, 0],
     [_DIAG, _DIAG], [-_DIAG, _DIAG], [_DIAG, -_DIAG], [-_DIAG, -_DIAG]],
    np.float64,
)  # fmt: skip


def overlapping_pairs(xp: Namespace, pos: Array, bodies: Array) -> Array:
    """(10, 10) pairs of distinct blocking bodies closer than touching."""
    close = pair_sq_distances(xp, pos, pos) < CONTACT_SQ
    return close & bodies[:, None] & bodies[None, :] & ~xp.asarray(EYE)


def _free_of_bodies(xp: Namespace, pts: Array, pos: Array, others: Array) -> Array:
    """Whether points (S, 2) keep a body's width from every body in `others` at pos (10, 2)."""
    gap = sq(xp, pts[:, None, 0] - pos[None, :, 0], pts[:, None, 1] - pos[None, :, 1])
    return ~xp.any((gap < CONTACT_SQ) & others[None, :], axis=1)


CHARGE_BACKOFF = np.asarray([0, 1, 2, 3, 4], np.int32)  # milli-units back along the line


def charge_landing(
    xp: Namespace, start: Array, goal: Array, charging: Array, bodies: Array, m: MapArrays
) -> Array:
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
    if known_none(xp, charging):  # the common tick: nobody charges
        return start
    line = goal - start
    slots = xp.arange(NUM_SLOTS)

    def land_one(carry):
        landing, pending = carry
        if known_none(xp, pending):
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


class Moves(NamedTuple):
    """A tick of ordinary movement: the motion, and where it leaves each body."""

    paths: Paths  # times (N, 3); points: float32 offsets (N, 3, 2) from each body's start
    end: Array  # (N, 2) int32 the last point of each path, rounded to the grid


def plan_moves(
    xp: Namespace, start: Array, stride: Array, blocking: Array, m: MapArrays, end: Array
) -> Moves:
    """Ordinary movement: obstacles and edges slide (`plan_legs`), blocking bodies stop
    (`body_contacts.body_stops`, earliest contact first on the actual paths).

    The motion runs through the unrounded points where bodies stop; only where each body
    ends is rounded to the grid. The rare stop that rounding puts into an obstacle goes
    back to its leg's contact point (and the passes run again with it standing there), and
    then a pair still overlapping on the grid (a chain too long for the passes, or
    rounding) returns to where both started.
    """
    legs, leg_ends = plan_legs(xp, start, stride, end, m)
    if is_numpy(xp):
        _, paths, ends = numpy_cuts(legs, leg_ends, start, blocking, m)
        return Moves(paths, ends)
    stop, ends = body_stops(xp, legs, leg_ends, start, blocking, m)
    return Moves(truncate(xp, legs, stop), ends)


def move_bodies(
    xp: Namespace, start: Array, stride: Array, blocking: Array, m: MapArrays, end: Array
) -> Array:
    """End positions of `plan_moves`."""
    return plan_moves(xp, start, stride, blocking, m, end).end


def stride_table() -> np.ndarray:
    """Integer move vectors (milli-units) for every speed the rules can produce, per move.

    Indexed [speed_index, move]; see `speed_index`. Built once on the host so that both
    engines look up the same integers instead of multiplying floats.
    """
    speeds = []
    for cls in range(len(classes.CLASSES)):
        for slows in range(8):
            active = tuple(
                classes.SLOW_FACTORS[effect]
                for bit, effect in enumerate(
                    (classes.SLOW_HUNTER, classes.SLOW_CHARGE, classes.SLOW_POISON)
                )
                if slows >> bit & 1
            )
            for blessed in (False, True):
                speeds.append(classes.CLASSES[cls].speed * classes.speed_factor(active, blessed))
    speeds.append(classes.SHIELD_SPEED)
    table = np.asarray(speeds)[:, None, None] * MOVE_DIRECTIONS[None, :, :] * MILLI
    return np.round(table).astype(np.int32)


STRIDES = stride_table()
SHIELD_SPEED_INDEX = STRIDES.shape[0] - 1


def speed_index(
    xp: Namespace, cls: Array, slow_bits: Array, blessed: Array, shielded: Array
) -> Array:
    idx = (cls * 8 + slow_bits) * 2 + blessed.astype(I32)
    return xp.where(shielded, SHIELD_SPEED_INDEX, idx).astype(I32)


# The effects that slow an agent, in the bit order of `speed_index`'s slow_bits.
SLOW_EFFECTS = (classes.SLOW_HUNTER, classes.SLOW_CHARGE, classes.SLOW_POISON)


def planned_strides(xp: Namespace, state: State, move: Array = None) -> Array:
    """Each agent's planned stride this tick, in milli-units, before bodies or obstacles block it.

    The one statement of which start-of-tick statuses set an agent's speed: its class, the
    slows it carries (Hunter, Charge, Poison), Blessing's floor and a shield's own speed, all
    looked up as integers in `STRIDES`; an agent that is absent, dead, stunned or trapped plans
    no stride. Per move, (10, 9, 2), or with `move` (10,) only the stride of each agent's
    own move, (10, 2). The tick moves with these strides (`tick.step`, zeroed for an agent that
    dies in the tick's combat); the BattleClient's view sends them for the ghosts.
    """
    effects = state.effects
    slow_bits = (
        (effects[:, SLOW_EFFECTS[0]] > 0).astype(I32)
        + 2 * (effects[:, SLOW_EFFECTS[1]] > 0).astype(I32)
        + 4 * (effects[:, SLOW_EFFECTS[2]] > 0).astype(I32)
    )
    blessed = effects[:, classes.BLESSING] > 0
    speed = speed_index(xp, state.cls, slow_bits, blessed, state.shield != 0)
    can_move = state.present & state.alive & ~stunned(state)
    if move is None:
        return xp.where(can_move[:, None, None], xp.asarray(STRIDES)[speed], 0)
    return xp.where(can_move[:, None], xp.asarray(STRIDES)[speed, move], 0)
