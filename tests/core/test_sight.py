"""Who sees whom (`marl_bgs.core.sight`, `marl_bgs.core.sight_pairs`): sight radius per
class, obstacles on the line between centres, a team's shared sight, spawn shields, the dead
and the absent, and the target masks that follow.

Slots: team a holds 0-4, team b 5-9. Sight radii: 6 for every class but the Hunter's 6.5
(closed: a body exactly at the radius is seen). Each case's answer is worked out by hand in
its comment; each check runs on NumPy and on jax.numpy (one jitted program per shape).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from marl_bgs.core.sight import (
    CODE_TO_SLOT,
    _by_code,
    compute_sight,
    head_masks,
    joint_mask,
    legal_masks,
)
from marl_bgs.core.sight_pairs import PAIR_I, PAIR_J, blocked_pairs
from marl_bgs.core.state import MapArrays, map_arrays
from marl_bgs.maps.positions import parse_position
from tests.helpers import agent, enemy, pillar, position, wall

SIZES = {"boxes": 4, "polys": 2, "pillars": 4, "rects": 4}
xp_names = pytest.mark.parametrize("xp_name", ["numpy", "jax"])


def parsed(team_a, team_b, obstacles=()):
    """The state and the map (padded to SIZES, one JAX program for all) of a position."""
    p = parse_position(position(team_a, team_b, list(obstacles)))
    return p.state, map_arrays(p.obstacles, **SIZES)


@functools.cache
def compiled(name: str):
    import jax
    import jax.numpy as jnp

    if name == "sight":
        return jax.jit(lambda s, m: compute_sight(jnp, s, m))
    if name == "masks":
        return jax.jit(lambda s, m: legal_masks(jnp, s, compute_sight(jnp, s, m)))
    if name == "pairs":
        return jax.jit(lambda pos, m: blocked_pairs(jnp, pos, m))
    return jax.jit(jax.vmap(lambda pos, m: blocked_pairs(jnp, pos, m)))


def to_jax(value):
    jnp = pytest.importorskip("jax.numpy")
    return type(value)(*(jnp.asarray(a) for a in value))


def numpy_out(value):
    return type(value)(*(np.asarray(a) for a in value))


def sight(xp_name, state, m):
    if xp_name == "numpy":
        return compute_sight(np, state, m)
    return numpy_out(compiled("sight")(to_jax(state), to_jax(m)))


def masks(xp_name, state, m):
    if xp_name == "numpy":
        return legal_masks(np, state, compute_sight(np, state, m))
    return numpy_out(compiled("masks")(to_jax(state), to_jax(m)))


def pair_index(i: int, j: int) -> int:
    """The place of pair (i, j), i < j, in the 45 pairs (row by row: 9 pairs start with 0,
    8 with 1, ...)."""
    return sum(9 - k for k in range(i)) + (j - i - 1)


# --- sight radius ---------------------------------------------------------------------------


@xp_names
@pytest.mark.parametrize(
    "cls, reach",
    [("mage", 6.0), ("warrior", 6.0), ("hunter", 6.5), ("rogue", 6.0), ("priest", 6.0)],
)
def test_sight_radius_per_class_is_closed(xp_name, cls, reach):
    # a0 sees b0 exactly `reach` away; a1 does not see b1, one thousandth farther. The
    # cross pairs are farther still: (reach, 6) apart.
    state, m = parsed(
        [agent(cls, 5, 2), agent(cls, 5, 8)],
        [agent("mage", 5 + reach, 2), agent("mage", 5 + reach + 0.001, 8)],
    )
    s = sight(xp_name, state, m)
    assert s.own_sight[0, 5] and s.team_sees[0, 5]
    assert not s.own_sight[1, 6] and not s.own_sight[0, 6] and not s.own_sight[1, 5]
    assert not s.team_sees[0, 6]  # no one on team a sees b1
    # Exact squared distances: (1000 * reach)^2 and (1000 * reach + 1)^2.
    r = round(reach * 1000)
    assert s.dist_sq[0, 5] == r * r and s.dist_sq[1, 6] == (r + 1) * (r + 1)


@xp_names
def test_the_hunters_longer_sight_is_one_way(xp_name):
    # 6.5 apart: the Hunter (6.5) sees the Mage, the Mage (6) does not see the Hunter.
    state, m = parsed([agent("hunter", 5, 5)], [agent("mage", 11.5, 5)])
    s = sight(xp_name, state, m)
    assert s.own_sight[0, 5] and not s.own_sight[5, 0]
    assert s.team_sees[0, 5] and not s.team_sees[5, 0]
    assert s.clear[0, 5] and s.clear[5, 0]  # the line itself is open both ways


@xp_names
def test_lines_are_tested_only_within_the_longest_sight(xp_name):
    # 6.5 (the Hunter's sight, the longest) apart: the line is tested, and open. 6.501
    # apart no class can see, and the line counts as not clear, obstacle or none.
    state, m = parsed([agent("hunter", 5, 2), agent("hunter", 5, 8)],
                      [agent("hunter", 11.5, 2), agent("hunter", 11.501, 8)])  # fmt: skip
    s = sight(xp_name, state, m)
    assert s.clear[0, 5] and s.clear[5, 0]
    assert not s.clear[1, 6] and not s.clear[6, 1]
    assert s.clear[0, 1]  # teammates 6 apart, nothing between
    assert all(s.clear[i, i] for i in range(10))  # a body's line to itself
    assert s.own_sight[0, 0] and not s.own_sight[2, 2]  # itself, if alive; slot 2 is empty


@xp_names
def test_squared_distances_are_exact_integers(xp_name):
    # (5, 5) to (8, 9): 3000^2 + 4000^2 = 25_000_000 milli-units squared.
    state, m = parsed([agent("mage", 5, 5)], [agent("mage", 8, 9)])
    s = sight(xp_name, state, m)
    assert s.dist_sq[0, 5] == s.dist_sq[5, 0] == 25_000_000
    assert s.dist_sq[0, 0] == 0
    assert np.issubdtype(s.dist_sq.dtype, np.integer)


# --- obstacles --------------------------------------------------------------------------


@xp_names
@pytest.mark.parametrize(
    "obstacle, blocked",
    [
        (pillar(7, 5, 0.5), True),  # on the line (5, 5) -> (9, 5)
        (pillar(7, 6, 1), True),  # 1 above the line, radius 1: tangent, a touch blocks
        (pillar(7, 6.001, 1), False),  # 1.001 above: the line passes clear
        (wall(7, 5, 0.2, 4), True),  # [6.9, 7.1] x [3, 7] across the line
        (wall(7, 7, 0.2, 4), True),  # [5, 9] in y: its bottom edge lies on y = 5
        (wall(7, 7.001, 0.2, 4), False),  # bottom edge at 5.001
        (wall(7, 5, 0.2, 4, 0.3), True),  # turned 0.3 rad, still across the line
        (wall(7, 8, 0.2, 2, 0.3), False),  # turned, spans y in about [7, 9]
    ],
)
def test_an_obstacle_on_the_line_hides_both_ways(xp_name, obstacle, blocked):
    state, m = parsed([agent("mage", 5, 5)], [agent("mage", 9, 5)], [obstacle])
    s = sight(xp_name, state, m)
    assert bool(s.clear[0, 5]) == bool(s.clear[5, 0]) == (not blocked)
    assert bool(s.own_sight[0, 5]) == bool(s.own_sight[5, 0]) == (not blocked)
    assert bool(s.team_sees[0, 5]) == bool(s.team_sees[5, 0]) == (not blocked)


# --- teams, shields, the dead and the absent --------------------------------------------------


@xp_names
def test_a_team_sees_what_any_teammate_sees_and_always_its_own(xp_name):
    # a0 (2, 5), a1 (10, 2), b0 (12, 5), a wall [5.9, 6.1] x [1, 9] between a0 and a1.
    # a0-b0: 10 apart, too far. a1-b0: sqrt(2^2 + 3^2) = 3.6, seen. a0-a1: behind the wall.
    state, m = parsed(
        [agent("mage", 2, 5), agent("mage", 10, 2)], [agent("mage", 12, 5)], [wall(6, 5, 0.2, 8)]
    )
    s = sight(xp_name, state, m)
    assert not s.own_sight[0, 5] and s.own_sight[1, 5]
    assert s.team_sees[0, 5] and s.team_sees[1, 5]  # shared by the team
    assert not s.own_sight[0, 1] and s.team_sees[0, 1]  # a teammate is always known
    assert s.team_sees[5, 1] and not s.team_sees[5, 0]  # b0 sees a1, no one sees a0


@xp_names
def test_a_spawn_shield_hides_from_the_enemy_team_only(xp_name):
    # b0 (shield 2) 3 from a0: in a0's own sight, but hidden from team a. b0 itself sees
    # a0, and its teammate b1 (10 away) still knows it.
    state, m = parsed([agent("mage", 5, 5)], [agent("mage", 8, 5, shield=2), agent("mage", 15, 5)])
    s = sight(xp_name, state, m)
    assert s.own_sight[0, 5] and not s.team_sees[0, 5]
    assert s.own_sight[5, 0] and s.team_sees[5, 0]
    assert s.team_sees[6, 5]


@xp_names
def test_the_dead_and_the_absent_see_and_are_seen_by_no_one(xp_name):
    # b0 is dead 3 from a0; a1 is dead too; slots 2-4 and 7-9 are empty. b1 alive 3 away.
    state, m = parsed(
        [agent("mage", 5, 5), agent("mage", 5, 8, alive=False)],
        [agent("mage", 8, 5, alive=False), agent("mage", 5, 2)],
    )
    s = sight(xp_name, state, m)
    assert not s.own_sight[0, 5] and not s.own_sight[5, 0] and not s.team_sees[0, 5]
    assert not s.team_sees[0, 1]  # a dead teammate is not shown as present and living
    assert s.own_sight[0, 6] and s.team_sees[0, 6]  # b1, alive, 3 below a0
    assert not s.own_sight[1].any() and not s.own_sight[:, 1].any()
    for empty in (2, 3, 4, 7, 8, 9):
        assert not s.team_sees[:, empty].any() and not s.own_sight[empty].any()


# --- sight_pairs ------------------------------------------------------------------------


def test_pair_order():
    # The 45 pairs i < j row by row: (0, 1) .. (0, 9), then (1, 2) ..; (8, 9) last.
    assert (PAIR_I[0], PAIR_J[0]) == (0, 1)
    assert (PAIR_I[4], PAIR_J[4]) == (0, 5)
    assert (PAIR_I[9], PAIR_J[9]) == (1, 2)
    assert (PAIR_I[35], PAIR_J[35]) == (5, 6)  # 9 + 8 + 7 + 6 + 5 pairs before row 5
    assert (PAIR_I[44], PAIR_J[44]) == (8, 9)


def pairs(xp_name, pos, m):
    if xp_name == "numpy":
        return blocked_pairs(np, pos, m)
    jnp = pytest.importorskip("jax.numpy")
    return np.asarray(compiled("pairs")(jnp.asarray(pos), to_jax(m)))


@xp_names
def test_blocked_pairs_of_one_game(xp_name):
    # a0 (5, 5) and b0 (9, 5) with the pillar (7, 5) r 0.5 between; a1 (5, 8) and b1
    # (9, 8) above it. The diagonals a0-b1 and a1-b0 pass |cross((4, +-3), (2, 0))| / 5
    # = 1.2 from the pillar's centre: clear. a2 (15, 2) is beyond 6.5 from everyone:
    # to b0 sqrt(36 + 9) = 6.7, to b1 sqrt(36 + 36) = 8.5.
    state, m = parsed(
        [agent("mage", 5, 5), agent("mage", 5, 8), agent("mage", 15, 2)],
        [agent("mage", 9, 5), agent("mage", 9, 8)],
        [pillar(7, 5, 0.5)],
    )
    got = pairs(xp_name, state.pos, m)
    assert got.shape == (45,)
    want = {
        (0, 1): False, (0, 5): True, (0, 6): False, (1, 5): False, (1, 6): False,
        (5, 6): False, (0, 2): True, (1, 2): True, (2, 5): True, (2, 6): True,
    }  # fmt: skip
    assert {ij: bool(got[pair_index(*ij)]) for ij in want} == want


def grid_game(with_wall: bool):
    """Ten bodies all within 5 of each other: team a on x = 4, team b on x = 7, y = 3..7
    (1 apart, touching). A wall [5.4, 5.6] x [2, 8] between the columns cuts every line
    across teams (25 pairs) and none within a team (20 pairs, along x = 4 or x = 7)."""
    a = [agent("mage", 4, y) for y in (3, 4, 5, 6, 7)]
    b = [agent("mage", 7, y) for y in (3, 4, 5, 6, 7)]
    return parsed(a, b, [wall(5.5, 5, 0.2, 6)] if with_wall else [])


@xp_names
def test_blocked_pairs_with_every_pair_near(xp_name):
    state, m = grid_game(with_wall=True)
    got = pairs(xp_name, state.pos, m)
    across = (PAIR_I < 5) != (PAIR_J < 5)  # slots 0-4 are team a
    assert across.sum() == 25
    assert np.array_equal(got, across)
    s = sight(xp_name, state, m)
    assert not s.team_sees[:5, 5:].any() and not s.team_sees[5:, :5].any()
    assert s.team_sees[:5, :5].all() and s.own_sight[:5, :5].all()


def test_blocked_pairs_in_a_batch_past_its_list():
    # Under vmap a batch packs its games' near pairs into one list of max(20 * games, 45)
    # = 60 rows here: games 0 and 1, 45 near pairs each, cannot share a list, so the batch
    # takes more than one run. Game 0 has the wall, game 1 not; game 2 has two bodies.
    jnp = pytest.importorskip("jax.numpy")
    (s0, m0), (s1, m1) = grid_game(True), grid_game(False)
    s2, m2 = parsed([agent("mage", 1, 1)], [agent("mage", 19, 9)])
    pos = jnp.asarray(np.stack([s0.pos, s1.pos, s2.pos]))
    ms = MapArrays(*(jnp.asarray(np.stack(parts)) for parts in zip(m0, m1, m2, strict=True)))
    got = np.asarray(compiled("batch")(pos, ms))
    across = (PAIR_I < 5) != (PAIR_J < 5)
    assert np.array_equal(got[0], across)
    assert not got[1].any()
    # Game 2: empty slots all stand at (0, 0), so pairs of two empty slots are 0 apart and
    # open; pairs with a0 (1, 1) are sqrt(2) from (0, 0) and open; pairs with b0 (19, 9)
    # are far, and a0-b0 is 19.7 apart.
    want = np.asarray([(i == 5 or j == 5) for i, j in zip(PAIR_I, PAIR_J, strict=True)])
    assert np.array_equal(got[2], want)


# --- masks and target codes -----------------------------------------------------------------


def test_code_to_slot():
    # Code 0 none; 1-5 own slots 0-4; 6-10 enemy slots 0-4, relative to the actor's team.
    assert CODE_TO_SLOT[0].tolist() == [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert CODE_TO_SLOT[3].tolist() == [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert CODE_TO_SLOT[7].tolist() == [-1, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4]


def test_values_by_code_are_the_code_table_on_both_engines():
    # JAX takes the codes by slices (no gather); NumPy looks them up in CODE_TO_SLOT.
    import jax.numpy as jnp

    rng = np.random.default_rng(3)
    for _ in range(5):
        per_slot = rng.random((10, 10)) < 0.5
        looked_up = np.where(
            CODE_TO_SLOT >= 0, per_slot[np.arange(10)[:, None], CODE_TO_SLOT], False
        )
        assert (_by_code(np, per_slot) == looked_up).all()
        assert (np.asarray(_by_code(jnp, jnp.asarray(per_slot))) == looked_up).all()


@xp_names
@pytest.mark.parametrize("blocked", [False, True])
def test_a_pillar_between_takes_away_the_target(xp_name, blocked):
    # Warrior a0 (5, 5), Rogue b0 (6.5, 5): Shield Bash reaches 1.5 (exactly), Charge
    # 5.75. A pillar r 0.2 at (5.75, 5) fits between the bodies (0.75 from each centre =
    # 0.5 + 0.2 + 0.05) and cuts the line.
    obstacles = [pillar(5.75, 5, 0.2)] if blocked else []
    state, m = parsed([agent("warrior", 5, 5)], [agent("rogue", 6.5, 5)], obstacles)
    got = masks(xp_name, state, m)
    assert bool(got.pair[0, enemy(0), 0]) == (not blocked)  # Shield Bash on b0
    assert bool(got.pair[0, enemy(0), 1]) == (not blocked)  # Charge on b0
    assert got.pair[0, 0, 0]  # no target, no Ultimate: always legal
    assert got.move[0].all()


@xp_names
def test_a_shielded_enemy_cannot_be_targeted_but_sees(xp_name):
    # b0 with a spawn shield 1.5 from the Warrior: no target code for a0; b0 itself (a
    # Rogue, Backstab 1.5) may not act on a0 either (a shielded agent is not ready).
    state, m = parsed([agent("warrior", 5, 5)], [agent("rogue", 6.5, 5, shield=1)])
    got = masks(xp_name, state, m)
    assert not got.pair[0, enemy(0)].any()
    assert not got.pair[5, enemy(0)].any()


@xp_names
@pytest.mark.parametrize("stunned", [False, True])
def test_joint_and_head_masks_of_a_duel(xp_name, stunned):
    # Warrior a0 (5, 5) and Rogue b0 (6.5, 5), 1.5 apart: each may Basic (pair 6 * 2 + 0
    # = 12) or Ultimate (13) the other (enemy slot 0 = code 6), or neither (pair 0), with
    # any of the 9 moves: flat m * 22 + {0, 12, 13}. Stunned, a0 may only stay and do
    # nothing: flat 0.
    a0 = agent("warrior", 5, 5, effects={"stun": 1} if stunned else {})
    state, m = parsed([a0], [agent("rogue", 6.5, 5)])
    got = masks(xp_name, state, m)
    joint = joint_mask(got)
    free = [mv * 22 + pair for mv in range(9) for pair in (0, 12, 13)]
    assert np.flatnonzero(joint[0]).tolist() == ([0] if stunned else free)
    assert np.flatnonzero(joint[5]).tolist() == free
    move, target, ultimate = head_masks(got)
    assert np.flatnonzero(move[0]).tolist() == ([0] if stunned else list(range(9)))
    assert np.flatnonzero(target[0]).tolist() == ([0] if stunned else [0, 6])
    assert np.flatnonzero(ultimate[0]).tolist() == ([0] if stunned else [0, 1])
    assert np.flatnonzero(joint[2]).tolist() == [0]  # an empty slot: stay, nothing else
