"""Environment steps per second with the scripted opponents playing, beside Random.

Each row: a compiled rollout of `--ticks` ticks on the test maps in which team a is played by
the named System and team b by Random (both chosen inside the compiled loop, `reset_done`
every tick), compile time excluded, the median of `--repeats` calls. The scripted teams
compute their pathing every tick (a share of the map drawing and eight relaxation steps of
two fields), so this is the price of that design.

    python benchmarks/scripted_speed.py --games 128 --ticks 100
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import jax
from report import run_facts, write_report

import marl_bgs
from marl_bgs.systems import random_system
from marl_bgs.systems.beta import tdm_beta
from marl_bgs.systems.both_teams import act_both, init_memories
from marl_bgs.systems.gamma import tdm_gamma
from marl_bgs.systems.scripted import tdm_alpha

SYSTEMS = {"random": random_system, "tdm-alpha": tdm_alpha, "tdm-beta": tdm_beta,
           "tdm-gamma": tdm_gamma}  # fmt: skip


def rate(name: str, games: int, ticks: int, repeats: int) -> tuple[float, float]:
    env = marl_bgs.make("tdm", map_id=[47, 48, 49, 50, 51], num_envs=games)
    systems = (SYSTEMS[name](), random_system())
    _, state = env.reset(jax.random.key(0))
    memories = init_memories(env, systems, jax.random.key(1))

    def body(carry, _):
        state, memories, key = carry
        key, k_act, k_reset = jax.random.split(key, 3)
        actions, memories = act_both(env, state, systems, memories, k_act)
        _, state, reward, _, _ = env.step(k_act, state, actions)
        _, state = env.reset_done(k_reset, state)
        return (state, memories, key), reward["a0"].sum()

    run = jax.jit(lambda s, m, k: jax.lax.scan(body, (s, m, k), None, length=ticks)[1])
    begin = time.perf_counter()
    jax.block_until_ready(run(state, memories, jax.random.key(2)))
    compile_s = time.perf_counter() - begin
    times = []
    for r in range(repeats):
        begin = time.perf_counter()
        jax.block_until_ready(run(state, memories, jax.random.key(3 + r)))
        times.append(time.perf_counter() - begin)
    return games * ticks / statistics.median(times), compile_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=128)
    parser.add_argument("--ticks", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" /
                        "scripted_speed.json")  # fmt: skip
    args = parser.parse_args()
    rows = []
    for name in args.systems:
        steps, compile_s = rate(name, args.games, args.ticks, args.repeats)
        rows.append({"team_a": name, "steps_per_s": steps, "compile_s": compile_s})
        print(f"{name:>10}  {steps:10.0f} steps/s  (compile {compile_s:.1f} s)")
    base = next((r["steps_per_s"] for r in rows if r["team_a"] == "random"), None)
    for r in rows:
        r["share_of_random"] = r["steps_per_s"] / base if base else None
    write_report(args.out, {"benchmark": "scripted_speed", **run_facts(), "games": args.games,
                            "ticks_per_call": args.ticks, "repeats": args.repeats,
                            "rows": rows})  # fmt: skip


if __name__ == "__main__":
    main()
