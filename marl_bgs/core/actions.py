"""Actions: the three heads, the flat index over them, and the mirror between frames.

An agent's action is three heads: a move (0 stay, 1 N, 2 S, 3 E, 4 W, 5 NE, 6 NW, 7 SE,
8 SW), a target code (0 none, 1-5 own slots 0-4, 6-10 enemy slots 0-4) and whether to use
the Ultimate (0 or 1). Systems, masks and the env speak of one flat index instead,
`(move * 11 + target) * 2 + ultimate`, 0..197.

The engines play moves in the compass frame; agents choose them in their own frame, where
their spawn end is on the left. The two agree for the left end; for the right end east and
west swap (`MIRROR_MOVE`, and `MIRROR_FLAT` for flat indices). A mirror undoes itself, so
the same tables turn own-frame actions into compass ones and back.

Everything here is plain arithmetic over whole numbers or arrays (NumPy or jax.numpy).
"""

from __future__ import annotations

import numpy as np

from .state import LEFT
from .types import Array, Namespace

NUM_MOVES = 9
NUM_TARGETS = 11
NUM_ULTIMATE = 2
HEAD_LIMITS = (NUM_MOVES, NUM_TARGETS, NUM_ULTIMATE)  # values of each action head
HEAD_NAMES = ("move", "target", "ultimate")
NUM_PAIRS = NUM_TARGETS * NUM_ULTIMATE  # 22 (target, Ultimate) pairs per move
NUM_JOINT = NUM_MOVES * NUM_PAIRS  # 198 flat actions

# A move seen from the other end: east and west swap (3 <-> 4, 5 <-> 6, 7 <-> 8).
MIRROR_MOVE = np.asarray([0, 1, 2, 4, 3, 6, 5, 8, 7], np.int32)


def encode(move: Array, target: Array, ultimate: Array) -> Array:
    """(move, target, ultimate) -> the flat index (move * 11 + target) * 2 + ultimate;
    whole numbers or arrays of them."""
    return (move * NUM_TARGETS + target) * NUM_ULTIMATE + ultimate


def encode_pair(move: Array, pair: Array) -> Array:
    """(move, pair) -> the flat index, where pair = target * 2 + ultimate (0..21)."""
    return move * NUM_PAIRS + pair


def decode(flat: Array) -> tuple[Array, Array, Array]:
    """Flat index -> (move, target, ultimate); whole numbers or arrays of them."""
    return flat // NUM_PAIRS, (flat // NUM_ULTIMATE) % NUM_TARGETS, flat % NUM_ULTIMATE


_FLAT = np.arange(NUM_JOINT)
# A flat action seen from the other end: the move mirrored, target and Ultimate kept.
MIRROR_FLAT = encode_pair(MIRROR_MOVE[_FLAT // NUM_PAIRS], _FLAT % NUM_PAIRS).astype(np.int32)


def compass_move(xp: Namespace, move: Array, end: Array) -> Array:
    """Own-frame moves of agents whose spawn end is `end` as compass moves (and back)."""
    return xp.where(end == LEFT, move, xp.asarray(MIRROR_MOVE)[move])


def own_frame_flat(xp: Namespace, actions: Array, end: Array) -> Array:
    """Compass-frame (move, target, Ultimate) rows `(rows, 3)` as flat actions in the own
    frame of each row's agent (`end` (rows,): its spawn end): what an agent sees it played."""
    return encode(compass_move(xp, actions[:, 0], end), actions[:, 1], actions[:, 2])


def compass_flat(xp: Namespace, flat: Array, end: Array) -> Array:
    """Own-frame flat actions of agents whose spawn end is `end` as compass ones (and back)."""
    return xp.where(end == LEFT, flat, xp.asarray(MIRROR_FLAT)[flat])


def own_frame_joint(xp: Namespace, joint: Array, end: Array) -> Array:
    """Compass-frame masks (rows, 198) in the own frame of each row's agent (`end` (rows,))."""
    return xp.where((end == LEFT)[:, None], joint, joint[:, xp.asarray(MIRROR_FLAT)])
