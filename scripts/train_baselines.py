"""Train the six Season 0 baselines one after another on the same budget of game steps.

    PYTHONPATH=. python scripts/train_baselines.py --steps 500000 --seed 0 \
        --runs /work/runs/baselines

For each algorithm this writes `<runs>/<name>.toml` (its resolved settings, `<name>` such as
`qmix-500k`) and runs `marl-bgs train --config <runs>/<name>.toml --out <runs>/<name>`, so
one run is reproduced by that one command. A run whose newest checkpoint is its last update
is skipped; one that stopped part way is continued with `--resume`.

Shared settings, as in seasons/entrants/ppo-rec-ippo-0/train.toml: 64 games at once, hidden
width 64, gamma 0.99, Team B the current weights 40% / Random 60%, validation against
random and tdm-beta (8 games per map and opponent) after every tenth of the run, the
default maps. The PPO learners also take that entrant's learning rates (actor 3e-4, critic
1e-3) and its 32-tick rollouts.

The Q learners' defaults are tuned for 40M game steps with 768 games; on a short budget
their schedules are scaled to the budget instead (see `q_schedule`):
- epsilon decays over the first half of the budget (default: 2M of 40M steps);
- QMIX copies its target networks every 5% of its updates (20 copies a run; the default's
  128 of 1632 updates gives about 13), starts learning once 5% of the budget's rollouts
  are in the replay (at least one batch) and replays the newest quarter of the budget;
- PQN-VDN keeps its 128-tick rollouts (64 games x 128 ticks per update; its learning rate
  already decays over the run).
Checkpoints every 5% of the updates (the newest two kept), so a stopped run loses little.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from marl_bgs.learn.config import CONFIG_CLASSES, QConfig  # noqa: E402
from marl_bgs.learn.config_files import from_dict  # noqa: E402
from marl_bgs.learn.policy import saved_steps  # noqa: E402
from marl_bgs.learn.registry import BASELINES  # noqa: E402
from marl_bgs.outputs import folder_argument  # noqa: E402

SHARED = {
    "hidden": 64,
    "num_envs": 64,
    "gamma": 0.99,
    "opponent_self": 0.4,
    "opponent_pool": 0.0,
    "opponent_fixed": 0.0,
    "opponent_scripted": 0.6,
    "scripted_opponents": ["random"],
    "keep_checkpoints": 2,
    "validate_every": 0.1,
    "validation_opponents": ["random", "tdm-beta"],
    "validation_games": 8,
}
PPO = {"rollout_len": 32, "actor_lr": 3e-4, "critic_lr": 1e-3}


def q_schedule(algo: str, steps: int) -> dict:
    """The Q learners' schedule settings scaled to a budget of `steps` game steps."""
    out = {"eps_decay_steps": max(steps // 2, 1)}
    if algo == "pqn-vdn":
        return out | {"rollout_len": 128}
    t, batch = 32, 128
    rollouts = steps // t
    updates = max(steps // (SHARED["num_envs"] * t), 1)
    starts = max(rollouts // 20, batch)
    capacity = max(rollouts // 4, starts, SHARED["num_envs"])
    return out | {
        "rollout_len": t,
        "batch_size": batch,
        "target_every": max(updates // 20, 1),
        "learning_starts": starts,
        "buffer_rows": capacity * t,
    }


def settings(algo: str, steps: int, seed: int) -> dict:
    """Every setting `algo` gets that differs from its defaults."""
    own = q_schedule(algo, steps) if issubclass(CONFIG_CLASSES[algo], QConfig) else dict(PPO)
    out = {"algo": algo, **SHARED, **own, "total_steps": steps, "seed": seed}
    updates = max(steps // (out["num_envs"] * out["rollout_len"]), 1)
    out["checkpoint_every"] = max(updates // 20, 1)
    return out


def toml_text(values: dict, title: str) -> str:
    """`values` as TOML (strings, numbers, booleans and flat lists are all it holds)."""
    lines = [f"# {title}"]
    for key, v in values.items():
        if isinstance(v, bool):
            text = "true" if v else "false"
        elif isinstance(v, (int, float, str, list)):
            text = json.dumps(v)
        else:
            raise TypeError(f"{key}: cannot write {v!r} as TOML")
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def finished_update(run: Path) -> int | None:
    """The newest checkpoint's update number (None: no checkpoint yet)."""
    if not (run / "checkpoints").is_dir():
        return None
    return max(saved_steps(run), default=None)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=500_000, help="game steps per method")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--runs", type=folder_argument, required=True, help="folder of the six run folders"
    )
    p.add_argument("--algos", nargs="+", choices=BASELINES, default=list(BASELINES))
    args = p.parse_args()
    for algo in args.algos:  # every setting checked before any folder is made
        try:
            from_dict(settings(algo, args.steps, args.seed) | {"out": "runs/check"})
        except ValueError as err:
            flag = "--seed" if "config.seed" in str(err) else "--steps"
            p.error(f"{flag}: {err}")

    args.runs.mkdir(parents=True, exist_ok=True)
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    env.setdefault("TQDM_MININTERVAL", "30")  # a progress line every 30 s in a log file
    failed: list[str] = []  # one method failing does not stop the others
    for i, algo in enumerate(args.algos, 1):
        name = f"{algo}-{args.steps // 1000}k"
        values = settings(algo, args.steps, args.seed) | {"out": f"runs/{name}"}
        cfg = from_dict(values)  # refuse a bad setting before anything runs
        toml = args.runs / f"{name}.toml"
        title = (f"{name} (issue 22): `marl-bgs train --config THIS_FILE` trains it into "
                 f"runs/{name}; made by scripts/train_baselines.py --steps {args.steps}")  # fmt: skip
        toml.write_text(toml_text(values, title))
        run = args.runs / name
        done = finished_update(run)
        head = f"[{i}/{len(args.algos)}] {name}: {cfg.num_updates} updates"
        if done == cfg.num_updates:
            print(f"{head}, finished already; skipped", flush=True)
            continue
        resume = ["--resume"] if done is not None else []
        print(f"{head}" + (f", resuming at update {done}" if done else ""), flush=True)
        start = time.time()
        argv = [sys.executable, "-m", "marl_bgs.cli", "train", "--config", str(toml),
                "--out", str(run), *resume]  # fmt: skip
        code = subprocess.run(argv, env=env).returncode
        print(f"{head}: exit {code} after {(time.time() - start) / 60:.1f} min", flush=True)
        failed += [name] if code else []
    if failed:
        print(f"failed: {', '.join(failed)} (run again to resume them)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
