"""Actions (`marl_bgs.core.actions`): the flat index over the three heads, its inverse, and
the mirror between an agent's own frame and the compass frame.

Flat index = (move * 11 + target) * 2 + ultimate; moves 0 stay, 1 N, 2 S, 3 E, 4 W, 5 NE,
6 NW, 7 SE, 8 SW. Every expected value below is worked out by hand in its comment.
"""

from __future__ import annotations

import numpy as np
import pytest

from marl_bgs.core import actions
from marl_bgs.core.actions import (
    MIRROR_FLAT,
    MIRROR_MOVE,
    NUM_JOINT,
    compass_flat,
    compass_move,
    decode,
    encode,
    encode_pair,
    own_frame_joint,
)
from marl_bgs.core.state import LEFT, RIGHT

STAY, N, S, E, W, NE, NW, SE, SW = range(9)


def namespace(name: str):
    return np if name == "numpy" else pytest.importorskip("jax.numpy")


def test_menu_sizes():
    # 9 moves x 11 targets x 2 = 198 flat actions; 11 x 2 = 22 (target, Ultimate) pairs.
    assert actions.HEAD_LIMITS == (9, 11, 2)
    assert actions.NUM_PAIRS == 22
    assert NUM_JOINT == 198


@pytest.mark.parametrize(
    "heads, flat",
    [
        ((STAY, 0, 0), 0),  # (0 * 11 + 0) * 2 + 0
        ((STAY, 0, 1), 1),  # (0 * 11 + 0) * 2 + 1
        ((STAY, 10, 1), 21),  # (0 * 11 + 10) * 2 + 1: the last pair of "stay"
        ((N, 0, 0), 22),  # (1 * 11 + 0) * 2 + 0: the first action of the next move
        ((E, 6, 1), 79),  # (3 * 11 + 6) * 2 + 1 = 39 * 2 + 1
        ((W, 6, 1), 101),  # (4 * 11 + 6) * 2 + 1 = 50 * 2 + 1
        ((SE, 2, 0), 158),  # (7 * 11 + 2) * 2 + 0 = 79 * 2
        ((SW, 10, 1), 197),  # (8 * 11 + 10) * 2 + 1 = 98 * 2 + 1: the last one
    ],
)
def test_hand_picked_codes(heads, flat):
    move, target, ultimate = heads
    assert encode(move, target, ultimate) == flat
    assert encode_pair(move, target * 2 + ultimate) == flat
    assert tuple(int(v) for v in decode(flat)) == heads


@pytest.mark.parametrize("xp_name", ["numpy", "jax"])
def test_round_trip_over_the_whole_menu(xp_name):
    xp = namespace(xp_name)
    # Every (move, target, ultimate) in nested order: the flat index counts 0..197 in
    # that order (the ultimate varies fastest, then the target, then the move).
    heads = [(m, t, u) for m in range(9) for t in range(11) for u in range(2)]
    move, target, ultimate = (xp.asarray([h[k] for h in heads], xp.int32) for k in range(3))
    flat = encode(move, target, ultimate)
    assert np.array_equal(np.asarray(flat), np.arange(198))
    back = decode(xp.asarray(np.arange(198, dtype=np.int32)))
    assert [tuple(int(v[i]) for v in back) for i in range(198)] == heads


def test_mirror_move_swaps_east_and_west_only():
    # Stay, N and S are their own mirror images; E <-> W, NE <-> NW, SE <-> SW.
    assert MIRROR_MOVE.tolist() == [STAY, N, S, W, E, NW, NE, SW, SE]


def test_mirror_flat_is_an_involution_and_a_permutation():
    assert MIRROR_FLAT.dtype == np.int32
    assert sorted(MIRROR_FLAT.tolist()) == list(range(198))
    assert np.array_equal(MIRROR_FLAT[MIRROR_FLAT], np.arange(198))
    # Exactly the actions whose move is stay, N or S are fixed: 3 moves x 22 pairs = 66.
    assert int((MIRROR_FLAT == np.arange(198)).sum()) == 66


@pytest.mark.parametrize(
    "flat, mirrored",
    [
        (0, 0),  # stay, no target: unchanged
        (21, 21),  # stay, target 10, Ultimate: unchanged
        (22, 22),  # N
        (44 + 13, 44 + 13),  # S (move 2, pair 13): unchanged
        (79, 101),  # (E, 6, 1) -> (W, 6, 1): 3 * 22 + 13 -> 4 * 22 + 13
        (101, 79),
        (5 * 22 + 4, 6 * 22 + 4),  # (NE, 2, 0) -> (NW, 2, 0): 114 -> 136
        (158, 180),  # (SE, 2, 0) -> (SW, 2, 0): 7 * 22 + 4 -> 8 * 22 + 4
        (197, 175),  # (SW, 10, 1) -> (SE, 10, 1): 8 * 22 + 21 -> 7 * 22 + 21
    ],
)
def test_mirror_flat_mirrors_the_move_and_keeps_target_and_ultimate(flat, mirrored):
    assert int(MIRROR_FLAT[flat]) == mirrored


@pytest.mark.parametrize("xp_name", ["numpy", "jax"])
def test_compass_move_mirrors_only_the_right_end(xp_name):
    xp = namespace(xp_name)
    move = xp.asarray([E, E, NW, NW, S, S], xp.int32)
    end = xp.asarray([LEFT, RIGHT, LEFT, RIGHT, LEFT, RIGHT], xp.int32)
    # Left end: as chosen. Right end: E -> W, NW -> NE, S -> S.
    assert np.asarray(compass_move(xp, move, end)).tolist() == [E, W, NW, NE, S, S]


@pytest.mark.parametrize("xp_name", ["numpy", "jax"])
def test_compass_flat_mirrors_only_the_right_end_and_undoes_itself(xp_name):
    xp = namespace(xp_name)
    flat = xp.asarray([79, 79, 158, 158, 21], xp.int32)
    end = xp.asarray([LEFT, RIGHT, LEFT, RIGHT, RIGHT], xp.int32)
    got = compass_flat(xp, flat, end)
    assert np.asarray(got).tolist() == [79, 101, 158, 180, 21]  # see the mirror table above
    assert np.asarray(compass_flat(xp, got, end)).tolist() == [79, 79, 158, 158, 21]


def test_compass_flat_under_jit():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    f = jax.jit(lambda flat, end: compass_flat(jnp, flat, end))
    got = f(jnp.asarray([79, 79], jnp.int32), jnp.asarray([LEFT, RIGHT], jnp.int32))
    assert np.asarray(got).tolist() == [79, 101]


@pytest.mark.parametrize("xp_name", ["numpy", "jax"])
def test_own_frame_joint_moves_each_legal_bit_to_its_mirror(xp_name):
    xp = namespace(xp_name)
    joint = np.zeros((2, 198), bool)
    joint[:, 79] = True  # (E, 6, 1) legal in the compass frame
    joint[:, 0] = True  # stay
    got = np.asarray(own_frame_joint(xp, xp.asarray(joint), xp.asarray([LEFT, RIGHT], xp.int32)))
    assert np.flatnonzero(got[0]).tolist() == [0, 79]  # left end: the compass frame
    assert np.flatnonzero(got[1]).tolist() == [0, 101]  # right end: east is its west
