"""What recording metrics costs: env steps per second at metrics="none", "priority", "full".

`marl_bgs.make(..., metrics=...)` accumulates per-game metrics inside the compiled step: 16
priority counters, or those plus the full who-did-what-to-whom columns
(`marl_bgs/metrics/full.py`). This measures what that accumulation costs in the README's
loop (reset, then a `lax.scan` of `sample_actions`, `step` and `reset_done`; map 47, one
`--ticks`-tick rollout per call) so the price of `metrics="full"` in a training or
evaluation run is a number, not a guess.

For each batch size (`--sizes`, games at once) the three levels are compiled first (timed
apart, excluded), each called once untimed, then timed in `--repeats` interleaved rounds
(the order rotating every round), so machine noise falls on all three alike. Every level
plays the same games (same keys; metrics never change play, checked by the rewards). Each
call returns the final `state.metrics` summed, so XLA cannot drop the accumulation. Rates
are from the median call: wall time (`perf_counter`) and process CPU time
(`time.process_time`, all threads); `ratio` = a level's wall rate / "none"'s.

    python benchmarks/metrics_cost.py                                  # sizes 64 256
    python benchmarks/metrics_cost.py --sizes 64 --ticks 50 --repeats 2  # quick check
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import jax
from env_throughput import max_rss_mb
from report import random_play_step, run_facts, write_report

import marl_bgs
from marl_bgs.env_settings import METRIC_LEVELS


def compile_level(level: str, num_envs: int, ticks: int) -> dict:
    """Build the env at one metrics level, compile its rollout (timed) and call it once."""
    env = marl_bgs.make("tdm", map_id=47, num_envs=num_envs, metrics=level)
    _, state = env.reset(jax.random.key(0))
    body = random_play_step(env)

    def rollout(state, key):
        (state, _), rewards = jax.lax.scan(body, (state, key), None, length=ticks)
        return rewards.sum(), state.metrics.sum()

    key = jax.random.key(1)
    begin = time.perf_counter()
    compiled = jax.jit(rollout).lower(state, key).compile()
    compile_s = time.perf_counter() - begin
    jax.block_until_ready(compiled(state, key))  # first call: allocation, not timed
    return {
        "compiled": compiled,
        "state": state,
        "compile_s": compile_s,
        "metric_width": int(state.metrics.shape[-1]),
    }


def timed_call(level: dict, key: jax.Array) -> tuple[float, float, float]:
    """One call: wall seconds, process CPU seconds, and the rewards' sum."""
    wall, cpu = time.perf_counter(), time.process_time()
    rewards, _ = jax.block_until_ready(level["compiled"](level["state"], key))
    return time.perf_counter() - wall, time.process_time() - cpu, float(rewards)


def size_rows(num_envs: int, ticks: int, repeats: int, levels: tuple[str, ...]) -> list[dict]:
    """All levels at one batch size, timed in interleaved rounds."""
    built = {lv: compile_level(lv, num_envs, ticks) for lv in levels}
    walls: dict[str, list[float]] = {lv: [] for lv in levels}
    cpus: dict[str, list[float]] = {lv: [] for lv in levels}
    rewards: dict[str, list[float]] = {lv: [] for lv in levels}
    for r in range(repeats):
        key = jax.random.fold_in(jax.random.key(1), r + 1)
        for i in range(len(levels)):
            lv = levels[(r + i) % len(levels)]  # rotate who goes first
            wall, cpu, reward = timed_call(built[lv], key)
            walls[lv].append(wall)
            cpus[lv].append(cpu)
            rewards[lv].append(reward)
    steps = num_envs * ticks
    base = levels[0]
    base_wall, base_cpu = statistics.median(walls[base]), statistics.median(cpus[base])
    rows = []
    for lv in levels:
        wall, cpu = statistics.median(walls[lv]), statistics.median(cpus[lv])
        rows.append(
            {
                "games": num_envs,
                "metrics": lv,
                "metric_width": built[lv]["metric_width"],
                "steps_per_s": steps / wall,
                "steps_per_cpu_s": steps / cpu,
                "ratio_to_none": base_wall / wall,
                "cpu_ratio_to_none": base_cpu / cpu,
                "median_call_s": wall,
                "median_call_cpu_s": cpu,
                "call_seconds": walls[lv],
                "call_cpu_seconds": cpus[lv],
                "compile_s": built[lv]["compile_s"],
                "same_games_as_none": rewards[lv] == rewards[base],
                "process_max_rss_mb": max_rss_mb(),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--ticks", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/metrics_cost.json"))
    args = parser.parse_args()
    if args.repeats < 1 or args.ticks < 1:
        parser.error("--ticks and --repeats: at least 1")
    levels = tuple(METRIC_LEVELS)  # "none" first: the baseline of every ratio

    rows = []
    print(
        f"{'metrics':>8} {'games':>6} {'steps/s':>9} {'steps/cpu-s':>11} {'ratio':>6} "
        f"{'compile s':>9}"
    )
    for n in args.sizes:
        for row in size_rows(n, args.ticks, args.repeats, levels):
            rows.append(row)
            print(
                f"{row['metrics']:>8} {n:6d} {row['steps_per_s']:9.0f} "
                f"{row['steps_per_cpu_s']:11.0f} {row['ratio_to_none']:6.3f} "
                f"{row['compile_s']:9.1f}",
                flush=True,
            )
    result = {
        "benchmark": "metrics_cost",
        **run_facts(),
        "protocol": "random legal actions, reset_done every tick, compiled scan returning "
        "the final state.metrics summed; levels compiled apart (excluded), one untimed call "
        "each, then --repeats interleaved rounds (rotating order) of the same keys; median "
        "call; ratio_to_none = none's median wall / this level's",
        "ticks_per_call": args.ticks,
        "repeats": args.repeats,
        "map": 47,
        "levels": list(levels),
        "cpu_time": "time.process_time over the call (all threads of the process)",
        "rows": rows,
    }
    write_report(args.out, result)


if __name__ == "__main__":
    main()
