"""Q-learning's small pieces: masked greedy and epsilon-greedy choice, the exploration
schedule, one-step double-Q TD targets and lambda-returns, and the Q-values of stored
sequences (`replay_q`, `chosen_q`), which both Q-learners train on.

Kept free of networks and environments, as `losses.py` is for PPO, so that each piece is
checked against a small example worked by hand. Q-values arrive already masked (illegal
actions at the lowest float32, `networks.mask_logits`), and every choice here masks again
from `avail`, so no path can pick an illegal action.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .logits import NEG


def masked_argmax(q: Any, avail: Any) -> Any:
    """The best legal action (…,) int32 of Q-values (…, A) under the legal mask `avail`."""
    return jnp.argmax(jnp.where(avail, q, NEG), axis=-1).astype(jnp.int32)


def masked_max(q: Any, avail: Any) -> Any:
    """The best legal action's Q-value (…,); 0 where no action is legal (an empty slot)."""
    best = jnp.max(jnp.where(avail, q, NEG), axis=-1)
    return jnp.where(avail.any(-1), best, 0.0)


def random_legal(key: Any, avail: Any) -> Any:
    """A uniformly drawn legal action per row (…,) int32."""
    return jax.random.categorical(key, jnp.where(avail, 0.0, NEG), axis=-1).astype(jnp.int32)


def epsilon_greedy(key: Any, q: Any, avail: Any, eps: Any) -> Any:
    """Epsilon-greedy over the legal actions: with probability `eps` a uniformly drawn legal
    action, else the greedy one. `eps` is a scalar or one value per game ((N,) against
    Q-values (N, 5, A)), so each game's Team B can play with its own saved epsilon."""
    k_pick, k_rand = jax.random.split(key)
    eps = jnp.asarray(eps, jnp.float32)
    eps = eps.reshape(eps.shape + (1,) * (q.ndim - 1 - eps.ndim))
    explore = jax.random.uniform(k_pick, q.shape[:-1]) < eps
    return jnp.where(explore, random_legal(k_rand, avail), masked_argmax(q, avail))


def linear_decay(start: float, finish: float, steps: int, t: Any) -> Any:
    """`start` falling linearly to `finish` over `steps` (then held), at `t`."""
    frac = jnp.clip(jnp.asarray(t, jnp.float32) / steps, 0.0, 1.0)
    return start + frac * (finish - start)


def double_q_next(online_q: Any, target_q: Any, avail: Any) -> Any:
    """Double Q-learning's next-state value per agent: the target network's Q-value of the
    online network's best legal action (0 where no action is legal)."""
    best = masked_argmax(online_q, avail)
    value = jnp.take_along_axis(target_q, best[..., None], axis=-1)[..., 0]
    return jnp.where(avail.any(-1), value, 0.0)


def td_targets(rewards: Any, dones: Any, next_values: Any, gamma: float) -> Any:
    """One-step targets y_t = r_t + gamma * (1 - done_t) * V_{t+1} (any matching shapes)."""
    return rewards + gamma * (1.0 - dones.astype(jnp.float32)) * next_values


def lambda_returns(rewards: Any, dones: Any, next_values: Any, gamma: float, lam: float) -> Any:
    """Peng's Q(lambda) returns over time-major arrays (T, ...), as PQN computes them.

    `next_values[t]` is the bootstrap value of the state after tick t (the max legal Q,
    summed over agents for VDN); `dones[t]` says the game ended at t, so nothing after it
    is bootstrapped:
        G_{T-1} = r_{T-1} + gamma * (1 - d_{T-1}) * V_T
        G_t = r_t + gamma * (1 - d_t) * ((1 - lam) * V_{t+1} + lam * G_{t+1}).
    """
    not_done = 1.0 - dones.astype(jnp.float32)
    last = rewards[-1] + gamma * not_done[-1] * next_values[-1]

    def back(g_next, x):
        r, nd, v_next = x
        g = r + gamma * nd * ((1.0 - lam) * v_next + lam * g_next)
        return g, g

    _, earlier = jax.lax.scan(
        back, last, (rewards[:-1], not_done[:-1], next_values[:-1]), reverse=True
    )
    return jnp.concatenate([earlier, last[None]], axis=0)


def team_reward(rewards: Any, mask: Any) -> Any:
    """One reward per game and tick (…,) from per-slot rewards (…, 5): the mean over the
    learner's slots (in the team form every slot already holds the team's reward)."""
    m = mask.astype(jnp.float32)
    return jnp.sum(rewards * m, -1) / jnp.maximum(m.sum(-1), 1.0)


def replay_q(nets: Any, params: Any, start: Any, traj: Any) -> Any:
    """Q-values (T, games, 5, 198) of stored sequences, replayed through the recurrent
    network from the memory `start` (games, 5, width) with the memory resets they were
    played with (a feedforward network takes the whole sequence in one pass)."""
    if nets.memory_width == 1:
        return nets.actor.apply(params, start, traj.x, traj.avail, traj.reset)[1]

    def step(mem, t):
        x, avail, reset = t
        return nets.actor.apply(params, mem, x, avail, reset)

    return jax.lax.scan(step, start, (traj.x, traj.avail, traj.reset))[1]


def chosen_q(q: Any, action: Any) -> Any:
    """The Q-value of each agent's played action (…, 5)."""
    return jnp.take_along_axis(q, action[..., None], axis=-1)[..., 0]
