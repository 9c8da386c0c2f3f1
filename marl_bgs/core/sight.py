"""Who sees whom, and the exact action masks that follow from it.

Targets are encoded relative to the actor's team: 0 none, 1-5 own slots 0-4, 6-10 enemy
slots 0-4. `CODE_TO_SLOT[i, c]` turns actor i's code c into a global slot (-1 for none).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import classes
from .actions import NUM_JOINT, NUM_MOVES, NUM_TARGETS
from .array_ops import spread, stack
from .backend import is_numpy
from .shape_tests import pair_sq_distances
from .sight_pairs import PAIR_I, PAIR_J, blocked_pairs
from .state import NUM_SLOTS, TEAM_SIZE, MapArrays, State, team_of_slot
from .types import Array, Namespace

_STAY = np.arange(NUM_MOVES)[None, :] == 0  # (1, 9): move 0, stay

TEAM = team_of_slot()
SAME_TEAM = TEAM[:, None] == TEAM[None, :]


def _code_to_slot() -> np.ndarray:
    table = np.full((NUM_SLOTS, NUM_TARGETS), -1, np.int32)
    for i in range(NUM_SLOTS):
        own, other = TEAM[i], 1 - TEAM[i]
        for k in range(TEAM_SIZE):
            table[i, 1 + k] = own * TEAM_SIZE + k
            table[i, 1 + TEAM_SIZE + k] = other * TEAM_SIZE + k
    return table


CODE_TO_SLOT = _code_to_slot()
# Tables `legal_masks` reads every tick, made once (NumPy pays per call, `np.eye` more).
_EYE = np.eye(NUM_SLOTS, dtype=bool)
_CODE_ROWS = np.arange(NUM_SLOTS)[:, None]
_CODE_COLS = np.maximum(CODE_TO_SLOT, 0)
_HAS_TARGET = CODE_TO_SLOT >= 0
_NO_TARGET = ~_HAS_TARGET  # (10, 11) the code "none" (0)
PAIR_INDEX = np.full((NUM_SLOTS, NUM_SLOTS), len(PAIR_I), np.int32)  # diagonal: never blocked
PAIR_INDEX[PAIR_I, PAIR_J] = np.arange(len(PAIR_I))
PAIR_INDEX[PAIR_J, PAIR_I] = np.arange(len(PAIR_I))


class Sight(NamedTuple):
    """Start-of-tick geometry shared by masks, combat and observations."""

    dist_sq: Array  # (10, 10) squared centre distances, milli-units squared
    clear: Array  # (10, 10) line between centres touches no obstacle (pairs within sight range)
    own_sight: Array  # (10, 10) i itself sees j (radius and line), i and j alive
    team_sees: Array  # (10, 10) j is visible to i's team (teammates always; enemies if seen)


def stunned(state: State) -> Array:
    return (state.effects[:, classes.STUN] > 0) | (state.effects[:, classes.TRAP] > 0)


def sight_lines(xp: Namespace, pos: Array, m: MapArrays) -> Array:
    """(10, 10) whether the straight line between two centres touches no obstacle, for
    bodies close enough for some class to see the other (farther pairs: False)."""
    # Sight lines are symmetric: test each of the 45 pairs once, then spread to (10, 10).
    blocked = blocked_pairs(xp, pos, m)
    return ~spread(xp, xp.concatenate([blocked, xp.zeros(1, bool)]), PAIR_INDEX)


def compute_sight(xp: Namespace, state: State, m: MapArrays, clear: Array = None) -> Sight:
    """Who sees whom. `clear` may pass `sight_lines` of these positions if already known
    (a fresh game on its spawn pads looks them up instead of testing 45 lines again)."""
    pos = state.pos
    dist_sq = pair_sq_distances(xp, pos, pos)
    clear = sight_lines(xp, pos, m) if clear is None else clear
    living = state.present & state.alive
    radius_sq = xp.asarray(classes.SIGHT_SQ)[state.cls]
    own = (dist_sq <= radius_sq[:, None]) & clear & living[:, None] & living[None, :]
    # An enemy is seen by a team if any living teammate sees it and it has no spawn shield.
    seen_by_team = (own[:, None, :] & xp.asarray(SAME_TEAM)[:, :, None]).any(axis=0)
    hidden = state.shield > 0
    team_sees = xp.where(xp.asarray(SAME_TEAM), living[None, :], seen_by_team & ~hidden[None, :])
    return Sight(dist_sq, clear, own, team_sees)


class Masks(NamedTuple):
    move: Array  # (10, 9)
    pair: Array  # (10, 11, 2) legal (target, ultimate) pairs


def _by_code(xp: Namespace, per_slot: Array) -> Array:
    """(10, 10) slot-by-slot values -> (10, 11) by target code (CODE_TO_SLOT), code 0 False.

    Why: NumPy looks the codes up in one call; under XLA that lookup is a gather of 110
    pairs that the CPU backend ran as a transposing loop (0.6 ms a tick at 1,024 games),
    where the same values are slices: team 0 lists its own slots first (the row as it is),
    team 1 lists slots 5-9 first (the row turned by five).
    """
    if is_numpy(xp):
        return per_slot[_CODE_ROWS, _CODE_COLS] & _HAS_TARGET
    t = TEAM_SIZE
    turned = xp.concatenate([per_slot[t:, t:], per_slot[t:, :t]], axis=1)
    by_code = xp.concatenate([per_slot[:t], turned], axis=0)
    return xp.concatenate([xp.zeros((NUM_SLOTS, 1), bool), by_code], axis=1)


def legal_masks(xp: Namespace, state: State, sight: Sight) -> Masks:
    """Exact legality of each head combination for every slot (RULES.md, Actions)."""
    cls = state.cls
    living = state.present & state.alive
    can_move = living & ~stunned(state)
    ready = can_move & (state.shield == 0)
    targetable = living & (state.shield == 0)
    same = xp.asarray(SAME_TEAM)
    eye = xp.asarray(_EYE)
    sees = sight.own_sight | eye
    reach = ready[:, None] & targetable[None, :] & sees

    def side_ok(targets_ally):
        ally = xp.asarray(targets_ally)[cls][:, None]
        return xp.where(ally, same, ~same)

    basic = reach & (sight.dist_sq <= xp.asarray(classes.BASIC_RANGE_SQ)[cls][:, None])
    basic = basic & side_ok(classes.BASIC_TARGETS_ALLY)
    ult_ready = ready & (state.ultimate_cooldown == 0)
    self_ult = xp.asarray(classes.ULTIMATE_IS_SELF)[cls]
    ult = reach & (sight.dist_sq <= xp.asarray(classes.ULTIMATE_RANGE_SQ)[cls][:, None])
    ult = ult & side_ok(classes.ULTIMATE_TARGETS_ALLY) & (ult_ready & ~self_ult)[:, None]

    basic_codes = _by_code(xp, basic)
    ult_codes = _by_code(xp, ult)
    none_col = xp.asarray(_NO_TARGET)
    basic_codes = basic_codes | none_col  # (0, 0) is always legal
    burst = (ult_ready & self_ult)[:, None] & none_col
    pair = stack(xp, [basic_codes, ult_codes | burst], axis=-1)
    move = can_move[:, None] | xp.asarray(_STAY)  # staying is always legal
    return Masks(move, pair)


def joint_mask(masks: Masks) -> Array:
    """Legal flat actions (10, 198), flat index (move * 11 + target) * 2 + ultimate."""
    joint = masks.move[:, :, None, None] & masks.pair[:, None, :, :]
    return joint.reshape(NUM_SLOTS, NUM_JOINT)


def head_masks(masks: Masks) -> tuple[Array, Array, Array]:
    """Per-head masks: a choice is legal if some legal joint action uses it."""
    return masks.move, masks.pair.any(axis=2), masks.pair.any(axis=1)
