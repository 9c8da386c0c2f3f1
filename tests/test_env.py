"""The JAX environment: conformance, masks, restarts, batching, information limits, compiles."""

from __future__ import annotations

import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import marl_bgs
from marl_bgs import Game
from marl_bgs.core.actions import MIRROR_FLAT, decode
from marl_bgs.core.observation import OBS_WIDTH, obs_layout
from marl_bgs.core.position import starting_position
from marl_bgs.core.state import AGENT_NAMES

from .gen import random_position
from .helpers import agent, count_traces, pillar, position, wall

N = 4


@pytest.fixture(scope="module")
def env():
    return marl_bgs.make("tdm", map_id=47, num_envs=N)


@pytest.fixture(scope="module")
def fns(env):
    """Compiled calls shared by every test (compiling is the slow part on a CPU)."""
    return {
        "reset": jax.jit(env.reset),
        "step": jax.jit(env.step),
        "reset_done": jax.jit(env.reset_done),
        "reset_to": env.reset_to,
        "sample": jax.jit(env.sample_actions),
        "avail": jax.jit(env.get_avail_actions),
    }


def positions(seed: int, count: int = N, **kw) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [random_position(rng, 47, **kw) for _ in range(count)]


def game(tree, g: int):
    """Game g of a batched tree."""
    return jax.tree.map(lambda x: x[g], tree)


def referee_slots(actions: dict, g: int, referee: Game) -> np.ndarray:
    """Game g's env actions (each agent's own frame) as the referee's compass actions."""
    ends = np.asarray(referee.state.spawn_end)
    slots = np.zeros((10, 3), np.int32)
    for i, a in enumerate(AGENT_NAMES):
        flat = int(actions[a][g])
        flat = int(MIRROR_FLAT[flat]) if ends[i // 5] == 1 else flat
        slots[i] = decode(flat)
    return slots


def tree_equal(a, b) -> bool:
    return all(jax.tree.leaves(jax.tree.map(lambda x, y: bool(np.array_equal(x, y)), a, b)))


def test_reset_and_step_shapes_and_dtypes(env, fns):
    obs, state = fns["reset"](jax.random.key(0))
    assert list(obs) == list(AGENT_NAMES) == list(env.agents)
    for a in AGENT_NAMES:
        assert obs[a].shape == (N, OBS_WIDTH) and obs[a].dtype == jnp.float32
    actions = fns["sample"](jax.random.key(1), state)
    assert all(actions[a].shape == (N,) and actions[a].dtype == jnp.int32 for a in AGENT_NAMES)
    obs, state, reward, done, info = fns["step"](jax.random.key(2), state, actions)
    assert set(reward) == set(AGENT_NAMES) and all(
        reward[a].dtype == jnp.float32 for a in AGENT_NAMES
    )
    assert set(done) == set(AGENT_NAMES) | {"__all__"} and done["__all__"].shape == (N,)
    assert done["__all__"].dtype == jnp.bool_
    assert info["result"].shape == (N,) and info["score"].shape == (N, 2)
    assert set(info["terminal_obs"]) == set(AGENT_NAMES) and set(info["new_game"]) == set(
        AGENT_NAMES
    )
    assert env.observation_space("a0").shape == (OBS_WIDTH,)
    assert env.action_space("b4").n == 198
    assert state.game.pos.shape == (N, 10, 2)


def test_observation_layout_adds_up():
    blocks = obs_layout()
    assert blocks[0]["offset"] == 0
    assert blocks[-1]["offset"] + blocks[-1]["width"] == OBS_WIDTH
    for prev, nxt in zip(blocks, blocks[1:], strict=False):
        assert prev["offset"] + prev["width"] == nxt["offset"]


def test_half_the_games_swap_spawn_ends(fns):
    _, state = fns["reset"](jax.random.key(0))
    assert np.asarray(state.game.spawn_end[:, 0]).tolist() == [0, 1, 0, 1]


def to_absolute(joint_agent_frame: np.ndarray, spawn_end_of_agent: int) -> np.ndarray:
    return (
        joint_agent_frame
        if spawn_end_of_agent == 0
        else joint_agent_frame[..., np.argsort(MIRROR_FLAT)]
    )


def test_masks_match_the_referee(fns):
    ps = positions(3)
    _, state = fns["reset_to"](jax.random.key(0), ps)
    avail = fns["avail"](state)
    for g, p in enumerate(ps):
        referee = Game(p).legal_actions().reshape(10, 198)
        ends = np.asarray(state.game.spawn_end[g])
        for i, a in enumerate(AGENT_NAMES):
            mine = np.asarray(avail[a][g])
            back = mine[np.argsort(MIRROR_FLAT)] if ends[i // 5] == 1 else mine
            assert np.array_equal(back, referee[i]), (g, a)


def test_sampled_actions_are_always_legal(fns):
    _, state = fns["reset_to"](jax.random.key(0), positions(4))
    avail = fns["avail"](state)
    for k in range(20):
        actions = fns["sample"](jax.random.key(k), state)
        for a in AGENT_NAMES:
            chosen = np.asarray(actions[a])
            assert np.asarray(avail[a])[np.arange(N), chosen].all()


def test_sampled_actions_are_uniform_over_legal_joint_choices(env, fns):
    """Every legal joint choice of every agent is drawn equally often (pooled chi-square)."""
    from scipy.stats import chi2

    _, state = fns["reset_to"](jax.random.key(0), positions(4))
    avail = {a: np.asarray(m) for a, m in fns["avail"](state).items()}
    draws = 3000
    keys = jax.random.split(jax.random.key(3), draws)
    many = jax.jit(jax.vmap(env.sample_actions, in_axes=(0, None)))(keys, state)
    statistic, freedom = 0.0, 0
    for a in AGENT_NAMES:
        chosen = np.asarray(many[a])  # (draws, N)
        for g in range(N):
            legal = np.flatnonzero(avail[a][g])
            counts = np.bincount(chosen[:, g], minlength=avail[a].shape[-1])
            assert counts[legal].sum() == draws, (a, g)  # never an illegal choice
            if len(legal) > 1:
                expected = draws / len(legal)
                statistic += float(((counts[legal] - expected) ** 2 / expected).sum())
                freedom += len(legal) - 1
    assert freedom > 100  # the positions give agents many legal choices
    assert chi2.sf(statistic, freedom) > 1e-6, (statistic, freedom)


# An authored map other than the env's own (map 47): a batch with it among its games tests
# each row against its own game's obstacles; a batch all on map 47 reads them as constants.
OTHER_MAP = {"obstacles": [pillar(10, 5, 1.0), wall(6, 3, 0.4, 3, 0.5), wall(14, 7, 2, 0.4)]}


@pytest.mark.parametrize("mixed", [False, True], ids=["all-on-map-47", "one-authored-map"])
def test_env_step_matches_the_referee(fns, mixed):
    """Stepping through the env equals the referee given the same (absolute) actions, with
    every game on the env's one map (`core.known_map`'s constants) and with a batch that
    holds another map (the row-by-row path)."""
    ps = positions(5)
    if mixed:
        ps[1] = random_position(np.random.default_rng(50), OTHER_MAP)
    _, state = fns["reset_to"](jax.random.key(0), ps)
    games = [Game(p) for p in ps]
    for t in range(6):
        actions = fns["sample"](jax.random.key(10 + t), state)
        _, state, _, _, _ = fns["step"](jax.random.key(0), state, actions)
        for g, referee in enumerate(games):
            if referee.done:
                continue
            referee.step_slots(referee_slots(actions, g, referee))
            for name, want in zip(referee.state._fields, referee.state, strict=True):
                got = np.asarray(getattr(state.game, name)[g])
                assert np.array_equal(got, want), (t, g, name)


def test_reset_done_restarts_only_finished_games(fns):
    ps = positions(6)
    ps[1] = copy.deepcopy(ps[1])
    ps[1]["tick"] = ps[1]["horizon"] = 10  # finished: a horizon draw
    _, state = fns["reset_to"](jax.random.key(0), ps)
    assert np.asarray(state.game.result).tolist()[1] == 2
    _, after = fns["reset_done"](jax.random.key(3), state)
    for g in (0, 2, 3):
        assert tree_equal(game(after, g), game(state, g))
    assert int(after.game.tick[1]) == 0 and bool(after.new_game[1])
    assert int(after.games_started[1]) == 2


def test_finished_games_stay_frozen_until_restarted(fns):
    ps = positions(7)
    ps[2] = copy.deepcopy(ps[2])
    ps[2]["tick"] = ps[2]["horizon"] = 10
    _, state = fns["reset_to"](jax.random.key(0), ps)
    actions = fns["sample"](jax.random.key(1), state)
    _, after, reward, done, _ = fns["step"](jax.random.key(0), state, actions)
    assert tree_equal(
        jax.tree.map(lambda x: x[2], after.game), jax.tree.map(lambda x: x[2], state.game)
    )
    assert bool(done["__all__"][2]) and float(reward["a0"][2]) == 0.0


def test_rewards_at_the_end(fns):
    p = position([agent("mage", 8, 5)], [agent("rogue", 10, 5, health=1)], score=[19, 3])
    _, state = fns["reset_to"](jax.random.key(0), p)
    actions = {a: jnp.zeros(N, jnp.int32) for a in AGENT_NAMES}
    actions["a0"] = jnp.full(N, (0 * 11 + 6) * 2, jnp.int32)  # Arcane Blast at enemy slot 0
    _, _, reward, done, info = fns["step"](jax.random.key(0), state, actions)
    assert np.asarray(info["result"]).tolist() == [0] * N
    assert np.asarray(done["__all__"]).all()
    assert np.asarray(reward["a0"]).tolist() == [1.0] * N
    assert np.asarray(reward["b0"]).tolist() == [-1.0] * N
    assert np.asarray(reward["a3"]).tolist() == [1.0] * N  # absent slots share the result


def test_actions_are_in_the_agents_own_frame(fns):
    p = position([agent("mage", 8, 5)], [agent("mage", 12, 5)], ends=("right", "left"))
    _, state = fns["reset_to"](jax.random.key(0), p)
    east = {a: jnp.full(N, 3 * 22, jnp.int32) for a in AGENT_NAMES}  # move 3 "east", no target
    _, state, _, _, _ = fns["step"](jax.random.key(0), state, east)
    # Team a starts on the right, so its "east" (toward the enemy) is toward smaller x.
    assert int(state.game.pos[0, 0, 0]) == 7000
    assert int(state.game.pos[0, 5, 0]) == 13000


def test_heads_and_flat_actions_are_the_same(env, fns):
    _, state = fns["reset_to"](jax.random.key(0), positions(8))
    flat = fns["sample"](jax.random.key(5), state)
    heads = {
        a: jnp.stack([flat[a] // 22, (flat[a] // 2) % 11, flat[a] % 2], -1) for a in AGENT_NAMES
    }
    one = fns["step"](jax.random.key(0), state, flat)[1]
    two = jax.jit(env.step)(jax.random.key(0), state, heads)[1]
    assert tree_equal(one, two)


def test_batched_and_single_game_envs_agree(fns):
    single = marl_bgs.make("tdm", map_id=47, num_envs=None)
    ps = positions(9)
    _, batched_state = fns["reset_to"](jax.random.key(0), ps)
    singles = [single.reset_to(jax.random.key(0), p)[1] for p in ps]
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *singles)
    assert tree_equal(stacked, batched_state)
    vstep = jax.jit(jax.vmap(single.step, in_axes=(None, 0, 0)))
    for t in range(4):
        actions = fns["sample"](jax.random.key(t), batched_state)
        _, batched_state, _, _, _ = fns["step"](jax.random.key(0), batched_state, actions)
        _, stacked, _, _, _ = vstep(jax.random.key(0), stacked, actions)
    assert tree_equal(stacked, batched_state)


def test_information_limits(fns):
    """Changing what team a cannot see leaves every team-a observation bit-identical."""
    hidden = [wall(10, 5, 0.5, 9.0)]  # a screen across the middle
    team_a = [agent("mage", 3, 5), agent("priest", 3, 2)]
    base = position(team_a, [agent("rogue", 16, 5), agent("hunter", 17, 8)], hidden)
    variants = [base]
    for change in (
        {"x": 15.5, "y": 3.0},
        {"health": 40},
        {"ultimate_cooldown": 12},
        {"effects": {"slow_poison": 3}},
        {"last_action": [4, 6, 0]},
    ):
        v = copy.deepcopy(base)
        v["teams"][1]["agents"][0].update(change)
        variants.append(v)
    obs, _ = fns["reset_to"](jax.random.key(0), variants[:N])
    obs2, _ = fns["reset_to"](jax.random.key(0), [variants[k] for k in (0, 4, 5, 1)])
    for o in (obs, obs2):
        for a in ("a0", "a1", "a2"):
            arr = np.asarray(o[a])
            assert all(np.array_equal(arr[0], arr[g]) for g in range(1, N)), a
    # ... while team b, which sees its own Rogue, does notice.
    arr = np.asarray(obs["b0"])
    assert not np.array_equal(arr[0], arr[1])


def test_visible_enemies_show_and_shielded_ones_hide(fns):
    seen = position([agent("mage", 8, 5)], [agent("rogue", 11, 5)])
    shielded = position([agent("mage", 8, 5)], [agent("rogue", 11, 5, shield=2)])
    obs, _ = fns["reset_to"](jax.random.key(0), [seen, shielded, seen, shielded])
    layout = {(b["block"], b["field"]): b for b in obs_layout()}
    known = layout[("unit 5 (enemy 0)", "known")]["offset"]
    o = np.asarray(obs["a0"])
    assert o[0, known] == 1.0 and o[1, known] == 0.0


def test_no_recompilation_for_new_maps_rosters_or_scores(env):
    step = jax.jit(env.step)
    sample = jax.jit(env.sample_actions)
    layouts = [
        [starting_position(47)] * N,
        [position([agent("rogue", 3, 3)], [agent("priest", 15, 3), agent("mage", 15, 6)],
                  [pillar(10, 5, 1.0), wall(5, 5, 0.3, 4, 0.6)], winning_score=7)] * N,
        positions(11) ,
    ]  # fmt: skip
    with count_traces() as traces:
        for ps in layouts:
            _, state = env.reset_to(jax.random.key(0), ps)
            step(jax.random.key(0), state, sample(jax.random.key(1), state))
    assert traces["step"] <= 1 and traces["sample_actions"] <= 1, traces


def test_listing_s1_loop_compiles_with_scan(fns, env):
    def body(carry, _):
        state, key = carry
        key, k_act, k_step, k_reset = jax.random.split(key, 4)
        actions = env.sample_actions(k_act, state)
        _, state, reward, _, _ = env.step(k_step, state, actions)
        _, state = env.reset_done(k_reset, state)
        return (state, key), reward["a0"]

    _, state = fns["reset"](jax.random.key(0))
    run = jax.jit(lambda s, k: jax.lax.scan(body, (s, k), None, length=12))
    (state, _), rewards = run(state, jax.random.key(1))
    assert rewards.shape == (12, N) and np.asarray(state.game.tick).min() >= 0


def test_world_state_and_team_inputs(env, fns):
    _, state = fns["reset_to"](jax.random.key(0), positions(12))
    world = jax.jit(env.world_state)(state)
    assert world.shape == (N, 2, OBS_WIDTH)
    inputs = env.team_inputs(state, 1)
    assert inputs.obs.shape == (N, 5, OBS_WIDTH)
    assert inputs.avail.shape == (N, 5, 198)
    assert np.array_equal(inputs.classes, state.game.cls[:, 5:])
    with pytest.raises(ValueError, match="team"):
        env.team_inputs(state, 2)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"map_id": 99}, "no map with id 99"),
        ({"rosters": [(["mage"], ["paladin"])]}, r"rosters\[0\]\[1\]\[0\]: unknown class"),
        ({"rosters": [(["mage"] * 6, ["mage"])]}, r"rosters\[0\]\[0\]"),
        ({"winning_score": 0}, "winning_score"),
        ({"horizon": 0}, "horizon"),
        ({"num_envs": 0}, "num_envs"),
        ({"metrics": "everything"}, "metrics"),
    ],
)
def test_bad_options_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        marl_bgs.make("tdm", **kwargs)
    with pytest.raises(ValueError, match="name"):
        marl_bgs.make("smax")


def test_bad_positions_in_reset_to_name_the_game(env):
    bad = starting_position(47)
    bad["teams"][0]["agents"][0]["class"] = "paladin"
    with pytest.raises(ValueError, match=r"positions\[2\]: teams\[0\].agents\[0\].class"):
        env.reset_to(
            jax.random.key(0), [starting_position(47)] * 2 + [bad] + [starting_position(47)]
        )
    with pytest.raises(ValueError, match="3 given for 4 games"):
        env.reset_to(jax.random.key(0), [starting_position(47)] * 3)


def test_priority_metrics_match_the_numpy_engine():
    env = marl_bgs.make("tdm", map_id=47, num_envs=N, metrics="priority")
    from marl_bgs.metrics import PRIORITY_NAMES, priority_record, priority_update, priority_vector

    ps = positions(21)
    _, state = env.reset_to(jax.random.key(0), ps)
    step, sample = jax.jit(env.step), jax.jit(env.sample_actions)
    games = [Game(p) for p in ps]
    expected = [priority_record(np.asarray(state.metrics[g])) for g in range(N)]
    for t in range(40):
        actions = sample(jax.random.key(100 + t), state)
        _, state, _, _, info = step(jax.random.key(0), state, actions)
        for g, referee in enumerate(games):
            if referee.done:
                continue
            tick_info = referee.step_slots(referee_slots(actions, g, referee))
            expected[g] = priority_update(np, expected[g], tick_info, referee.state, True)
    got = np.asarray(info["metrics"])
    assert got.shape == (N, len(PRIORITY_NAMES))
    assert np.array_equal(got, np.stack([priority_vector(np, e) for e in expected]))
    names = dict(zip(PRIORITY_NAMES, got.sum(axis=0), strict=True))
    assert names["damage_dealt_a"] + names["damage_dealt_b"] > 0


def test_obstacle_room_fits_the_maps_unless_a_capacity_is_asked_for():
    """Room for pillars and square walls (the sight test's groups) follows the env's maps by
    default, so a richer authored map is refused, naming the capacity; an asked capacity
    holds any map that fits it."""
    pillars = [pillar(6 + 0.9 * (i % 10), 1.5 + 7 * (i // 10), 0.3) for i in range(20)]
    rich = position([agent("rogue", 3, 5)], [agent("priest", 17, 5)], pillars)
    tight = marl_bgs.make("tdm", map_id=47, num_envs=2)
    with pytest.raises(ValueError, match=r"position\.map: .*20 pillars.*obstacle_capacity"):
        tight.reset_to(jax.random.key(0), rich)
    roomy = marl_bgs.make("tdm", map_id=47, num_envs=2, obstacle_capacity=(32, 8))
    _, state = roomy.reset_to(jax.random.key(0), rich)
    assert np.asarray(state.map.pillar_valid).sum(axis=1).tolist() == [20, 20]
    assert np.asarray(state.map.rect_valid).sum(axis=1).tolist() == [0, 0]
