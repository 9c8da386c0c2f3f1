"""The navigator: TDM-Alpha's walking plan as per-agent inputs (heading, has a target), from
hand-built positions; the same numbers on NumPy and JAX (to float rounding); TDM-Alpha itself walks by it (its
decisions are pinned by the scripted fingerprint in tests/browser_engine/test_wheel.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from marl_bgs import Game
from marl_bgs.core.actions import decode
from marl_bgs.core.position import starting_position
from marl_bgs.maps import load_map
from marl_bgs.systems.navigator import (
    NAV_NAMES,
    NAV_WIDTH,
    nav_inputs,
    nav_memory,
    nav_moved,
    nav_steering,
)
from marl_bgs.systems.numpy_play import numpy_system
from marl_bgs.systems.tactics import legal_moves
from tests.helpers import STAY, agent, position, wall

SETTLE = 12  # ticks: 4 to draw the map, then the fields grow 4 units a tick over 20 units


def settled(pos: dict, team: int = 0, ticks: int = SETTLE) -> np.ndarray:
    """The navigator's inputs after `ticks` decisions on one unchanging position."""
    inputs = Game(pos).team_inputs(team)
    memory = nav_memory()
    for t in range(ticks):
        features, memory = nav_inputs(np, inputs._replace(new_game=np.bool_(t == 0)), memory)
    return features


def test_layout():
    assert NAV_WIDTH == len(NAV_NAMES) == 3
    assert NAV_NAMES == ("toward_x", "toward_y", "has_target")


def test_in_the_open_it_heads_for_the_enemys_end():
    # A lone Warrior at (4, 3), the enemy far off and unseen: the advance field runs east.
    f = settled(position([agent("warrior", 4.0, 3.0)], [agent("warrior", 18.0, 8.0)]))
    assert f.dtype == np.float32 and f.shape == (5, NAV_WIDTH)
    # The waypoint is a cell or two east on the grid of cell centres (every 0.5 from 0.25):
    # from (4, 3), x + 0.75 or more and y within a quarter, halved: x at least 0.375.
    assert f[0, 0] >= 0.375 - 1e-6 and f[0, 0] > 2 * abs(f[0, 1])
    assert np.all(np.abs(f) <= 1.0)
    assert f[0, 2] == 0.0  # no enemy seen: no target
    assert not f[1:].any()  # empty slots: all zeros


def test_a_wall_in_the_way_turns_it_toward_the_gap():
    # A wall centred at x = 10 from y = 0 to y = 8 leaves a gap from 8 to 10 at the top.
    # From (7, 3) the straight way east is shut: the path climbs to the gap first, so the
    # heading points up (north of east by more than 45 degrees from this far below it).
    blocked = position(
        [agent("warrior", 7.0, 3.0)], [agent("warrior", 18.0, 8.0)], [wall(10.0, 4.0, 1.0, 8.0)]
    )
    f = settled(blocked)
    assert f[0, 1] > 0.3 and f[0, 1] > f[0, 0] >= 0.0
    # The same wall with its gap at the bottom (from y = 2 to 10): now the way is down.
    low_gap = position(
        [agent("warrior", 7.0, 7.0)], [agent("warrior", 18.0, 2.0)], [wall(10.0, 6.0, 1.0, 8.0)]
    )
    g = settled(low_gap)
    assert g[0, 1] < -0.3 and -g[0, 1] > g[0, 0] >= 0.0


def test_a_seen_enemy_becomes_the_target():
    # The enemy 3 units east is seen: the team has a target and heads for it.
    f = settled(position([agent("warrior", 8.0, 5.0)], [agent("warrior", 11.0, 5.0)]))
    assert f[0, 2] == 1.0
    assert f[0, 0] >= 0.375 - 1e-6 and f[0, 0] > 2 * abs(f[0, 1])


def test_the_right_end_team_reads_it_in_its_own_frame():
    # The mirror image of the wall position, played by team b from the right end: the
    # inputs are the same numbers, since each team sees its own frame.
    mirror = position(
        [agent("warrior", 2.0, 8.0)],
        [agent("warrior", 13.0, 3.0)],
        [wall(10.0, 4.0, 1.0, 8.0)],
        ends=("left", "right"),
    )
    left = settled(position(
        [agent("warrior", 7.0, 3.0)], [agent("warrior", 18.0, 8.0)], [wall(10.0, 4.0, 1.0, 8.0)]
    ))  # fmt: skip
    right = settled(mirror, team=1)
    assert np.allclose(left, right)


def test_numpy_and_jax_give_the_same_inputs_over_a_game():
    pos = position(
        [agent("warrior", 3.0, 2.0), agent("hunter", 3.0, 7.0)],
        [agent("mage", 16.0, 5.0), agent("priest", 17.0, 3.0)],
        [wall(10.0, 4.0, 1.0, 6.0), {"kind": "pillar", "x": 6.0, "y": 5.0, "radius": 0.6}],
    )
    game = Game(pos)
    step = jax.jit(lambda inputs, memory: nav_inputs(jnp, inputs, memory))
    mem_np, mem_jax = nav_memory(), nav_memory(jnp)
    for _ in range(10):
        inputs = game.team_inputs(0)
        f_np, mem_np = nav_inputs(np, inputs, mem_np)
        f_jax, mem_jax = step(jax.tree.map(jnp.asarray, inputs), mem_jax)
        assert np.allclose(f_np, np.asarray(f_jax), rtol=0, atol=1e-6)
        game.step([[STAY] * game.sizes[0], [STAY] * game.sizes[1]])


def test_a_dead_agent_has_no_heading():
    f = settled(position(
        [agent("warrior", 4.0, 3.0), agent("mage", 4.0, 6.0, alive=False)],
        [agent("warrior", 18.0, 8.0)],
    ))  # fmt: skip
    assert f[0, 0] >= 0.375 - 1e-6 and not f[1].any()


def test_the_steering_scores_are_alphas_moves():
    # TDM-Alpha against TDM-Beta on training map 11 (walls and pillars), 40 ticks: wherever
    # Alpha moves, its move is the best legal one of the nine scores (stay left out), with
    # the memory of failed moves kept from Alpha's own moves. Where it stands, it is either
    # a ranged agent holding (the policy's choice) or the best score is "stay" itself.
    game = Game(starting_position({"obstacles": load_map(11)["obstacles"]}))
    alpha, beta = numpy_system("tdm-alpha"), numpy_system("tdm-beta")
    memories, steering = [alpha.init(), beta.init()], nav_memory()
    rng = np.random.default_rng(0)
    moving = 0
    for _ in range(40):
        inputs = game.team_inputs(0)
        scores, steering = nav_steering(np, inputs, steering)
        assert scores.shape == (5, 9) and scores.dtype == np.float32
        assert np.all((scores >= -4.0) & (scores <= 1.0))
        acts, memories[0] = alpha.act(inputs, memories[0], rng)
        acts_b, memories[1] = beta.act(game.team_inputs(1), memories[1], rng)
        move = np.asarray(decode(np.asarray(acts))[0])
        ok = np.asarray(legal_moves(inputs.avail))
        best = np.where(ok, scores, -9.0)
        best[:, 0] = -9.0
        moved = inputs.alive & (move != 0)
        assert np.array_equal(best.argmax(1)[moved], move[moved])
        moving += int(moved.sum())
        steering = nav_moved(np, inputs, steering, move)
        game.step_slots(game.slots_from_flat(np.int32(acts), np.int32(acts_b)))
    assert moving > 100  # the check above was made on many decisions


def test_steering_marks_illegal_moves_and_leaves_the_dead_out():
    f, _ = nav_steering(np, Game(position(
        [agent("warrior", 4.0, 3.0), agent("mage", 4.0, 6.0, alive=False)],
        [agent("warrior", 18.0, 8.0)],
    )).team_inputs(0), nav_memory())  # fmt: skip
    # In the open with nothing near, every move is legal: east (move 3) scores cos 0 = 1
    # nearly (the waypoint is a cell or so east), west (4) about -1, stay 0.
    assert f[0, 3] > 0.9 and f[0, 4] < -0.9 and f[0, 0] == 0.0
    assert not f[1].any() and not f[2:].any()  # dead and empty slots
    trapped = Game(position(
        [agent("warrior", 4.0, 3.0, effects={"trap": 2})], [agent("warrior", 18.0, 8.0)]
    )).team_inputs(0)  # fmt: skip
    g, _ = nav_steering(np, trapped, nav_memory())
    # A trapped agent may only stay: every move is illegal and scores -4.
    assert np.array_equal(np.asarray(legal_moves(trapped.avail))[0], [True] + [False] * 8)
    assert np.all(g[0, 1:] == -4.0) and g[0, 0] == 0.0
