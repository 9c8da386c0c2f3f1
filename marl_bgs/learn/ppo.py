"""The PPO update as one compiled function: the learner of the four PPO baselines.

One update = a T-tick rollout of `num_envs` games (`Rollout.run`), GAE, then `epochs`
passes over `minibatches` groups of games, each replaying its sequences through the
networks with the same memory resets as when they were played, all inside one `jax.jit`.
`trainer.train` runs it (as it runs every learner of `registry.ALGORITHMS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from ..registration import make
from .config import PPOConfig
from .losses import ValueNorm, gae, masked_mean, normalize, policy_loss, value_loss
from .networks import Networks, action_log_prob, entropy, init_params, make_networks
from .opponents import Pool, copies_due, training_systems
from .rewards import make_reward_fn
from .rollout import Live, Memory, Rollout, critic_inputs, stat_metrics

LOSS_NAMES = ("loss", "actor_loss", "value_loss", "entropy", "approx_kl", "clip_frac")


class PPOState(NamedTuple):
    """The whole PPO learner: what a checkpoint holds and a resumed run continues from."""

    actor_params: Any
    critic_params: Any
    actor_opt: Any
    critic_opt: Any
    value_norm: ValueNorm
    key: Any  # raw uint32 PRNG key
    live: Live
    update: Any  # () int32 updates done
    steps: Any  # () int32 game steps played
    pool: Pool  # saved copies of the actor (size 0 when the config uses no pool)


class PPOLearner:
    """The compiled pieces of the four PPO baselines for one config (env, networks,
    optimizers, init and update): a `registry.Learner`."""

    def __init__(self, cfg: PPOConfig, reward_fn: Callable | None = None) -> None:
        self.cfg = cfg
        self.env = make("tdm", num_envs=cfg.num_envs, **cfg.game_settings())
        self.nets: Networks = make_networks(cfg.hidden, cfg.recurrent, cfg.critic, cfg.network,
                                            cfg.embed, cfg.nav_inputs)  # fmt: skip
        self.actor_tx = optax.chain(
            optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(cfg.actor_lr, eps=1e-5)
        )
        self.critic_tx = optax.chain(
            optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(cfg.critic_lr, eps=1e-5)
        )
        systems, partners, learner_slots = training_systems(cfg)
        self.rollout = self._make_rollout(systems, reward_fn or make_reward_fn(cfg), partners,
                                          learner_slots)  # fmt: skip
        self.init = jax.jit(self._init)
        self.update = jax.jit(self._update)

    loss_names: tuple[str, ...] = LOSS_NAMES

    def _make_rollout(self, systems: list, reward_fn: Callable, partners: Any,
                      learner_slots: Any) -> Rollout:  # fmt: skip
        return Rollout(self.cfg, self.env, self.nets, systems, reward_fn, partners,
                       learner_slots)  # fmt: skip

    # ---- start ---------------------------------------------------------------------------
    def _init(self, key: Any) -> PPOState:
        k_params, k_live, k_next = jax.random.split(key, 3)
        actor, critic = init_params(self.nets, k_params)
        return PPOState(
            actor, critic, self.actor_tx.init(actor), self.critic_tx.init(critic),
            ValueNorm.create(), k_next, self.rollout.init_live(k_live),
            jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32),
            Pool.create(actor, self.cfg.pool_size if self.cfg.uses_pool else 0),
        )  # fmt: skip

    def rollout_params(self, ts: PPOState) -> tuple:
        """What `Rollout.run` plays with: (actor, critic, value norm, pool)."""
        return (ts.actor_params, ts.critic_params, ts.value_norm, ts.pool)

    # ---- the loss of one minibatch -------------------------------------------------------
    def _loss(self, params: tuple, start: Memory, traj, adv, target, vnorm: ValueNorm,
              coefs: Any = None):  # fmt: skip
        """`coefs`: what `_loss_coefs` gives for this update (PPO has none)."""
        del coefs
        logits, value = self._replay(*params, start, traj)
        a_loss, v_loss, ent, kl, clip_frac = self._ppo_terms(logits, value, traj, adv, target,
                                                             vnorm, traj.mask)  # fmt: skip
        loss = a_loss - self.cfg.ent_coef * ent + self.cfg.vf_coef * v_loss
        return loss, jnp.stack([loss, a_loss, v_loss, ent, kl, clip_frac])

    def _ppo_terms(self, logits: Any, value: Any, traj, adv: Any, target: Any,
                   vnorm: ValueNorm, actor_mask: Any) -> tuple:  # fmt: skip
        """PPO's clipped actor term over `actor_mask` (advantages normalised there), its
        entropy and clipped value terms over every live decision, and the actor's KL and
        clip fraction: (actor, value, entropy, kl, clip fraction). Learners that add terms
        (kickstarting) call this, so PPO's part is written once."""
        cfg = self.cfg
        log_prob = action_log_prob(logits, traj.action)
        if cfg.normalize_advantages:
            adv = normalize(adv, actor_mask)
        a_loss, kl, clip_frac = policy_loss(log_prob, traj.log_prob, adv, cfg.clip_eps,
                                            actor_mask)  # fmt: skip
        ent = masked_mean(entropy(logits, traj.avail), traj.mask)
        if cfg.value_norm:
            old_value, target = vnorm.norm(traj.value), vnorm.norm(target)
        else:
            old_value = traj.value
        v_loss = value_loss(value, old_value, target, cfg.clip_eps, traj.mask)
        return a_loss, v_loss, ent, kl, clip_frac

    def _replay(self, actor_params: Any, critic_params: Any, start: Memory, traj):
        """Logits and values of a minibatch's sequences (T, games, 5, ...), replayed with
        the memory resets they were played with.

        Feedforward networks take the whole sequence in one pass (one large matrix product
        per layer); recurrent ones step through time. (Running a recurrent network's input
        layer over the whole sequence before the time loop was measured too: +5% update
        rate at 64 games, -7% at 256, so it was left out.)
        """
        cfg, nets = self.cfg, self.nets
        if not cfg.recurrent:
            cx = critic_inputs(cfg, traj.x, traj.world, traj.classes)
            _, logits = nets.actor.apply(actor_params, start.actor, traj.x, traj.avail,
                                         traj.reset)  # fmt: skip
            _, value = nets.critic.apply(critic_params, start.critic, cx, traj.reset)
            return logits, value

        def step(mem: Memory, t):
            a_mem, logits = nets.actor.apply(actor_params, mem.actor, t.x, t.avail, t.reset)
            cx = critic_inputs(cfg, t.x, t.world, t.classes)
            c_mem, value = nets.critic.apply(critic_params, mem.critic, cx, t.reset)
            return Memory(a_mem, c_mem), (logits, value)

        _, (logits, value) = jax.lax.scan(step, start, traj)
        return logits, value

    # ---- one update ----------------------------------------------------------------------
    def _update(self, ts: PPOState) -> tuple[PPOState, dict]:
        cfg = self.cfg
        key, k_roll, k_perm = jax.random.split(ts.key, 3)
        start = ts.live.memory
        live, traj, last_value, stats, by_opp = self.rollout.run(
            self.rollout_params(ts), ts.live, k_roll
        )
        coefs = self._loss_coefs(ts)
        adv, target = gae(traj.reward, traj.value, traj.done, last_value, cfg.gamma,
                          cfg.gae_lambda)  # fmt: skip
        vnorm = ts.value_norm.update(target, traj.mask) if cfg.value_norm else ts.value_norm
        m = cfg.minibatches
        size = cfg.num_envs // m

        def groups(x, axis):
            """Games axis `axis` -> a leading (m,) axis of groups, time-major inside."""
            x = x.reshape(x.shape[:axis] + (m, size) + x.shape[axis + 1 :])
            return jnp.moveaxis(x, axis, 0)

        def epoch(carry, k):
            perm = jax.random.permutation(k, cfg.num_envs)
            batches = (
                jax.tree.map(lambda x: groups(jnp.take(x, perm, axis=0), 0), start),
                jax.tree.map(lambda x: groups(jnp.take(x, perm, axis=1), 1), traj),
                groups(jnp.take(adv, perm, axis=1), 1),
                groups(jnp.take(target, perm, axis=1), 1),
            )

            def minibatch(carry, batch):
                params, opts = carry
                mem, tr, a, tg = batch
                grads, info = jax.grad(self._loss, has_aux=True)(params, mem, tr, a, tg, vnorm,
                                                                 coefs)  # fmt: skip
                ua, oa = self.actor_tx.update(grads[0], opts[0], params[0])
                uc, oc = self.critic_tx.update(grads[1], opts[1], params[1])
                params = (optax.apply_updates(params[0], ua), optax.apply_updates(params[1], uc))
                return (params, (oa, oc)), info

            return jax.lax.scan(minibatch, carry, batches)

        carry = ((ts.actor_params, ts.critic_params), (ts.actor_opt, ts.critic_opt))
        (params, opts), infos = jax.lax.scan(epoch, carry, jax.random.split(k_perm, cfg.epochs))
        params, opts = self._after_epochs(ts, params, opts)
        losses = infos.reshape(-1, len(self.loss_names)).mean(0)
        metrics = {n: losses[i] for i, n in enumerate(self.loss_names)}
        metrics.update(stat_metrics(stats, by_opp))
        metrics["mean_reward"] = masked_mean(traj.reward, traj.mask)
        metrics["mean_value"] = masked_mean(traj.value, traj.mask)
        steps = ts.steps + cfg.steps_per_update
        pool = ts.pool
        if cfg.uses_pool:
            pool = pool.push(params[0], copies_due(ts.steps, steps, cfg.pool_every))
        metrics["pool_copies"] = pool.count
        new = PPOState(params[0], params[1], opts[0], opts[1], vnorm, key, live,
                       ts.update + 1, steps, pool)  # fmt: skip
        return self._finish(ts, new, metrics, by_opp)

    # ---- what a subclass changes (kickstart.py); PPO's own are no-ops --------------------
    def _loss_coefs(self, ts: Any) -> Any:
        """Per-update loss weights handed to `_loss` (traced values; PPO has none)."""
        del ts

    def _after_epochs(self, ts: Any, params: tuple, opts: tuple) -> tuple[tuple, tuple]:
        """The learned (actor, critic) and optimizer states after the epochs."""
        del ts
        return params, opts

    def _finish(self, ts: Any, new: PPOState, metrics: dict, by_opp: Any) -> tuple[Any, dict]:
        """The state after an update from PPO's fields (`new`) and the metrics."""
        del ts, by_opp
        return new, metrics
