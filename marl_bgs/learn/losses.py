"""GAE, the PPO clipped objectives, and running value normalisation.

Kept free of networks and environments so each piece can be checked against a small
example worked by hand.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp


def gae(
    rewards: Any, values: Any, dones: Any, last_value: Any, gamma: float, lam: float
) -> tuple[Any, Any]:
    """Advantages and returns over time-major arrays (T, ...).

    `dones[t]` says the game ended at step t, so step t+1's value (a new game) is not
    bootstrapped: delta_t = r_t + gamma * V_{t+1} * (1 - done_t) - V_t and
    A_t = delta_t + gamma * lam * (1 - done_t) * A_{t+1}.
    """
    not_done = 1.0 - dones.astype(jnp.float32)
    next_values = jnp.concatenate([values[1:], last_value[None]], axis=0)
    deltas = rewards + gamma * next_values * not_done - values

    def back(carry, x):
        delta, nd = x
        carry = delta + gamma * lam * nd * carry
        return carry, carry

    _, adv = jax.lax.scan(back, jnp.zeros_like(last_value), (deltas, not_done), reverse=True)
    return adv, adv + values


def masked_mean(x: Any, mask: Any) -> Any:
    mask = mask.astype(x.dtype)
    return jnp.sum(x * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def policy_loss(log_prob: Any, old_log_prob: Any, adv: Any, clip_eps: float, mask: Any):
    """PPO's clipped surrogate, to be minimised: -mean(min(ratio * A, clip(ratio) * A)).

    Also returns the approximate KL (mean of old - new log-probability) and the clip share.
    """
    ratio = jnp.exp(log_prob - old_log_prob)
    clipped = jnp.clip(ratio, 1.0 - clip_eps, 1.0 + clip_eps)
    loss = -masked_mean(jnp.minimum(ratio * adv, clipped * adv), mask)
    approx_kl = masked_mean(old_log_prob - log_prob, mask)
    clip_frac = masked_mean((jnp.abs(ratio - 1.0) > clip_eps).astype(jnp.float32), mask)
    return loss, approx_kl, clip_frac


def imitation_loss(log_probs: Any, label: Any, avail: Any, mask: Any) -> tuple[Any, Any]:
    """Cross-entropy to a teacher's choices, and how often the most likely choice is the
    teacher's: -mean(log pi(label)) over the decisions in `mask` where the label is legal
    and there was more than one legal choice (a forced choice teaches nothing).

    `log_probs` (..., A) are the masked policy's log-probabilities, `label` (...) the
    teacher's choices, `avail` (..., A) the legal ones.
    """
    legal = jnp.take_along_axis(avail, label[..., None], -1)[..., 0]
    counted = mask & legal & (avail.sum(-1) > 1)
    chosen = jnp.take_along_axis(log_probs, label[..., None], -1)[..., 0]
    loss = -masked_mean(jnp.where(counted, chosen, 0.0), counted)
    best = jnp.argmax(jnp.where(avail, log_probs, -jnp.inf), -1)
    return loss, masked_mean((best == label).astype(jnp.float32), counted)


def value_loss(value: Any, old_value: Any, target: Any, clip_eps: float, mask: Any) -> Any:
    """Clipped value loss: 0.5 * mean(max((v - R)^2, (v_old + clip(v - v_old) - R)^2))."""
    clipped = old_value + jnp.clip(value - old_value, -clip_eps, clip_eps)
    return 0.5 * masked_mean(jnp.maximum((value - target) ** 2, (clipped - target) ** 2), mask)


def normalize(x: Any, mask: Any) -> Any:
    """Standardise over the masked entries (advantage normalisation)."""
    mean = masked_mean(x, mask)
    var = masked_mean((x - mean) ** 2, mask)
    return (x - mean) / jnp.sqrt(var + 1e-8)


class ValueNorm(NamedTuple):
    """Running mean and variance of value targets (parallel-Welford merge of each batch)."""

    mean: Any
    var: Any
    count: Any

    @staticmethod
    def create() -> ValueNorm:
        return ValueNorm(jnp.zeros(()), jnp.ones(()), jnp.full((), 1e-4, jnp.float32))

    def update(self, x: Any, mask: Any) -> ValueNorm:
        m = mask.astype(jnp.float32)
        n = jnp.sum(m)
        b_mean = jnp.sum(x * m) / jnp.maximum(n, 1.0)
        b_var = jnp.sum(((x - b_mean) ** 2) * m) / jnp.maximum(n, 1.0)
        total = self.count + n
        delta = b_mean - self.mean
        mean = self.mean + delta * n / total
        m2 = self.var * self.count + b_var * n + delta**2 * self.count * n / total
        return ValueNorm(mean, m2 / total, total)

    @property
    def std(self) -> Any:
        return jnp.sqrt(jnp.maximum(self.var, 1e-8))

    def norm(self, x: Any) -> Any:
        return (x - self.mean) / self.std

    def denorm(self, x: Any) -> Any:
        return x * self.std + self.mean
