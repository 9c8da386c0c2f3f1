"""Masked sampling never picks an illegal action; recurrent memory resets on a new game."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
jnp = jax.numpy

from marl_bgs.learn.networks import (  # noqa: E402
    ACTOR_WIDTH,
    action_log_prob,
    entropy,
    init_params,
    make_networks,
)

N_ACT = 198


@pytest.fixture(scope="module")
def rec():
    nets = make_networks(16, True, "local")
    actor, _ = init_params(nets, jax.random.PRNGKey(1))
    return nets, actor


def test_masked_sampling_never_illegal(rec):
    nets, actor = rec
    k_mask, k_x, k_s = jax.random.split(jax.random.PRNGKey(0), 3)
    batch = 256
    # Sparse random masks (about 3% legal) with one legal choice forced per row.
    avail = jax.random.uniform(k_mask, (batch, N_ACT)) < 0.03
    avail = avail.at[:, 0].set(False).at[jnp.arange(batch), jnp.arange(batch) % N_ACT].set(True)
    x = 3.0 * jax.random.normal(k_x, (batch, ACTOR_WIDTH))  # large inputs, peaked logits
    mem = jnp.zeros((batch, 16))
    _, logits = nets.actor.apply(actor, mem, x, avail, jnp.ones(batch, bool))
    draws = jax.random.categorical(k_s, logits, axis=-1, shape=(64, batch))
    legal = np.take_along_axis(np.asarray(avail)[None], np.asarray(draws)[..., None], -1)
    assert legal.all()
    probs = jax.nn.softmax(logits)
    assert float(jnp.max(jnp.where(avail, 0.0, probs))) == 0.0
    ent = entropy(logits, avail)
    assert bool(jnp.all(jnp.isfinite(ent))) and bool(jnp.all(ent <= jnp.log(avail.sum(-1)) + 1e-4))

    def loss(p):
        _, lg = nets.actor.apply(p, mem, x, avail, jnp.ones(batch, bool))
        return jnp.mean(entropy(lg, avail)) + jnp.mean(action_log_prob(lg, draws[0]))

    grads = jax.grad(loss)(actor)
    assert all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))


def test_memory_resets_on_new_game(rec):
    nets, actor = rec
    x = jax.random.normal(jax.random.PRNGKey(2), (2, ACTOR_WIDTH))
    avail = jnp.ones((2, N_ACT), bool)
    old = jax.random.normal(jax.random.PRNGKey(3), (2, 16))
    reset = jnp.asarray([True, False])
    mem, logits = nets.actor.apply(actor, old, x, avail, reset)
    fresh_mem, fresh_logits = nets.actor.apply(actor, jnp.zeros((2, 16)), x, avail, reset)
    # Row 0 starts a new game: identical to starting from zero memory.
    np.testing.assert_array_equal(np.asarray(mem[0]), np.asarray(fresh_mem[0]))
    np.testing.assert_array_equal(np.asarray(logits[0]), np.asarray(fresh_logits[0]))
    # Row 1 continues its game: its past matters.
    assert not np.allclose(np.asarray(logits[1]), np.asarray(fresh_logits[1]))


def test_feedforward_and_world_critic_shapes():
    nets = make_networks(8, False, "world")
    actor, critic = init_params(nets, jax.random.PRNGKey(0))
    mem = jnp.zeros((3, 5, 1))
    _, v = nets.critic.apply(
        critic, mem, jnp.zeros((3, 5, nets.critic_width)), jnp.ones((3, 5), bool)
    )
    assert v.shape == (3, 5)
