"""The loops `browser_engine.py` times, written once for CPython and Pyodide (no JAX).

Time is read with `perf_counter` (wall). CPU time: `process_time` in CPython; Pyodide always
reports that as 0, so under Node the Node process's own `process.cpuUsage()` stands in (its
helper threads included), and in a browser, which has no such clock, the CPU figure is None.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from marl_bgs import Game
from marl_bgs.core.position import starting_position
from marl_bgs.random_play import random_actions
from marl_bgs.systems.numpy_play import decide, numpy_system


def cpu_seconds() -> float | None:
    """This process's CPU seconds, or None where nothing can say (a browser)."""
    if sys.platform != "emscripten":
        return time.process_time()
    try:
        import js  # Pyodide's view of the JavaScript globals

        used = js.process.cpuUsage()
        return (used.user + used.system) / 1e6
    except (ImportError, AttributeError):
        return None


def engine_rate(ticks: int, seed: int, warmup: int = 20) -> dict:
    """Ticks per second of one game of random legal actions (map 47, as engine_speed.py),
    after `warmup` ticks; the random draws are timed too, as a page would pay them."""
    rng = np.random.default_rng(seed)
    game = Game(starting_position(47, horizon=10**5))
    for _ in range(warmup):
        game.step(random_actions(game, rng))
    wall, cpu = time.perf_counter(), cpu_seconds()
    for _ in range(ticks):
        game.step(random_actions(game, rng))
    wall, cpu_end = time.perf_counter() - wall, cpu_seconds()
    cpu = None if cpu is None or cpu_end is None else cpu_end - cpu
    return {"ticks": ticks, "ticks_per_s": ticks / wall,
            "ticks_per_cpu_s": ticks / cpu if cpu else None}  # fmt: skip


def decision_ms(name: str, ticks: int, seed: int) -> dict:
    """Milliseconds per decision of System `name` playing team a against random on map 47
    (its inputs built outside the timing; the game runs to its end or `ticks`)."""
    game = Game(starting_position(47, horizon=ticks, winning_score=60))
    system, rival = numpy_system(name), numpy_system("random")
    memory, rng, times, cpu = system.init(), np.random.default_rng(seed), [], []
    while not game.done:
        inputs = game.team_inputs(0)
        begin, cpu_begin = time.perf_counter(), cpu_seconds()
        mine, memory = system.act(inputs, memory, rng)
        times.append(1000 * (time.perf_counter() - begin))
        cpu_end = cpu_seconds()
        if cpu_begin is not None and cpu_end is not None:
            cpu.append(1000 * (cpu_end - cpu_begin))
        theirs, _ = decide(game, 1, rival, None, rng)
        game.step_slots(game.slots_from_flat(np.asarray(mine, np.int32), theirs))
    times.sort()
    # CPU time per decision as well: a machine shared with other jobs moves wall time a lot.
    cpu_ms = statistics.median(cpu) if cpu else None
    return {"system": name, "decisions": len(times), "median_ms": statistics.median(times),
            "mean_ms": statistics.fmean(times), "p95_ms": times[int(0.95 * (len(times) - 1))],
            "cpu_median_ms": cpu_ms, "cpu_mean_ms": statistics.fmean(cpu) if cpu else None}  # fmt: skip


def run(ticks: int, decision_ticks: int, seed: int, systems: list[str]) -> dict:
    return {
        "engine": engine_rate(ticks, seed),
        "decisions": [decision_ms(s, decision_ticks, seed) for s in systems],
    }
