"""`train(config)`: the training loop every learner shares.

The learner of the config's algorithm (`registry.ALGORITHMS`: PPO in `ppo.py`, QMIX and
PQN-VDN) compiles one update; this host loop only steps it, validates, logs, checkpoints
and shows progress, whatever the algorithm.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import numpy as np

from .config import TrainConfig
from .registry import Learner, learner_for


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
    """Appends one row per update to updates.csv and updates.jsonl in the run folder
    (`writes=False`: another process writes them, this one only keeps the count)."""

    def __init__(self, folder: Path, writes: bool = True) -> None:
        self.writes = writes
        self.csv_path = folder / "updates.csv"
        self.json_path = folder / "updates.jsonl"
        # Rows of updates a resumed run played again (logged after the checkpoint it resumed
        # from): moved here, so the logs hold each update once and their time still counts.
        self.replayed_path = folder / "updates_replayed.jsonl"
        self.columns: list[str] | None = None
        if self.csv_path.exists():
            with self.csv_path.open() as f:
                self.columns = next(csv.reader(f), None)

    def keep_until(self, update: int) -> int:
        """Move the rows of updates after `update` to updates_replayed.jsonl (a resumed run
        plays them again); the number moved."""
        if not self.writes or not self.json_path.exists():
            return 0
        lines = [line for line in self.json_path.read_text().splitlines() if line]
        played = [json.loads(line)["update"] for line in lines]
        later = [line for line, u in zip(lines, played, strict=True) if u > update]
        if not later:
            return 0
        with self.replayed_path.open("a") as f:
            f.write("".join(line + "\n" for line in later))
        kept = [line for line, u in zip(lines, played, strict=True) if u <= update]
        self.json_path.write_text("".join(line + "\n" for line in kept))
        with self.csv_path.open(newline="") as f:
            table = list(csv.reader(f))
        at = table[0].index("update")
        kept = [table[0]] + [r for r in table[1:] if int(r[at]) <= update]
        with self.csv_path.open("w", newline="") as f:
            csv.writer(f).writerows(kept)
        return len(later)

    def write(self, row: dict) -> None:
        if not self.writes:
            return
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
    state: Any  # the learner's state (`registry.LearnerState`)
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
    matplotlib is installed and `plots`). Over many processes (`marl_bgs.distributed`) every
    process trains the same state and only process 0 writes the logs, config and plots;
    the checkpoints are orbax's, written together. `resume=True` continues from the newest
    checkpoint, bit-identically to a run that never stopped (validation never touches the training
    state or its random keys). `stop_after` ends after that many updates in this call (it
    still checkpoints), as an interrupted run would.
    """
    from tqdm.auto import tqdm

    from ..distributed import barrier, is_writer, run_together
    from .checkpoint import Checkpoints
    from .validation import ValidationLog, best_of, validation_updates, validator_for

    cfg = config
    writer = is_writer()  # process 0 of many (or the only one) writes the run's files
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
    else:  # a fresh run: a learner may start from elsewhere (kickstart's `init_from`)
        fresh = getattr(learner_for(template_stage, reward_fn), "fresh", None)
        state = fresh(state) if fresh is not None else state
    if cfg.devices != 1:
        from .learner_sharding import game_mesh, shard_state

        mesh = game_mesh(cfg.devices)
        if mesh.devices.size > 1:
            state = shard_state(state, mesh, cfg.num_envs)
    if writer:
        cfg.save(run_dir / "config.json")
    log = RunLog(run_dir, writes=writer)
    log.keep_until(int(state.update))  # rows logged after the checkpoint resumed from
    names = cfg.opponent_names()
    done = int(state.update)
    todo = cfg.num_updates - done
    if stop_after is not None:
        todo = min(todo, stop_after)
    rows: list[dict] = []
    bar = tqdm(
        total=cfg.num_updates, initial=done, disable=not (progress and writer), unit="update"
    )
    say = bar.write if writer else (lambda text: None)

    checks = set(validation_updates(cfg))
    final = cfg.stage_config(cfg.num_updates - 1)  # validation plays the last stage's games
    validator = validator_for(final, learner_for(final, reward_fn).nets) if checks else None
    vlog = ValidationLog(run_dir)
    best_ckpts = Checkpoints(run_dir / "best", keep=1) if checks else None
    kept_until = done if resume else -1  # a fresh run drops stale checks
    vrows = vlog.rows_until(kept_until)
    barrier("marl_bgs.train.validation_read")  # every process has read them before they change
    if writer:
        vlog.keep(vrows, kept_until)
    if best_ckpts is not None:
        for s in best_ckpts.steps():
            if s > done:  # saved after the checkpoint this run resumes from: played again
                best_ckpts.manager.delete(s)
    best = best_of(vrows)

    def validate(state: Any) -> None:
        nonlocal best
        u = int(state.update)
        summary, games = validator.check(state.actor_params)
        row = {"update": u, "steps": int(state.steps), **summary}
        row["best"] = u > 0 and (best is None or row["margin"] > best["margin"])
        if row["best"]:
            best_ckpts.save(u, state)
            best = row
        if writer:
            vlog.write(row, games)
        say(f"validation at update {u}: margin {row['margin']:+.2f}, kills "
                  f"{row['kills']:.1f}, deaths {row['deaths']:.1f}, W-D-L {row['wins']}-"
                  f"{row['draws']}-{row['losses']}" + (" (best)" if row["best"] else ""))  # fmt: skip

    if validator is not None and done == 0 and not any(r["update"] == 0 for r in vrows):
        validate(state)
    last, last_cpu = time.perf_counter(), time.process_time()
    for _ in range(todo):
        u = int(state.update)
        learner = learner_for(cfg.stage_config(u), reward_fn)
        if u > 0 and cfg.stage_config(u) != cfg.stage_config(u - 1):
            state = _next_stage(state, learner, u)
            say(f"curriculum: stage {cfg.stage_config(u).stage} from update {u}")
        state, metrics = run_together(learner.update, state)
        metrics = jax.device_get(metrics)
        now = time.perf_counter()
        cpu = time.process_time()  # all threads: steadier than wall time on a shared machine
        row = {"update": int(state.update), "steps": int(state.steps),
               "seconds": now - last, "steps_per_s": cfg.steps_per_update / (now - last),
               "cpu_seconds": cpu - last_cpu}  # fmt: skip
        last, last_cpu = now, cpu
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
            # the next update's time leaves the check out
            last, last_cpu = time.perf_counter(), time.process_time()
        if cfg.checkpoint_every and u % cfg.checkpoint_every == 0:
            ckpts.save(u, state)
    bar.close()
    if int(state.update) not in ckpts.steps():
        ckpts.save(int(state.update), state)
    ckpts.wait()
    if best_ckpts is not None:
        best_ckpts.wait()
    if plots and writer and int(state.update) == cfg.num_updates:
        _draw_plots(run_dir)
    return TrainResult(state, run_dir, rows)


def _next_stage(state: Any, learner: Learner, update: int) -> Any:
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
