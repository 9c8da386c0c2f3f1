"""One prepared run for a machine with an accelerator (at most about 8 minutes): what a GPU
user wants to know, written as one JSON file.

1. Env steps per second at 1,024, 4,096 and 16,384 games (random legal actions, finished
   games restarted, compiled `lax.scan`, compile excluded, median of repeats), with JaxMARL's
   SMAX 2s3z timed the same way right after ours at each size (env_throughput.py's loops).
2. Training game steps per second of every algorithm at 512 games (train_throughput.py's
   compiled update: self-play rollout plus the learning step; compile excluded).
3. A 2,000-game fixture (Nav-DAgger 0 against TDM-Alpha on the test maps, Season 0's
   seat) played twice with XLA's deterministic GPU ops on, compared game by game.

`--smoke` runs every part at toy sizes (64 games, one algorithm, 8 fixture games): CI runs
it on the CPU so that the real run cannot fail on its first line. Each part is skipped, and
says so, once `--budget-s` seconds have passed. JAX must not be imported before this file
sets XLA_FLAGS (the deterministic mode is read when the backend starts).

    python benchmarks/device_suite.py --out benchmarks/results/device_suite.json
    python benchmarks/device_suite.py --smoke --out /tmp/device_suite.json
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DETERMINISTIC = "--xla_gpu_deterministic_ops=true"
os.environ["XLA_FLAGS"] = " ".join(f for f in (os.environ.get("XLA_FLAGS", ""), DETERMINISTIC) if f)
sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
from env_throughput import smax_run, tdm_run  # noqa: E402
from report import run_facts, write_report  # noqa: E402

FULL = {"env_sizes": [1024, 4096, 16384], "env_ticks": 200, "repeats": 3, "train_games": 512,
        "updates": 3, "rollout_len": 32, "hidden": 128, "fixture_games": 2000,
        "fixture_batch": 1000}  # fmt: skip
SMOKE = {"env_sizes": [64], "env_ticks": 10, "repeats": 1, "train_games": 8, "updates": 1,
         "rollout_len": 4, "hidden": 8, "fixture_games": 8, "fixture_batch": 8}  # fmt: skip
ROOT = Path(__file__).resolve().parent.parent
# Season 0's seat of its learned challenger: its policy file, and TDM-Alpha
FIXTURE = (
    {"weights": str(ROOT / "seasons" / "entrants" / "nav-dagger-0" / "policy.npz")},
    "tdm-alpha",
)
FIXTURE_NAMES = ("Nav-DAgger 0", "TDM-Alpha")


class Budget:
    """Seconds left of the run; a part that would start after the end is skipped."""

    def __init__(self, seconds: float) -> None:
        self.end = time.perf_counter() + seconds

    def over(self) -> bool:
        return time.perf_counter() > self.end


def env_part(size: dict, budget: Budget, smax: bool) -> list[dict]:
    rows = []
    for n in size["env_sizes"]:
        if budget.over():
            rows.append({"games": n, "skipped": "time budget spent"})
            continue
        ours = tdm_run(n, size["env_ticks"], size["repeats"])
        theirs = smax_run(n, size["env_ticks"], size["repeats"]) if smax else None
        row = {"games": n, "tdm_steps_per_s": ours["steps_per_s"], "tdm_compile_s": ours["compile_s"],
               "smax_steps_per_s": theirs["steps_per_s"] if theirs else None,
               "ratio_tdm_to_smax": ours["steps_per_s"] / theirs["steps_per_s"] if theirs else None}  # fmt: skip
        print(f"env {n:6d} games: {row['tdm_steps_per_s']:12.0f} steps/s (SMAX "
              f"{row['smax_steps_per_s'] or 0:12.0f})", flush=True)  # fmt: skip
        rows.append(row)
    return rows


def train_part(size: dict, budget: Budget, algos: list[str]) -> list[dict]:
    import train_throughput

    args = argparse.Namespace(rollout_len=size["rollout_len"], hidden=size["hidden"], map=0,
                              updates=size["updates"])  # fmt: skip
    rows = []
    for algo in algos:
        if budget.over():
            rows.append({"algo": algo, "skipped": "time budget spent"})
            continue
        begin = time.perf_counter()
        out, learner = train_throughput.train_run(algo, size["train_games"], args)
        rows.append({"algo": algo, "games": size["train_games"], "rollout_len": size["rollout_len"],
                     "steps_per_s": out["steps_per_s"], "compile_s": out["compile_s"],
                     "median_update_s": out["median_call_s"], "cpu_s": out["cpu_s"],
                     "wall_s": time.perf_counter() - begin})  # fmt: skip
        print(f"train {algo:>10}: {out['steps_per_s']:10.0f} game steps/s", flush=True)
    return rows


def fixture_part(size: dict, budget: Budget) -> dict:
    """The fixture twice; the games tables compared row by row."""
    from marl_bgs import evaluate

    if budget.over():
        return {"skipped": "time budget spent"}
    plays = []
    for _ in range(2):
        begin = time.perf_counter()
        games = evaluate(*FIXTURE, maps="test", games=size["fixture_games"],
                         batch_size=size["fixture_batch"], seed=0, progress=False).games  # fmt: skip
        plays.append((games, time.perf_counter() - begin))
    (first, s1), (second, s2) = plays
    same = ((first == second) | (first.isna() & second.isna())).all(axis=1)
    differ = [int(g) for g in first.index[~same]]
    out = {"systems": list(FIXTURE_NAMES), "games": len(first), "identical_games": len(first) - len(differ),
           "differing_games": differ[:20], "seconds": [round(s1, 2), round(s2, 2)],
           "xla_flags": os.environ["XLA_FLAGS"]}  # fmt: skip
    print(f"fixture {FIXTURE_NAMES[0]} vs {FIXTURE_NAMES[1]}: {out['identical_games']} of {out['games']} "
          "games identical in two plays", flush=True)  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> dict:
    from marl_bgs.learn.registry import ALGOS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="toy sizes (CI, on the CPU)")
    parser.add_argument("--algos", nargs="+", choices=ALGOS, help="default: all (smoke: ff-ippo)")
    parser.add_argument("--budget-s", type=float, default=450.0, help="skip parts after this")
    parser.add_argument("--no-smax", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/device_suite.json"))
    args = parser.parse_args(argv)
    size = SMOKE if args.smoke else FULL
    algos = args.algos or (["ff-ippo"] if args.smoke else list(ALGOS))
    budget = Budget(args.budget_s)
    began = time.perf_counter()
    print(f"devices: {jax.devices()}", flush=True)
    result = {
        "benchmark": "device_suite",
        **run_facts(),
        "devices": [str(d) for d in jax.devices()],
        "smoke": args.smoke,
        "sizes": size,
        "env": env_part(size, budget, not args.no_smax),
        "train": train_part(size, budget, algos),
        "fixture": fixture_part(size, budget),
    }
    result["wall_s"] = round(time.perf_counter() - began, 1)
    write_report(args.out, result)
    return result


if __name__ == "__main__":
    main()
