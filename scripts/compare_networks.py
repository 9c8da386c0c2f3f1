"""The flat actor against the per-unit actor on one budget: the same recipe trained twice
(`network=mlp`, `network=units`), then compared on what the issue asks for.

    .venv/bin/python scripts/compare_networks.py --recipe seasons/recipes/kick-alpha-1-bc.toml \
        --steps 307200 --runs ~/runs/compare --out benchmarks/results/compare_networks.json

For each network: a run of `--steps` game steps of the recipe (its own schedules scaled to
that length; validation at its end on the recipe's validation panel, maps 42-46 only), then
- the validation margin and W-D-L of the final check;
- training game steps per CPU second (the process time logged with each update,
  `cpu_seconds`; the first update, which compiles, is left out) and per wall second;
- agreement with the teacher on demonstrations recorded with another seed on the training
  maps (the student's most likely choice against the teacher's, over decisions with more
  than one legal choice), in all and per head (move, target, Ultimate).

Runs are resumed when their folder already holds checkpoints, so a stopped comparison goes
on. The JSON holds every number and the settings; the table is printed as well.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from marl_bgs.outputs import folder_argument  # noqa: E402

NETWORKS = ("mlp", "units")


def agreement(run: Path, demos_folder: Path) -> dict:
    """The run's actor (newest checkpoint) against the teacher's recorded choices."""
    import jax.numpy as jnp

    from marl_bgs.core.actions import NUM_PAIRS, NUM_ULTIMATE
    from marl_bgs.learn.demos import learner_batch, read_demos
    from marl_bgs.learn.networks import actor_inputs, make_actor
    from marl_bgs.learn.policy import load_policy

    policy = load_policy(run)
    actor = make_actor(policy.hidden, policy.recurrent, policy.norm, policy.arch, policy.embed)
    batch = learner_batch(read_demos(demos_folder).arrays())
    avail = batch["avail"].astype(bool)
    ticks, games = avail.shape[:2]
    memory = jnp.zeros((games, 5, policy.memory_width))
    best = []
    for t in range(ticks):
        x = actor_inputs(jnp.asarray(batch["obs"][t]), jnp.asarray(batch["classes"][t], jnp.int32))
        reset = jnp.broadcast_to(jnp.asarray(batch["new_game"][t])[:, None], (games, 5))
        memory, logits = actor.apply(policy.params, memory, x, jnp.asarray(avail[t]), reset)
        best.append(np.asarray(jnp.argmax(logits, -1)))
    pred, label = np.stack(best), batch["action"].astype(np.int64)
    counted = batch["counts"] & (avail.sum(-1) > 1)
    heads = {
        "move": lambda a: a // NUM_PAIRS,
        "target": lambda a: (a % NUM_PAIRS) // NUM_ULTIMATE,
        "ultimate": lambda a: a % NUM_ULTIMATE,
    }
    out = {"decisions": int(counted.sum()), "all": float((pred == label)[counted].mean())}
    out.update({k: float((f(pred) == f(label))[counted].mean()) for k, f in heads.items()})
    return out


def train_one(recipe: Path, network: str, steps: int, run: Path, seed: int) -> dict:
    """Train (or resume) one network's run; its speed from the logged updates."""
    import pandas as pd

    from marl_bgs.learn import load_config, train

    cfg = load_config(recipe, [f"network={network}", f"total_steps={steps}", f"seed={seed}",
                               f"out={run}", "validate_every=1.0", "checkpoint_every=25"])  # fmt: skip
    resume = (run / "checkpoints").is_dir()
    cpu0 = time.process_time()
    train(cfg, resume=resume, progress=True, plots=False)
    rows = pd.read_csv(run / "updates.csv")
    later = rows.iloc[1:] if len(rows) > 1 else rows  # the first update compiles
    checks = pd.read_csv(run / "validation.csv")
    final = checks.iloc[-1].to_dict()
    return {
        "network": network,
        "updates": int(rows["update"].iloc[-1]),
        "game_steps": int(rows["steps"].iloc[-1]),
        "steps_per_wall_s": float(cfg.steps_per_update * len(later) / later["seconds"].sum()),
        "steps_per_cpu_s": float(cfg.steps_per_update * len(later) / later["cpu_seconds"].sum()),
        "process_cpu_s_this_call": time.process_time() - cpu0,
        "validation": {
            k: final[k] for k in ("update", "margin", "wins", "draws", "losses", "kills", "deaths")
        },  # fmt: skip
        "config": cfg.to_dict(),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--recipe", type=Path, required=True, help="a training config file")
    p.add_argument("--steps", type=int, default=307_200, help="game steps per network")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--runs", type=folder_argument, required=True, help="folder of the two runs")
    p.add_argument("--demo-steps", type=int, default=40_960, help="held-out demonstration steps")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/compare_networks.json")
    args = p.parse_args(argv)
    from marl_bgs.learn import load_config
    from marl_bgs.learn.demos import DemoSettings, record_demos

    try:
        base = load_config(args.recipe, [f"total_steps={args.steps}", f"seed={args.seed}"])
    except ValueError as err:
        p.error(f"--recipe: {err}")
    if not getattr(base, "teacher", ""):
        p.error("--recipe: needs a teacher (a bc or kickstart config) to measure agreement")
    demos = args.runs / "held-out-demos"
    if not (demos / "demos.json").exists():
        record_demos(DemoSettings(teacher=base.teacher, opponents=base.scripted_opponents,
                                  maps=base.maps, num_envs=64, chunk_ticks=32,
                                  steps=args.demo_steps, shard_steps=args.demo_steps,
                                  seed=args.seed + 1000), demos, progress=False)  # fmt: skip
    rows = []
    for network in NETWORKS:
        row = train_one(args.recipe, network, args.steps, args.runs / network, args.seed)
        row["agreement"] = agreement(args.runs / network, demos)
        rows.append(row)
    print(f"{'network':>8} {'steps/s':>8} {'/cpu s':>7} {'margin':>7} {'W-D-L':>9} {'agree':>6} {'move':>6} "
          f"{'target':>6} {'ult':>6}")  # fmt: skip
    for r in rows:
        v, a = r["validation"], r["agreement"]
        print(f"{r['network']:>8} {r['steps_per_wall_s']:8.0f} {r['steps_per_cpu_s']:7.0f} "
              f"{v['margin']:+7.2f} "
              f"{v['wins']:>3}-{v['draws']}-{v['losses']:<3} {a['all']:6.3f} {a['move']:6.3f} "
              f"{a['target']:6.3f} {a['ultimate']:6.3f}")  # fmt: skip
    doc = {"recipe": str(args.recipe), "steps": args.steps, "seed": args.seed,
           "held_out_demos": {"seed": args.seed + 1000, "steps": args.demo_steps},
           "rows": rows}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
