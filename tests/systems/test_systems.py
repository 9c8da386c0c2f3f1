"""Systems: random, the JAX and host wrappers, team() and pool()."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import marl_bgs
from marl_bgs.systems import TeamInputs, host_system, jax_system, pool, random_system, team
from marl_bgs.systems.both_teams import act_both, init_memories

N = 4


def inputs(classes=(0, 1, 2, 3, 4), new_game=False, games=None) -> TeamInputs:
    base = TeamInputs(
        obs=jnp.zeros((5, 8), jnp.float32),
        avail=jnp.ones((5, 198), bool),
        present=jnp.ones(5, bool),
        alive=jnp.ones(5, bool),
        classes=jnp.asarray(classes, jnp.int32),
        new_game=jnp.asarray(new_game),
    )
    if games is None:
        return base
    return jax.tree.map(lambda x: jnp.broadcast_to(x, (games,) + x.shape), base)


def constant(k: int):
    return jax_system(lambda key, inp: jnp.full(5, k, jnp.int32), name=f"const{k}")


def test_random_is_always_legal():
    mask = np.zeros((5, 198), bool)
    mask[:, [0, 7, 150]] = True
    inp = inputs()._replace(avail=jnp.asarray(mask))
    rs = random_system()
    seen = set()
    for k in range(50):
        acts, _ = rs.act(jax.random.key(k), inp, rs.init(jax.random.key(0)))
        assert mask[np.arange(5), np.asarray(acts)].all()
        seen.update(np.asarray(acts).tolist())
    assert seen == {0, 7, 150}


def test_jax_system_with_memory():
    def counter(key, inp, memory):
        return jnp.full(5, memory, jnp.int32), memory + 1

    s = jax_system(counter, init=lambda key: jnp.asarray(3, jnp.int32))
    mem = s.init(jax.random.key(0))
    for expected in (3, 4, 5):
        acts, mem = jax.jit(s.act)(jax.random.key(0), inputs(), mem)
        assert np.asarray(acts).tolist() == [expected] * 5


def test_team_per_slot_and_per_class():
    t = team(*(constant(k) for k in range(5)))
    acts, _ = t.act(jax.random.key(0), inputs(), t.init(jax.random.key(1)))
    assert np.asarray(acts).tolist() == [0, 1, 2, 3, 4]
    healer = constant(9)
    t = team(constant(1), by_class={"priest": healer})
    acts, _ = t.act(jax.random.key(0), inputs(classes=(4, 0, 4, 1, 2)), t.init(jax.random.key(1)))
    assert np.asarray(acts).tolist() == [9, 1, 9, 1, 1]
    with pytest.raises(ValueError, match="unknown class"):
        team(constant(1), by_class={"paladin": healer})
    with pytest.raises(ValueError, match="slots"):
        team(constant(1), constant(2))


def test_pool_draws_per_game_and_keeps_the_choice():
    p = pool([constant(1), constant(2)], weights=[1, 0])
    mem = p.init(jax.random.key(0))
    acts, mem = p.act(jax.random.key(1), inputs(new_game=True), mem)
    assert np.asarray(acts).tolist() == [1] * 5
    both = pool([constant(1), constant(2)])
    picks = set()
    for k in range(20):
        mem = both.init(jax.random.key(k))
        first, mem = both.act(jax.random.key(100 + k), inputs(new_game=True), mem)
        for t in range(3):  # the choice holds for the rest of the game
            again, mem = both.act(jax.random.key(200 + t), inputs(new_game=False), mem)
            assert np.array_equal(first, again)
        picks.add(int(first[0]))
    assert picks == {1, 2}
    with pytest.raises(ValueError, match="weights"):
        pool([constant(1)], weights=[0])


def test_host_system_gets_numpy_for_all_games_and_is_checked():
    calls = []

    def planner(inp):
        calls.append(type(inp.obs))
        return np.full(np.asarray(inp.present).shape, 3)

    h = host_system(planner)
    assert h.on_host
    batch = jax.tree.map(np.asarray, inputs(games=3))
    acts, _ = h.act(None, batch, None)
    assert acts.shape == (3, 5) and acts.dtype == np.int32
    bad = host_system(lambda inp: np.full((3, 4), 1))
    with pytest.raises(ValueError, match="shape"):
        bad.act(None, batch, None)
    worse = host_system(lambda inp: np.full((3, 5), 400))
    with pytest.raises(ValueError, match="0..197"):
        worse.act(None, batch, None)


def test_systems_compile_with_the_game():
    env = marl_bgs.make("tdm", map_id=47, num_envs=N)
    systems = (team(random_system(), by_class={"priest": constant(0)}), random_system())
    _, state = env.reset(jax.random.key(0))
    memories = init_memories(env, systems, jax.random.key(1))

    def body(carry, t):
        state, memories, key = carry
        key, k_act, k_reset = jax.random.split(key, 3)
        actions, memories = act_both(env, state, systems, memories, k_act)
        _, state, reward, _, _ = env.step(k_act, state, actions)
        _, state = env.reset_done(k_reset, state)
        return (state, memories, key), actions["a4"]

    run = jax.jit(lambda s, m, k: jax.lax.scan(body, (s, m, k), jnp.arange(6)))
    _, priest_actions = run(state, memories, jax.random.key(2))
    assert np.asarray(priest_actions).tolist() == [[0] * N] * 6  # slot 4 is the Priest


@pytest.mark.parametrize("ends", [("left", "right"), ("right", "left")])
def test_game_team_inputs_match_the_env(ends):
    """The NumPy referee hands a System exactly what the JAX env hands it."""
    from marl_bgs import Game
    from marl_bgs.core.position import starting_position

    game = Game(starting_position(48, spawn_ends=ends))
    rng = np.random.default_rng(0)
    for _ in range(12):
        picks = [rng.choice(np.flatnonzero(game.team_inputs(t).avail[k])) for t in (0, 1)
                 for k in range(5)]  # fmt: skip
        game.step_slots(game.slots_from_flat(picks[:5], picks[5:]))
    env = marl_bgs.make("tdm", map_id=48, num_envs=None)
    _, state = env.reset_to(jax.random.key(0), game.state_dict())
    for t in (0, 1):
        ours, theirs = game.team_inputs(t), env.team_inputs(state, t)
        for name in ("obs", "avail", "present", "alive", "classes"):
            np.testing.assert_array_equal(getattr(ours, name), np.asarray(getattr(theirs, name)))
