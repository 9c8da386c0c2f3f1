"""Training game steps per second of every learner, beside the env alone, in one run.

For each batch size (`--sizes`, games played at once) and each algorithm (rec-ippo,
rec-mappo, ff-ippo, ff-mappo, bc, kickstart, qmix, pqn-vdn): the compiled update (a
`--rollout-len`-tick rollout of pure self-play, then for PPO GAE and `epochs` x
`minibatches` PPO steps, for BC and kickstarted PPO the same with TDM-Alpha labelling every
decision of Team A inside the rollout (their defaults: a feedforward network and local
critic, BC's teacher playing every game); for QMIX
adding the games' rollouts to the replay and `sgd_steps` gradient steps on drawn rollouts,
the replay sized to 4 updates and learning from the first; for PQN-VDN lambda-returns and
`epochs` x 2 minibatches) is compiled apart (timed, excluded),
called once untimed, then `--updates` times; a game step is one tick of one game, so an
update is num_envs x rollout_len game steps, and the rate is that over the median update's
wall time. The env-only loop runs on the same env, batch and rollout length: a compiled
scan of uniformly random legal actions for both teams with `reset_done` every tick, timed
the same way. `ratio` = training rate / env-only rate.

Two more loops show where the learner's time goes. "env+inputs": the same random play, but
both teams' `teams_inputs` (observations and masks, what any learner must read each tick)
are consumed, so XLA cannot drop them as it drops the unused observations of the env-only
loop; `ratio_inputs` = training rate / this rate. "rollout": the learner's rollout alone
(`Rollout.run`: both teams' networks, sampling, reward, opponent draw), no GAE or PPO
epochs; the rest of an update is the learning (PPO epochs, QMIX's replay and gradient steps,
PQN's returns and epochs; the column keeps its PPO name).

Besides the median, each row gives the timed calls' total wall and process CPU time
(`time.process_time`, all threads), the compiled program's peak buffers
(`memory_analysis`, per program), the process's maximum RSS so far (`resource.ru_maxrss`,
cumulative: it bounds every row before it) and, where the device reports them, JAX's
peak bytes in use (`device.memory_stats()`; CPU devices usually report nothing).

    python benchmarks/train_throughput.py                         # sizes 64 256 512
    python benchmarks/train_throughput.py --sizes 64 --updates 3  # quick check
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

import jax
from report import random_play_step, run_facts, write_report

from marl_bgs.learn.config_files import load_config
from marl_bgs.learn.registry import ALGOS, learner_class

SELF_PLAY = ["opponent_self=1", "opponent_pool=0", "opponent_fixed=0", "opponent_scripted=0"]


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def jax_peak_mb() -> float | None:
    stats = jax.devices()[0].memory_stats()
    if not stats or "peak_bytes_in_use" not in stats:
        return None
    return stats["peak_bytes_in_use"] / 2**20


def _xla_peak_mb(compiled) -> float | None:
    mem = compiled.memory_analysis()
    if mem is None:
        return None
    peak = getattr(mem, "peak_memory_in_bytes", 0) or (
        mem.argument_size_in_bytes + mem.output_size_in_bytes + mem.temp_size_in_bytes
    )
    return peak / 2**20


def _timed(fn, carry, calls: int) -> tuple[dict, object]:
    """Compile `fn` for `carry` (timed apart), one untimed call, then `calls` timed calls
    each feeding its output to the next."""
    begin = time.perf_counter()
    compiled = fn.lower(carry).compile()
    compile_s = time.perf_counter() - begin
    carry = jax.block_until_ready(compiled(carry))[0]
    times = []
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for _ in range(calls):
        begin = time.perf_counter()
        carry = jax.block_until_ready(compiled(carry))[0]
        times.append(time.perf_counter() - begin)
    out = {
        "median_call_s": statistics.median(times),
        "call_seconds": times,
        "wall_s": time.perf_counter() - wall0,
        "cpu_s": time.process_time() - cpu0,
        "compile_s": compile_s,
        "xla_peak_mb": _xla_peak_mb(compiled),
    }
    return out, carry


def algo_settings(algo: str, num_envs: int, args: argparse.Namespace) -> list[str]:
    """QMIX's replay holds 4 updates of rollouts and learns from the first; PQN-VDN splits
    the games in 2 minibatches (as the PPO methods do)."""
    if algo == "qmix":
        rows = 4 * num_envs * args.rollout_len
        return [f"buffer_rows={rows}", f"learning_starts={num_envs}",
                f"batch_size={min(num_envs, 128)}"]  # fmt: skip
    if algo == "pqn-vdn":
        return ["minibatches=2"]
    return []


def config_for(algo: str, num_envs: int, args: argparse.Namespace):
    return load_config(
        None,
        [
            f"num_envs={num_envs}", f"rollout_len={args.rollout_len}", f"hidden={args.hidden}",
            f"maps=[{args.map}]", "validate_every=0", *SELF_PLAY,
            *algo_settings(algo, num_envs, args),
        ],
        algo=algo,
    )  # fmt: skip


def train_run(algo: str, num_envs: int, args: argparse.Namespace) -> tuple[dict, object]:
    cfg = config_for(algo, num_envs, args)
    learner = learner_class(cfg.algo)(cfg)
    state = learner.init(jax.random.PRNGKey(0))
    out, _ = _timed(learner.update, state, args.updates)
    out["steps_per_s"] = learner.cfg.steps_per_update / out["median_call_s"]
    return out, learner


def timed_steps(learner, args: argparse.Namespace) -> int:
    """Game steps played by the timed calls of one row (each call one update's worth)."""
    return learner.cfg.steps_per_update * args.updates


def env_run(learner, args: argparse.Namespace) -> dict:
    """Random legal actions on the learner's own env, batch and rollout length."""
    env, cfg = learner.env, learner.cfg

    body = random_play_step(env)

    def rollout(carry):
        carry, rewards = jax.lax.scan(body, carry, None, length=cfg.rollout_len)
        return carry, rewards

    _, state = env.reset(jax.random.PRNGKey(0))
    out, _ = _timed(jax.jit(rollout), (state, jax.random.PRNGKey(1)), args.updates)
    out["steps_per_s"] = cfg.steps_per_update / out["median_call_s"]
    return out


def env_inputs_run(learner, args: argparse.Namespace) -> dict:
    """The env-only loop with both teams' observations and masks read every tick."""
    import jax.numpy as jnp

    env, cfg = learner.env, learner.cfg
    body = random_play_step(env)

    def step(carry, _):
        (state, key), total = carry
        (state, key), _ = body((state, key), None)
        a, b = env.teams_inputs(state)
        total = total + a.obs.sum() + b.obs.sum() + a.avail.sum() + b.avail.sum()
        return ((state, key), total), None

    def rollout(carry):
        carry, _ = jax.lax.scan(step, carry, None, length=cfg.rollout_len)
        return carry, None

    _, state = env.reset(jax.random.PRNGKey(0))
    out, _ = _timed(jax.jit(rollout), ((state, jax.random.PRNGKey(1)), jnp.zeros(())),
                    args.updates)  # fmt: skip
    out["steps_per_s"] = cfg.steps_per_update / out["median_call_s"]
    return out


def rollout_run(learner, args: argparse.Namespace) -> dict:
    """The learner's rollout alone (no GAE, no PPO epochs) from its initial state."""
    state = learner.init(jax.random.PRNGKey(0))

    def rollout(carry):
        live, key = carry
        key, k = jax.random.split(key)
        live, *_ = learner.rollout.run(learner.rollout_params(state), live, k)
        return (live, key), None

    out, _ = _timed(jax.jit(rollout), (state.live, state.key), args.updates)
    out["steps_per_s"] = learner.cfg.steps_per_update / out["median_call_s"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 512])
    parser.add_argument("--algos", nargs="+", choices=ALGOS, default=list(ALGOS))
    parser.add_argument("--updates", type=int, default=10, help="timed updates per row")
    parser.add_argument("--rollout-len", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--map", type=int, default=0, help="a training map (0-41)")
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/train_throughput.json")
    )
    args = parser.parse_args()
    if args.updates < 1:
        parser.error("--updates: at least 1")
    for n in args.sizes:
        if n < 2 or n % 2:
            parser.error(f"--sizes: {n} must be even (2 minibatches split the games)")

    rows = []
    print(
        f"{'games':>6} {'algo':>10} {'steps/s':>9} {'env steps/s':>11} {'ratio':>6} "
        f"{'env+in':>7} {'ratio':>6} {'rollout':>8} "
        f"{'compile s':>9} {'wall s':>7} {'cpu s':>7} {'steps/cpu s':>11} {'env/cpu s':>9} "
        f"{'XLA MB':>7} {'RSS MB':>7}"
    )
    for n in args.sizes:
        env = None
        for algo in args.algos:
            ours, learner = train_run(algo, n, args)
            if env is None:  # the env and its batch do not depend on the algorithm
                env = env_run(learner, args)
                env_in = env_inputs_run(learner, args)
            roll = rollout_run(learner, args)
            row = {
                "games": n,
                "algo": algo,
                "rollout_len": args.rollout_len,
                "steps_per_update": learner.cfg.steps_per_update,
                "train_steps_per_s": ours["steps_per_s"],
                "train_median_update_s": ours["median_call_s"],
                "train_update_seconds": ours["call_seconds"],
                "train_wall_s": ours["wall_s"],
                "train_cpu_s": ours["cpu_s"],
                "train_compile_s": ours["compile_s"],
                "train_xla_peak_mb": ours["xla_peak_mb"],
                "env_steps_per_s": env["steps_per_s"],
                "env_median_call_s": env["median_call_s"],
                "env_wall_s": env["wall_s"],
                "env_cpu_s": env["cpu_s"],
                "env_compile_s": env["compile_s"],
                "env_xla_peak_mb": env["xla_peak_mb"],
                "ratio_train_to_env": ours["steps_per_s"] / env["steps_per_s"],
                "env_inputs_steps_per_s": env_in["steps_per_s"],
                "env_inputs_cpu_s": env_in["cpu_s"],
                "ratio_train_to_env_inputs": ours["steps_per_s"] / env_in["steps_per_s"],
                "rollout_steps_per_s": roll["steps_per_s"],
                "rollout_median_s": roll["median_call_s"],
                "rollout_cpu_s": roll["cpu_s"],
                "ppo_epochs_median_s": ours["median_call_s"] - roll["median_call_s"],
                # per CPU second (all threads): steadier than wall time on a shared machine
                "train_steps_per_cpu_s": timed_steps(learner, args) / ours["cpu_s"],
                "env_steps_per_cpu_s": timed_steps(learner, args) / env["cpu_s"],
                "process_max_rss_mb": max_rss_mb(),
                "jax_peak_mb": jax_peak_mb(),
            }
            rows.append(row)
            xla = ours["xla_peak_mb"]
            print(
                f"{n:6d} {algo:>10} {ours['steps_per_s']:9.0f} {env['steps_per_s']:11.0f} "
                f"{row['ratio_train_to_env']:6.3f} {env_in['steps_per_s']:7.0f} "
                f"{row['ratio_train_to_env_inputs']:6.3f} {roll['steps_per_s']:8.0f} "
                f"{ours['compile_s']:9.1f} "
                f"{ours['wall_s']:7.2f} {ours['cpu_s']:7.2f} "
                f"{row['train_steps_per_cpu_s']:11.0f} {row['env_steps_per_cpu_s']:9.0f} "
                f"{xla if xla is not None else float('nan'):7.1f} "
                f"{row['process_max_rss_mb']:7.0f}",
                flush=True,
            )
    result = {
        "benchmark": "train_throughput",
        **run_facts(),
        "protocol": "compiled update (pure self-play rollout + GAE + PPO epochs; BC and "
        "kickstart: the same with TDM-Alpha labelling Team A inside the rollout; QMIX: + "
        "replay add + sgd_steps on drawn rollouts, replay of 4 updates; PQN-VDN: + "
        "lambda-returns + epochs x 2 minibatches) vs "
        "env-only scan of random legal actions with reset_done, same env, batch and "
        "rollout length; compile excluded; one untimed call, then the median of --updates",
        "updates": args.updates,
        "rollout_len": args.rollout_len,
        "hidden": args.hidden,
        "map": args.map,
        "memory": "train/env_xla_peak_mb: the compiled program's peak buffers (XLA "
        "memory_analysis); process_max_rss_mb: resource.ru_maxrss so far (cumulative); "
        "jax_peak_mb: device memory_stats peak_bytes_in_use (null where not reported)",
        "rows": rows,
    }
    write_report(args.out, result)


if __name__ == "__main__":
    main()
