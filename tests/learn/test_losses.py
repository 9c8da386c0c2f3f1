"""GAE, PPO's clipped losses and value normalisation against small hand-worked examples."""

from __future__ import annotations

import numpy as np
import pytest

jnp = pytest.importorskip("jax.numpy")
pytest.importorskip("optax")

from marl_bgs.learn.losses import ValueNorm, gae, policy_loss, value_loss  # noqa: E402


def test_gae_by_hand():
    # Three steps of one agent, the game ends at step 1 (so step 2 starts a new game).
    rewards = jnp.asarray([1.0, 2.0, 0.5])
    values = jnp.asarray([0.5, 1.0, 2.0])
    dones = jnp.asarray([False, True, False])
    last = jnp.asarray(4.0)
    gamma, lam = 0.5, 0.5
    # delta_2 = 0.5 + 0.5*4 - 2 = 0.5             A_2 = 0.5
    # delta_1 = 2 + 0 - 1 = 1 (done: no bootstrap) A_1 = 1
    # delta_0 = 1 + 0.5*1 - 0.5 = 1               A_0 = 1 + 0.25*1 = 1.25
    adv, ret = gae(rewards, values, dones, last, gamma, lam)
    np.testing.assert_allclose(np.asarray(adv), [1.25, 1.0, 0.5], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ret), [1.75, 2.0, 2.5], rtol=1e-6)


def test_gae_batched_axes_are_independent():
    rewards = jnp.asarray([[1.0, 0.0], [0.0, 1.0]])
    values = jnp.zeros((2, 2))
    adv, _ = gae(rewards, values, jnp.zeros((2, 2), bool), jnp.zeros(2), 1.0, 1.0)
    np.testing.assert_allclose(np.asarray(adv), [[1.0, 1.0], [0.0, 1.0]])


def test_policy_loss_by_hand():
    # ratios e^0.5 = 1.6487 (clipped to 1.2 with A > 0), 1 (A < 0), e^-1 = 0.3679 (A < 0:
    # min(0.3679 * -2, 0.8 * -2) = -1.6 clipped term wins), the last entry masked out.
    old = jnp.zeros(4)
    new = jnp.asarray([0.5, 0.0, -1.0, 3.0])
    adv = jnp.asarray([1.0, -1.0, -2.0, 100.0])
    mask = jnp.asarray([True, True, True, False])
    loss, kl, clip_frac = policy_loss(new, old, adv, 0.2, mask)
    expected = -(1.2 * 1.0 + 1.0 * -1.0 + 0.8 * -2.0) / 3
    assert float(loss) == pytest.approx(expected, rel=1e-6)
    assert float(kl) == pytest.approx((-0.5 + 0.0 + 1.0) / 3, rel=1e-6)
    assert float(clip_frac) == pytest.approx(2 / 3)


def test_value_loss_by_hand():
    value = jnp.asarray([1.0, 0.0])
    old = jnp.asarray([0.0, 0.0])
    target = jnp.asarray([2.0, 1.0])
    # entry 0: unclipped (1-2)^2 = 1, clipped (0.2-2)^2 = 3.24 -> 3.24; entry 1: 1 and 1.
    loss = value_loss(value, old, target, 0.2, jnp.ones(2, bool))
    assert float(loss) == pytest.approx(0.5 * (3.24 + 1.0) / 2, rel=1e-6)


def test_value_norm_tracks_mean_and_variance():
    vn = ValueNorm.create()
    data = np.asarray([1.0, 2.0, 3.0, 4.0, 10.0, -2.0], np.float32)
    vn = vn.update(jnp.asarray(data[:4]), jnp.ones(4, bool))
    vn = vn.update(jnp.asarray(data[4:]), jnp.ones(2, bool))
    assert float(vn.mean) == pytest.approx(data.mean(), rel=1e-3)
    assert float(vn.var) == pytest.approx(data.var(), rel=1e-3)
    x = jnp.asarray([0.3, 5.0])
    np.testing.assert_allclose(np.asarray(vn.denorm(vn.norm(x))), np.asarray(x), rtol=1e-5)
