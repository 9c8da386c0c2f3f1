"""What each agent observes (`marl_bgs.core.observation`): the layout, the agent's own frame
(x mirrored for the right end, so a mirrored position gives the same observations), rows by
role (self, allies, enemies), enemies hidden unless the team sees them, and every number
inside [OBS_LOW, OBS_HIGH].

Positions in the observation are x / 20 and y / 10; offsets from self and distances are in
twentieths (both dx and dy over the arena's width 20). Each expected value is worked out by
hand in its comment; the checks run on NumPy and on jax.numpy (one jitted program).
"""

from __future__ import annotations

import copy
import functools
import math

import numpy as np
import pytest

from marl_bgs.core.observation import (
    BOX_START,
    BOX_WIDTH,
    GAME_START,
    GLOBAL_SLICES,
    OBS_HIGH,
    OBS_LOW,
    OBS_WIDTH,
    ROW_SLOT,
    SLOT_ROW,
    UNIT_SLICES,
    UNIT_WIDTH,
    WALL_START,
    WALL_WIDTH,
    observations,
)
from marl_bgs.core.sight import compute_sight
from marl_bgs.core.state import map_arrays
from marl_bgs.maps.positions import parse_position
from tests.helpers import agent, pillar, position, wall

SIZES = {"boxes": 4, "polys": 2, "pillars": 4, "rects": 4}
xp_names = pytest.mark.parametrize("xp_name", ["numpy", "jax"])
APPROX = 1e-6
E, W = 3, 4


@functools.cache
def compiled():
    import jax
    import jax.numpy as jnp

    return jax.jit(lambda s, m: observations(jnp, s, m, compute_sight(jnp, s, m)))


def observe(xp_name: str, doc: dict) -> np.ndarray:
    """Every slot's observation (10, OBS_WIDTH) of a position document."""
    p = parse_position(doc)
    state, m = p.state, map_arrays(p.obstacles, **SIZES)
    if xp_name == "numpy":
        return observations(np, state, m, compute_sight(np, state, m))
    jnp = pytest.importorskip("jax.numpy")
    to = lambda v: type(v)(*(jnp.asarray(a) for a in v))  # noqa: E731
    return np.asarray(compiled()(to(state), to(m)))


def unit(obs: np.ndarray, observer: int, row: int, field: str) -> list[float]:
    at = row * UNIT_WIDTH
    return obs[observer, at : at + UNIT_WIDTH][UNIT_SLICES[field]].tolist()


def game(obs: np.ndarray, observer: int, field: str) -> float:
    (value,) = obs[observer, GAME_START:][GLOBAL_SLICES[field]]
    return float(value)


def onehot(index: int, width: int) -> list[float]:
    return [1.0 if k == index else 0.0 for k in range(width)]


# --- layout ---------------------------------------------------------------------------


def test_widths():
    # A unit row: present, known, alive 1 each; class 5; position 2; offset 2; distance,
    # health share, health, shield 1 each; effects 8; cooldown, ready, out of combat, in
    # own sight, in home Red Zone, has last action 1 each; last move 9; last target row 11;
    # last Ultimate 1: 3 + 5 + 4 + 4 + 8 + 6 + 9 + 11 + 1 = 51.
    assert UNIT_WIDTH == 51
    # 10 rows of 51, a game block of 10, 32 boxes of 6, 8 turned walls of 9:
    # 510 + 10 + 192 + 72 = 784.
    assert (GAME_START, BOX_START, WALL_START, OBS_WIDTH) == (510, 520, 712, 784)
    assert (BOX_WIDTH, WALL_WIDTH) == (6, 9)


def test_rows_by_role():
    # Observer 2 (team a): itself, its allies 0, 1, 3, 4, then enemies 5-9.
    assert ROW_SLOT[2].tolist() == [2, 0, 1, 3, 4, 5, 6, 7, 8, 9]
    # Observer 7 (team b): itself, allies 5, 6, 8, 9, then enemies 0-4.
    assert ROW_SLOT[7].tolist() == [7, 5, 6, 8, 9, 0, 1, 2, 3, 4]
    # Where observer 7 shows slot 0 (row 5) and slot 5 (row 1).
    assert SLOT_ROW[7, 0] == 5 and SLOT_ROW[7, 5] == 1 and SLOT_ROW[7, 7] == 0


# --- hand-computed rows ---------------------------------------------------------------


def duel(**b0_fields) -> dict:
    """a0, a Warrior at (4, 3) on the left, hurt, trapped, waiting on its Ultimate; b0, a
    Rogue at (7, 7) on the right, 5 away (3-4-5): in sight of both."""
    a0 = agent(
        "warrior", 4, 3, health=150, ultimate_cooldown=15, out_of_combat=4,
        effects={"trap": 2}, last_action=[E, 7, 1],
    )  # fmt: skip
    b0 = agent("rogue", 7, 7, **b0_fields)
    return position([a0], [b0], red_zone_depth=5)


@xp_names
def test_own_row(xp_name):
    obs = observe(xp_name, duel())
    row = lambda field: unit(obs, 0, 0, field)  # noqa: E731
    assert row("present") == row("known") == row("alive") == [1.0]
    assert row("class") == onehot(1, 5)  # warrior is class 1
    assert row("position") == pytest.approx([4 / 20, 3 / 10])
    assert row("offset_from_self") == [0.0, 0.0] and row("distance") == [0.0]
    assert row("health_share") == pytest.approx([150 / 200])  # the Warrior's 200
    assert row("health") == pytest.approx([150 / 200])  # over the common scale, 200
    assert row("shield") == [0.0]
    assert row("effects") == pytest.approx([0, 2 / 4, 0, 0, 0, 0, 0, 0])  # trap: 2 of 4
    assert row("ultimate_cooldown") == pytest.approx([15 / 30]) and row("ultimate_ready") == [0]
    assert row("out_of_combat") == pytest.approx([4 / 10])  # capped at 10
    assert row("in_own_sight") == [1.0]
    assert row("in_home_red_zone") == [1.0]  # x = 4 <= the depth 5
    assert row("has_last_action") == [1.0]
    assert row("last_move") == onehot(E, 9)  # the left end: compass east is its east
    # Target code 7 = enemy slot 1 = slot 6, shown in a0's row 6: index 6 + 1 (0 = none).
    assert row("last_target_row") == onehot(7, 11)
    assert row("last_ultimate") == [1.0]


@xp_names
def test_an_enemy_seen_from_each_side(xp_name):
    obs = observe(xp_name, duel())
    # a0 sees b0 in its row 5: b0 at x 7 (a0's frame is the compass frame).
    seen = lambda field: unit(obs, 0, 5, field)  # noqa: E731
    assert seen("known") == seen("alive") == seen("in_own_sight") == [1.0]
    assert seen("class") == onehot(3, 5)  # rogue
    assert seen("position") == pytest.approx([7 / 20, 7 / 10])
    assert seen("offset_from_self") == pytest.approx([3 / 20, 4 / 20])
    assert seen("distance") == pytest.approx([5 / 20])
    assert seen("health") == pytest.approx([100 / 200]) and seen("health_share") == [1.0]
    assert seen("in_home_red_zone") == [0.0]  # b0's home is x >= 15, it stands at 7
    assert seen("has_last_action") == [0.0] and seen("last_move") == [0.0] * 9
    # b0 (the right end) sees a0 in its row 5, mirrored: a0 at 20 - 4 = 16, b0 at 13.
    back = lambda field: unit(obs, 5, 5, field)  # noqa: E731
    assert back("position") == pytest.approx([16 / 20, 3 / 10])
    assert back("offset_from_self") == pytest.approx([3 / 20, -4 / 20])
    assert back("distance") == pytest.approx([5 / 20])
    assert back("in_home_red_zone") == [1.0]  # a0's home, far side of b0's frame: 16 >= 15
    assert back("last_move") == onehot(W, 9)  # a0 moved east: west in b0's frame
    # a0's target, slot 6 (b1), is b0's ally: its row 1 (row 0 is b0 itself), index 1 + 1.
    assert back("last_target_row") == onehot(1 + 1, 11)
    assert unit(obs, 5, 0, "position") == pytest.approx([13 / 20, 7 / 10])


@xp_names
def test_a_right_end_agents_own_moves_and_targets(xp_name):
    # b0 last moved compass east and targeted itself (own code 1 = slot 5).
    obs = observe(xp_name, duel(last_action=[E, 1, 0]))
    assert unit(obs, 5, 0, "last_move") == onehot(W, 9)  # its own frame: west
    assert unit(obs, 5, 0, "last_target_row") == onehot(0 + 1, 11)  # itself, row 0
    assert unit(obs, 5, 0, "last_ultimate") == [0.0]
    # a0 sees the same action in the compass frame: east, at slot 5 = its row 5.
    assert unit(obs, 0, 5, "last_move") == onehot(E, 9)
    assert unit(obs, 0, 5, "last_target_row") == onehot(5 + 1, 11)


# --- hidden enemies ----------------------------------------------------------------------


def hiding(b1: dict, shield: int = 0) -> dict:
    """a0 (4, 5) and a1 (4, 8) on the left; b0 (15, 5) 11 away, shielded or not; b1 where
    asked, behind the wall [9.9, 10.1] x [2, 9.5] or far; slots 2-4 and 7-9 empty."""
    return position(
        [agent("mage", 4, 5), agent("priest", 4, 8)],
        [agent("hunter", 15, 5, shield=shield), b1],
        [wall(10, 5.75, 0.2, 7.5)],
    )


@xp_names
def test_enemies_out_of_sight_are_hidden_but_present(xp_name):
    # b1 at (12, 8): 8 from a1 (4, 8), too far, and 8.5 from a0; b0 11 away.
    obs = observe(xp_name, hiding(agent("rogue", 12, 8)))
    zeros = [0.0] * (UNIT_WIDTH - 1)
    for observer in (0, 1):
        for row in (5, 6):  # b0, b1
            got = obs[observer, row * UNIT_WIDTH : (row + 1) * UNIT_WIDTH]
            assert got[0] == 1.0 and got[1:].tolist() == zeros, (observer, row)
        for row in (7, 8, 9):  # empty enemy slots: nothing at all
            assert not obs[observer, row * UNIT_WIDTH : (row + 1) * UNIT_WIDTH].any()
    # Teammates are always known, wherever they are: a1 is a0's row 1.
    assert unit(obs, 0, 1, "known") == [1.0]
    assert unit(obs, 0, 1, "position") == pytest.approx([4 / 20, 8 / 10])
    assert unit(obs, 0, 1, "in_own_sight") == [1.0]  # 3 apart, nothing between


@xp_names
def test_what_an_unseen_enemy_does_leaks_nowhere(xp_name):
    # Two positions differ only in b1, unseen in both (behind the wall at x 10, or 8.5
    # away): team a's observations must be the same numbers.
    quiet = agent("rogue", 12, 8)
    busy = agent("warrior", 11, 3, health=7, ultimate_cooldown=20, out_of_combat=1,
                 effects={"stun": 1, "slow_poison": 5}, last_action=[W, 6, 1])  # fmt: skip
    # busy at (11, 3): 7.3 from a0 (4, 5), and the line crosses x = 10 at y = 3.29, on the
    # wall; 8.6 from a1 (4, 8). Sight is 6.
    a, b = observe(xp_name, hiding(quiet)), observe(xp_name, hiding(busy))
    assert np.array_equal(a[:5], b[:5])
    assert not np.array_equal(a[5:7], b[5:7])  # team b's own rows do differ


@xp_names
def test_a_spawn_shield_hides_an_enemy_in_plain_sight(xp_name):
    # b0 moved to 3 from a0, with and without a shield.
    doc = hiding(agent("rogue", 12, 8))
    doc["teams"][1]["agents"][0].update(x=7, y=5)
    assert unit(observe(xp_name, doc), 0, 5, "known") == [1.0]
    doc["teams"][1]["agents"][0]["shield"] = 1
    obs = observe(xp_name, doc)
    assert unit(obs, 0, 5, "known") == [0.0] and unit(obs, 0, 5, "position") == [0.0, 0.0]
    assert unit(obs, 0, 5, "present") == [1.0]


# --- the game block ------------------------------------------------------------------------


@xp_names
def test_game_block(xp_name):
    doc = position(
        [agent("mage", 4, 5), agent("mage", 4, 8)],
        [agent("mage", 16, 2), agent("mage", 16, 5), agent("mage", 16, 8)],
        tick=30, horizon=300, winning_score=20, score=[4, 7], red_zone_depth=2.5,
        wave_clocks=(3, 1),
    )  # fmt: skip
    obs = observe(xp_name, doc)
    team_a = {
        "tick_share": 30 / 300,
        "horizon": 300 / (300 + 1000),
        "own_score": 4 / 20,
        "enemy_score": 7 / 20,
        "winning_score": 20 / (20 + 100),
        "own_team_size": 2 / 5,
        "enemy_team_size": 3 / 5,
        "red_zone_depth": 2.5 / 10,
        "own_wave_clock": 3 / 5,
        "enemy_wave_clock": 1 / 5,
    }
    swap = {"own_score": "enemy_score", "own_team_size": "enemy_team_size",
            "own_wave_clock": "enemy_wave_clock"}  # fmt: skip
    swap.update({v: k for k, v in swap.items()})
    team_b = {swap.get(k, k): v for k, v in team_a.items()}
    for observer in range(10):  # empty slots (2-4, 8, 9) see the game too
        want = team_a if observer < 5 else team_b
        got = {k: game(obs, observer, k) for k in want}
        assert got == pytest.approx(want, abs=APPROX), observer


@xp_names
def test_settings_at_their_limits_stay_in_bounds(xp_name):
    # The most the format allows: horizon 100,000 at its last tick, winning score 1 with a
    # score of 10 (1 - 1 + 10 gained in the winning tick), a Red Zone 10 deep, bodies in
    # the arena's far corners, a pillar of radius 4 and a wall the arena's height.
    doc = position(
        [agent("mage", 0.5, 0.5), agent("hunter", 19.5, 9.5, out_of_combat=10**6)],
        [agent("mage", 19.5, 0.5), agent("warrior", 0.5, 9.5, health=0.001)],
        [pillar(10, 5, 4), wall(16, 5, 1, 10)],
        tick=100_000, horizon=100_000, winning_score=1, score=[10, 0], red_zone_depth=10,
    )  # fmt: skip
    obs = observe(xp_name, doc)
    assert obs.dtype == np.float32 and obs.shape == (10, OBS_WIDTH)
    assert np.isfinite(obs).all()
    assert obs.min() >= OBS_LOW and obs.max() <= OBS_HIGH
    assert game(obs, 0, "horizon") == pytest.approx(100_000 / 101_000, abs=APPROX)
    assert game(obs, 0, "tick_share") == pytest.approx(1.0, abs=APPROX)
    assert game(obs, 0, "winning_score") == pytest.approx(1 / 101, abs=APPROX)
    assert game(obs, 0, "own_score") == 1.0 and game(obs, 5, "enemy_score") == 1.0  # capped
    assert game(obs, 0, "red_zone_depth") == 1.0
    # a1, 19 x 9 from a0: offset (19 / 20, 9 / 20); from b0's mirrored frame (a1 at 0.5,
    # b0 at 0.5) a1 is not seen, 9 away, but b1 (0.5, 9.5) is its ally at own x 19.5.
    assert unit(obs, 0, 1, "offset_from_self") == pytest.approx([19 / 20, 9 / 20])
    assert unit(obs, 0, 1, "distance") == pytest.approx([math.hypot(19, 9) / 20])
    assert unit(obs, 0, 1, "out_of_combat") == [1.0]  # 10**6 ticks, capped at 10
    assert unit(obs, 5, 1, "offset_from_self") == pytest.approx([19 / 20, 9 / 20])


# --- the map -------------------------------------------------------------------------------


def box(obs: np.ndarray, observer: int, b: int) -> list[float]:
    return obs[observer, BOX_START + b * BOX_WIDTH : BOX_START + (b + 1) * BOX_WIDTH].tolist()


def turned(obs: np.ndarray, observer: int, w: int) -> list[float]:
    return obs[observer, WALL_START + w * WALL_WIDTH : WALL_START + (w + 1) * WALL_WIDTH].tolist()


@xp_names
def test_map_in_each_frame(xp_name):
    # Box 0, the pillar (4, 3) r 0.5: low = high = the centre, radius over 20.
    # Box 1, the wall (3, 5) 2 x 4: [2, 4] x [3, 7]; mirrored [16, 18] x [3, 7].
    # Turned wall 0, 2 x 2 at (12, 5) turned 45 degrees: corners (12, 5 - r2),
    # (12 + r2, 5), (12, 5 + r2), (12 - r2, 5) with r2 = sqrt 2, each within 0.002.
    doc = position([agent("mage", 1, 1)], [agent("mage", 19, 9)],
                   [pillar(4, 3, 0.5), wall(3, 5, 2, 4), wall(12, 5, 2, 2, math.pi / 4)])  # fmt: skip
    obs = observe(xp_name, doc)
    left, right = 0, 5
    assert box(obs, left, 0) == pytest.approx([1, 4 / 20, 3 / 10, 4 / 20, 3 / 10, 0.5 / 20])
    assert box(obs, right, 0) == pytest.approx([1, 16 / 20, 3 / 10, 16 / 20, 3 / 10, 0.5 / 20])
    assert box(obs, left, 1) == pytest.approx([1, 2 / 20, 3 / 10, 4 / 20, 7 / 10, 0])
    assert box(obs, right, 1) == pytest.approx([1, 16 / 20, 3 / 10, 18 / 20, 7 / 10, 0])
    r2 = math.sqrt(2)
    corners = [(12, 5 - r2), (12 + r2, 5), (12, 5 + r2), (12 - r2, 5)]
    want_left = [1.0] + [v for x, y in corners for v in (x / 20, y / 10)]
    want_right = [1.0] + [v for x, y in corners for v in ((20 - x) / 20, y / 10)]
    assert turned(obs, left, 0) == pytest.approx(want_left, abs=2e-4)  # 0.002 / 10
    assert turned(obs, right, 0) == pytest.approx(want_right, abs=2e-4)
    for observer in range(10):  # the padding: boxes 2-31, turned walls 1-7, all zero
        assert not obs[observer, BOX_START + 2 * BOX_WIDTH : WALL_START].any()
        assert not obs[observer, WALL_START + WALL_WIDTH :].any()


# --- the mirror -------------------------------------------------------------------------

MIRROR_MOVE = {0: 0, 1: 1, 2: 2, 3: 4, 4: 3, 5: 6, 6: 5, 7: 8, 8: 7}  # E <-> W by hand


def mirrored(doc: dict) -> dict:
    """The same position seen in a mirror: x -> 20 - x, the ends swapped, compass moves
    east <-> west. (Turned walls are left out of the maps here: a mirrored turned wall is
    the same shape with its corners listed in another order.)"""
    out = copy.deepcopy(doc)
    for team in out["teams"]:
        team["spawn_end"] = {"left": "right", "right": "left"}[team["spawn_end"]]
        for a in team["agents"]:
            a["x"] = round(20 - a["x"], 3)
            if a.get("last_action"):
                a["last_action"][0] = MIRROR_MOVE[a["last_action"][0]]
    for ob in out["map"]["obstacles"]:
        ob["x"] = round(20 - ob["x"], 3)
    return out


def busy_position() -> dict:
    """Something in every field: allies, enemies seen and unseen, a shield, the dead, last
    actions with diagonal moves, effects, Red Zones, an asymmetric map."""
    a = [
        agent("warrior", 4, 3, health=150, last_action=[5, 7, 1], effects={"trap": 2}),
        agent("priest", 6.25, 7, last_action=[8, 1, 0], ultimate_cooldown=3),
        agent("mage", 3, 9, alive=False, health=0),
        agent("hunter", 11, 2, out_of_combat=7, effects={"slow_poison": 4}),
    ]
    b = [
        agent("rogue", 8, 6.5, last_action=[3, 9, 0]),
        agent("mage", 16, 5, shield=2),
        agent("hunter", 18.5, 9),
    ]
    obstacles = [pillar(7, 4.5, 0.7), wall(13, 6, 1, 4), pillar(15, 1.5, 0.4)]
    return position(a, b, obstacles, tick=12, score=[3, 5], red_zone_depth=4.5,
                    wave_clocks=(2, 4))  # fmt: skip


@xp_names
def test_a_mirrored_full_game_gives_the_same_observations(xp_name):
    # Five a side, no empty slot: all ten observations match.
    doc = position(
        [agent("mage", 2, 1, last_action=[7, 0, 1]), agent("warrior", 5, 3),
         agent("hunter", 3, 5, shield=1), agent("rogue", 9, 7, last_action=[6, 10, 0]),
         agent("priest", 1.5, 9)],
        [agent("mage", 18, 1), agent("warrior", 12, 4, health=20), agent("hunter", 17, 5),
         agent("rogue", 11.5, 8, effects={"stun": 1}), agent("priest", 19, 9.5)],
        [pillar(7, 5, 1), wall(14, 2, 2, 1.5)],
    )  # fmt: skip
    plain, mirror = observe(xp_name, doc), observe(xp_name, mirrored(doc))
    assert np.array_equal(plain, mirror)
    assert not np.array_equal(plain[0], plain[5])  # the two sides do see different things


@xp_names
def test_a_mirrored_position_gives_the_same_observations(xp_name):
    doc = busy_position()
    plain, mirror = observe(xp_name, doc), observe(xp_name, mirrored(doc))
    # Every agent's observation (slots 0-3 and 5-7). An empty slot has no frame of its own:
    # it stands at the compass (0, 0) in both positions, so its offsets to the others are
    # not mirrored, and it is left out.
    agents = [0, 1, 2, 3, 5, 6, 7]
    assert np.array_equal(plain[agents], mirror[agents])
    # Not a vacuous match: the position shows things, and moving one body changes them.
    # b0 seen by the Warrior: sqrt(4^2 + 3.5^2) = 5.3 away, the line 0.85 from the pillar.
    assert unit(plain, 0, 5, "known") == [1.0]
    moved = copy.deepcopy(doc)
    moved["teams"][1]["agents"][0]["x"] = 8.5
    assert not np.array_equal(plain, observe(xp_name, moved))
