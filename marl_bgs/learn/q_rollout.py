"""The Q-learners' rollout: `Rollout` with Team A acting epsilon-greedily from Q-values.

Everything else (opponent draws, the pool, partners, reward, statistics, auto-reset) is the
PPO rollout's own code. A Q policy is `QPolicy(params, eps)`: the Q-network's parameters and
the exploration it plays with. Team A's current weights and the self-play Team B play with
the current epsilon; the pool's copies (saved as `QPolicy` too) with the epsilon they were
saved with. Each tick records `QTransition`: what the losses replay, plus `value`, the best
legal Q-value of each learner agent (0 for partners and empty slots), which PQN's
lambda-returns bootstrap from and `Rollout.run` returns for the state after the last tick.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp

from ..env_state import EnvState
from .networks import actor_inputs
from .opponents import copies_due
from .q_values import epsilon_greedy, linear_decay, masked_max
from .rollout import Memory, Rollout


class QPolicy(NamedTuple):
    """Q-network parameters and the epsilon they act with (a () float; (N,) in a pool)."""

    params: Any
    eps: Any


class QActing:
    """What both Q learners share: the exploration schedule, and what their rollout plays
    with (the current Q-network at the current epsilon, and the pool of saved copies)."""

    cfg: Any

    def epsilon(self, steps: Any) -> Any:
        c = self.cfg
        return linear_decay(c.eps_start, c.eps_finish, c.eps_decay_steps, steps)

    def rollout_params(self, ts: Any) -> tuple:
        """What `Rollout.run` plays with: (policy, -, -, pool)."""
        return (QPolicy(ts.actor_params, self.epsilon(ts.steps)), None, None, ts.pool)

    def _pool_after(self, ts: Any, params: Any, eps: Any, traj: Any, metrics: dict) -> tuple:
        """The game steps and pool after an update (a copy saved when one is due), with the
        reward and pool size logged into `metrics`."""
        cfg = self.cfg
        metrics["mean_reward"] = jnp.sum(traj.reward * traj.mask) / jnp.maximum(traj.mask.sum(), 1)
        steps = ts.steps + cfg.steps_per_update
        pool = ts.pool
        if cfg.uses_pool:
            pool = pool.push(QPolicy(params, eps), copies_due(ts.steps, steps, cfg.pool_every))
        metrics["pool_copies"] = pool.count
        return steps, pool


class QTransition(NamedTuple):
    """One tick of Team A's decisions (each leaf (N, 5, ...) or (N, ...))."""

    x: Any  # actor inputs (N, 5, ACTOR_WIDTH)
    world: Any  # (N, OBS_WIDTH) Team A's world state (QMIX's mixer); (N, 1) zeros otherwise
    avail: Any  # (N, 5, 198)
    reset: Any  # (N, 5) first decision of a game: memory zeroed before it
    action: Any  # (N, 5)
    value: Any  # (N, 5) best legal Q-value of each learner agent (0 elsewhere)
    reward: Any  # (N, 5)
    done: Any  # (N, 5) the game ended at this tick
    mask: Any  # (N, 5) slot the learner plays (roster used, not a partner)


class QRollout(Rollout):
    """`Rollout` for a Q-network: epsilon-greedy over legal actions, never an illegal one."""

    transition_type = QTransition

    def __init__(self, *args: Any, world: bool = False, **kwargs: Any) -> None:
        """`world`: record Team A's world state each tick (QMIX's mixer reads it)."""
        super().__init__(*args, **kwargs)
        self.world = world

    def policy_parts(self, policy: QPolicy) -> tuple[Any, Any]:
        return policy.params, policy.eps

    def choose(self, key: Any, scores: Any, avail: Any, explore: Any) -> Any:
        eps = jnp.broadcast_to(jnp.asarray(explore, jnp.float32), scores.shape[:1])
        return epsilon_greedy(key, scores, avail, eps)

    def learner_step(self, actor_params: QPolicy, critic_params: Any, vnorm: Any,
                     memory: Memory, state: EnvState, inputs: Any, key: Any,
                     x: Any = None):  # fmt: skip
        """Team A's epsilon-greedy actions and best legal Q-values for one tick
        (`critic_params`, `vnorm` and `x` are unused: the signature is the PPO rollout's;
        the Q configs have no `nav_inputs`)."""
        del critic_params, vnorm, x
        reset = jnp.broadcast_to(state.new_game[:, None], inputs.present.shape)
        x = actor_inputs(inputs.obs, inputs.classes)
        mem, q = self.nets.actor.apply(actor_params.params, memory.actor, x, inputs.avail, reset)
        action = epsilon_greedy(key, q, inputs.avail, actor_params.eps)
        learner = inputs.present & self.learner_slots[None, :]
        value = jnp.where(learner, masked_max(q, inputs.avail), 0.0)
        if self.world:
            world = self.env.world_state(state)[:, 0]
        else:
            world = jnp.zeros((x.shape[0], 1))
        part = dict(x=x, world=world, avail=inputs.avail, reset=reset, action=action,
                    value=value, mask=inputs.present)  # fmt: skip
        return Memory(mem, memory.critic), part
