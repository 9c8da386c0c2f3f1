"""Where the compiled Listing S1 loop spends its time, kernel by kernel, per engine function.

`profile_step.py` compiles each part alone, which fuses differently from the whole loop (a
part that is cheap alone can be dear inside it, and the other way round). This script
times the loop itself: it names every engine function (`jax.named_scope`, added only here
by wrapping the functions of `marl_bgs.core` and the environment's methods), compiles the
loop of sample_actions + step + reset_done once, runs it under the JAX profiler, and gives
each XLA kernel's time to the engine function that most of its operations come from.

    python benchmarks/trace_loop.py --games 1024 --out benchmarks/results/trace_loop.json
"""

from __future__ import annotations

import argparse
import collections
import functools
import gzip
import json
import re
import statistics
import tempfile
import time
import types
from pathlib import Path

import jax
from report import run_facts, write_report

import marl_bgs
from marl_bgs import env as env_module
from marl_bgs import env_actions, env_views
from marl_bgs.core import (
    body_contacts,
    body_paths,
    contact,
    exit_candidates,
    first_touch,
    geometry,
    grid_ends,
    leg_surfaces,
    movement,
    numpy_obstacle_tests,
    observation,
    obstacle_legs,
    obstacle_rows,
    settle_loop,
    shape_tests,
    shield_exit,
    sight,
    sight_pairs,
    stop_passes,
    tick,
)

SCOPED_MODULES = (
    tick, movement, obstacle_legs, leg_surfaces, obstacle_rows, body_contacts, body_paths,
    first_touch, grid_ends, stop_passes, contact, shield_exit, exit_candidates, sight, sight_pairs,
    geometry, shape_tests, numpy_obstacle_tests, observation, settle_loop, env_module, env_actions,
    env_views,
)  # fmt: skip
SKIPPED_NAMES = {"while", "body", "closed_call", "cond", "remat", "checkpoint"}


def _scoped(fn):
    @functools.wraps(fn)
    def named(*args, **kwargs):
        with jax.named_scope(fn.__name__):
            return fn(*args, **kwargs)

    return named


def name_engine_functions() -> None:
    """Wrap every function of the engine modules (and the env's private methods) in a named
    scope, so that XLA's operations carry the function they came from."""
    wrapped: dict[int, types.FunctionType] = {}
    for module in SCOPED_MODULES:
        for value in vars(module).values():
            if isinstance(value, types.FunctionType) and value.__module__.startswith("marl_bgs"):
                wrapped.setdefault(id(value), _scoped(value))
    for module in SCOPED_MODULES:
        for name, value in list(vars(module).items()):
            if id(value) in wrapped:
                setattr(module, name, wrapped[id(value)])
    for cls in (env_module.TeamDeathmatch, env_views.EnvViews):
        for name, value in list(vars(cls).items()):
            if isinstance(value, types.FunctionType) and name.startswith("_") and "__" not in name:
                setattr(cls, name, _scoped(value))


def compiled_loop(games: int, ticks: int):
    env = marl_bgs.make("tdm", map_id=47, num_envs=games)
    _, state = env.reset(jax.random.key(0))

    def body(carry, _):
        state, key = carry
        key, k_act, k_step, k_reset = jax.random.split(key, 4)
        with jax.named_scope("sample_actions"):
            actions = env.sample_actions(k_act, state)
        with jax.named_scope("step"):
            _, state, reward, _, _ = env.step(k_step, state, actions)
        with jax.named_scope("reset_done"):
            _, state = env.reset_done(k_reset, state)
        return (state, key), reward["a0"].sum()

    run = jax.jit(lambda s, k: jax.lax.scan(body, (s, k), None, length=ticks)[1])
    return run.lower(state, jax.random.key(1)).compile(), state


def _scope_path(op_name: str) -> str:
    """'jit(f)/while/body/vmap(step)/move_bodies/sweep/add' -> 'step/move_bodies/sweep'."""
    parts = [re.sub(r"^\w+\((.*)\)$", r"\1", p) for p in op_name.split("/")]
    names = [p for p in parts if re.fullmatch(r"[A-Za-z_]\w*", p) and p not in SKIPPED_NAMES]
    return "/".join(names[:-1]) if len(names) > 1 else (names[0] if names else "?")


def kernel_scopes(hlo: str) -> dict[str, str]:
    """Each kernel (instruction) of the compiled module -> the scope most of its ops carry."""
    calls = dict(re.findall(r"^\s+%(\S+) = .*?calls=%([\w.\-]+)", hlo, re.M))
    own = dict(re.findall(r"^\s+%(\S+) = .*?op_name=\"([^\"]*)\"", hlo, re.M))
    ops: dict[str, list[str]] = {}
    current = None
    for line in hlo.splitlines():
        head = re.match(r"^(?:ENTRY )?%([\w.\-]+) ", line)
        if head and line.rstrip().endswith("{"):
            current = head.group(1)
            ops[current] = []
        elif current is not None:
            found = re.search(r'op_name="([^"]*)"', line)
            if found:
                ops[current].append(found.group(1))
    scopes = {}
    for name in set(calls) | set(own):
        names = ops.get(calls.get(name, ""), []) or [own.get(name, "?")]
        scopes[name] = collections.Counter(map(_scope_path, names)).most_common(1)[0][0]
    return scopes


def kernel_times(compiled, state) -> dict[str, float]:
    """Microseconds per kernel name over one profiled call."""
    with tempfile.TemporaryDirectory() as folder:
        jax.profiler.start_trace(folder, create_perfetto_trace=True)
        jax.block_until_ready(compiled(state, jax.random.key(3)))
        jax.profiler.stop_trace()
        trace = sorted(Path(folder).rglob("*.trace.json.gz"))[-1]
        events = json.loads(gzip.decompress(trace.read_bytes()))
    events = events["traceEvents"] if isinstance(events, dict) else events
    total: collections.Counter = collections.Counter()
    for e in events:
        if e.get("ph") == "X" and not e["name"].startswith(("$", "Thunk")):
            total[e["name"]] += e["dur"]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--ticks", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/trace_loop.json"))
    args = parser.parse_args()

    name_engine_functions()
    compiled, state = compiled_loop(args.games, args.ticks)
    jax.block_until_ready(compiled(state, jax.random.key(1)))
    seconds = []
    for r in range(args.repeats):
        begin = time.perf_counter()
        jax.block_until_ready(compiled(state, jax.random.key(2 + r)))
        seconds.append(time.perf_counter() - begin)
    scopes = kernel_scopes(compiled.as_text())
    by_scope: collections.Counter = collections.Counter()
    for kernel, micros in kernel_times(compiled, state).items():
        by_scope[scopes.get(kernel, "?")] += micros
    traced = sum(by_scope.values())
    rows = [
        {"scope": scope, "ms_per_tick": micros / 1000 / args.ticks, "share": micros / traced}
        for scope, micros in by_scope.most_common()
    ]
    per_tick = statistics.median(seconds) / args.ticks
    print(
        f"{args.games} games: {args.games / per_tick:,.0f} steps/s, "
        f"{per_tick * 1000:.1f} ms per tick ({traced / 1000 / args.ticks:.1f} ms in kernels)"
    )
    for row in rows[: args.top]:
        print(f"{row['ms_per_tick']:8.2f} ms {100 * row['share']:5.1f}%  {row['scope']}")
    write_report(
        args.out,
        {
            "benchmark": "trace_loop",
            **run_facts(),
            "games": args.games,
            "ticks_per_call": args.ticks,
            "steps_per_s": args.games / per_tick,
            "ms_per_tick": per_tick * 1000,
            "kernel_ms_per_tick": traced / 1000 / args.ticks,
            "note": "kernel time summed over threads; '?' = kernels with no engine scope",
            "scopes": rows,
        },
    )


if __name__ == "__main__":
    main()
