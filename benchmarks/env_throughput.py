"""Environment steps per second: our Team Deathmatch beside JaxMARL's SMAX, in one run.

For each batch size: a compiled rollout of `--ticks` ticks of uniformly random legal actions
with `reset_done` every tick (Listing S1 of the reference), compile time excluded, the median
of `--repeats` calls. SMAX (scenario 2s3z, uniform legal actions from `get_avail_actions`,
vmap + scan of `env.step`) runs the same way when `jaxmarl` is installed
(`pip install jaxmarl`). Prints a table and writes JSON; peak memory is the process's
resident set (CPU) or the device's peak bytes in use (GPU).

    python benchmarks/env_throughput.py --batches 1 32 128 512 1024 --ticks 500
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

import jax
import jax.numpy as jnp
from report import run_facts, write_report

import marl_bgs


def _timed(run, state, key, repeats: int) -> tuple[float, float]:
    begin = time.perf_counter()
    jax.block_until_ready(run(state, key))
    compile_s = time.perf_counter() - begin
    times = []
    for r in range(repeats):
        begin = time.perf_counter()
        jax.block_until_ready(run(state, jax.random.fold_in(key, r + 1)))
        times.append(time.perf_counter() - begin)
    return statistics.median(times), compile_s


def tdm_rate(num_envs: int, ticks: int, repeats: int) -> tuple[float, float]:
    env = marl_bgs.make("tdm", map_id=47, num_envs=num_envs)
    _, state = env.reset(jax.random.key(0))

    def body(carry, _):
        state, key = carry
        key, k_act, k_step, k_reset = jax.random.split(key, 4)
        actions = env.sample_actions(k_act, state)
        _, state, reward, _, _ = env.step(k_step, state, actions)
        _, state = env.reset_done(k_reset, state)
        return (state, key), reward["a0"].sum()

    run = jax.jit(lambda s, k: jax.lax.scan(body, (s, k), None, length=ticks)[1])
    seconds, compile_s = _timed(run, state, jax.random.key(1), repeats)
    return num_envs * ticks / seconds, compile_s


def smax_rate(num_envs: int, ticks: int, repeats: int) -> tuple[float, float] | None:
    try:
        from jaxmarl import make
        from jaxmarl.environments.smax import map_name_to_scenario
    except ImportError:
        return None
    env = make("SMAX", scenario=map_name_to_scenario("2s3z"))
    keys = jax.random.split(jax.random.key(0), num_envs)
    _, state = jax.vmap(env.reset)(keys)

    def act(key, state):
        avail = jax.vmap(env.get_avail_actions)(state)
        keys = jax.random.split(key, len(env.agents))
        return {
            a: jax.random.categorical(k, jnp.where(avail[a], 0.0, -jnp.inf))
            for a, k in zip(env.agents, keys, strict=True)
        }

    def body(carry, _):
        state, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        actions = act(k_act, state)
        step_keys = jax.random.split(k_step, num_envs)
        _, state, reward, _, _ = jax.vmap(env.step)(step_keys, state, actions)
        return (state, key), reward[env.agents[0]].sum()

    run = jax.jit(lambda s, k: jax.lax.scan(body, (s, k), None, length=ticks)[1])
    seconds, compile_s = _timed(run, state, jax.random.key(1), repeats)
    return num_envs * ticks / seconds, compile_s


def peak_memory_mb() -> float:
    device = jax.devices()[0]
    stats = device.memory_stats() if hasattr(device, "memory_stats") else None
    if stats and "peak_bytes_in_use" in stats:
        return stats["peak_bytes_in_use"] / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32, 128, 512, 1024])
    parser.add_argument("--ticks", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-smax", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/env_throughput.json"))
    args = parser.parse_args()

    rows = []
    print(f"{'games':>6} {'TDM steps/s':>12} {'SMAX steps/s':>13} {'ratio':>6} {'peak MB':>8}")
    for n in args.batches:
        ours, ours_compile = tdm_rate(n, args.ticks, args.repeats)
        smax = None if args.no_smax else smax_rate(n, args.ticks, args.repeats)
        row = {
            "games": n,
            "tdm_steps_per_s": ours,
            "tdm_compile_s": ours_compile,
            "smax_steps_per_s": smax[0] if smax else None,
            "smax_compile_s": smax[1] if smax else None,
            "ratio_tdm_to_smax": ours / smax[0] if smax else None,
            "peak_memory_mb": peak_memory_mb(),
        }
        rows.append(row)
        smax_text = f"{smax[0]:13.0f}" if smax else f"{'-':>13}"
        ratio_text = f"{row['ratio_tdm_to_smax']:6.2f}" if smax else f"{'-':>6}"
        print(f"{n:6d} {ours:12.0f} {smax_text} {ratio_text} {row['peak_memory_mb']:8.0f}")
    result = {
        "benchmark": "env_throughput",
        **run_facts(),
        "ticks_per_call": args.ticks,
        "repeats": args.repeats,
        "map": 47,
        "smax_scenario": "2s3z",
        "rows": rows,
    }
    write_report(args.out, result)


if __name__ == "__main__":
    main()
