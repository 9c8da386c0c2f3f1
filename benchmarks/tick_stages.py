"""Where a NumPy tick's time goes, stage by stage, in CPython and in Pyodide side by side.

Issue 16 asks for 1,000 ticks per second in CPython and 600 in Pyodide (one game, map 47,
random legal actions, as `engine_speed.py`). This times each stage of a tick with its own
time only (a stage's time less the stages it calls), in both interpreters in one run, and
works out what a tick would cost if the movement stages cost nothing: the bound any speed-up
of the rest of the tick runs into, and what the movement may cost at most for each target.

Times are wall time (`perf_counter`; Pyodide's `process_time` is always 0), over `--ticks`
ticks after 20 of warm-up, with the stages' wrappers in place (about a microsecond each,
some 15 a tick); the rate without wrappers is taken first, on the same game's next ticks.

    python benchmarks/tick_stages.py --out benchmarks/results/tick_stages.json

Needs node and scripts/export_pyodide.py's files for the Pyodide column (`--no-node` skips
it). The figures move with the machine's load: compare the shares, and the two columns of
one run.
"""

from __future__ import annotations

import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (stage, module, function name looked up there); a stage's own time excludes the stages
# it calls. The tick's order: actions are drawn (sight and masks first), then `Game.step`.
STAGES = (
    ("sight", "marl_bgs.game", "compute_sight"),
    ("legal masks", "marl_bgs.game", "legal_masks"),
    ("movement: obstacles (plan_legs)", "marl_bgs.core.movement", "plan_legs"),
    ("movement: bodies (numpy_cuts)", "marl_bgs.core.movement", "numpy_cuts"),
    ("movement: the rest", "marl_bgs.core.tick", "ordinary_movement"),
    ("combat", "marl_bgs.core.tick", "resolve_combat"),
    ("statuses", "marl_bgs.core.tick", "update_statuses"),
    ("tick: the rest", "marl_bgs.game", "tick_step"),
    ("events", "marl_bgs.game", "tick_events"),
)
MOVEMENT = tuple(name for name, _, _ in STAGES if name.startswith("movement"))
TARGETS = {"CPython": 1000, "Pyodide/Node": 600}


class _Clock:
    """Own time per stage: each wrapper adds its whole time to its caller's child time."""

    def __init__(self) -> None:
        self.own: dict[str, float] = {}
        self._children = [0.0]

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            self._children.append(0.0)
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.perf_counter() - started
                children = self._children.pop()
                self.own[name] = self.own.get(name, 0.0) + spent - children
                self._children[-1] += spent

        return timed


def measure(ticks: int, seed: int) -> dict:
    """Ticks per second without wrappers, then each stage's own milliseconds per tick."""
    import importlib

    import numpy as np

    from marl_bgs import Game
    from marl_bgs.core.position import starting_position
    from marl_bgs.random_play import random_actions

    rng = np.random.default_rng(seed)
    game = Game(starting_position(47, horizon=10**5))
    for _ in range(20):  # warm, as engine_speed.py
        game.step(random_actions(game, rng))
    started = time.perf_counter()
    for _ in range(ticks):
        game.step(random_actions(game, rng))
    plain = (time.perf_counter() - started) / ticks

    clock = _Clock()
    saved = []
    for name, module, attr in STAGES:
        mod = importlib.import_module(module)
        saved.append((mod, attr, getattr(mod, attr)))
        setattr(mod, attr, clock.wrap(name, getattr(mod, attr)))
    draw = clock.wrap("drawing actions", random_actions)
    step = clock.wrap("Game.step: the rest", game.step)
    try:
        started = time.perf_counter()
        for _ in range(ticks):
            step(draw(game, rng))
        wrapped = (time.perf_counter() - started) / ticks
    finally:
        for mod, attr, fn in saved:
            setattr(mod, attr, fn)
    ms = {name: round(own / ticks * 1e3, 4) for name, own in clock.own.items()}
    return {"ticks": ticks, "ms_per_tick": round(plain * 1e3, 4),
            "ms_per_tick_wrapped": round(wrapped * 1e3, 4), "stages_ms": ms}  # fmt: skip


def bounds(column: dict, target: float) -> dict:
    """The rate with the movement stages free, and the most the movement may cost per tick
    for `target` ticks per second with the rest as it is (scaled to the unwrapped tick)."""
    stages = column["stages_ms"]
    scale = column["ms_per_tick"] / sum(stages.values())
    movement = sum(stages.get(name, 0.0) for name in MOVEMENT) * scale
    rest = column["ms_per_tick"] - movement
    return {
        "ticks_per_s": round(1e3 / column["ms_per_tick"], 1),
        "movement_ms": round(movement, 4),
        "rest_ms": round(rest, 4),
        "ticks_per_s_with_free_movement": round(1e3 / rest, 1),
        "target": target,
        "movement_budget_ms_at_target": round(1e3 / target - rest, 4),
    }


def _print(columns: dict[str, dict]) -> None:
    names = list(columns)
    print("own milliseconds per tick (share): " + " | ".join(names))
    first = columns[names[0]]["stages_ms"]
    for stage in sorted(first, key=lambda s: -first[s]):
        cells = []
        for n in names:
            stages = columns[n]["stages_ms"]
            own = stages.get(stage, 0.0)
            cells.append(f"{own:.3f} ({own / sum(stages.values()):.0%})")
        print(f"  {stage:34s} " + " | ".join(cells))
    for n in names:
        b = columns[n]["bounds"]
        print(f"{n}: {b['ticks_per_s']} ticks/s (tick {columns[n]['ms_per_tick']:.3f} ms: "
              f"movement {b['movement_ms']:.3f}, the rest {b['rest_ms']:.3f}); with movement "
              f"free {b['ticks_per_s_with_free_movement']} ticks/s; for {b['target']} ticks/s "
              f"the movement may take {b['movement_budget_ms_at_target']:.3f} ms "
              f"({b['movement_budget_ms_at_target'] / b['movement_ms']:.0%} of today's)")  # fmt: skip


def main() -> None:
    from browser_engine import side_by_side

    args, columns = side_by_side(Path(__file__), __doc__, measure, ticks_default=600)
    for name, column in columns.items():
        column["bounds"] = bounds(column, TARGETS[name])
    _print(columns)
    from report import write_report

    write_report(args.out, {"benchmark": "tick_stages", "map": 47, "ticks": args.ticks,
                            "seed": args.seed, **columns})  # fmt: skip


if __name__ == "__main__":
    main()
