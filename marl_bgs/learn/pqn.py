"""Recurrent PQN with VDN mixing (Gallici et al., 2025; Sunehag et al., 2018), adapted from
JaxMARL's `pqn_vdn_rnn`: no replay buffer and no target network.

One update = a T-tick rollout of `num_envs` games with epsilon-greedy Team A
(`QRollout`), Peng's Q(lambda) returns of the team reward (x `reward_scale`) bootstrapped
from the VDN sum of each agent's best legal Q-value, then `epochs` passes over
`minibatches` groups of games, each replaying its sequences through the Q-network from
the memory they started with and regressing the VDN sum of the chosen actions' Q-values
onto the returns. Layer norm in the network is what keeps this stable without a target
network (PQN's point). The learning rate falls linearly to 0 over the run and epsilon
linearly from `eps_start` to `eps_finish` over `eps_decay_steps` game steps.

One difference from JaxMARL: the returns are computed once per update from the Q-values
recorded during the rollout (as the PQN paper's algorithm does), and the bootstrap of the
last tick is the state after it, so every tick of the rollout is trained on (JaxMARL
recomputes them with the current parameters in every minibatch and drops the last tick).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from ..registration import make
from .config import PQNVDNConfig
from .mixers import vdn
from .networks import init_actor, make_q_network
from .opponents import Pool, training_systems
from .q_rollout import QActing, QPolicy, QRollout
from .q_values import chosen_q, lambda_returns, replay_q, team_reward
from .rewards import make_reward_fn
from .rollout import Live, stat_metrics


class PQNState(NamedTuple):
    """The whole PQN learner: what a checkpoint holds and a resumed run continues from."""

    actor_params: Any  # the Q-network
    opt: Any
    key: Any
    live: Live
    update: Any
    steps: Any
    pool: Pool  # saved QPolicy copies (parameters and their epsilon)


class PQNLearner(QActing):
    """The compiled pieces for one PQN-VDN config (env, network, optimizer, init, update)."""

    def __init__(self, cfg: PQNVDNConfig, reward_fn: Callable | None = None) -> None:
        self.cfg = cfg
        self.env = make("tdm", num_envs=cfg.num_envs, **cfg.game_settings())
        self.nets = make_q_network(cfg.hidden, cfg.recurrent, cfg.layer_norm)
        steps = cfg.num_updates * cfg.epochs * cfg.minibatches
        lr = optax.linear_schedule(cfg.lr, 0.0, steps) if cfg.lr_decay else cfg.lr
        self.tx = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.radam(lr))
        self.lr = lr
        systems, partners, slots = training_systems(cfg)
        self.rollout = QRollout(cfg, self.env, self.nets, systems,
                                reward_fn or make_reward_fn(cfg), partners, slots)  # fmt: skip
        self.init = jax.jit(self._init)
        self.update = jax.jit(self._update)

    def _init(self, key: Any) -> PQNState:
        k_params, k_live, k_next = jax.random.split(key, 3)
        params = init_actor(self.nets, k_params)
        size = self.cfg.pool_size if self.cfg.uses_pool else 0
        return PQNState(
            params, self.tx.init(params), k_next, self.rollout.init_live(k_live),
            jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32),
            Pool.create(QPolicy(params, jnp.zeros((), jnp.float32)), size),
        )  # fmt: skip

    def _loss(self, params: Any, start: Any, traj: Any, target: Any) -> tuple[Any, Any]:
        q = replay_q(self.nets, params, start, traj)
        q_tot = vdn(chosen_q(q, traj.action), traj.mask)
        loss = jnp.mean((q_tot - target) ** 2)
        return loss, jnp.stack([loss, jnp.mean(q_tot)])

    def _update(self, ts: PQNState) -> tuple[PQNState, dict]:
        cfg = self.cfg
        key, k_roll, k_perm = jax.random.split(ts.key, 3)
        start = ts.live.memory.actor
        params_in = self.rollout_params(ts)
        live, traj, last_value, stats, by_opp = self.rollout.run(params_in, ts.live, k_roll)
        reward = team_reward(traj.reward, traj.mask) * cfg.reward_scale  # (T, N)
        next_value = jnp.concatenate([traj.value[1:], last_value[None]], 0).sum(-1)
        target = lambda_returns(reward, traj.done[..., 0], next_value, cfg.gamma, cfg.td_lambda)
        m, size = cfg.minibatches, cfg.num_envs // cfg.minibatches

        def groups(x, axis):
            x = x.reshape(x.shape[:axis] + (m, size) + x.shape[axis + 1 :])
            return jnp.moveaxis(x, axis, 0)

        def epoch(carry, k):
            perm = jax.random.permutation(k, cfg.num_envs)
            batches = (
                groups(jnp.take(start, perm, axis=0), 0),
                jax.tree.map(lambda x: groups(jnp.take(x, perm, axis=1), 1), traj),
                groups(jnp.take(target, perm, axis=1), 1),
            )

            def minibatch(carry, batch):
                params, opt = carry
                grads, info = jax.grad(self._loss, has_aux=True)(params, *batch)
                updates, opt = self.tx.update(grads, opt, params)
                return (optax.apply_updates(params, updates), opt), info

            return jax.lax.scan(minibatch, carry, batches)

        carry = (ts.actor_params, ts.opt)
        (params, opt), infos = jax.lax.scan(epoch, carry, jax.random.split(k_perm, cfg.epochs))
        info = infos.reshape(-1, 2).mean(0)
        eps = params_in[0].eps
        metrics = {
            "loss": info[0], "mean_q_tot": info[1], "epsilon": eps,
            "learning_rate": self._lr_at(ts.update), "mean_target": jnp.mean(target),
        }  # fmt: skip
        metrics.update(stat_metrics(stats, by_opp))
        steps, pool = self._pool_after(ts, params, eps, traj, metrics)
        new = PQNState(params, opt, key, live, ts.update + 1, steps, pool)
        return new, metrics

    def _lr_at(self, update: Any) -> Any:
        """The learning rate of an update's first gradient step."""
        if not callable(self.lr):
            return jnp.asarray(self.lr, jnp.float32)
        return self.lr(update * self.cfg.epochs * self.cfg.minibatches)
