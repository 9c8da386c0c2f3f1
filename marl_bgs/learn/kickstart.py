"""Learning from a teacher System: behaviour cloning with DAgger rounds, and kickstarted PPO.

One mechanism serves both (`KickstartConfig`, `BCConfig`). The teacher (any System: a
scripted team, a saved policy) runs beside Team A inside the compiled rollout, with its own
memory started at each new game and advanced along the games actually played (by the moves
actually made, `System.follow`), and labels each of the learner's decisions with its own choice on the same inputs. A share of new games
is played by the teacher itself (the behaviour-cloning data); the rest by the learner, whose
own states the teacher labels (DAgger: the student learns what to do where its own mistakes
lead). The loss adds the masked cross-entropy to the teacher's choice to PPO's, each with its
weight, so behaviour cloning is PPO's weight 0 and kickstarting a falling teacher weight.

Why inside the rollout: the scripted teams are JAX functions of what a team may see
(`systems/percept.py`), so labelling a batch costs one more System call per tick, and no
demonstration file has to be written, read or kept in step with the learner's own states.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from ..env_state import EnvState
from ..systems.base import System, check_jax_actions
from .config import KickstartConfig
from .losses import imitation_loss
from .networks import log_probs
from .opponents import policy_system
from .ppo import LOSS_NAMES, PPOLearner, PPOState
from .rollout import Rollout, Transition

TEACHER_SALT = 0x7EAC  # the teacher's keys: the tick's key folded with this (PPO's untouched)


class KickLive(NamedTuple):
    """`rollout.Live` and the teacher's part of the games in progress."""

    env: EnvState
    memory: Any
    opponents: Any
    episode_return: Any
    partners: Any
    nav: Any  # Team A's steering memory (None without `nav_inputs`)
    teacher: Any  # the teacher's memory, batched over games (a dummy without a teacher)
    teacher_game: Any  # (N,) bool: the teacher plays Team A in this game


KickTransition = NamedTuple(
    "KickTransition",
    [(name, Any) for name in Transition._fields] + [("teacher_action", Any), ("on_policy", Any)],
)
KickTransition.__doc__ = """A `rollout.Transition` with the teacher's choice for each of Team A's
slots (N, 5) and whether the learner itself chose (N, 5) (False in teacher-played games)."""


class KickExtras(NamedTuple):
    """What the rollout needs beyond PPO's parameters, for one update."""

    teacher_share: Any  # () share of new games the teacher plays
    scripted_weights: Any  # (scripted,) split of the scripted share (summing to 1)


class KickState(NamedTuple):
    """`ppo.PPOState` and the recent decisive record against each opponent."""

    actor_params: Any
    critic_params: Any
    actor_opt: Any
    critic_opt: Any
    value_norm: Any
    key: Any
    live: KickLive
    update: Any
    steps: Any
    pool: Any
    record: Any  # (opponents, 2) wins and losses, decayed by `priority_decay` per update


def linear_schedule(start: float, floor: float, until: float, progress: Any) -> Any:
    """`start` falling (or rising) linearly to `floor` at `until` of training, then held;
    `until` = 0 gives `floor` from the start."""
    if until <= 0:
        return jnp.asarray(floor, jnp.float32)
    frac = jnp.minimum(jnp.asarray(progress, jnp.float32) / until, 1.0)
    return jnp.asarray(start, jnp.float32) + (floor - start) * frac


def priority_weights(record: Any, power: float, floor: float) -> Any:
    """The split of the scripted share: max((1 - r)^p, floor) normalised, r each opponent's
    decisive win rate wins / (wins + losses) (0 before any decisive game)."""
    wins, losses = record[..., 0], record[..., 1]
    rate = jnp.where(wins + losses > 0, wins / jnp.maximum(wins + losses, 1e-9), 0.0)
    raw = jnp.maximum((1.0 - rate) ** power, floor)
    return raw / raw.sum()


class KickRollout(Rollout):
    """PPO's rollout with a teacher beside Team A (`Rollout.team_a_extra`)."""

    transition_type = KickTransition

    def __init__(self, *args: Any, teacher: System | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.teacher = teacher
        cfg = self.cfg
        self.scripted_picks = self.num_opponents - len(cfg.scripted_in_play)
        self.prioritised = cfg.opponent_priority > 0

    def _teacher_init(self, key: Any) -> Any:
        if self.teacher is None:
            return jnp.zeros(self.cfg.num_envs, jnp.int32)
        return jax.vmap(self.teacher.init)(jax.random.split(key, self.cfg.num_envs))

    def init_live(self, key: Any) -> KickLive:
        live = super().init_live(key)
        teacher = self._teacher_init(jax.random.fold_in(key, TEACHER_SALT))
        return KickLive(*live, teacher, jnp.zeros(self.cfg.num_envs, bool))

    def opponent_logits(self, params: tuple) -> Any:
        """PPO's draw, the scripted share split by `KickExtras.scripted_weights` when the
        opponents are prioritised."""
        logits = super().opponent_logits(params)
        if not self.prioritised:
            return logits
        weights = jnp.exp(logits)
        k = self.scripted_picks
        share = weights[k:].sum()
        weights = weights.at[k:].set(share * params[4].scripted_weights)
        return jnp.log(weights)

    def team_a_extra(self, params: tuple, live: KickLive, state: EnvState, inputs: Any,
                     part: dict, key: Any) -> tuple[KickLive, dict]:  # fmt: skip
        """The teacher's labels for this tick, and its actions in the games it plays."""
        n = self.cfg.num_envs
        if self.teacher is None:
            part["teacher_action"] = jnp.zeros_like(part["action"])
            part["on_policy"] = jnp.ones_like(part["mask"])
            return live, part
        k_fresh, k_act, k_draw = jax.random.split(jax.random.fold_in(key, TEACHER_SALT), 3)
        new_game = state.new_game
        fresh = self._teacher_init(k_fresh)
        memory = jax.tree.map(
            lambda a, b: jnp.where(new_game.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
            fresh, live.teacher,
        )  # fmt: skip
        before = memory
        labels, memory = jax.vmap(self.teacher.act)(jax.random.split(k_act, n), inputs, memory)
        labels = check_jax_actions(labels, n, self.teacher, "config.teacher").astype(jnp.int32)
        plays = jax.random.uniform(k_draw, (n,)) < params[4].teacher_share
        teacher_game = jnp.where(new_game, plays, live.teacher_game)
        part["action"] = jnp.where(teacher_game[:, None], labels, part["action"])
        part["teacher_action"] = labels
        part["on_policy"] = jnp.broadcast_to(~teacher_game[:, None], labels.shape)
        if self.teacher.follow is not None:  # advanced in `team_a_taken`, from the moves made
            memory = before
        return live._replace(teacher=memory, teacher_game=teacher_game), part

    def team_a_taken(self, live: KickLive, inputs: Any, actions: Any) -> KickLive:
        """The teacher's memory after the moves Team A actually made: in the learner's games
        those are not the teacher's, and a teacher that remembered its own (a scripted team
        marks a move as failed when its agent did not go where it chose) would label the
        next ticks from a game that never happened."""
        if self.teacher is None or self.teacher.follow is None:
            return live
        memory = jax.vmap(self.teacher.follow)(inputs, live.teacher, actions)
        return live._replace(teacher=memory)


KICK_LOSS_NAMES = LOSS_NAMES + ("teacher_loss", "teacher_agreement")


class KickstartLearner(PPOLearner):
    """PPO with a teacher: `registry` entries "bc" and "kickstart" (`KickstartConfig`)."""

    loss_names = KICK_LOSS_NAMES

    def __init__(self, cfg: KickstartConfig, reward_fn: Callable | None = None) -> None:
        self.teacher = policy_system(cfg.teacher, "config.teacher") if cfg.teacher else None
        super().__init__(cfg, reward_fn)

    def _make_rollout(self, systems: list, reward_fn: Callable, partners: Any,
                      learner_slots: Any) -> KickRollout:  # fmt: skip
        return KickRollout(self.cfg, self.env, self.nets, systems, reward_fn, partners,
                           learner_slots, teacher=self.teacher)  # fmt: skip

    # ---- state ---------------------------------------------------------------------------
    def _init(self, key: Any) -> KickState:
        ppo = super()._init(key)
        record = jnp.zeros((self.rollout.num_opponents, 2), jnp.float32)
        return KickState(*ppo, record)

    def fresh(self, state: KickState) -> KickState:
        """A new run's first state: with `init_from`, that run's newest actor, critic and
        value statistics in place of the fresh ones (optimizers start afresh)."""
        if not self.cfg.init_from:
            return state
        source = load_start(self.cfg.init_from, state)
        return state._replace(actor_params=source.actor_params,
                              critic_params=source.critic_params,
                              value_norm=source.value_norm)  # fmt: skip

    # ---- schedules -----------------------------------------------------------------------
    def progress(self, ts: KickState) -> Any:
        return ts.update.astype(jnp.float32) / self.cfg.num_updates

    def rollout_params(self, ts: KickState) -> tuple:
        """PPO's (actor, critic, value norm, pool) and this update's `KickExtras`."""
        cfg = self.cfg
        share = linear_schedule(cfg.teacher_plays, cfg.teacher_plays_floor,
                                cfg.teacher_plays_until, self.progress(ts))  # fmt: skip
        k = self.rollout.scripted_picks
        weights = priority_weights(ts.record[k:], cfg.opponent_priority, cfg.priority_floor)
        return (*super().rollout_params(ts), KickExtras(share, weights))

    def _loss_coefs(self, ts: KickState) -> Any:
        cfg = self.cfg
        return linear_schedule(cfg.kick_weight, cfg.kick_floor, cfg.kick_until,
                               self.progress(ts))  # fmt: skip

    # ---- the loss ------------------------------------------------------------------------
    def _loss(self, params: tuple, start: Any, traj, adv, target, vnorm, coefs: Any = None):
        """PPO's loss on the learner's own choices (`ppo_weight` times its actor term), plus
        the teacher weight `coefs` times the cross-entropy to the teacher's choices wherever
        the teacher's choice is legal and there was more than one legal choice."""
        cfg = self.cfg
        logits, value = self._replay(*params, start, traj)
        a_loss, v_loss, ent, kl, clip_frac = self._ppo_terms(
            logits, value, traj, adv, target, vnorm, traj.mask & traj.on_policy
        )
        t_loss, agree = imitation_loss(log_probs(logits), traj.teacher_action, traj.avail,
                                       traj.mask)  # fmt: skip
        loss = cfg.ppo_weight * a_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
        loss = loss + coefs * t_loss
        return loss, jnp.stack([loss, a_loss, v_loss, ent, kl, clip_frac, t_loss, agree])

    # ---- after the epochs ----------------------------------------------------------------
    def _after_epochs(self, ts: KickState, params: tuple, opts: tuple) -> tuple[tuple, tuple]:
        """During the critic warm-up the actor and its optimizer stay as they were."""
        if not self.cfg.critic_warmup:
            return params, opts
        frozen = ts.update < self.cfg.critic_warmup

        def keep(old, new):
            return jax.tree.map(lambda a, b: jnp.where(frozen, a, b), old, new)

        return ((keep(ts.actor_params, params[0]), params[1]),
                (keep(ts.actor_opt, opts[0]), opts[1]))  # fmt: skip

    def _finish(self, ts: KickState, new: PPOState, metrics: dict, by_opp: Any):
        cfg = self.cfg
        played = jnp.stack([by_opp[1], by_opp[2]], -1)  # (opponents, 2) wins, losses
        record = cfg.priority_decay * ts.record + played
        played_with = self.rollout_params(ts)
        extras = played_with[4]
        metrics["teacher_weight"] = self._loss_coefs(ts)
        metrics["teacher_share"] = extras.teacher_share
        metrics["critic_warmup"] = (ts.update < cfg.critic_warmup).astype(jnp.float32)
        if self.rollout.prioritised:
            draw = jax.nn.softmax(self.rollout.opponent_logits(played_with))
            metrics["draw_share_by_opponent"] = draw
            metrics["decisive_rate_by_opponent"] = jnp.where(
                record.sum(-1) > 0, record[:, 0] / jnp.maximum(record.sum(-1), 1e-9), jnp.nan
            )
        return KickState(*new, record), metrics


def start_folder(spec: str | Path) -> tuple[Path, str]:
    """The run folder an `init_from` names and which of its checkpoint folders to start
    from: "best" where `spec` is a run's `best/` folder (`RUN/best`), else "checkpoints"."""
    path = Path(spec).expanduser()
    if path.name == "best" and (path.parent / "config.json").is_file():
        return path.parent, "best"
    return path, "checkpoints"


def load_start(spec: str, template: KickState) -> Any:
    """The newest learner state of the run folder `spec` (`config.init_from`), or its
    validation's best check where `spec` names the run's `best/` folder, checked to have
    the actor and critic shapes of `template`."""
    from .policy import pick_step, restore_state, run_folder

    path, sub = start_folder(spec)
    try:
        folder = run_folder(path)
        _, state = restore_state(folder, pick_step(folder, None, sub), sub)
    except ValueError as err:
        raise ValueError(f"config.init_from: {spec!r}: {err}") from None
    for name in ("actor_params", "critic_params", "value_norm"):
        want = jax.tree.map(lambda x: (x.shape, x.dtype), getattr(template, name))
        got = jax.tree.map(lambda x: (x.shape, x.dtype), getattr(state, name, None))
        if jax.tree.structure(want) != jax.tree.structure(got) or want != got:
            raise ValueError(
                f"config.init_from: {Path(spec).name}'s {name} do not fit this config's "
                "network (hidden, recurrent and critic must match)"
            )
    return state


__all__ = ["KickstartLearner", "KickState", "KickRollout", "KickTransition", "linear_schedule",
           "priority_weights", "load_start", "start_folder"]  # fmt: skip
