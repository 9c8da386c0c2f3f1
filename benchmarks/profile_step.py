"""Where the time of one compiled environment tick goes, part by part.

Each part of the Listing S1 loop body (sample, step, reset_done) and of the rules inside the
step is compiled on its own, under jit and vmap over the batch, and timed on realistic inputs:
the states of a batch of games after some ticks of random play, and for the inner movement
functions the very arguments the tick passes them (captured by wrapping the functions while
the tick is traced). Parts nest (the step holds the rules, the rules hold the movement), and
a part compiled alone fuses differently than inside the whole tick, so shares are a guide.

    python benchmarks/profile_step.py --games 1024 --out benchmarks/results/profile_step.json
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
from report import run_facts, write_report

import marl_bgs
from marl_bgs.core import movement, shield_exit, sight, tick
from marl_bgs.core.observation import observations
from marl_bgs.env_actions import to_compass

WRAPPED = (
    (tick, "charge_landing"),
    (tick, "move_bodies"),
    (tick, "clear_of_bodies"),
    (movement, "plan_legs"),
)


def _median_seconds(fn: Callable, args: tuple, repeats: int) -> float:
    compiled = jax.jit(fn)
    jax.block_until_ready(compiled(*args))
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        jax.block_until_ready(compiled(*args))
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def _captured_arguments(env, state, heads) -> dict:
    """The arguments the tick passes to its movement functions, for every game of the batch."""
    seen: dict = {}
    originals = {name: getattr(module, name) for module, name in WRAPPED}

    def wrap(name, fn):
        def recording(xp, *args):
            seen[name] = args
            return fn(xp, *args)

        return recording

    def one(s, h):
        seen.clear()
        tick.step(jnp, s.game, to_compass(s.game, h), s.map, s.sight)
        return dict(seen)

    try:
        for module, name in WRAPPED:
            setattr(module, name, wrap(name, originals[name]))
        return jax.jit(jax.vmap(one))(state, heads)
    finally:
        for module, name in WRAPPED:
            setattr(module, name, originals[name])


def warm_batch(env, ticks: int, seed: int):
    """A batch of games after `ticks` ticks of random legal play with restarts."""

    def body(carry, _):
        state, key = carry
        key, k_act, k_reset = jax.random.split(key, 3)
        _, state, _, _, _ = env.step(k_act, state, env.sample_actions(k_act, state))
        _, state = env.reset_done(k_reset, state)
        return (state, key), None

    _, state = env.reset(jax.random.key(seed))
    run = jax.jit(lambda s, k: jax.lax.scan(body, (s, k), None, length=ticks)[0][0])
    return run(state, jax.random.key(seed + 1))


def profile(num_envs: int, warm_ticks: int, repeats: int, seed: int) -> list[dict]:
    """Median seconds per call of each part at `num_envs` games, as rows of a table."""
    env = marl_bgs.make("tdm", map_id=47, num_envs=num_envs)
    state = warm_batch(env, warm_ticks, seed)
    key = jax.random.key(seed + 2)
    actions = env.sample_actions(key, state)
    heads = env._slots_from(actions)
    cap = _captured_arguments(env, state, heads)
    m, game = state.map, state.game

    def loop_body(s, k):
        k_act, k_step, k_reset = jax.random.split(k, 3)
        _, s, reward, _, _ = env.step(k_step, s, env.sample_actions(k_act, s))
        return env.reset_done(k_reset, s)[1], reward["a0"]

    def rules(s, h):
        return tick.step(jnp, s.game, to_compass(s.game, h), s.map, s.sight)

    v = jax.vmap
    parts: list[tuple[str, Callable, tuple]] = [
        ("loop body: sample + step + reset_done", loop_body, (state, key)),
        ("sample_actions", env.sample_actions, (key, state)),
        ("env.step", lambda s, a: env.step(key, s, a), (state, actions)),
        ("reset_done", env.reset_done, (key, state)),
        ("  rules: core tick.step", v(rules), (state, heads)),
        ("  sight: compute_sight", v(lambda g, mm: sight.compute_sight(jnp, g, mm)), (game, m)),
        (
            "  observations",
            v(lambda g, mm, sg: observations(jnp, g, mm, sg)),
            (game, m, state.sight),
        ),
        (
            "    masks: legal_masks",
            v(lambda g, sg: sight.legal_masks(jnp, g, sg)),
            (game, state.sight),
        ),
        (
            "    charge_landing",
            v(lambda *a: movement.charge_landing(jnp, *a)),
            cap["charge_landing"],
        ),
        ("    move_bodies", v(lambda *a: movement.move_bodies(jnp, *a)), cap["move_bodies"]),
        (
            "      plan_legs (obstacles and slides)",
            v(lambda *a: movement.plan_legs(jnp, *a)),
            cap["plan_legs"],
        ),
        (
            "    clear_of_bodies",
            v(lambda *a: shield_exit.clear_of_bodies(jnp, *a)),
            cap["clear_of_bodies"],
        ),
        (
            "  new games: _new_game for the batch",
            lambda k: env._batched(env._new_game, env._keys(k), index_arg=True),
            (key,),
        ),
    ]
    rows = []
    total = None
    for name, fn, args in parts:
        seconds = _median_seconds(fn, args, repeats)
        total = total or seconds
        rows.append(
            {
                "part": name,
                "ms_per_call": seconds * 1e3,
                "us_per_game_tick": seconds / num_envs * 1e6,
                "share_of_loop_body": seconds / total,
            }
        )
        print(f"{name:42s} {seconds * 1e3:9.2f} ms  {seconds / total:6.1%}")
    return rows


def markdown_table(rows: list[dict]) -> str:
    lines = [
        "| part | ms per call | µs per game-tick | share of loop body |",
        "|---|---:|---:|---:|",
    ]
    for r in rows:
        depth = (len(r["part"]) - len(r["part"].lstrip())) // 2
        lines.append(
            f"| {'· ' * depth}{r['part'].strip()} | {r['ms_per_call']:.2f} "
            f"| {r['us_per_game_tick']:.2f} | {r['share_of_loop_body']:.0%} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--warm-ticks", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/profile_step.json"))
    args = parser.parse_args()
    rows = profile(args.games, args.warm_ticks, args.repeats, args.seed)
    print(markdown_table(rows))
    write_report(
        args.out,
        {"benchmark": "profile_step", **run_facts(), "games": args.games, "map": 47, "rows": rows},
    )


if __name__ == "__main__":
    main()
