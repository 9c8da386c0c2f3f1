"""The Q-learners' pieces against small examples worked by hand: TD targets, double-Q,
lambda-returns, the mixers, masked choices (never an illegal action) and the exploration
schedule; and the layer-normed network's NumPy forward against Flax. No env is compiled."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
jnp = jax.numpy

from marl_bgs.learn.mixers import QMixer, vdn  # noqa: E402
from marl_bgs.learn.networks import ACTOR_WIDTH, NUM_JOINT, Actor  # noqa: E402
from marl_bgs.learn.npz_policy import actor_forward, flax_to_weights, weight_shapes  # noqa: E402
from marl_bgs.learn.q_values import (  # noqa: E402
    double_q_next,
    epsilon_greedy,
    lambda_returns,
    linear_decay,
    masked_argmax,
    masked_max,
    td_targets,
    team_reward,
)


def test_td_targets_by_hand():
    r = jnp.array([1.0, -2.0, 0.5])
    done = jnp.array([False, True, False])
    nxt = jnp.array([10.0, 7.0, -4.0])
    # 1 + 0.9 * 10 = 10; -2 (the game ended: nothing bootstrapped); 0.5 + 0.9 * -4 = -3.1
    np.testing.assert_allclose(td_targets(r, done, nxt, 0.9), [10.0, -2.0, -3.1], rtol=1e-6)


def test_double_q_takes_the_target_value_of_the_online_best_legal_action():
    online = jnp.array([[1.0, 5.0, 3.0], [2.0, 0.0, 9.0], [0.0, 0.0, 0.0]])
    target = jnp.array([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0], [1.0, 2.0, 3.0]])
    avail = jnp.array([[True, False, True], [True, True, True], [False, False, False]])
    # Row 0: action 1 is best but illegal, so action 2 (3 > 1): target 30. Row 1: action 2,
    # 60. Row 2: nothing legal (an empty slot): 0.
    np.testing.assert_allclose(double_q_next(online, target, avail), [30.0, 60.0, 0.0])


def test_lambda_returns_by_hand():
    gamma, lam = 0.5, 0.5
    r = jnp.array([1.0, 2.0, 3.0])
    done = jnp.array([False, False, False])
    v_next = jnp.array([4.0, 8.0, 16.0])  # V(s1), V(s2), V(s3)
    # G2 = 3 + .5 * 16 = 11; G1 = 2 + .5 * (.5 * 8 + .5 * 11) = 6.75;
    # G0 = 1 + .5 * (.5 * 4 + .5 * 6.75) = 3.6875
    np.testing.assert_allclose(lambda_returns(r, done, v_next, gamma, lam), [3.6875, 6.75, 11.0])
    # A game ending at t=1: G1 = r1 (nothing after it), G0 bootstraps from it as before.
    done = jnp.array([False, True, False])
    np.testing.assert_allclose(lambda_returns(r, done, v_next, gamma, lam), [2.5, 2.0, 11.0])
    # lambda = 0 is the one-step TD target; lambda = 1 the discounted return to the end.
    np.testing.assert_allclose(
        lambda_returns(r, done * False, v_next, gamma, 0.0),
        td_targets(r, done * False, v_next, gamma),
    )
    np.testing.assert_allclose(
        lambda_returns(r, done * False, v_next, gamma, 1.0),
        [1 + 1 + 0.75 + 2.0, 2 + 1.5 + 4.0, 11.0],
    )


def test_lambda_returns_work_per_game():
    """Time-major (T, games): each column is its own game."""
    r = jnp.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    done = jnp.array([[False, True], [False, False], [False, False]])
    v = jnp.array([[4.0, 1.0], [8.0, 1.0], [16.0, 1.0]])
    got = lambda_returns(r, done, v, 0.5, 0.5)
    np.testing.assert_allclose(got[:, 0], [3.6875, 6.75, 11.0])
    np.testing.assert_allclose(got[0, 1], 0.0)  # ended at once: its reward alone


def test_vdn_and_team_reward_count_the_learners_slots_only():
    q = jnp.array([[1.0, 2.0, 3.0, 4.0, 5.0]])
    mask = jnp.array([[True, True, False, True, False]])
    np.testing.assert_allclose(vdn(q, mask), [7.0])
    np.testing.assert_allclose(team_reward(q, mask), [7.0 / 3])
    np.testing.assert_allclose(team_reward(q, mask & False), [0.0])


def test_the_mixer_is_monotonic_in_every_agent():
    mixer = QMixer(embed=8, hyper_hidden=16)
    params = mixer.init(jax.random.PRNGKey(0), jnp.zeros(5), jnp.zeros(12))
    keys = jax.random.split(jax.random.PRNGKey(1), 3)
    q = jax.random.normal(keys[0], (256, 5)) * 10
    world = jax.random.normal(keys[1], (256, 12)) * 3
    grads = jax.vmap(jax.grad(lambda q, w: mixer.apply(params, q, w)))(q, world)
    assert grads.shape == (256, 5)
    assert float(grads.min()) >= 0.0
    assert float(grads.max()) > 0.0
    # So raising any agent's Q never lowers Q_tot.
    up = mixer.apply(params, q + jax.nn.one_hot(2, 5) * 3.0, world)
    assert bool((up >= mixer.apply(params, q, world) - 1e-5).all())


def test_masked_choices_never_pick_an_illegal_action():
    key = jax.random.PRNGKey(0)
    k_q, k_a, k_e = jax.random.split(key, 3)
    q = jax.random.normal(k_q, (64, 5, NUM_JOINT)) * 100
    avail = jax.random.uniform(k_a, q.shape) < 0.05
    avail = avail.at[..., 0].set(True)  # staying still is always legal in the game
    q = jnp.where(avail, q, 1e9)  # illegal actions carry the largest values
    greedy = masked_argmax(q, avail)

    def legal(a):
        return np.take_along_axis(np.asarray(avail), np.asarray(a)[..., None], -1)

    assert legal(greedy).all()
    np.testing.assert_allclose(
        masked_max(q, avail),
        np.take_along_axis(np.asarray(q), np.asarray(greedy)[..., None], -1)[..., 0],
    )
    for eps in (0.0, 0.3, 1.0):
        for k in jax.random.split(k_e, 8):
            assert legal(epsilon_greedy(k, q, avail, eps)).all()
    # One epsilon per game: game 0 always explores, game 1 never does.
    eps = jnp.zeros(64).at[0].set(1.0)
    acts = epsilon_greedy(k_e, q, avail, eps)
    np.testing.assert_array_equal(np.asarray(acts[1:]), np.asarray(greedy[1:]))
    assert legal(acts).all()


def test_epsilon_decays_linearly_then_holds():
    assert float(linear_decay(1.0, 0.05, 100, 0)) == pytest.approx(1.0)
    assert float(linear_decay(1.0, 0.05, 100, 50)) == pytest.approx(0.525)
    assert float(linear_decay(1.0, 0.05, 100, 100)) == pytest.approx(0.05)
    assert float(linear_decay(1.0, 0.05, 100, 10_000)) == pytest.approx(0.05)


@pytest.mark.parametrize("recurrent", [True, False])
def test_the_layer_normed_network_runs_the_same_in_numpy(recurrent):
    """PQN's Q-network (LayerNorm after each hidden layer) exported by name gives Flax's
    Q-values from the NumPy forward pass."""
    hidden = 8
    actor = Actor(hidden, recurrent, norm=True)
    width = hidden if recurrent else 1
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(3, 5, ACTOR_WIDTH - 5)).astype(np.float32)
    classes = rng.integers(0, 5, (3, 5))
    avail = rng.random((3, 5, NUM_JOINT)) < 0.3
    reset = np.zeros((3, 5), bool)
    memory = rng.normal(size=(3, 5, width)).astype(np.float32)
    x = np.concatenate([obs, np.eye(5, dtype=np.float32)[classes]], -1)
    params = actor.init(jax.random.PRNGKey(2), memory, x, avail, reset)
    params = jax.tree.map(
        lambda p: p + 0.1 * jax.random.normal(jax.random.PRNGKey(3), p.shape), params
    )
    mem_flax, q_flax = actor.apply(params, memory, x, avail, reset)
    w = {k: np.asarray(v) for k, v in flax_to_weights(params, recurrent, norm=True).items()}
    assert {k: v.shape for k, v in w.items()} == weight_shapes(hidden, recurrent, norm=True)
    mem_np, q_np = actor_forward(np, w, recurrent, memory, obs, classes, avail, reset, norm=True)
    np.testing.assert_allclose(q_np, np.asarray(q_flax), rtol=2e-4, atol=2e-4)
    if recurrent:
        np.testing.assert_allclose(mem_np, np.asarray(mem_flax), rtol=2e-4, atol=2e-5)
