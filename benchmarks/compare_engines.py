"""The NumPy engine of several checkouts, side by side: rounds taken in turn, one process each.

A shared, noisy machine moves a single figure by 20% from one minute to the next, so a
before/after claim needs both engines measured in the same run, interleaved: round r runs
every checkout once (each in a fresh process with PYTHONPATH=<checkout>, timing
`engine_speed.numpy_ticks_per_second`: map 47, random legal actions, `Game.step`), and the
table gives each checkout's median and range over the rounds, wall and CPU time.

    python benchmarks/compare_engines.py --checkout before=/tmp/old --checkout now=. \
        --rounds 5 --out benchmarks/results/compare_engines.json

A checkout is any directory holding a `marl_bgs` package (a `git worktree` of a commit).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from report import write_report

HERE = Path(__file__).resolve().parent
# What each measuring process runs: this folder's timing function over the checkout's engine.
_MEASURE = (
    "import json, sys; sys.path.insert(0, {here!r}); import marl_bgs;"
    "from engine_speed import numpy_ticks_per_second as f;"
    "w, c = f({ticks}, {seed}); print(json.dumps([w, c, marl_bgs.__file__]))"
)


def measure(checkout: Path, ticks: int, seed: int) -> tuple[float, float]:
    """(wall, CPU) ticks per second of `checkout`'s NumPy engine, in a fresh process."""
    code = _MEASURE.format(here=str(HERE), ticks=ticks, seed=seed)
    env = {"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=checkout,  # the current folder comes first on sys.path: the checkout's package
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"checkout {checkout}: the measurement failed:\n{done.stderr}")
    wall, cpu, where = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(where).resolve().is_relative_to(checkout.resolve()):
        raise SystemExit(f"checkout {checkout}: imported marl_bgs from {where} instead")
    return wall, cpu


def _checkout(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"--checkout: expected NAME=PATH, got {text!r}")
    if not (Path(path) / "marl_bgs").is_dir():
        raise argparse.ArgumentTypeError(f"--checkout {name}: no marl_bgs package in {path}")
    return name, Path(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=_checkout, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ticks", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/compare_engines.json"))
    args = parser.parse_args()
    if args.rounds < 1 or args.ticks < 1:
        parser.error("--rounds and --ticks must be at least 1")

    runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in args.checkout}
    for r in range(args.rounds):
        for name, path in args.checkout:
            wall, cpu = measure(path, args.ticks, args.seed)
            runs[name].append((wall, cpu))
            print(
                f"round {r + 1}/{args.rounds}  {name:12s} {wall:7.0f} ticks/s  {cpu:7.0f} per CPU s"
            )

    rows = []
    print(f"\n{'checkout':12s} {'wall ticks/s':>22s} {'CPU ticks/s':>22s}")
    for name, path in args.checkout:
        walls, cpus = zip(*runs[name], strict=True)
        row = {
            "checkout": name,
            "path": str(path),
            "wall_median": statistics.median(walls),
            "cpu_median": statistics.median(cpus),
            "wall": list(walls),
            "cpu": list(cpus),
        }
        rows.append(row)
        print(
            f"{name:12s} {row['wall_median']:7.0f} ({min(walls):.0f}-{max(walls):.0f})"
            f"   {row['cpu_median']:7.0f} ({min(cpus):.0f}-{max(cpus):.0f})"
        )
    base = rows[0]
    for row in rows[1:]:
        ratio = row["cpu_median"] / base["cpu_median"]
        print(f"{row['checkout']} / {base['checkout']}: {ratio:.3f} (CPU medians)")
    write_report(
        args.out,
        {
            "benchmark": "compare_engines",
            "map": 47,
            "ticks": args.ticks,
            "rounds": args.rounds,
            "seed": args.seed,
            "python": sys.version.split()[0],
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()
