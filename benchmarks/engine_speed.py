"""Ticks per second of both engines, side by side in one run, written to JSON.

NumPy: one game at a time, as the browser runs it. JAX: the same tick under jit and vmap
for batches of games, random legal actions sampled inside the compiled loop, lax.scan over
ticks. Games do not restart here (that is the environment's job), so long runs keep
stepping finished games, which costs the same.

    python benchmarks/engine_speed.py --out benchmarks/results/engine_speed.json
    python benchmarks/engine_speed.py --batches --repeats 3   # NumPy only

Another checkout's engine runs under this script with PYTHONPATH=<checkout> (run from
outside this one), which is how before/after figures are taken side by side.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from report import run_facts, write_report

from marl_bgs import Game
from marl_bgs.core.position import starting_position
from marl_bgs.random_play import random_actions


def numpy_ticks_per_second(ticks: int, seed: int, warmup: int = 20) -> tuple[float, float]:
    """(wall, CPU) ticks per second of one game after `warmup` ticks (the map's arrays and
    NumPy's caches are warm by then, as in any longer game)."""
    rng = np.random.default_rng(seed)
    game = Game(starting_position(47, horizon=10**5))
    for _ in range(warmup):
        game.step(random_actions(game, rng))
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(ticks):
        game.step(random_actions(game, rng))
    return ticks / (time.perf_counter() - wall), ticks / (time.process_time() - cpu)


def jax_ticks_per_second(num_games: int, ticks: int, seed: int) -> tuple[float, float]:
    import jax
    import jax.numpy as jnp

    from marl_bgs.core import compute_sight, joint_mask, legal_masks, step

    game = Game(starting_position(47, horizon=10**5))
    state = jax.tree.map(lambda x: np.repeat(np.asarray(x)[None], num_games, 0), game.state)
    maps = jax.tree.map(lambda x: np.repeat(np.asarray(x)[None], num_games, 0), game.map_arrays)

    def one(state, m, key):
        mask = joint_mask(legal_masks(jnp, state, compute_sight(jnp, state, m)))
        flat = jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf))
        actions = jnp.stack([flat // 22, (flat // 2) % 11, flat % 2], axis=-1)
        return step(jnp, state, actions, m)[0]

    batched = jax.vmap(one)

    def run(state, key):
        def body(carry, _):
            s, k = carry
            k, sub = jax.random.split(k)
            return (batched(s, maps, jax.random.split(sub, num_games)), k), None

        return jax.lax.scan(body, (state, key), None, length=ticks)[0][0]

    compiled = jax.jit(run)
    begin = time.perf_counter()
    jax.block_until_ready(compiled(state, jax.random.key(seed)))
    compile_s = time.perf_counter() - begin
    begin = time.perf_counter()
    jax.block_until_ready(compiled(state, jax.random.key(seed + 1)))
    return num_games * ticks / (time.perf_counter() - begin), compile_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numpy-ticks", type=int, default=300)
    parser.add_argument("--jax-ticks", type=int, default=50)
    parser.add_argument(
        "--batches", type=int, nargs="*", default=[1, 64, 512], help="none: NumPy only"
    )
    parser.add_argument("--repeats", type=int, default=1, help="NumPy runs, one after another")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/engine_speed.json"))
    args = parser.parse_args()

    rows = []
    for _ in range(args.repeats):
        wall, cpu = numpy_ticks_per_second(args.numpy_ticks, args.seed)
        rows.append({"engine": "numpy", "games": 1, "ticks_per_s": wall, "ticks_per_cpu_s": cpu})
        print(f"numpy   1 game     {wall:10.0f} ticks/s  ({cpu:.0f} per CPU second)")
    for n in args.batches:
        rate, compile_s = jax_ticks_per_second(n, args.jax_ticks, args.seed)
        rows.append({"engine": "jax", "games": n, "ticks_per_s": rate, "compile_s": compile_s})
        print(f"jax  {n:5d} games    {rate:10.0f} ticks/s  (compile {compile_s:.1f} s)")
    result = {
        "benchmark": "engine_speed",
        **run_facts(),
        "map": 47,
        "roster": "official 5v5, random legal actions",
        "rows": rows,
    }
    write_report(args.out, result)


if __name__ == "__main__":
    main()
