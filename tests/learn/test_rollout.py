"""The PPO rollout (learn/rollout.py) on real games: one compiled 7-tick run of two 2v2
games with a 3-tick horizon (so each game ends at ticks 2 and 5 and restarts), recurrent
IPPO against Random. Checked: the transitions' shapes, legal actions under the stored
masks, the `reset` flags on exactly the first tick of each game, the log-probabilities,
values and memories replayed from the stored resets, the bootstrap value of the state after
the run, the summed game statistics against the stored trajectory; and, without a game,
the partner slots and `stat_metrics`."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
jnp = jax.numpy

from marl_bgs.core.inputs import TeamInputs  # noqa: E402
from marl_bgs.core.observation import OBS_WIDTH  # noqa: E402
from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.losses import ValueNorm  # noqa: E402
from marl_bgs.learn.networks import ACTOR_WIDTH, NUM_JOINT, actor_inputs, init_params  # noqa: E402
from marl_bgs.learn.opponents import Pool, training_systems  # noqa: E402
from marl_bgs.learn.registry import learner_for  # noqa: E402
from marl_bgs.learn.rollout import STAT_NAMES, Rollout, stat_metrics  # noqa: E402

T, N, HIDDEN, HORIZON = 7, 2, 8, 3
CONFIG = [
    f"num_envs={N}", f"rollout_len={T}", f"hidden={HIDDEN}", "maps=[0]",
    'roster=["mage", "warrior"]', f"horizon={HORIZON}", "winning_score=50", "validate_every=0",
    "opponent_self=0", "opponent_pool=0", "opponent_fixed=0", "opponent_scripted=1",
    'scripted_opponents=["random"]', 'out="/tmp/unused"',
]  # fmt: skip
MEAN, STD = 2.0, 3.0  # the value norm the rollout plays with: value = 3 * critic + 2


@pytest.fixture(scope="module")
def played():
    """(rollout, params, live games before, and run's outputs as NumPy)."""
    cfg = load_config(None, CONFIG, algo="rec-ippo")
    rollout = learner_for(cfg).rollout
    actor, critic = init_params(rollout.nets, jax.random.PRNGKey(0))
    vnorm = ValueNorm(jnp.asarray(MEAN), jnp.asarray(STD**2), jnp.asarray(1.0))
    params = (actor, critic, vnorm, Pool.create(actor, 0))
    live = rollout.init_live(jax.random.PRNGKey(1))
    live_after, traj, last, stats, by_opp = jax.jit(rollout.run)(
        params, live, jax.random.PRNGKey(2)
    )
    traj = jax.tree.map(np.asarray, traj)
    return rollout, params, live, live_after, traj, np.asarray(last), np.asarray(stats), np.asarray(by_opp)  # fmt: skip


def test_transition_shapes(played):
    _, _, _, _, traj, last, stats, by_opp = played
    shapes = {k: v.shape for k, v in traj._asdict().items()}
    assert shapes == {
        "x": (T, N, 5, ACTOR_WIDTH), "world": (T, N, 1), "classes": (T, N, 5),
        "avail": (T, N, 5, NUM_JOINT), "reset": (T, N, 5), "action": (T, N, 5),
        "log_prob": (T, N, 5), "value": (T, N, 5), "reward": (T, N, 5), "done": (T, N, 5),
        "mask": (T, N, 5),
    }  # fmt: skip
    assert last.shape == (N, 5)
    assert stats.shape == (len(STAT_NAMES),)
    assert by_opp.shape == (3, 2)  # games, wins, losses x (self, random)


def test_actions_are_legal_and_the_mask_is_the_roster(played):
    """Every stored decision of the learner's two slots is legal under the stored mask, and
    its log-probability a real one; the empty slots 2-4 are out of the mask."""
    *_, traj, _, _, _ = played
    np.testing.assert_array_equal(traj.mask, np.broadcast_to([True, True, False, False, False],
                                                             (T, N, 5)))  # fmt: skip
    legal = np.take_along_axis(traj.avail, traj.action[..., None], -1)[..., 0]
    assert legal[traj.mask].all()
    lp = traj.log_prob[traj.mask]
    assert np.isfinite(lp).all() and (lp <= 0).all()
    # Two slots of a 2v2 team see different things (their own observations).
    assert not np.array_equal(traj.x[:, :, 0], traj.x[:, :, 1])


def test_reset_flags_mark_the_first_tick_of_every_game(played):
    """Games last 3 ticks: they end at ticks 2 and 5, and the ticks after an end (and the
    first tick of all) carry `reset` in every slot; `done` is the game's, in every slot."""
    *_, traj, _, _, _ = played
    ends = np.zeros((T, N), bool)
    ends[[2, 5]] = True
    firsts = np.zeros((T, N), bool)
    firsts[[0, 3, 6]] = True
    for s in range(5):
        np.testing.assert_array_equal(traj.done[..., s], ends)
        np.testing.assert_array_equal(traj.reset[..., s], firsts)


def test_log_probs_values_and_memory_replay_from_the_stored_resets(played):
    """The actor and critic stepped here over the stored inputs and resets, from the memory
    the games started with, give the stored log-probabilities and values (denormalised:
    3 * critic + 2), end with the memory the live games carry, and then give the returned
    bootstrap value for the state after the run."""
    rollout, params, live, live_after, traj, last, _, _ = played
    actor, critic = params[:2]
    nets = rollout.nets

    @jax.jit
    def step(mem_a, mem_c, x, avail, reset):
        mem_a, logits = nets.actor.apply(actor, mem_a, x, avail, reset)
        mem_c, value = nets.critic.apply(critic, mem_c, x, reset)  # the local critic: x
        return mem_a, mem_c, jax.nn.log_softmax(logits), value

    mem_a, mem_c = live.memory
    for t in range(T):
        mem_a, mem_c, logp, value = step(mem_a, mem_c, traj.x[t], traj.avail[t], traj.reset[t])
        chosen = np.take_along_axis(np.asarray(logp), traj.action[t][..., None], -1)[..., 0]
        m = traj.mask[t]
        np.testing.assert_allclose(chosen[m], traj.log_prob[t][m], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(STD * np.asarray(value) + MEAN, traj.value[t], rtol=1e-4,
                                   atol=1e-4)  # fmt: skip
    np.testing.assert_allclose(np.asarray(mem_a), np.asarray(live_after.memory.actor), atol=1e-5)
    np.testing.assert_allclose(np.asarray(mem_c), np.asarray(live_after.memory.critic), atol=1e-5)
    inputs = jax.jit(rollout.env.team_inputs, static_argnums=1)(live_after.env, 0)
    x = actor_inputs(inputs.obs, inputs.classes)
    reset = np.broadcast_to(np.asarray(live_after.env.new_game)[:, None], (N, 5))
    *_, value = step(mem_a, mem_c, x, inputs.avail, reset)
    np.testing.assert_allclose(STD * np.asarray(value) + MEAN, last, rtol=1e-4, atol=1e-4)


def test_statistics_sum_the_games_that_ended(played):
    """Four games ended (two per game slot), each after 3 ticks; the episode return of each
    is the sum over its ticks of the learner slots' mean reward; the games against Random
    are counted in its column; the live games carry the return of the tick after the last
    end (tick 6)."""
    *_, live_after, traj, _, stats, by_opp = played
    got = dict(zip(STAT_NAMES, stats, strict=True))
    assert got["games"] == 4.0
    assert got["wins"] + got["losses"] + got["draws"] == 4.0
    assert got["ticks"] == 4.0 * HORIZON
    assert got["invalid_actions"] == 0.0
    step_return = (traj.reward * traj.mask).sum(-1) / traj.mask.sum(-1)  # (T, N)
    returns, running = [], np.zeros(N)
    for t in range(T):
        running = running + step_return[t]
        returns += list(running[traj.done[t, :, 0]])
        running = np.where(traj.done[t, :, 0], 0.0, running)
    assert len(returns) == 4
    assert got["episode_return"] == pytest.approx(sum(returns), rel=1e-5, abs=1e-6)
    np.testing.assert_allclose(np.asarray(live_after.episode_return), running, rtol=1e-5)
    np.testing.assert_array_equal(by_opp[0], [0.0, 4.0])
    assert by_opp[1, 1] == got["wins"] and by_opp[2, 1] == got["losses"]


def test_partner_slots_play_the_partner_and_leave_the_loss_mask(played):
    """With `teammates` giving slot 1 to Random, the learner's actions stay in slots 0 and
    2-4 and slot 1 plays Random's (here the only legal action, 7), out of the mask."""
    rollout = played[0]
    cfg = rollout.cfg.replace(teammates=("", "random", "", "", ""))
    systems, partners, slots = training_systems(cfg)
    with_partner = Rollout(cfg, rollout.env, rollout.nets, systems, rollout.reward_fn, partners,
                           slots)  # fmt: skip
    rng = np.random.default_rng(0)
    avail = np.zeros((N, 5, NUM_JOINT), bool)
    avail[:, :, 3] = True
    avail[:, 1, 3], avail[:, 1, 7] = False, True
    present = np.ones((N, 5), bool)
    inputs = TeamInputs(rng.normal(size=(N, 5, OBS_WIDTH)).astype(np.float32), avail, present,
                        present, np.zeros((N, 5), np.int32), np.ones(N, bool))  # fmt: skip

    class State:  # the one field of EnvState the partner step reads
        new_game = jnp.ones(N, bool)

    live = with_partner.init_live(jax.random.PRNGKey(3))
    learner_actions = jnp.full((N, 5), 3, jnp.int32)
    actions, mask, _ = with_partner.partner_step(live, State(), inputs, learner_actions,
                                                 jnp.asarray(present), jax.random.PRNGKey(4))  # fmt: skip
    np.testing.assert_array_equal(np.asarray(actions), [[3, 7, 3, 3, 3]] * N)
    np.testing.assert_array_equal(np.asarray(mask), [[True, False, True, True, True]] * N)


def test_stat_metrics_names_each_sum():
    stats = jnp.arange(8.0)
    by_opp = jnp.array([[3.0, 4.0], [1.0, 2.0], [0.0, 1.0]])
    got = stat_metrics(stats, by_opp)
    assert {k: float(v) for k, v in got.items() if np.ndim(v) == 0} == {
        "games": 0.0, "games_wins": 1.0, "games_losses": 2.0, "games_draws": 3.0,
        "games_margin": 4.0, "games_episode_return": 5.0, "games_ticks": 6.0,
        "invalid_actions": 7.0,
    }  # fmt: skip
    np.testing.assert_array_equal(got["games_by_opponent"], [3.0, 4.0])
    np.testing.assert_array_equal(got["wins_by_opponent"], [1.0, 2.0])
    np.testing.assert_array_equal(got["losses_by_opponent"], [0.0, 1.0])
