"""The single-game env as a JaxMARL environment: base API, auto-reset, LogWrapper, spaces.

What JaxMARL's own wrappers and IPPO baselines rely on, checked the way they use it: one
game per env under `jax.vmap`, flat actions shaped (..., 1), every info leaf reshaped to
(num_envs * num_agents), episodes restarted inside `step`. Compiling a tick is the slow part
on a CPU, so one env is shared and every action form runs its one compiled tick.
"""

from __future__ import annotations

import copy
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jaxmarl.environments import MultiAgentEnv
from jaxmarl.environments import spaces as jaxmarl_spaces
from jaxmarl.wrappers.baselines import CTRolloutManager, LogWrapper, get_space_dim

import marl_bgs
from marl_bgs import spaces as our_spaces
from marl_bgs.core.observation import OBS_HIGH, OBS_LOW, OBS_WIDTH
from marl_bgs.core.position import MAX_GAIN_PER_TICK, starting_position
from marl_bgs.core.state import AGENT_NAMES, RESULT_A, RESULT_DRAW
from marl_bgs.env import TeamDeathmatch
from marl_bgs.single_game import SingleGame

from .gen import random_position
from .helpers import agent, count_traces, position

HORIZON = 5  # games drawn by the shared env end by the clock after this many ticks
BLAST = (0 * 11 + 6) * 2  # flat action: stay, Arcane Blast (basic) at enemy slot 0


@pytest.fixture(scope="module")
def env() -> TeamDeathmatch:
    return marl_bgs.make("tdm", map_id=47, horizon=HORIZON)


def tree_equal(a, b) -> bool:
    return all(jax.tree.leaves(jax.tree.map(lambda x, y: bool(np.array_equal(x, y)), a, b)))


def winning_blast() -> dict:
    """Team a's Mage (a0) kills a Rogue on 1 HP with a blast that makes 20 points: a win."""
    return position([agent("mage", 8, 5)], [agent("rogue", 10, 5, health=1)], score=[19, 3])


def idle_actions(**overrides: int) -> dict:
    actions = {a: jnp.asarray(0, jnp.int32) for a in AGENT_NAMES}
    actions.update({a: jnp.asarray(v, jnp.int32) for a, v in overrides.items()})
    return actions


# ---- the base API ---------------------------------------------------------------------


def test_make_without_num_envs_is_one_game_and_a_jaxmarl_env(env):
    assert isinstance(env, MultiAgentEnv) and env.num_envs is None
    assert env.agents == list(AGENT_NAMES) and isinstance(env.agents, list)
    assert env.num_agents == len(env.agents) == 10
    assert env.name == "tdm"
    groups = env.agent_classes
    assert sorted(a for names in groups.values() for a in names) == sorted(AGENT_NAMES)
    for a in env.agents:
        obs_space, act_space = env.observation_space(a), env.action_space(a)
        assert obs_space is env.observation_spaces[a] and act_space is env.action_spaces[a]
        assert isinstance(obs_space, jaxmarl_spaces.Box)
        assert isinstance(act_space, jaxmarl_spaces.Discrete)
        assert obs_space.shape == (OBS_WIDTH,) and obs_space.dtype == jnp.float32
        assert (obs_space.low, obs_space.high) == (OBS_LOW, OBS_HIGH)
        assert act_space.n == 198 and act_space.shape == ()
    # JaxMARL's Q-learning wrappers size their networks by isinstance on the spaces.
    assert get_space_dim(env.action_space("a0")) == 198
    assert get_space_dim(env.observation_space("a0")) == OBS_WIDTH
    # reset, step's tick, the masks and the observation are compiled, as in JaxMARL's base.
    for name in ("reset", "_tick", "get_avail_actions", "get_obs"):
        assert hasattr(getattr(type(env), name), "lower"), name
    with pytest.raises(ValueError, match="agent: unknown agent 'agent_0'"):
        env.observation_space("agent_0")


def test_jaxmarl_rollout_manager_sizes_and_samples_from_the_spaces(env):
    """JaxMARL's Q-learning rollout manager reads the spaces by isinstance and samples them."""
    manager = CTRolloutManager(env, batch_size=3)
    assert manager.max_obs_length == OBS_WIDTH and manager.max_action_space == 198
    drawn = manager.batch_sample(jax.random.key(0), "b1")
    assert drawn.shape == (3,) and bool(((drawn >= 0) & (drawn < 198)).all())


def test_reset_and_step_follow_the_base_api(env):
    key = jax.random.key(0)
    key, k_reset = jax.random.split(key)
    obs, state = env.reset(k_reset)
    assert list(obs) == env.agents
    for a in env.agents:
        assert obs[a].shape == (OBS_WIDTH,) and obs[a].dtype == jnp.float32
        assert bool(env.observation_space(a).contains(obs[a]))
    assert tree_equal(env.get_obs(state), obs)
    avail = env.get_avail_actions(state)
    assert list(avail) == env.agents
    assert all(avail[a].shape == (198,) and avail[a].dtype == jnp.bool_ for a in env.agents)
    for t in range(3):
        key, k_act, k_step = jax.random.split(key, 3)
        acts = jax.random.split(k_act, env.num_agents)
        actions = {a: env.action_space(a).sample(acts[i]) for i, a in enumerate(env.agents)}
        assert all(bool(env.action_space(a).contains(actions[a])) for a in env.agents)
        result = env.step(k_step, state, actions)
        assert isinstance(result, tuple) and len(result) == 5
        obs, state, reward, done, info = result
        assert set(obs) == set(reward) == set(env.agents)
        assert set(done) == set(env.agents) | {"__all__"}
        for a in env.agents:
            assert bool(env.observation_space(a).contains(obs[a]))
            assert reward[a].shape == () and reward[a].dtype == jnp.float32
            assert done[a].shape == () and done[a].dtype == jnp.bool_
        assert not bool(done["__all__"]) and int(state.game.tick) == t + 1
        assert isinstance(info, dict)
        for name, leaf in info.items():  # one entry per agent, nothing else
            assert leaf.shape == (env.num_agents,), name
        assert np.asarray(info["tick"]).tolist() == [t + 1] * 10


def test_action_forms_are_the_same_and_share_one_compiled_tick(env):
    """Flat scalars, flat (1,) as JaxMARL's IPPO sends them, and heads (3,) agree."""
    _, state = env.reset(jax.random.key(3))
    flat = env.sample_actions(jax.random.key(4), state)
    forms = [
        flat,
        {a: v[None] for a, v in flat.items()},
        {a: jnp.stack([v // 22, (v // 2) % 11, v % 2]) for a, v in flat.items()},
        jnp.stack([flat[a] for a in AGENT_NAMES]),
        jnp.stack([flat[a] for a in AGENT_NAMES])[:, None],
    ]
    with count_traces() as traces:
        results = [env.step_env(None, state, f)[1] for f in forms]
    assert all(tree_equal(results[0], r) for r in results[1:])
    assert traces["_tick"] <= 1, traces


@pytest.mark.parametrize(
    "actions, message",
    [
        ({a: jnp.zeros(2, jnp.int32) for a in AGENT_NAMES}, r"actions\['a0'\]: shape \(2,\)"),
        (
            {a: jnp.zeros((1, 1), jnp.int32) for a in AGENT_NAMES},
            r"actions\['a0'\]: shape \(1, 1\)",
        ),
        ({a: jnp.zeros(10, jnp.int32) for a in AGENT_NAMES}, r"actions\['a0'\]: shape \(10,\)"),
        ({**{a: 0 for a in AGENT_NAMES}, "b2": jnp.zeros(4, jnp.int32)}, r"actions\['b2'\]"),
        ({a: jnp.zeros((), jnp.float32) for a in AGENT_NAMES}, r"actions\['a0'\]: dtype float32"),
        ({a: 0 for a in AGENT_NAMES[:9]}, r"actions: no action for agent 'b4'"),
        (jnp.zeros((10, 2), jnp.int32), r"actions: shape \(10, 2\)"),
        (jnp.zeros((9,), jnp.int32), r"actions: shape \(9,\)"),
    ],
)
def test_bad_action_shapes_are_refused_naming_the_field(env, actions, message):
    _, state = env.reset(jax.random.key(0))
    with pytest.raises(ValueError, match=message):
        env.step(jax.random.key(1), state, actions)


def test_batched_env_names_bad_actions_and_keeps_its_restarts():
    batched = marl_bgs.make("tdm", map_id=47, num_envs=3)
    assert not isinstance(batched, MultiAgentEnv)  # our own loops never import JaxMARL
    _, state = batched.reset(jax.random.key(0))
    with pytest.raises(ValueError, match=r"actions\['a0'\]: shape \(\); expected \(3,\)"):
        batched.step(None, state, {a: jnp.asarray(0) for a in AGENT_NAMES})
    with pytest.raises(ValueError, match=r"actions: shape \(3, 10, 2\)"):
        batched.step(None, state, jnp.zeros((3, 10, 2), jnp.int32))
    with pytest.raises(ValueError, match="reset_state: .*reset_done"):
        batched.step(None, state, {a: jnp.zeros(3, jnp.int32) for a in AGENT_NAMES}, state)


def test_spaces_without_jaxmarl_behave_as_jaxmarls():
    """The env's own spaces (used when JaxMARL is absent) draw and judge exactly alike."""
    plain = SingleGame(map_id=47)
    assert not isinstance(plain, MultiAgentEnv)
    assert type(plain.observation_space("a0")) is our_spaces.Box
    pairs = [
        (our_spaces.Box(-2.0, 2.0, (7,)), jaxmarl_spaces.Box(-2.0, 2.0, (7,))),
        (our_spaces.Discrete(198), jaxmarl_spaces.Discrete(198)),
        (our_spaces.MultiDiscrete((9, 11, 2)), jaxmarl_spaces.MultiDiscrete((9, 11, 2))),
    ]
    probes = {
        "Box": [np.full(7, 2.0, np.float32), np.full(7, 2.01, np.float32), -np.ones(7)],
        "Discrete": [0, 197, 198, -1],
        "MultiDiscrete": [np.asarray([8, 10, 1]), np.asarray([9, 0, 0]), np.asarray([0, 0, -1])],
    }
    for ours, theirs in pairs:
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        for k in range(3):
            key = jax.random.key(k)
            assert np.array_equal(ours.sample(key), theirs.sample(key))
        for x in probes[type(theirs).__name__]:
            assert bool(ours.contains(x)) == bool(theirs.contains(x)), (ours, x)
    with pytest.raises(ValueError, match="num_categories"):
        our_spaces.Discrete(-1)


# ---- restarts inside step -----------------------------------------------------------------


def test_step_restarts_a_won_game_and_reports_the_finished_one(env):
    _, state = env.reset_to(jax.random.key(0), winning_blast())
    key = jax.random.key(7)
    obs, after, reward, done, info = env.step(key, state, idle_actions(a0=BLAST))
    # done, reward and info describe the tick that ended the game ...
    assert bool(done["__all__"]) and all(bool(done[a]) for a in AGENT_NAMES)
    assert [float(reward[a]) for a in AGENT_NAMES] == [1.0] * 5 + [-1.0] * 5
    assert np.asarray(info["result"]).tolist() == [RESULT_A] * 10
    assert np.asarray(info["own_score"]).tolist() == [20] * 5 + [3] * 5
    assert np.asarray(info["enemy_score"]).tolist() == [3] * 5 + [20] * 5
    assert np.asarray(info["killed"]).tolist() == [False] * 5 + [True] + [False] * 4
    assert int(info["accepted"][0]) == BLAST and int(info["tick"][0]) == 1
    # ... while obs and state are a new game, the one `reset` draws from the step's second key.
    fresh_obs, fresh = env.reset(jax.random.split(key)[1])
    assert tree_equal(obs, fresh_obs) and tree_equal(after.game, fresh.game)
    assert int(after.game.tick) == 0 and bool(after.new_game)
    assert int(after.games_started) == int(state.games_started) + 1
    # The first tick of the new game says so in every agent's info.
    _, _, _, done, info = env.step(key, after, idle_actions())
    assert not bool(done["__all__"]) and np.asarray(info["new_game"]).all()


def test_step_restarts_into_a_given_reset_state_exactly(env):
    p = starting_position(47, horizon=4)
    p["tick"] = 3  # one tick from a draw by the clock
    _, ending = env.reset_to(jax.random.key(0), p)
    _, reset_state = env.reset(jax.random.key(5))
    obs, after, reward, done, info = env.step(None, ending, idle_actions(), reset_state)
    assert bool(done["__all__"]) and float(reward["a0"]) == 0.0
    assert np.asarray(info["result"]).tolist() == [RESULT_DRAW] * 10
    assert tree_equal(after, reset_state) and tree_equal(obs, env.get_obs(reset_state))
    # A running game is not replaced by the reset_state.
    _, running, _, done, _ = env.step(None, reset_state, idle_actions(), ending)
    assert not bool(done["__all__"]) and int(running.game.tick) == 1
    with pytest.raises(ValueError, match="key: .*reset_state"):
        env.step(None, ending, idle_actions())


# ---- JaxMARL's LogWrapper in a loop written as its IPPO baselines are ---------------------

NUM_ENVS, NUM_STEPS = 4, 12
NUM_ACTORS = NUM_ENVS * 10


def to_actors(per_agent: dict, agents: list[str]) -> jax.Array:
    """{agent: (envs, ...)} -> (agents * envs, -1), agent-major, as IPPO lays out actors."""
    return jnp.concatenate([per_agent[a].reshape(NUM_ENVS, -1) for a in agents], axis=0)


def from_actors(x: jax.Array, agents: list[str]) -> dict:
    """(agents * envs,) -> {agent: (envs, 1)}: the (..., 1) actions IPPO hands to step."""
    rows = x.reshape(len(agents), NUM_ENVS, 1)
    return {a: rows[i] for i, a in enumerate(agents)}


def test_log_wrapper_logs_episode_lengths_and_returns_across_restarts(env):
    """Four games start at different distances from their end: a win in one tick, draws by
    the clock in 2 and 3 ticks, and a fresh game (HORIZON); every later game is fresh."""
    wrapped = LogWrapper(env)
    keys = jax.random.split(jax.random.PRNGKey(0), NUM_ENVS)  # raw keys, as IPPO's
    _, log_state = jax.vmap(wrapped.reset)(keys)
    late, short = starting_position(47), starting_position(47, horizon=3)
    late["tick"] = late["horizon"] - 2
    starts = [env.reset_to(jax.random.key(0), p)[1] for p in (winning_blast(), late, short)]
    fresh = jax.tree.map(lambda x: x[3], log_state.env_state)
    env_state = jax.tree.map(lambda *xs: jnp.stack(xs), *starts, fresh)
    log_state = log_state.replace(env_state=env_state)
    obs = jax.vmap(env.get_obs)(env_state)
    a0_rows = jnp.arange(NUM_ACTORS) < NUM_ENVS  # agent-major: a0's actors come first

    def env_step(carry, key):
        log_state, obs = carry
        obs_batch = to_actors(obs, env.agents)
        assert obs_batch.shape == (NUM_ACTORS, OBS_WIDTH)
        action = jnp.where(a0_rows, BLAST, 0).astype(jnp.int32)  # the "policy"
        step_keys = jax.random.split(key, NUM_ENVS)
        obs, log_state, reward, done, info = jax.vmap(wrapped.step)(
            step_keys, log_state, from_actors(action, env.agents)
        )
        info = jax.tree.map(lambda x: x.reshape((NUM_ACTORS,)), info)
        out = (to_actors(reward, env.agents)[:, 0], to_actors(done, env.agents)[:, 0], info)
        return (log_state, obs), out

    rollout = jax.jit(lambda c, k: jax.lax.scan(env_step, c, jax.random.split(k, NUM_STEPS)))
    _, (reward, done, info) = rollout((log_state, obs), jax.random.PRNGKey(1))
    # reward and done are agent-major (IPPO's actors); info leaves, reshaped straight from
    # (envs, agents), are env-major: game g's agents are info rows 10 g .. 10 g + 9.
    reward, done = np.asarray(reward), np.asarray(done)
    info = {k: np.asarray(v) for k, v in info.items()}
    for g in range(NUM_ENVS):
        actors, rows = np.arange(g, NUM_ACTORS, NUM_ENVS), np.arange(10 * g, 10 * g + 10)
        ended = done[:, actors]
        assert (ended.all(axis=1) == ended.any(axis=1)).all()  # agents end together
        ended = ended[:, 0]
        assert np.array_equal(info["returned_episode"][:, rows], np.repeat(ended[:, None], 10, 1))
        # Episode ends follow from the starts' design, not from the wrapper's arithmetic.
        first = [1, 2, 3, HORIZON][g]
        assert [t + 1 for t in np.flatnonzero(ended)] == list(range(first, NUM_STEPS + 1, HORIZON))
        # What the wrapper logs at and after each end, against a plain recount of rewards.
        length, total = 0, np.zeros(10)
        logged_length, logged_total = 0, np.zeros(10)
        for t in range(NUM_STEPS):
            length, total = length + 1, total + reward[t, actors]
            if ended[t]:
                logged_length, logged_total = length, total
                length, total = 0, np.zeros(10)
            assert (info["returned_episode_lengths"][t, rows] == logged_length).all(), (g, t)
            assert np.allclose(info["returned_episode_returns"][t, rows], logged_total), (g, t)
        # The tick after each end is the first of a new game, for all ten agents.
        assert np.array_equal(info["new_game"][1:, rows].all(axis=1), ended[:-1])
        assert not info["new_game"][1:, rows].any(axis=1)[~ended[:-1]].any()
    # The win: team a's agents logged +1 and team b's -1 for game 0's first episode; its
    # later episodes (draws by the clock) logged 0, and so did every other game's.
    returns = info["returned_episode_returns"]
    assert returns[0, :10].tolist() == [1.0] * 5 + [-1.0] * 5
    assert (returns[-1] == 0).all() and (returns[:, 10:] == 0).all()
    assert info["returned_episode_lengths"][-1].tolist() == [HORIZON] * NUM_ACTORS


# ---- declared observation bounds hold at extreme settings --------------------------------

# As in test_properties.py: MARL_BGS_EXAMPLES asks for more (and fresh) random games; the
# default run (CI) draws the same examples every time.
SETTINGS = settings(
    max_examples=int(os.environ.get("MARL_BGS_EXAMPLES", "25")),
    derandomize="MARL_BGS_EXAMPLES" not in os.environ,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def contained(env: TeamDeathmatch, obs: dict) -> bool:
    return all(bool(env.observation_space(a).contains(obs[a])) for a in env.agents)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    horizon=st.sampled_from([1, 2, 300, 99_999, 100_000]),
    win=st.sampled_from([1, 2, 20, 999, 1000]),
    depth=st.sampled_from([0, 5, 10]),
    data=st.data(),
)
def test_observations_stay_in_the_declared_box(env, seed, horizon, win, depth, data):
    rng = np.random.default_rng(seed)
    p = random_position(rng, 47, horizon=horizon)
    p["winning_score"], p["red_zone_depth"] = win, depth
    top = win - 1 + MAX_GAIN_PER_TICK  # the most points a position may hold
    p["score"] = [data.draw(st.integers(0, top)) for _ in range(2)]
    p["tick"] = data.draw(st.integers(0, horizon))
    obs, state = env.reset_to(jax.random.key(0), p)
    assert contained(env, obs)
    for t in range(3):
        actions = env.sample_actions(jax.random.key(seed % 1000 + t), state)
        obs, state, _, _, _ = env.step(jax.random.key(t), state, actions)
        assert contained(env, obs), t


def test_fresh_games_at_extreme_options_stay_in_the_box():
    extreme = TeamDeathmatch(
        map_id=[0, 25, 51],
        num_envs=8,
        horizon=100_000,
        winning_score=[1, 1000],
        red_zone_depth=10,
    )
    obs, state = extreme.reset(jax.random.key(0))
    assert set(np.asarray(state.game.winning_score).tolist()) == {1, 1000}
    assert all(bool(extreme.observation_space(a).contains(obs[a])) for a in AGENT_NAMES)
    features = np.stack([np.asarray(obs[a]) for a in AGENT_NAMES])
    assert features.min() >= -1.0 and features.max() <= 1.2  # well inside the box


def test_the_numpy_engine_sees_the_same_bounded_numbers(env):
    p = copy.deepcopy(winning_blast())
    p.update(horizon=100_000, winning_score=1, score=[0, MAX_GAIN_PER_TICK])
    obs, _ = env.reset_to(jax.random.key(0), p)
    game = marl_bgs.Game(p)
    for team in (0, 1):
        ours = game.team_inputs(team).obs
        theirs = np.stack([np.asarray(obs[a]) for a in AGENT_NAMES[team * 5 : team * 5 + 5]])
        np.testing.assert_array_equal(ours, theirs)
        assert OBS_LOW <= ours.min() and ours.max() <= OBS_HIGH
