"""Recurrent QMIX (Rashid et al., 2018), adapted from Mava's recurrent QMIX.

One update = a T-tick rollout of `num_envs` games with epsilon-greedy Team A
(`QRollout`, recording Team A's world state), each game's rollout added whole to the replay,
then `sgd_steps` gradient steps on `batch_size` rollouts drawn uniformly from it (once it
holds `learning_starts`). A drawn rollout is replayed through the online and the target
Q-network from the memory it started with (stored with it: R2D2's stored state) and the
memory resets it was played with; the loss is the squared one-step double-Q TD error of
Q_tot, the monotonic mixer (`mixers.QMixer`) of the chosen actions' Q-values on the world
state, over the first T - 1 ticks (the last tick is only the next state of the one before).
Every `target_every` updates the target networks become a hard copy of the online ones.

The replay is flashbax's item buffer (`flashbax.make_item_buffer`), which installs cleanly
with this JAX: a fixed-size ring of whole rollouts in device memory, added to and sampled
inside the compiled update, and a pytree, so checkpoints hold it and a resumed run draws the
same batches. Its size is `buffer_rows` game ticks (`buffer_rows / rollout_len` rollouts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import flashbax as fbx
import jax
import jax.numpy as jnp
import optax

from ..core.observation import OBS_WIDTH
from ..registration import make
from .config import QMIXConfig
from .mixers import QMixer
from .networks import init_actor, make_q_network
from .opponents import Pool, training_systems
from .q_rollout import QActing, QPolicy, QRollout
from .q_values import chosen_q, double_q_next, replay_q, td_targets, team_reward
from .rewards import make_reward_fn
from .rollout import Live, stat_metrics


class Rollout1(NamedTuple):
    """One game's rollout as the replay stores it (time-major leaves (T, ...))."""

    start: Any  # (5, width) the Q-network's memory before the first tick
    x: Any  # (T, 5, ACTOR_WIDTH)
    world: Any  # (T, OBS_WIDTH)
    avail: Any  # (T, 5, 198)
    reset: Any  # (T, 5)
    action: Any  # (T, 5)
    reward: Any  # (T,) the team reward (unscaled)
    done: Any  # (T,)
    mask: Any  # (T, 5) slots the learner played


class QMIXState(NamedTuple):
    """The whole QMIX learner: what a checkpoint holds (replay included)."""

    actor_params: Any  # the agents' Q-network
    mixer_params: Any
    target_params: Any  # (Q-network, mixer) target copies
    opt: Any
    key: Any
    live: Live
    update: Any
    steps: Any
    pool: Pool  # saved QPolicy copies (parameters and their epsilon)
    buffer: Any  # flashbax TrajectoryBufferState of Rollout1 items


def qmix_loss(nets: Any, mixer: QMixer, params: tuple, target: tuple, batch: Rollout1,
              gamma: float, scale: float) -> tuple[Any, Any]:  # fmt: skip
    """Mean squared TD error of Q_tot over a time-major batch (T, B, ...), and its mean."""
    q_params, mixer_params = params
    q = replay_q(nets, q_params, batch.start, batch)
    target_q = jax.lax.stop_gradient(replay_q(nets, target[0], batch.start, batch))
    mask = batch.mask.astype(jnp.float32)
    q_tot = mixer.apply(mixer_params, chosen_q(q, batch.action) * mask, batch.world)
    best_next = double_q_next(jax.lax.stop_gradient(q[1:]), target_q[1:], batch.avail[1:])
    next_tot = mixer.apply(target[1], best_next * mask[1:], batch.world[1:])
    y = td_targets(batch.reward[:-1] * scale, batch.done[:-1], next_tot, gamma)
    loss = jnp.mean((q_tot[:-1] - jax.lax.stop_gradient(y)) ** 2)
    return loss, jnp.mean(q_tot[:-1])


class QMIXLearner(QActing):
    """The compiled pieces for one QMIX config (env, networks, replay, init, update)."""

    def __init__(self, cfg: QMIXConfig, reward_fn: Callable | None = None) -> None:
        self.cfg = cfg
        self.env = make("tdm", num_envs=cfg.num_envs, **cfg.game_settings())
        self.nets = make_q_network(cfg.hidden, cfg.recurrent, cfg.layer_norm)
        self.mixer = QMixer(cfg.mixer_embed, cfg.hyper_hidden)
        self.tx = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(cfg.lr))
        self.capacity = cfg.buffer_rows // cfg.rollout_len
        self.buffer = fbx.make_item_buffer(
            max_length=self.capacity, min_length=cfg.learning_starts,
            sample_batch_size=cfg.batch_size, add_batches=True,
        )  # fmt: skip
        systems, partners, slots = training_systems(cfg)
        self.rollout = QRollout(cfg, self.env, self.nets, systems,
                                reward_fn or make_reward_fn(cfg), partners, slots,
                                world=True)  # fmt: skip
        self.init = jax.jit(self._init)
        self.update = jax.jit(self._update)

    def _empty_item(self) -> Rollout1:
        t, w = self.cfg.rollout_len, self.nets.memory_width
        from .networks import ACTOR_WIDTH, NUM_JOINT

        return Rollout1(
            jnp.zeros((5, w)), jnp.zeros((t, 5, ACTOR_WIDTH)), jnp.zeros((t, OBS_WIDTH)),
            jnp.zeros((t, 5, NUM_JOINT), bool), jnp.zeros((t, 5), bool),
            jnp.zeros((t, 5), jnp.int32), jnp.zeros(t), jnp.zeros(t, bool),
            jnp.zeros((t, 5), bool),
        )  # fmt: skip

    def _init(self, key: Any) -> QMIXState:
        k_params, k_mixer, k_live, k_next = jax.random.split(key, 4)
        params = init_actor(self.nets, k_params)
        mixer = self.mixer.init(k_mixer, jnp.zeros(5), jnp.zeros(OBS_WIDTH))
        size = self.cfg.pool_size if self.cfg.uses_pool else 0
        return QMIXState(
            params, mixer, (params, mixer), self.tx.init((params, mixer)), k_next,
            self.rollout.init_live(k_live), jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32),
            Pool.create(QPolicy(params, jnp.zeros((), jnp.float32)), size),
            self.buffer.init(self._empty_item()),
        )  # fmt: skip

    def _update(self, ts: QMIXState) -> tuple[QMIXState, dict]:
        cfg = self.cfg
        key, k_roll, k_learn = jax.random.split(ts.key, 3)
        start = ts.live.memory.actor
        params_in = self.rollout_params(ts)
        live, traj, _, stats, by_opp = self.rollout.run(params_in, ts.live, k_roll)
        games_first = lambda x: jnp.swapaxes(x, 0, 1)  # noqa: E731
        items = Rollout1(
            start, games_first(traj.x), games_first(traj.world), games_first(traj.avail),
            games_first(traj.reset), games_first(traj.action),
            games_first(team_reward(traj.reward, traj.mask)), games_first(traj.done[..., 0]),
            games_first(traj.mask),
        )  # fmt: skip
        buffer = self.buffer.add(ts.buffer, items)
        ready = self.buffer.can_sample(buffer)

        def sgd(carry, k):
            params, opt = carry

            def learn(_):
                drawn = self.buffer.sample(buffer, k).experience  # (B, ...) rollouts
                batch = Rollout1(drawn.start, *(games_first(x) for x in drawn[1:]))
                grads, (loss, q_tot) = jax.grad(self._loss, has_aux=True)(params, ts, batch)
                updates, new_opt = self.tx.update(grads, opt, params)
                return (optax.apply_updates(params, updates), new_opt), jnp.stack([loss, q_tot])

            def skip(_):
                return (params, opt), jnp.zeros(2)

            return jax.lax.cond(ready, learn, skip, None)

        carry = ((ts.actor_params, ts.mixer_params), ts.opt)
        ((q_params, mixer_params), opt), infos = jax.lax.scan(
            sgd, carry, jax.random.split(k_learn, cfg.sgd_steps)
        )
        update = ts.update + 1
        copy = update % cfg.target_every == 0
        target = jax.tree.map(lambda new, old: jnp.where(copy, new, old),
                              (q_params, mixer_params), ts.target_params)  # fmt: skip
        info = infos.mean(0)
        eps = params_in[0].eps
        metrics = {"loss": info[0], "mean_q_tot": info[1], "epsilon": eps,
                   "learning": ready.astype(jnp.float32),
                   "replay_rollouts": self._stored(buffer)}  # fmt: skip
        metrics.update(stat_metrics(stats, by_opp))
        steps, pool = self._pool_after(ts, q_params, eps, traj, metrics)
        new = QMIXState(q_params, mixer_params, target, opt, key, live, update, steps, pool,
                        buffer)  # fmt: skip
        return new, metrics

    def _loss(self, params: tuple, ts: QMIXState, batch: Rollout1) -> tuple[Any, Any]:
        loss, q_tot = qmix_loss(self.nets, self.mixer, params, ts.target_params, batch,
                                self.cfg.gamma, self.cfg.reward_scale)  # fmt: skip
        return loss, (loss, q_tot)

    def _stored(self, buffer: Any) -> Any:
        """Rollouts the replay holds."""
        return jnp.where(buffer.is_full, self.capacity, buffer.current_index).astype(jnp.float32)
