"""Steps per second of the PettingZoo env (`marl_bgs.pettingzoo`, the NumPy engine) with
random legal actions: both teams as PettingZoo agents, and with TDM-Beta playing team b
inside the env. One step is one tick of one game; the time includes sampling the actions
from the masks. Wall and process CPU time, the median of `--repeats` runs of `--steps`.

    python benchmarks/pettingzoo_speed.py --out benchmarks/results/pettingzoo_speed.json
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from report import write_report

from marl_bgs.pettingzoo import parallel_env


def run(opponent: str | None, steps: int, seed: int) -> tuple[float, float]:
    """(wall s, CPU s) for `steps` ticks of random legal play, games restarted as they end."""
    env = parallel_env(opponent=opponent)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        if not env.agents:
            obs, _ = env.reset()
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(actions)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/pettingzoo_speed.json")
    )
    args = parser.parse_args()
    rows = []
    for opponent in (None, "tdm-beta"):
        runs = [run(opponent, args.steps, seed) for seed in range(args.repeats)]
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        row = {"opponent": opponent, "steps": args.steps, "steps_per_s": args.steps / wall,
               "steps_per_cpu_s": args.steps / cpu, "wall_s": [round(w, 3) for w, _ in runs]}  # fmt: skip
        rows.append(row)
        print(f"opponent {opponent or 'none (10 agents)':>18}: {row['steps_per_s']:7.1f} steps/s, "
              f"{row['steps_per_cpu_s']:7.1f} per CPU s")  # fmt: skip
    write_report(args.out, {"benchmark": "pettingzoo_speed", "map": 47, "rows": rows})


if __name__ == "__main__":
    main()
