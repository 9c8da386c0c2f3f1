"""How the compiled env loop's kernels use the CPU's threads: busy time per thread, the time
one thread, both or neither runs a kernel, and kernel runs per engine function.

`trace_loop.py` sums each kernel's time; this script keeps when and on which thread each
ran. On the 2-core development machine it showed the loop running one kernel at a time
(about 2,300 kernel runs a tick of 1,024 games), so a tick costs the sum of its kernels
and their fixed cost per run, not the work divided by the cores.

    python benchmarks/loop_timeline.py --games 1024 --out benchmarks/results/loop_timeline.json
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import tempfile
from pathlib import Path

import jax
from report import run_facts, write_report
from trace_loop import compiled_loop, kernel_scopes, name_engine_functions

# Wrappers of every engine function's scope, left out when grouping by function.
_PLUMBING = {"step", "_tick", "_batched", "_step_one", "call", "in_chunks", "settle"}
_PLUMBING |= {"ordinary_movement", "move_bodies", "plan_moves"}


def kernel_events(compiled, state, known: dict[str, str]) -> list[dict]:
    """The kernel events ('X' events naming a kernel of the program) of one profiled call;
    while loops and conditionals are left out (their events span the kernels inside)."""
    with tempfile.TemporaryDirectory() as folder:
        jax.profiler.start_trace(folder)
        jax.block_until_ready(compiled(state, jax.random.key(3)))
        jax.profiler.stop_trace()
        trace = sorted(Path(folder).rglob("*.trace.json.gz"))[-1]
        events = json.loads(gzip.decompress(trace.read_bytes()))
    events = events["traceEvents"] if isinstance(events, dict) else events
    control = re.compile(r"^(while|cond|conditional)\b")
    return [
        e
        for e in events
        if e.get("ph") == "X" and "dur" in e and e["name"] in known and not control.match(e["name"])
    ]


def occupancy(events: list[dict]) -> tuple[float, float, float, float]:
    """(span, idle, one thread busy, two or more busy) in microseconds over the events."""
    edges = sorted(
        [(e["ts"], 1, e["tid"]) for e in events] + [(e["ts"] + e["dur"], -1, e["tid"]) for e in events]
    )  # fmt: skip
    running: collections.Counter = collections.Counter()
    spent = [0.0, 0.0, 0.0]  # idle, one, more
    last = edges[0][0]
    for when, step, tid in edges:
        busy = sum(1 for n in running.values() if n > 0)
        spent[min(busy, 2)] += when - last
        running[tid] += step
        last = when
    return edges[-1][0] - edges[0][0], *spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--ticks", type=int, default=20)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/loop_timeline.json"))
    args = parser.parse_args()

    name_engine_functions()
    compiled, state = compiled_loop(args.games, args.ticks)
    jax.block_until_ready(compiled(state, jax.random.key(1)))
    scopes = kernel_scopes(compiled.as_text())
    events = kernel_events(compiled, state, scopes)
    span, idle, one, more = (x / 1000 / args.ticks for x in occupancy(events))
    per_thread = collections.Counter()
    runs, spent = collections.Counter(), collections.Counter()
    for e in events:
        per_thread[e["tid"]] += e["dur"] / 1000 / args.ticks
        names = [n for n in scopes[e["name"]].split("/") if n not in _PLUMBING]
        group = "/".join(names[:2]) or "?"
        runs[group] += 1 / args.ticks
        spent[group] += e["dur"] / 1000 / args.ticks
    print(f"{args.games} games: {span:.2f} ms a tick under the profiler")
    print(f"  neither thread {idle:.2f} ms, one {one:.2f} ms, two or more {more:.2f} ms")
    print(f"  kernel runs a tick: {len(events) / args.ticks:,.0f}")
    for tid, ms in per_thread.most_common():
        print(f"  thread {tid}: busy {ms:.2f} ms a tick")
    rows = [
        {"function": g, "runs_per_tick": runs[g], "ms_per_tick": spent[g], "us_per_run": 1000 * spent[g] / runs[g]}
        for g, _ in spent.most_common()
    ]  # fmt: skip
    for row in rows[: args.top]:
        print(
            f"  {row['runs_per_tick']:7.1f} runs {row['ms_per_tick']:6.2f} ms "
            f"{row['us_per_run']:6.1f} us/run  {row['function']}"
        )
    write_report(
        args.out,
        {
            "benchmark": "loop_timeline",
            **run_facts(),
            "games": args.games,
            "ticks_per_call": args.ticks,
            "ms_per_tick_profiled": span,
            "ms_per_tick_idle": idle,
            "ms_per_tick_one_thread": one,
            "ms_per_tick_two_or_more": more,
            "kernel_runs_per_tick": len(events) / args.ticks,
            "busy_ms_per_tick_by_thread": list(per_thread.values()),
            "by_function": rows,
        },
    )


if __name__ == "__main__":
    main()
