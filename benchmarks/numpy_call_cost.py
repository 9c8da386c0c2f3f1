"""What a NumPy call costs, and where a NumPy tick spends it, in CPython and in Pyodide.

Issue 16's targets (1,000 ticks per CPU second in CPython, 600 in Pyodide) depend on
whether a tick is limited by the number of NumPy calls or by the elements they touch. This
runs the same two measurements in this interpreter and in Pyodide under Node, side by side:

1. microseconds per call of a few operations the engine uses most (an elementwise product
   in float32 and int32, `where` with its comparison, a `min` reduction, `astype`, `sqrt`)
   on 1 to 4,000 elements, and of a broadcast product against the same product of operands
   of one shape;
2. a cProfile of `--ticks` ticks of one game (map 47, random legal actions, as
   `engine_speed.py`), the functions with the most time of their own.

    python benchmarks/numpy_call_cost.py --out /tmp/numpy_call_cost.json

Needs node and scripts/export_pyodide.py's files for the Pyodide column (`--no-node` skips
it). Figures under cProfile are slower than without it; compare shares, not totals.
"""

from __future__ import annotations

import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = (1, 10, 80, 400, 800, 4000)


def call_costs(reps: int = 20_000) -> dict:
    """Microseconds per call, by operation and number of elements (wall time: in Pyodide
    `process_time` is always 0)."""
    import numpy as np

    def per_call(fn) -> float:
        started = time.perf_counter()
        for _ in range(reps):
            fn()
        return round((time.perf_counter() - started) / reps * 1e6, 3)

    out: dict = {}
    for n in SIZES:
        a = np.arange(n, dtype=np.float32)
        b = a + 1
        ai = np.arange(n, dtype=np.int32)
        bi = ai + 1
        out[str(n)] = {
            "f32 multiply": per_call(lambda a=a, b=b: a * b),
            "i32 multiply": per_call(lambda ai=ai, bi=bi: ai * bi),
            "where(a > 3, a, b)": per_call(lambda a=a, b=b: np.where(a > 3, a, b)),
            "min": per_call(lambda a=a: a.min()),
            "astype f32": per_call(lambda ai=ai: ai.astype(np.float32)),
            "sqrt": per_call(lambda a=a: np.sqrt(a)),
        }
    m = np.arange(800, dtype=np.float32).reshape(10, 80)
    column = np.arange(10, dtype=np.float32)[:, None]
    out["shapes"] = {
        "(10, 80) * (10, 1)": per_call(lambda: m * column),
        "(10, 80) * (10, 80)": per_call(lambda: m * m),
        "Python float *": per_call(lambda: 1.5 * 2.5),
    }
    return out


def tick_profile(ticks: int, seed: int, top: int = 30) -> dict:
    """The `top` functions by time of their own over `ticks` ticks of one game, with their
    call counts, and the total of all functions' own time (seconds, under cProfile)."""
    import cProfile
    import pstats

    import numpy as np

    from marl_bgs import Game
    from marl_bgs.core.position import starting_position
    from marl_bgs.random_play import random_actions

    rng = np.random.default_rng(seed)
    game = Game(starting_position(47, horizon=10**5))
    for _ in range(20):  # warm, as engine_speed.py
        game.step(random_actions(game, rng))
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(ticks):
        game.step(random_actions(game, rng))
    profile.disable()
    rows = []
    for (path, line, name), (_, calls, own, total, _) in pstats.Stats(profile).stats.items():
        where = f"{path.rsplit('/', 1)[-1]}:{line}({name})"
        rows.append({"function": where, "calls": calls, "own_s": own, "total_s": total})
    rows.sort(key=lambda r: -r["own_s"])
    return {"ticks": ticks, "own_s": sum(r["own_s"] for r in rows), "top": rows[:top]}


def measure(ticks: int, seed: int) -> dict:
    return {"call_costs": call_costs(), "profile": tick_profile(ticks, seed)}


def _print(columns: dict[str, dict]) -> None:
    names = list(columns)
    first = columns[names[0]]["call_costs"]
    print("microseconds per call: " + " | ".join(names))
    for size, ops in first.items():
        label = f"{size} elements" if size.isdigit() else "shapes"
        cells = "; ".join(
            f"{op} " + " | ".join(f"{columns[n]['call_costs'][size][op]:.2f}" for n in names)
            for op in ops
        )
        print(f"  {label}: {cells}")
    for name in names:
        prof = columns[name]["profile"]
        print(f"\n{name}: {prof['ticks']} ticks, {prof['own_s']:.3f} s under cProfile")
        for row in prof["top"][:15]:
            share = row["own_s"] / prof["own_s"]
            print(f"  {share:6.1%} {row['calls']:7d} calls  {row['function']}")


def main() -> None:
    from browser_engine import side_by_side

    args, columns = side_by_side(Path(__file__), __doc__, measure, ticks_default=300)
    _print(columns)
    from report import write_report

    write_report(args.out, {"benchmark": "numpy_call_cost", "ticks": args.ticks,
                            "seed": args.seed, **columns})  # fmt: skip


if __name__ == "__main__":
    main()
