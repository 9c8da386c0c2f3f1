"""QMIX (learn/qmix.py) and its mixer (learn/mixers.py) on examples worked by hand: the
double-Q TD loss of Q_tot over the first T - 1 ticks (the learner's slots only, nothing
bootstrapped across a game's end, targets from the target networks at the online
networks' best legal actions); the mixer's formula with hand-set weights (absolute
hypernetwork weights, ELU); and the update's bookkeeping: whole rollouts stored per game
with their team reward, no learning before `learning_starts`, hard target copies every
`target_every` updates.

The loss is checked with stand-in networks whose Q-values are their inputs; the update with
a stand-in rollout, so no game is compiled."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
pytest.importorskip("flashbax")
jnp = jax.numpy

from marl_bgs.core.observation import OBS_WIDTH  # noqa: E402
from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.mixers import QMixer  # noqa: E402
from marl_bgs.learn.networks import ACTOR_WIDTH, NUM_JOINT  # noqa: E402
from marl_bgs.learn.q_rollout import QTransition  # noqa: E402
from marl_bgs.learn.qmix import QMIXLearner, Rollout1, qmix_loss  # noqa: E402
from marl_bgs.learn.rollout import Live, Memory  # noqa: E402


# ---- the loss ----------------------------------------------------------------------------
class InputIsQ:
    """A feedforward 'Q-network' whose Q-values are its input times `scale`."""

    def apply(self, params, memory, x, avail, reset):
        del avail, reset
        return memory, params["scale"] * x


class SumMixer:
    """A 'mixer': w * (sum of the agents' Q) + the world state's first entry."""

    def apply(self, params, q, world):
        return params["w"] * q.sum(-1) + world[..., 0]


def hand_batch() -> Rollout1:
    """Two games (B = 2) of three ticks, three actions, the learner in slots 0 and 1; slot 2
    is a partner whose Q-values (50) must never count. Game 1 ends at tick 0."""
    T, B, A = 3, 2, 3
    q = np.zeros((T, 5, A), np.float32)
    q[0, :3] = [[1, 2, 3], [0, 4, 1], [50, 50, 50]]
    q[1, :3] = [[2, 6, 1], [3, 0, 5], [50, 50, 50]]
    q[2, :3] = [[4, 1, 0], [1, 2, 7], [50, 50, 50]]
    avail = np.ones((T, 5, A), bool)
    avail[1, 0] = [True, False, True]  # the online best (6) is illegal
    avail[2, 0] = [False, True, True]
    avail[2, 1] = [True, True, False]
    action = np.zeros((T, 5), np.int32)
    action[:, :2] = [[2, 1], [0, 2], [0, 0]]  # chosen Q sums (slots 0-1): 7, 7, 5
    mask = np.zeros((T, 5), bool)
    mask[:, :2] = True
    world = np.array([[0.5], [-1.0], [2.0]], np.float32)
    reward = np.array([1.0, -0.5, 9.0], np.float32)  # the last tick's is never used
    done = np.zeros((T, B), bool)
    done[0, 1] = True

    def both(a):  # (T, ...) -> (T, B, ...): the two games share all but `done`
        return np.repeat(a[:, None], B, axis=1)

    return jax.tree.map(jnp.asarray, Rollout1(
        start=np.zeros((B, 5, 1), np.float32), x=both(q), world=both(world), avail=both(avail),
        reset=np.zeros((T, B, 5), bool), action=both(action), reward=both(reward), done=done,
        mask=both(mask),
    ))  # fmt: skip


# Online Q = x, target Q = -x; online mixer w = 1, target mixer w = 0.5; gamma 0.5, scale 2.
#   Q_tot (online, chosen, slots 0-1) = 7 + 0.5 = 7.5 (t0), 7 - 1 = 6 (t1)
#   next state t1: online best legal a0 -> action 0 (6 is illegal), target -2;
#                  a1 -> action 2, target -5;  mixed 0.5 * -7 + world(t1) -1 = -4.5
#   next state t2: a0 -> action 1 (0 is illegal), target -1; a1 -> action 1 (7 is illegal),
#                  target -2;  mixed 0.5 * -3 + world(t2) 2 = 0.5
#   game 0: y0 = 2 + .5 * -4.5 = -0.25, y1 = -1 + .5 * .5 = -0.75; errors 7.75, 6.75
#   game 1 (ended at t0): y0 = 2, y1 = -0.75; errors 5.5, 6.75
ERRORS = np.array([7.75, 6.75, 5.5, 6.75])
LOSS = float(np.mean(ERRORS**2))  # 45.359375


def test_qmix_loss_by_hand():
    nets = SimpleNamespace(actor=InputIsQ(), memory_width=1)
    params = ({"scale": 1.0}, {"w": 1.0})
    target = ({"scale": -1.0}, {"w": 0.5})
    loss, q_tot = qmix_loss(nets, SumMixer(), params, target, hand_batch(), 0.5, 2.0)
    assert LOSS == pytest.approx(45.359375)
    assert float(loss) == pytest.approx(LOSS, rel=1e-6)
    assert float(q_tot) == pytest.approx((7.5 + 6 + 7.5 + 6) / 4, rel=1e-6)


def test_qmix_loss_gradient_flows_through_the_online_q_tot_only():
    """dL/dw = mean(2 err * 7) (7: the chosen Q sum at t0 and t1), dL/dscale =
    mean(2 err * 7) too (Q_tot = scale * 7 + world); the targets are constants."""
    nets = SimpleNamespace(actor=InputIsQ(), memory_width=1)
    target = ({"scale": -1.0}, {"w": 0.5})

    def loss(params):
        return qmix_loss(nets, SumMixer(), params, target, hand_batch(), 0.5, 2.0)[0]

    grads = jax.grad(loss)(({"scale": 1.0}, {"w": 1.0}))
    expected = float(np.mean(2 * ERRORS * 7))  # 93.625
    assert float(grads[1]["w"]) == pytest.approx(expected, rel=1e-6)
    assert float(grads[0]["scale"]) == pytest.approx(expected, rel=1e-6)


# ---- the mixer -----------------------------------------------------------------------------
def hand_mixer_params():
    """Two agents, embed 1, every kernel 0 but b2's path from the world state w, so that
    W1 = |(-2, 3)| = (2, 3), b1 = -1, W2 = |-0.5| = 0.5, b2 = 4 relu(w_0) + 0.25, and
    Q_tot = 0.5 * elu(2 q1 + 3 q2 - 1) + 4 relu(w_0) + 0.25."""
    mixer = QMixer(embed=1, hyper_hidden=1)
    params = mixer.init(jax.random.PRNGKey(0), jnp.zeros(2), jnp.zeros(3))
    p = jax.tree.map(lambda x: np.zeros(x.shape, np.float32), params)["params"]
    p["w1"]["bias"][:] = [-2.0, 3.0]
    p["b1"]["bias"][:] = [-1.0]
    p["w2"]["bias"][:] = [-0.5]
    p["b2"]["bias"][:] = [0.25]
    p["b2_hidden"]["kernel"][0, 0] = 1.0
    p["b2"]["kernel"][0, 0] = 4.0
    return mixer, {"params": p}


def test_the_qmix_mixer_by_hand():
    mixer, params = hand_mixer_params()
    q = jnp.array([[1.0, 0.0], [0.0, 0.0], [-1.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
    world = jnp.array([[0, 0, 0], [0, 0, 0], [0, 0, 0], [1, 5, 5], [-1, 5, 5]], jnp.float32)
    expected = [
        0.5 * 1.0 + 0.25,  # elu(1) = 1
        0.5 * (math.exp(-1) - 1) + 0.25,  # elu(-1) = e^-1 - 1
        0.5 * 0.0 + 0.25,
        0.5 * 1.0 + 4.0 + 0.25,  # the world state moves the bias
        0.5 * 1.0 + 0.25,  # relu cuts a negative hypernetwork input
    ]
    np.testing.assert_allclose(mixer.apply(params, q, world), expected, rtol=1e-6, atol=1e-7)
    # Agent 1's raw weight is -2, yet raising its Q raises Q_tot (the weight's absolute
    # value): d Q_tot / d q1 = 0.5 * elu'(z) * 2, with elu'(z) = 1 for z > 0, e^z below.
    grad = jax.vmap(jax.grad(lambda q, w: mixer.apply(params, q, w)))(q, world)
    np.testing.assert_allclose(grad[:, 0], [1.0, math.exp(-1), 1.0, 1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(grad[:, 1], [1.5, 1.5 * math.exp(-1), 1.5, 1.5, 1.5], rtol=1e-6)


# ---- the update's bookkeeping --------------------------------------------------------------
T, N, HIDDEN = 3, 2, 8
# A replay of 4 rollouts (2 updates' games); learning from 4 stored, a target copy every 2.
CONFIG = [
    f"num_envs={N}", f"rollout_len={T}", f"hidden={HIDDEN}", "stage=1", "validate_every=0",
    "opponent_self=0", "opponent_pool=0", "opponent_fixed=0", "opponent_scripted=1",
    'scripted_opponents=["random"]', f"buffer_rows={4 * T}", "batch_size=2",
    "learning_starts=4", "target_every=2", "sgd_steps=1", "mixer_embed=4", "hyper_hidden=8",
    "lr=0.01", "total_steps=600", 'out="/tmp/unused"',
]  # fmt: skip
START = np.arange(N * 5 * HIDDEN, dtype=np.float32).reshape(N, 5, HIDDEN) / 100


class CountingRollout:
    """Stands in for `QRollout`: the k-th run (k = 0, 1, ...; counted in the live games'
    episode_return) returns the same random trajectory with every reward + 10 k, and leaves
    the Q-network's memory 1 higher than it found it (START + k before the k-th run)."""

    def __init__(self):
        rng = np.random.default_rng(0)
        avail = rng.random((T, N, 5, NUM_JOINT)) < 0.1
        avail[..., 0] = True
        mask = np.zeros((T, N, 5), bool)
        mask[..., :2] = True
        done = np.zeros((T, N, 5), bool)
        done[1, 0] = True
        self.traj = QTransition(
            x=rng.normal(size=(T, N, 5, ACTOR_WIDTH)).astype(np.float32),
            world=rng.normal(size=(T, N, OBS_WIDTH)).astype(np.float32),
            avail=avail, reset=np.zeros((T, N, 5), bool),
            action=np.zeros((T, N, 5), np.int32), value=np.zeros((T, N, 5), np.float32),
            reward=rng.normal(size=(T, N, 5)).astype(np.float32), done=done, mask=mask,
        )  # fmt: skip

    def init_live(self, key):
        del key
        start = jnp.asarray(START)
        return Live(None, Memory(start, start), None, jnp.zeros(N), None)

    def run(self, params, live, key):
        del params, key
        k = live.episode_return[0]
        traj = jax.tree.map(jnp.asarray, self.traj)
        traj = traj._replace(reward=traj.reward + 10.0 * k)
        memory = Memory(live.memory.actor + 1.0, live.memory.critic)  # as if played on
        live = live._replace(memory=memory, episode_return=live.episode_return + 1.0)
        return live, traj, None, jnp.zeros(8), jnp.zeros((3, 1))


@pytest.fixture(scope="module")
def updates():
    """Four updates of a learner playing the stand-in rollout: (learner, rollout, states
    (before the first, then after each), metrics of each)."""
    cfg = load_config(None, CONFIG, algo="qmix")
    learner = QMIXLearner(cfg)  # its own, not registry.learner_for's shared one
    rollout = CountingRollout()
    learner.rollout = rollout
    states = [learner.init(jax.random.PRNGKey(0))]
    metrics = []
    for _ in range(4):
        state, m = learner.update(states[-1])
        states.append(state)
        metrics.append({k: float(v) for k, v in m.items() if np.ndim(v) == 0})
    return learner, rollout, states, metrics


def leaves(tree):
    return [np.asarray(x) for x in jax.tree.leaves(tree)]


def same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(leaves(a), leaves(b), strict=True))


def test_each_game_is_stored_whole_with_its_team_reward(updates):
    """After update 3 the ring of 4 rollouts holds update 3's games in slots 0-1 (over
    update 1's) and update 2's in slots 2-3, each game's ticks in order, with the memory
    its rollout started from (not the one it ended with), the mean reward of the learner's slots and the game-level done."""
    _, rollout, states, metrics = updates
    assert [m["replay_rollouts"] for m in metrics] == [2.0, 4.0, 4.0, 4.0]
    items = jax.tree.map(lambda x: np.asarray(x)[0], states[3].buffer.experience)  # one row
    traj = rollout.traj
    for slot, (game, k) in enumerate([(0, 2), (1, 2), (0, 1), (1, 1)]):
        np.testing.assert_allclose(items.start[slot], START[game] + k, rtol=1e-6)
        np.testing.assert_array_equal(items.x[slot], traj.x[:, game])
        np.testing.assert_array_equal(items.world[slot], traj.world[:, game])
        np.testing.assert_array_equal(items.avail[slot], traj.avail[:, game])
        np.testing.assert_array_equal(items.mask[slot], traj.mask[:, game])
        np.testing.assert_array_equal(items.done[slot], [False, game == 0, False])
        team = [(traj.reward[t, game, 0] + traj.reward[t, game, 1]) / 2 + 10 * k
                for t in range(T)]  # fmt: skip
        np.testing.assert_allclose(items.reward[slot], team, rtol=1e-5)


def test_no_learning_before_the_replay_holds_learning_starts(updates):
    _, _, states, metrics = updates
    assert [m["learning"] for m in metrics] == [0.0, 1.0, 1.0, 1.0]
    assert metrics[0]["loss"] == 0.0
    assert all(m["loss"] > 0.0 for m in metrics[1:])
    online = [(s.actor_params, s.mixer_params) for s in states]
    assert same(online[1], online[0])  # update 1 stored 2 rollouts, fewer than 4
    assert not same(online[2], online[1]) and not same(online[3], online[2])
    assert [int(s.update) for s in states] == [0, 1, 2, 3, 4]
    assert [int(s.steps) for s in states] == [0, 6, 12, 18, 24]


def test_targets_are_hard_copies_every_target_every_updates(updates):
    """Target networks: the initial ones until update 2, then a copy of the online networks
    after update 2, kept through update 3, replaced after update 4."""
    _, _, states, _ = updates
    online = [(s.actor_params, s.mixer_params) for s in states]
    target = [s.target_params for s in states]
    assert same(target[0], online[0]) and same(target[1], target[0])
    assert same(target[2], online[2])
    assert same(target[3], target[2]) and not same(target[3], online[3])
    assert same(target[4], online[4]) and not same(target[4], target[3])
