"""PQN-VDN's update (learn/pqn.py) on trajectories worked by hand: the scaled team reward,
the lambda-returns bootstrapped from the next tick's VDN value (the last tick from the state
after the rollout), nothing bootstrapped across a game's end, every tick trained on; the
schedules it logs; and the epsilon-greedy acting of the rollout it builds.

The learner's rollout is replaced by a stand-in that returns a fixed trajectory, so no
game is compiled: only the update (a tiny Q-network) and one acting step."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
jnp = jax.numpy

from marl_bgs.core.inputs import TeamInputs  # noqa: E402
from marl_bgs.core.observation import OBS_WIDTH  # noqa: E402
from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.networks import ACTOR_WIDTH, NUM_JOINT, actor_inputs  # noqa: E402
from marl_bgs.learn.opponents import Pool  # noqa: E402
from marl_bgs.learn.pqn import PQNLearner, PQNState  # noqa: E402
from marl_bgs.learn.q_rollout import QPolicy, QTransition  # noqa: E402
from marl_bgs.learn.rollout import Live, Memory  # noqa: E402

T, N, HIDDEN = 3, 2, 8
GAMMA, LAM, SCALE, LR = 0.5, 0.5, 2.0, 0.05
# 100 updates of 2 games x 3 ticks: the learning rate falls from LR to 0 over 100 steps.
CONFIG = [
    f"num_envs={N}", f"rollout_len={T}", f"hidden={HIDDEN}", "stage=1", "validate_every=0",
    "opponent_self=0", "opponent_pool=0", "opponent_fixed=0", "opponent_scripted=1",
    'scripted_opponents=["random"]', "epochs=1", "minibatches=1", f"gamma={GAMMA}",
    f"td_lambda={LAM}", f"reward_scale={SCALE}", f"lr={LR}", "total_steps=600",
    "eps_start=1.0", "eps_finish=0.1", "eps_decay_steps=24", 'out="/tmp/unused"',
]  # fmt: skip


def hand_trajectory():
    """Two 2v2 games (learner slots 0 and 1; slot 2 holds a large reward the mask hides) over
    three ticks; game 1 ends at tick 1. `value[t]` is the summed best legal Q of the state
    tick t was played from (0 outside the learner's slots, as the rollout records it)."""
    reward = np.zeros((T, N, 5), np.float32)
    reward[:, :, 2] = 100.0  # not a learner slot
    reward[:, 0, :2] = [[1.0, 3.0], [0.0, 0.0], [1.0, 1.0]]  # team means 2, 0, 1
    reward[:, 1, :2] = [[1.0, 1.0], [-1.0, -1.0], [0.0, 1.0]]  # team means 1, -1, 0.5
    done = np.zeros((T, N, 5), bool)
    done[1, 1] = True
    value = np.zeros((T, N, 5), np.float32)
    value[:, 0, :2] = [[5.0, 5.0], [1.0, 3.0], [2.0, 2.0]]  # sums 10 (never used), 4, 4
    value[:, 1, :2] = [[7.0, 7.0], [1.0, 1.0], [3.0, 3.0]]  # sums 14 (never used), 2, 6
    last = np.zeros((N, 5), np.float32)
    last[0, :2] = [3.0, 5.0]  # V of the state after the rollout: 8
    last[1, :2] = [0.0, 4.0]  # 4
    mask = np.zeros((T, N, 5), bool)
    mask[..., :2] = True
    avail = np.zeros((T, N, 5, NUM_JOINT), bool)
    avail[..., :3] = True
    action = np.tile(np.array([0, 2, 0, 0, 0], np.int32), (T, N, 1))
    reset = np.zeros((T, N, 5), bool)
    reset[0] = True
    reset[2, 1] = True
    traj = QTransition(
        x=np.zeros((T, N, 5, ACTOR_WIDTH), np.float32), world=np.zeros((T, N, 1), np.float32),
        avail=avail, reset=reset, action=action, value=value, reward=reward, done=done,
        mask=mask,
    )  # fmt: skip
    return jax.tree.map(jnp.asarray, traj), jnp.asarray(last)


# By hand, G_t = r_t + gamma (1 - d_t) ((1 - lam) V_{t+1} + lam G_{t+1}), r = 2 x team mean:
#   game 0: r = 4, 0, 2; V1..V3 = 4, 4, 8
#     G2 = 2 + .5 * 8 = 6;  G1 = 0 + .5 * (.5 * 4 + .5 * 6) = 2.5
#     G0 = 4 + .5 * (.5 * 4 + .5 * 2.5) = 5.625
#   game 1: r = 2, -2, 1; V1..V3 = 2, 6, 4; the game ends at tick 1
#     G2 = 1 + .5 * 4 = 3;  G1 = -2 (nothing after the end);  G0 = 2 + .5 * (.5 * 2 + .5 * -2) = 2
TARGETS = np.array([[5.625, 2.0], [2.5, -2.0], [6.0, 3.0]])


class FixedRollout:
    """Stands in for `QRollout`: every run returns the same trajectory, games unchanged."""

    def __init__(self, traj, last):
        self.traj, self.last = traj, last

    def run(self, params, live, key):
        del params, key
        stats, by_opp = jnp.zeros(8), jnp.zeros((3, 1))
        return live, self.traj, self.last, stats, by_opp


@pytest.fixture(scope="module")
def learner():
    cfg = load_config(None, CONFIG, algo="pqn-vdn")
    learner = PQNLearner(cfg)  # its own, not registry.learner_for's shared one
    learner.rollout_real = learner.rollout
    learner.rollout = FixedRollout(*hand_trajectory())
    return learner


def zero_state(learner, update=0, steps=0):
    """A state whose Q-network has every parameter 0: every legal Q-value is then 0."""
    params = jax.tree.map(jnp.zeros_like, learner.nets.actor.init(
        jax.random.PRNGKey(0), jnp.zeros((5, HIDDEN)), jnp.zeros((5, ACTOR_WIDTH)),
        jnp.ones((5, NUM_JOINT), bool), jnp.ones(5, bool),
    ))  # fmt: skip
    zeros = jnp.zeros((N, 5, HIDDEN))
    live = Live(None, Memory(zeros, zeros), None, jnp.zeros(N), None)
    pool = Pool.create(QPolicy(params, jnp.zeros((), jnp.float32)), 0)
    return PQNState(params, learner.tx.init(params), jax.random.PRNGKey(1), live,
                    jnp.asarray(update, jnp.int32), jnp.asarray(steps, jnp.int32), pool)  # fmt: skip


def test_targets_are_the_hand_worked_lambda_returns(learner):
    """With every Q-value 0, VDN's Q_tot is 0, so the loss is the mean squared target over
    all 2 x 3 decisions (the last tick included) and the logged mean target their mean."""
    _, metrics = learner.update(zero_state(learner))
    assert float(metrics["mean_target"]) == pytest.approx(TARGETS.mean(), rel=1e-6)
    assert float(metrics["loss"]) == pytest.approx((TARGETS**2).mean(), rel=1e-6)
    assert float(metrics["mean_q_tot"]) == 0.0
    # The logged reward is the per-slot mean over the learner's slots, unscaled.
    assert float(metrics["mean_reward"]) == pytest.approx(3.5 / 6, rel=1e-6)


def test_the_update_follows_its_schedules(learner):
    """Epsilon (what the rollout plays with): 1 -> 0.1 over 24 game steps, at 12 steps 0.55; the learning
    rate falls linearly over the run's 100 gradient steps, at update 50 half of LR; each
    update adds its 2 x 3 game steps and counts one update."""
    new, metrics = learner.update(zero_state(learner, update=50, steps=12))
    assert float(metrics["epsilon"]) == pytest.approx(0.55, rel=1e-6)
    assert float(metrics["learning_rate"]) == pytest.approx(LR / 2, rel=1e-6)
    assert int(new.update) == 51 and int(new.steps) == 18
    _, late = learner.update(zero_state(learner, update=0, steps=10_000))
    assert float(late["epsilon"]) == pytest.approx(0.1, rel=1e-6)  # held after the decay
    assert float(late["learning_rate"]) == pytest.approx(LR, rel=1e-6)


def test_repeated_updates_regress_q_tot_onto_the_targets(learner):
    """The targets of the fixed trajectory do not move (its values are recorded), so each
    update's gradient step brings the VDN sum of the chosen Q-values closer: the loss falls
    from its value at Q = 0 and Q_tot rises toward the positive mean target."""
    state = zero_state(learner)
    losses, q_tots = [], []
    for _ in range(6):
        state, metrics = learner.update(state)
        losses.append(float(metrics["loss"]))
        q_tots.append(float(metrics["mean_q_tot"]))
    assert losses[0] == pytest.approx((TARGETS**2).mean(), rel=1e-6)
    assert losses[-1] < losses[0] and q_tots[-1] > 0.0
    assert all(b <= a for a, b in zip(losses, losses[1:], strict=False)), losses


def test_acting_picks_legal_actions_and_records_the_best_legal_q(learner):
    """PQN's rollout acts epsilon-greedily: at epsilon 0 each agent's best legal Q-value's
    action (worked out here from the network's Q-values), at epsilon 1 a random legal one,
    never an illegal one; `value` is the best legal Q of present slots, 0 for empty ones."""
    rollout = learner.rollout_real
    rng = np.random.default_rng(0)
    games = 16
    obs = rng.normal(0, 2, (games, 5, OBS_WIDTH)).astype(np.float32)
    avail = rng.random((games, 5, NUM_JOINT)) < 0.05
    avail[:, :, 0] = True  # staying still is always legal
    present = np.ones((games, 5), bool)
    present[:, 3:] = False  # a 3v3 roster
    avail[:, 3:] = False
    avail[:, 3:, 0] = True
    classes = rng.integers(0, 5, (games, 5)).astype(np.int32)
    new_game = np.ones(games, bool)
    inputs = TeamInputs(obs, avail, present, present, classes, new_game)
    params = learner.nets.actor.init(
        jax.random.PRNGKey(3), jnp.zeros((5, HIDDEN)), jnp.zeros((5, ACTOR_WIDTH)),
        jnp.ones((5, NUM_JOINT), bool), jnp.ones(5, bool),
    )  # fmt: skip
    params = jax.tree.map(lambda p: p + jax.random.normal(jax.random.PRNGKey(4), p.shape), params)

    class State:  # the one field of EnvState the learner's step reads (PQN has no world)
        pass

    state = State()
    state.new_game = jnp.asarray(new_game)
    memory = Memory(jnp.zeros((games, 5, HIDDEN)), jnp.zeros((games, 5, 1)))
    x = actor_inputs(jnp.asarray(obs), jnp.asarray(classes))
    _, q = learner.nets.actor.apply(params, memory.actor, x, jnp.asarray(avail),
                                    jnp.ones((games, 5), bool))  # fmt: skip
    q = np.where(avail, np.asarray(q), -np.inf)
    best = q.argmax(-1)
    for eps, seed in ((0.0, 5), (1.0, 6)):
        policy = QPolicy(params, jnp.asarray(eps, jnp.float32))
        _, part = rollout.learner_step(policy, None, None, memory, state, inputs,
                                       jax.random.PRNGKey(seed))  # fmt: skip
        acts = np.asarray(part["action"])
        assert np.take_along_axis(avail, acts[..., None], -1).all()
        if eps == 0.0:
            np.testing.assert_array_equal(acts, best)
            np.testing.assert_allclose(np.asarray(part["value"])[:, :3], q.max(-1)[:, :3],
                                       rtol=1e-5)  # fmt: skip
            np.testing.assert_array_equal(np.asarray(part["value"])[:, 3:], 0.0)
        else:  # random legal choices: some agents leave the greedy action
            assert (acts[:, :3] != best[:, :3]).any()
        np.testing.assert_array_equal(np.asarray(part["mask"]), present)
        assert np.asarray(part["reset"]).all()
