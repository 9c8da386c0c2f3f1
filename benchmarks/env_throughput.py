"""Environment steps per second: our Team Deathmatch beside JaxMARL's SMAX, in one run.

The protocol of issue 3: for each batch size, a compiled rollout of `--ticks` ticks (500) of
uniformly random legal actions on map 47 (or the `--maps` drawn from) with `reset_done` every
tick (Listing S1 of the reference), compile time excluded, the median of `--repeats` (5)
calls. SMAX (scenario 2s3z, uniform legal actions from `get_avail_actions`, vmap + scan of
`env.step`) runs the same way, right after ours at each size, when `jaxmarl` is installed
(`pip install jaxmarl`).

Peak memory is reported two ways: `xla_peak_mb`, the peak of the compiled rollout's buffers
as XLA's buffer assignment computes it (per program, so per batch size), and
`process_max_rss_mb`, the process's maximum resident set so far (`resource.ru_maxrss`: it
only grows, so it bounds every size run before it). `--profile` adds the per-part timing of
one tick at the largest size (see profile_step.py) to the JSON and writes PROFILE.md.

    python benchmarks/env_throughput.py                       # the full protocol
    python benchmarks/env_throughput.py --sizes 1024 --ticks 100 --repeats 3   # quick
    python benchmarks/env_throughput.py --sizes 1024 --ticks 100 --maps $(seq 0 46)  # many maps
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

import jax
import jax.numpy as jnp
from report import random_play_step, run_facts, write_report

import marl_bgs


def _timed(run, state, key, repeats: int) -> dict:
    """Compile (timed apart), then the median wall time of `repeats` calls."""
    begin = time.perf_counter()
    compiled = run.lower(state, key).compile()
    compile_s = time.perf_counter() - begin
    jax.block_until_ready(compiled(state, key))  # first call: allocation, not timed
    times = []
    for r in range(repeats):
        begin = time.perf_counter()
        jax.block_until_ready(compiled(state, jax.random.fold_in(key, r + 1)))
        times.append(time.perf_counter() - begin)
    mem = compiled.memory_analysis()
    peak = getattr(mem, "peak_memory_in_bytes", 0) or (
        mem.argument_size_in_bytes + mem.output_size_in_bytes + mem.temp_size_in_bytes
    )
    return {
        "seconds": statistics.median(times),
        "all_seconds": times,
        "compile_s": compile_s,
        "xla_peak_mb": peak / 2**20,
    }


def tdm_run(num_envs: int, ticks: int, repeats: int, map_id: int | list[int] = 47) -> dict:
    env = marl_bgs.make("tdm", map_id=map_id, num_envs=num_envs)
    _, state = env.reset(jax.random.key(0))

    body = random_play_step(env)

    run = jax.jit(lambda s, k: jax.lax.scan(body, (s, k), None, length=ticks)[1])
    out = _timed(run, state, jax.random.key(1), repeats)
    out["steps_per_s"] = num_envs * ticks / out["seconds"]
    return out


def smax_run(num_envs: int, ticks: int, repeats: int) -> dict | None:
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
    out = _timed(run, state, jax.random.key(1), repeats)
    out["steps_per_s"] = num_envs * ticks / out["seconds"]
    return out


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 32, 128, 512, 1024])
    parser.add_argument("--ticks", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-smax", action="store_true")
    parser.add_argument(
        "--maps", type=int, nargs="+", default=[47],
        help="our env's map ids (one map: read as constants of the program; several: each "
        "game draws one and the batch tests each game's own)",
    )  # fmt: skip
    parser.add_argument("--profile", action="store_true", help="profile one tick, largest size")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/env_throughput.json"))
    args = parser.parse_args()
    map_id = args.maps[0] if len(args.maps) == 1 else args.maps  # one map: `make`'s int form

    rows = []
    head = f"{'games':>6} {'TDM steps/s':>12} {'SMAX steps/s':>13} {'ratio':>6}"
    print(f"{head} {'TDM MB':>7} {'SMAX MB':>8} {'RSS MB':>7}")
    for n in args.sizes:
        ours = tdm_run(n, args.ticks, args.repeats, map_id)
        smax = None if args.no_smax else smax_run(n, args.ticks, args.repeats)
        row = {
            "games": n,
            "tdm_steps_per_s": ours["steps_per_s"],
            "tdm_call_seconds": ours["all_seconds"],
            "tdm_compile_s": ours["compile_s"],
            "tdm_xla_peak_mb": ours["xla_peak_mb"],
            "smax_steps_per_s": smax["steps_per_s"] if smax else None,
            "smax_call_seconds": smax["all_seconds"] if smax else None,
            "smax_compile_s": smax["compile_s"] if smax else None,
            "smax_xla_peak_mb": smax["xla_peak_mb"] if smax else None,
            "ratio_tdm_to_smax": ours["steps_per_s"] / smax["steps_per_s"] if smax else None,
            "process_max_rss_mb": max_rss_mb(),
        }
        rows.append(row)
        smax_text = f"{smax['steps_per_s']:13.0f}" if smax else f"{'-':>13}"
        ratio_text = f"{row['ratio_tdm_to_smax']:6.2f}" if smax else f"{'-':>6}"
        smax_mb = f"{smax['xla_peak_mb']:8.1f}" if smax else f"{'-':>8}"
        print(
            f"{n:6d} {ours['steps_per_s']:12.0f} {smax_text} {ratio_text} "
            f"{ours['xla_peak_mb']:7.1f} {smax_mb} {row['process_max_rss_mb']:7.0f}"
        )
    result = {
        "benchmark": "env_throughput",
        **run_facts(),
        "protocol": "random legal actions, reset_done every tick, compiled scan, "
        "compile excluded, median of repeats",
        "ticks_per_call": args.ticks,
        "repeats": args.repeats,
        "map": map_id,
        "smax_scenario": "2s3z",
        "memory": "xla_peak_mb: compiled rollout's peak buffers (XLA memory_analysis); "
        "process_max_rss_mb: resource.ru_maxrss so far (cumulative)",
        "rows": rows,
    }
    if args.profile:
        from profile_step import markdown_table, profile

        result["profile_games"] = max(args.sizes)
        result["profile"] = profile(max(args.sizes), 60, args.repeats, 0)
        print(markdown_table(result["profile"]))
    write_report(args.out, result)


if __name__ == "__main__":
    main()
