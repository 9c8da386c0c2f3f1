"""The PPO update as one compiled function, and `train(config)` around it.

One update = a T-tick rollout of `num_envs` games (`Rollout.run`), GAE, then `epochs`
passes over `minibatches` groups of games, each replaying its sequences through the
networks with the same memory resets as when they were played, all inside one `jax.jit`.
The host loop only logs, checkpoints and shows progress.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from ..env import make
from .config import PPOConfig, TrainConfig
from .losses import ValueNorm, gae, masked_mean, normalize, policy_loss, value_loss
from .networks import Networks, action_log_prob, entropy, init_params, make_networks
from .opponents import Pool, copies_due, training_systems
from .rewards import make_reward_fn
from .rollout import Live, Memory, Rollout, critic_inputs, stat_metrics

LOSS_NAMES = ("loss", "actor_loss", "value_loss", "entropy", "approx_kl", "clip_frac")


class TrainState(NamedTuple):
    """The whole learner: what a checkpoint holds and a resumed run continues from."""

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


class Learner:
    """The compiled pieces for one config (env, networks, optimizers, init and update)."""

    def __init__(self, cfg: PPOConfig, reward_fn: Callable | None = None) -> None:
        self.cfg = cfg
        self.env = make("tdm", num_envs=cfg.num_envs, **cfg.game_settings())
        self.nets: Networks = make_networks(cfg.hidden, cfg.recurrent, cfg.critic)
        self.actor_tx = optax.chain(
            optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(cfg.actor_lr, eps=1e-5)
        )
        self.critic_tx = optax.chain(
            optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(cfg.critic_lr, eps=1e-5)
        )
        systems, partners, learner_slots = training_systems(cfg)
        self.rollout = Rollout(cfg, self.env, self.nets, systems,
                               reward_fn or make_reward_fn(cfg), partners, learner_slots)  # fmt: skip
        self.init = jax.jit(self._init)
        self.update = jax.jit(self._update)

    # ---- start ---------------------------------------------------------------------------
    def _init(self, key: Any) -> TrainState:
        k_params, k_live, k_next = jax.random.split(key, 3)
        actor, critic = init_params(self.nets, k_params)
        return TrainState(
            actor, critic, self.actor_tx.init(actor), self.critic_tx.init(critic),
            ValueNorm.create(), k_next, self.rollout.init_live(k_live),
            jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32),
            Pool.create(actor, self.cfg.pool_size if self.cfg.uses_pool else 0),
        )  # fmt: skip

    def rollout_params(self, ts: TrainState) -> tuple:
        """What `Rollout.run` plays with: (actor, critic, value norm, pool)."""
        return (ts.actor_params, ts.critic_params, ts.value_norm, ts.pool)

    # ---- the loss of one minibatch -------------------------------------------------------
    def _loss(self, params: tuple, start: Memory, traj, adv, target, vnorm: ValueNorm):
        actor_params, critic_params = params
        cfg = self.cfg
        logits, value = self._replay(actor_params, critic_params, start, traj)
        mask = traj.mask
        log_prob = action_log_prob(logits, traj.action)
        if cfg.normalize_advantages:
            adv = normalize(adv, mask)
        a_loss, kl, clip_frac = policy_loss(log_prob, traj.log_prob, adv, cfg.clip_eps, mask)
        ent = masked_mean(entropy(logits, traj.avail), mask)
        if cfg.value_norm:
            old_value, target = vnorm.norm(traj.value), vnorm.norm(target)
        else:
            old_value = traj.value
        v_loss = value_loss(value, old_value, target, cfg.clip_eps, mask)
        loss = a_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
        return loss, jnp.stack([loss, a_loss, v_loss, ent, kl, clip_frac])

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
    def _update(self, ts: TrainState) -> tuple[TrainState, dict]:
        cfg = self.cfg
        key, k_roll, k_perm = jax.random.split(ts.key, 3)
        start = ts.live.memory
        live, traj, last_value, stats, by_opp = self.rollout.run(
            (ts.actor_params, ts.critic_params, ts.value_norm, ts.pool), ts.live, k_roll
        )
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
                grads, info = jax.grad(self._loss, has_aux=True)(params, mem, tr, a, tg, vnorm)
                ua, oa = self.actor_tx.update(grads[0], opts[0], params[0])
                uc, oc = self.critic_tx.update(grads[1], opts[1], params[1])
                params = (optax.apply_updates(params[0], ua), optax.apply_updates(params[1], uc))
                return (params, (oa, oc)), info

            return jax.lax.scan(minibatch, carry, batches)

        carry = ((ts.actor_params, ts.critic_params), (ts.actor_opt, ts.critic_opt))
        (params, opts), infos = jax.lax.scan(epoch, carry, jax.random.split(k_perm, cfg.epochs))
        losses = infos.reshape(-1, len(LOSS_NAMES)).mean(0)
        metrics = {n: losses[i] for i, n in enumerate(LOSS_NAMES)}
        metrics.update(stat_metrics(stats, by_opp))
        metrics["mean_reward"] = masked_mean(traj.reward, traj.mask)
        metrics["mean_value"] = masked_mean(traj.value, traj.mask)
        steps = ts.steps + cfg.steps_per_update
        pool = ts.pool
        if cfg.uses_pool:
            pool = pool.push(params[0], copies_due(ts.steps, steps, cfg.pool_every))
        metrics["pool_copies"] = pool.count
        new = TrainState(params[0], params[1], opts[0], opts[1], vnorm, key, live,
                         ts.update + 1, steps, pool)  # fmt: skip
        return new, metrics


_LEARNERS: dict[tuple, Any] = {}


def learner_class(cfg: TrainConfig) -> type:
    """The learner of a config's algorithm: `Learner` (PPO), `QMIXLearner`, `PQNLearner`."""
    if cfg.algo == "qmix":
        from .qmix import QMIXLearner

        return QMIXLearner
    if cfg.algo == "pqn-vdn":
        from .pqn import PQNLearner

        return PQNLearner
    return Learner


def learner_for(cfg: TrainConfig, reward_fn: Callable | None = None) -> Any:
    """A cached learner for the config's algorithm: configs differing only in run settings
    share compiled code."""
    run_only = dict(seed=0, out="-", devices=1, total_steps=1, checkpoint_every=0, keep_checkpoints=1,
                    validate_every=0.0, validation_opponents=(), validation_maps=(42,),
                    validation_games=2, validation_seed=0)  # fmt: skip
    if getattr(cfg, "lr_decay", False):  # PQN's learning rate decays over the whole run
        del run_only["total_steps"]
    key = (cfg.replace(**run_only), reward_fn)
    if key not in _LEARNERS:
        _LEARNERS[key] = learner_class(cfg)(cfg, reward_fn)
    return _LEARNERS[key]


# ---- logs ------------------------------------------------------------------------------------
def flat_metrics(metrics: dict, names: tuple[str, ...]) -> dict[str, float]:
    """Host-side numbers for one update's log row (per-opponent counts spread out)."""
    out: dict[str, float] = {}
    for k, v in metrics.items():
        arr = np.asarray(v)
        if arr.ndim == 0:
            out[k] = float(arr)
        else:
            for i, x in enumerate(arr):
                out[f"{k}[{names[i]}]"] = float(x)
    games = out.get("games", 0.0)
    for k in ("wins", "losses", "draws", "margin", "episode_return", "ticks"):
        out[f"{k}_per_game" if k in ("margin", "episode_return", "ticks") else f"{k}_share"] = (
            out[f"games_{k}"] / games if games else float("nan")
        )
    return out


class RunLog:
    """Appends one row per update to updates.csv and updates.jsonl in the run folder."""

    def __init__(self, folder: Path) -> None:
        self.csv_path = folder / "updates.csv"
        self.json_path = folder / "updates.jsonl"
        self.columns: list[str] | None = None
        if self.csv_path.exists():
            with self.csv_path.open() as f:
                self.columns = next(csv.reader(f), None)

    def write(self, row: dict) -> None:
        if self.columns is None:
            self.columns = list(row)
            with self.csv_path.open("w", newline="") as f:
                csv.writer(f).writerow(self.columns)
        with self.csv_path.open("a", newline="") as f:
            csv.writer(f).writerow([row.get(c, "") for c in self.columns])
        clean = {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
        with self.json_path.open("a") as f:  # NaN (no game finished) is written as null
            f.write(json.dumps(clean) + "\n")


@dataclass
class TrainResult:
    state: TrainState
    run_dir: Path
    rows: list[dict]


def train(
    config: TrainConfig,
    resume: bool = False,
    reward_fn: Callable | None = None,
    progress: bool = True,
    stop_after: int | None = None,
    plots: bool = True,
) -> TrainResult:
    """Train `config.num_updates` updates into the run folder `config.out`.

    Writes config.json (the resolved config), updates.csv / updates.jsonl (one row per
    update: losses, entropy, rewards, finished games and their results) and orbax
    checkpoints under checkpoints/. With `validate_every` > 0 it also plays the validation
    panel at update 0 and after every `validate_every` of training (validation.csv /
    validation.jsonl / validation_games.csv) and keeps the state of the check with the best
    point margin (update 0 excluded) under best/. At the end it draws plots/ (when
    matplotlib is installed and `plots`). `resume=True` continues from the newest checkpoint,
    bit-identically to a run that never stopped (validation never touches the training
    state or its random keys). `stop_after` ends after that many updates in this call (it
    still checkpoints), as an interrupted run would.
    """
    from tqdm.auto import tqdm

    from .checkpoint import Checkpoints
    from .validation import ValidationLog, best_of, validation_updates, validator_for

    cfg = config
    run_dir = Path(cfg.out)
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpts = Checkpoints(run_dir / "checkpoints", keep=cfg.keep_checkpoints)
    # The restore template is the learner of the stage the saved games were playing.
    saved_at = ckpts.latest() if resume and ckpts.latest() is not None else 0
    template_stage = cfg.stage_config(max(saved_at - 1, 0))
    state = learner_for(template_stage, reward_fn).init(jax.random.PRNGKey(cfg.seed))
    if resume and ckpts.latest() is not None:
        try:
            state = ckpts.restore(state)
        except ValueError as err:  # `Checkpoints` names the array that does not fit
            raise ValueError(f"resume: {err}") from None
    elif not resume and ckpts.latest() is not None:
        raise ValueError(
            f"out: {run_dir} already holds checkpoints (resume=True, or --resume on the "
            "command line, continues them)"
        )
    if cfg.devices != 1:
        from .sharding import game_mesh, shard_state

        mesh = game_mesh(cfg.devices)
        if mesh.devices.size > 1:
            state = shard_state(state, mesh, cfg.num_envs)
    cfg.save(run_dir / "config.json")
    log = RunLog(run_dir)
    names = cfg.opponent_names()
    done = int(state.update)
    todo = cfg.num_updates - done
    if stop_after is not None:
        todo = min(todo, stop_after)
    rows: list[dict] = []
    bar = tqdm(total=cfg.num_updates, initial=done, disable=not progress, unit="update")

    checks = set(validation_updates(cfg))
    final = cfg.stage_config(cfg.num_updates - 1)  # validation plays the last stage's games
    validator = validator_for(final, learner_for(final, reward_fn).nets) if checks else None
    vlog = ValidationLog(run_dir)
    best_ckpts = Checkpoints(run_dir / "best", keep=1) if checks else None
    vrows = vlog.keep_until(done if resume else -1)  # a fresh run drops stale checks
    if best_ckpts is not None:
        for s in best_ckpts.steps():
            if s > done:  # saved after the checkpoint this run resumes from: played again
                best_ckpts.manager.delete(s)
    best = best_of(vrows)

    def validate(state: TrainState) -> None:
        nonlocal best
        u = int(state.update)
        summary, games = validator.check(state.actor_params)
        row = {"update": u, "steps": int(state.steps), **summary}
        row["best"] = u > 0 and (best is None or row["margin"] > best["margin"])
        if row["best"]:
            best_ckpts.save(u, state)
            best = row
        vlog.write(row, games)
        bar.write(f"validation at update {u}: margin {row['margin']:+.2f}, kills "
                  f"{row['kills']:.1f}, deaths {row['deaths']:.1f}, W-D-L {row['wins']}-"
                  f"{row['draws']}-{row['losses']}" + (" (best)" if row["best"] else ""))  # fmt: skip

    if validator is not None and done == 0 and not any(r["update"] == 0 for r in vrows):
        validate(state)
    last = time.perf_counter()
    for _ in range(todo):
        u = int(state.update)
        learner = learner_for(cfg.stage_config(u), reward_fn)
        if u > 0 and cfg.stage_config(u) != cfg.stage_config(u - 1):
            state = _next_stage(state, learner, u)
            bar.write(f"curriculum: stage {cfg.stage_config(u).stage} from update {u}")
        state, metrics = learner.update(state)
        metrics = jax.device_get(metrics)
        now = time.perf_counter()
        row = {"update": int(state.update), "steps": int(state.steps),
               "seconds": now - last, "steps_per_s": cfg.steps_per_update / (now - last)}  # fmt: skip
        last = now
        row.update(flat_metrics(metrics, names))
        if row["invalid_actions"]:
            raise ValueError(
                f"training: {row['invalid_actions']:.0f} out-of-range actions in update "
                f"{row['update']} from the opponents ({', '.join(names[1:]) or 'none'}) or "
                f"teammates ({', '.join(cfg.teammates) or 'none'}); a System must return "
                "flat actions 0..197 (nothing of this update was logged or saved)"
            )
        log.write(row)
        rows.append(row)
        bar.update(1)
        bar.set_postfix(steps_s=f"{row['steps_per_s']:.0f}", win=f"{row['wins_share']:.2f}")
        u = int(state.update)
        if validator is not None and u in checks:
            validate(state)
            last = time.perf_counter()  # the next update's time leaves the check out
        if cfg.checkpoint_every and u % cfg.checkpoint_every == 0:
            ckpts.save(u, state)
    bar.close()
    if int(state.update) not in ckpts.steps():
        ckpts.save(int(state.update), state)
    ckpts.wait()
    if best_ckpts is not None:
        best_ckpts.wait()
    if plots and int(state.update) == cfg.num_updates:
        _draw_plots(run_dir)
    return TrainResult(state, run_dir, rows)


def _next_stage(state: TrainState, learner: Learner, update: int) -> TrainState:
    """The learner carried into a new curriculum stage: fresh games of the stage's env
    (from a key that depends only on the update number, so a resumed run does the same);
    parameters, optimizers, pool and counters kept."""
    key = jax.random.fold_in(jax.random.PRNGKey(update), 0x5747)
    return state._replace(live=learner.rollout.init_live(key))


def _draw_plots(run_dir: Path) -> None:
    """The learning curves under plots/ (skipped, with a note, without matplotlib)."""
    try:
        from .plots import plot_run
    except ImportError as err:
        print(f"marl-bgs: no plots ({err}); pip install matplotlib")
        return
    plot_run(run_dir)
