"""TDM-Alpha, -Beta and -Gamma: they beat Random, never get stuck, and decide the same on
NumPy and JAX; their pathing fields are right on a hand-checked map."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import marl_bgs
from marl_bgs.core.observation import observations
from marl_bgs.core.position import starting_position
from marl_bgs.core.sight import compute_sight
from marl_bgs.maps.positions import parse_position
from marl_bgs.systems import jax_system, pathing, random_system
from marl_bgs.systems.beta import beta_act, beta_memory, tdm_beta
from marl_bgs.systems.both_teams import act_both, init_memories
from marl_bgs.systems.gamma import gamma_act, gamma_memory, tdm_gamma
from marl_bgs.systems.percept import obstacles
from marl_bgs.systems.scripted import alpha_act, alpha_memory, tdm_alpha

TEST_MAPS = [47, 48, 49, 50, 51]
OPPONENTS = {
    "alpha": (tdm_alpha, alpha_act, alpha_memory),
    "beta": (tdm_beta, beta_act, beta_memory),
    "gamma": (tdm_gamma, gamma_act, gamma_memory),
}


def play(env, systems, state, ticks: int, key):
    memories = init_memories(env, systems, jax.random.key(1))

    def body(carry, _):
        state, memories, key = carry
        key, k = jax.random.split(key)
        actions, memories = act_both(env, state, systems, memories, k)
        _, state, _, _, _ = env.step(k, state, actions)
        return (state, memories, key), state.game.pos

    run = jax.jit(lambda s, m, k: jax.lax.scan(body, (s, m, k), None, length=ticks))
    (state, _, _), trail = run(state, memories, key)
    return state, trail


def test_fields_route_around_a_thin_wall():
    """Map 47's 0.01-wide walls block the fine grid, and the field goes round them."""
    pos = parse_position(starting_position(47))
    obs = observations(np, pos.state, pos.map_arrays, compute_sight(np, pos.state, pos.map_arrays))
    ob = obstacles(np, obs[0])
    blocked = np.zeros((pathing.FINE_H, pathing.FINE_W), bool)
    for part in range(pathing.BUILD_TICKS):
        blocked |= pathing.draw(np, ob, part)
    fx = np.argmin(np.abs(pathing.FINE_X - 3.0))  # the thin wall at x = 3, y 4..6
    fy = np.argmin(np.abs(pathing.FINE_Y - 4.25))
    assert blocked[fy, fx] and not blocked[fy, fx - 3]
    g = pathing.grid(np, blocked)
    goal = pathing.band_cells(np, g, pathing.ADVANCE_FROM_X)[None]
    field = pathing.relax(np, np.where(goal, 0.0, pathing.BIG).astype(np.float32), g, goal, 200)[0]
    iy, ix = int(4.25 / pathing.CELL), int(2.75 / pathing.CELL)  # just west of that wall
    # Crossing the wall would be 0.5 shorter than the neighbour east of it; the detour is longer.
    assert field[iy, ix] > field[iy, ix + 1] + 0.5 + 1e-3
    assert (field[g.free] < pathing.BIG).all()  # every free cell of this map is reached


@pytest.mark.parametrize("name", sorted(OPPONENTS))
def test_beats_random_on_the_test_maps(name):
    games = 10  # spawn ends alternate by game; the 200-game numbers are in the closing note
    env = marl_bgs.make("tdm", map_id=TEST_MAPS, num_envs=games)
    _, state = env.reset(jax.random.key(7))
    state, _ = play(env, (OPPONENTS[name][0](), random_system()), state, 300, jax.random.key(11))
    result = np.asarray(state.game.result)
    assert (result >= 0).all()
    assert set(np.asarray(state.game.spawn_end[:, 0]).tolist()) == {0, 1}
    wins, losses = int(np.sum(result == 0)), int(np.sum(result == 1))
    assert losses == 0
    assert wins >= 0.9 * (wins + losses)


def _stuck_memory(failed_slots, give_way=(0, 0, 0, 0, 0)) -> pathing.Paths:
    memory = pathing.paths_memory(np)
    failed = np.zeros((5, 9), bool)
    failed[list(failed_slots), 3] = True  # their last move east went nowhere
    return memory._replace(failed=failed, give_way=np.asarray(give_way, np.int32))


XY = np.asarray([[6.324, 2.097], [6.833, 2.958], [12.0, 5.0], [12.0, 7.0], [12.0, 9.0]], np.float32)
ALIVE = np.ones(5, bool)
FAR = np.full((5, 2), 19.0, np.float32)  # the enemy, seen but nowhere near
SEEN = np.ones(5, bool)


def test_of_two_jammed_teammates_the_higher_slot_gives_way_for_three_ticks():
    """Map 12's jam: slots 0 and 1 touching (1.0000 apart), each pressing on the other's
    slide past a pillar. Slot 1 backs off three ticks; slot 0 never does."""
    back, memory = pathing.give_way(np, _stuck_memory([0, 1]), XY, ALIVE, FAR, SEEN)
    assert back.tolist() == [False, True, False, False, False]
    assert memory.give_way.tolist() == [0, pathing.GIVE_WAY_TICKS, 0, 0, 0]
    ticks = 1
    while True:  # it counts down whatever happens meanwhile
        unstuck = memory._replace(failed=np.zeros((5, 9), bool))
        back, memory = pathing.give_way(np, unstuck, XY, ALIVE, FAR, SEEN)
        if not back[1]:
            break
        ticks += 1
    assert ticks == pathing.GIVE_WAY_TICKS and memory.give_way.tolist() == [0] * 5


@pytest.mark.parametrize(
    "failed, alive, apart, enemy",
    [
        ([1], ALIVE, 0.0, 19.0),
        ([0], ALIVE, 0.0, 19.0),
        ([0, 1], [False, True, True, True, True], 0.0, 19.0),
        ([0, 1], ALIVE, 0.2, 19.0),
        ([0, 1], ALIVE, 0.0, 10.78),
    ],
    ids=["only-higher-stuck", "only-lower-stuck", "lower-dead", "not-touching", "enemy-near"],
)
def test_nobody_gives_way_without_a_jam(failed, alive, apart, enemy):
    """Not a jam: one of the two is not stuck, the lower one is dead, they do not touch
    (1.2 apart), or an enemy is seen within CALM_REACH of slot 1 (3.95 away: a fight)."""
    xy = XY.copy()
    xy[1] += np.float32(apart) * (xy[1] - xy[0]) / np.linalg.norm(xy[1] - xy[0])
    foes = np.full((5, 2), [enemy, 2.958], np.float32)  # on slot 1's row, `enemy` along x
    back, memory = pathing.give_way(np, _stuck_memory(failed), xy, np.asarray(alive), foes, SEEN)
    assert not back.any() and not memory.give_way.any()


@pytest.mark.parametrize("name", ["tdm-alpha", "tdm-beta"])
def test_map_12s_jammed_pair_gets_past_the_pillar_on_numpy(name):
    """Slots 0 and 1 of Alpha and Beta, from the left end of map 12, jammed in a 7-tick
    cycle beside the pillar at (6.4, 1.2) before the give-way rule; both cross x = 10 now."""
    from marl_bgs import Game
    from marl_bgs.systems.numpy_play import decide, numpy_system

    game = Game(starting_position(12, spawn_ends=("left", "right")))
    system = numpy_system(name)
    memory, rng = system.init(), np.random.default_rng(0)
    furthest = np.zeros(2)
    for _ in range(60):
        actions, memory = decide(game, 0, system, memory, rng)
        game.step_slots(game.slots_from_flat(actions, np.zeros(5, np.int32)))
        furthest = np.maximum(furthest, np.asarray(game.state.pos)[:2, 0])
    assert (furthest >= 10000).all(), furthest


@pytest.mark.parametrize("name", sorted(OPPONENTS))
def test_reaches_the_centre_from_every_spawn_on_every_map(name):
    ids = list(range(52))
    env = marl_bgs.make("tdm", map_id=ids, num_envs=2 * len(ids))
    positions = [
        starting_position(m, spawn_ends=ends)
        for m in ids
        for ends in (("left", "right"), ("right", "left"))
    ]
    _, state = env.reset_to(jax.random.key(0), positions)
    idle = jax_system(lambda key, inputs: jnp.zeros(5, jnp.int32), name="idle")
    _, trail = play(env, (OPPONENTS[name][0](), idle), state, 60, jax.random.key(3))
    x = np.asarray(trail[:, :, :5, 0])  # (ticks, games, team a slots)
    left = np.asarray([p["teams"][0]["spawn_end"] == "left" for p in positions])
    own_frame = np.where(left[None, :, None], x, 20000 - x)
    reached = own_frame.max(axis=0) >= 10000
    stuck = [(ids[g // 2], positions[g]["teams"][0]["spawn_end"], int(k))
             for g, k in zip(*np.nonzero(~reached), strict=True)]  # fmt: skip
    assert stuck == [], stuck


def test_decisions_are_the_same_on_numpy_and_jax():
    env = marl_bgs.make("tdm", map_id=47, num_envs=4)
    _, state = env.reset(jax.random.key(0))
    state, _ = play(env, (random_system(), random_system()), state, 30, jax.random.key(4))
    for name, (_, act, memory) in sorted(OPPONENTS.items()):
        step = jax.jit(lambda i, m, act=act: act(jnp, i, m))
        for team in (0, 1):
            inputs = jax.device_get(env.team_inputs(state, team))
            for g in range(4):
                one = jax.tree.map(lambda x, g=g: x[g], inputs)
                mem_np, mem_jx = memory(np), memory(jnp)
                for t in range(3):  # a few ticks, so the fields and drawing carry over
                    one = one._replace(new_game=np.asarray(t == 0))
                    a_np, mem_np = act(np, one, mem_np)
                    a_jx, mem_jx = step(jax.tree.map(jnp.asarray, one), mem_jx)
                    assert np.array_equal(a_np, np.asarray(a_jx)), (name, team, g, t)
                    for x, y in zip(mem_np, mem_jx, strict=True):
                        assert np.allclose(x, np.asarray(y)), (name, team, g, t)


def test_the_pathing_page_states_the_constants_the_code_uses():
    """site_src/reference/scripted-opponents.md describes the pathing in words; each number
    it gives is the constant in pathing.py (a changed constant fails here, not on the page)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "site_src" / "reference"
            / "scripted-opponents.md").read_text()  # fmt: skip
    text = " ".join(page.split())
    words = {2: "two", 3: "three", 4: "four", 8: "eight"}
    stated = [
        f"fine points {pathing.FINE:g} apart ({pathing.FINE_W} x {pathing.FINE_H})",
        f"blocked within {pathing.INFLATE:g} of an obstacle",
        f"first {words[pathing.BUILD_TICKS]} decisions",
        f"coarse cells {pathing.CELL:g} apart ({pathing.GRID_W} x {pathing.GRID_H})",
        f"costs {'twice' if pathing.NEAR_COST == 2 else pathing.NEAR_COST} its length next to an obstacle",
        f"takes {words[pathing.RELAX_PER_TICK]} min-plus steps",
        f"grows {words[round(pathing.RELAX_PER_TICK * pathing.CELL)]} units a tick",  # a cell per step
        f"jumps more than {pathing.RETARGET:g} units",
        f"sees no enemy within {pathing.CALM_REACH:g}",
        f"opposite way for {words[pathing.GIVE_WAY_TICKS]} ticks",
    ]
    missing = [s for s in stated if s not in text]
    assert missing == [], missing


@pytest.mark.parametrize("name", ["tdm-alpha", "tdm-beta", "tdm-gamma"])
def test_following_the_teams_own_choice_is_its_own_memory(name):
    """`System.follow` with the actions the team chose gives the memory `act` returned; with
    other moves, the failed-move memory follows those (a teacher labelling a student's game)."""
    from marl_bgs.game import Game
    from marl_bgs.systems.numpy_play import numpy_system
    from marl_bgs.systems.registry import by_name

    system = by_name(name)
    act, follow = jax.jit(system.act), jax.jit(system.follow)
    other = numpy_system("tdm-beta")
    game = Game(starting_position(11))
    memory, other_memory = system.init(None), other.init()
    rng = np.random.default_rng(0)
    for _ in range(30):
        inputs = game.team_inputs(0)
        actions, after = act(jax.random.PRNGKey(0), inputs, memory)
        same = follow(inputs, memory, actions)
        for a, b in zip(jax.tree.leaves(after), jax.tree.leaves(same), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        stay = np.asarray(actions) % 22  # same targets and Ultimates, nobody moves
        stayed = follow(inputs, memory, stay)
        np.testing.assert_array_equal(np.asarray(stayed.last_move), 0)
        b_actions, other_memory = other.act(game.team_inputs(1), other_memory, rng)
        game.step_slots(game.slots_from_flat(np.asarray(actions), np.asarray(b_actions)))
        memory = after
