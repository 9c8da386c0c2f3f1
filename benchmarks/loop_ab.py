"""A/B of the compiled env loop in one process: the code as it is (A) against the same code
with a patch applied before tracing (B), timed alternately.

Two benchmark runs of one engine differ by several percent on a shared machine (the
rates drift from minute to minute), more than many changes are worth. Compiling both
programs in one process and timing them round by round, A then B, puts the drift on both
sides: a run of the same program as A and B (`--patch` of an empty file) differed by 0.7%.

The patch is a Python file executed after the package is imported and A is compiled: it
swaps module attributes back to the form to compare against (a function `from x import f`
bound in another module must be swapped there too). Example, the reductions left unfolded:

    echo 'from marl_bgs.core import array_ops
    array_ops._short_float = lambda xp, a, axis: False' > /tmp/unfolded.py
    python benchmarks/loop_ab.py --patch /tmp/unfolded.py --rounds 6
"""

from __future__ import annotations

import argparse
import runpy
import statistics
import time
from pathlib import Path

import jax
from report import run_facts, write_report
from trace_loop import compiled_loop  # the loop of random_play_step, its parts named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patch", type=Path, required=True, help="Python file giving B")
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--ticks", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/loop_ab.json"))
    args = parser.parse_args()
    if not args.patch.is_file():
        parser.error(f"--patch: no file {args.patch}")

    a, state = compiled_loop(args.games, args.ticks)
    runpy.run_path(str(args.patch), run_name="patch")
    b, _ = compiled_loop(args.games, args.ticks)
    steps = {"A": [], "B": []}
    for r in range(args.rounds):
        for name, program in (("A", a), ("B", b)):
            jax.block_until_ready(program(state, jax.random.key(5)))
            begin = time.perf_counter()
            jax.block_until_ready(program(state, jax.random.key(7 + r)))
            steps[name].append(args.games * args.ticks / (time.perf_counter() - begin))
    for name, rates in steps.items():
        each = ", ".join(f"{x:,.0f}" for x in rates)
        print(f"{name}: {statistics.median(rates):,.0f} steps/s (rounds: {each})")
    write_report(
        args.out,
        {
            "benchmark": "loop_ab",
            **run_facts(),
            "patch": str(args.patch),
            "games": args.games,
            "ticks_per_call": args.ticks,
            "steps_per_s": {k: statistics.median(v) for k, v in steps.items()},
            "rounds": steps,
        },
    )


if __name__ == "__main__":
    main()
