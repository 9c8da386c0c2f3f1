"""benchmarks/tick_stages.py: each stage gets its own time (its callees' taken out), the
wrappers leave the engine as they found it, and the bounds follow from the stages."""

from __future__ import annotations

import importlib

import pytest

from tests.script_loader import BENCHMARKS, load_script

stages = load_script("tick_stages", "tick_stages_under_test", BENCHMARKS)


def test_a_stage_s_own_time_leaves_out_the_stages_it_calls(monkeypatch):
    ticks = iter([0.0, 1.0, 3.0, 10.0])  # outer starts, inner starts, inner ends, outer ends
    monkeypatch.setattr(stages.time, "perf_counter", lambda: next(ticks))
    clock = stages._Clock()
    inner = clock.wrap("inner", lambda: "done")
    outer = clock.wrap("outer", lambda: inner())
    assert outer() == "done"
    assert clock.own == {"inner": 2.0, "outer": 8.0}


def test_bounds_from_a_hand_built_column():
    column = {
        "ms_per_tick": 2.0,  # the wrapped stages sum to 4.0: every share is halved
        "stages_ms": {"movement: obstacles (plan_legs)": 1.0, "movement: bodies (numpy_cuts)": 1.0,
                      "sight": 2.0},
    }  # fmt: skip
    got = stages.bounds(column, 1000)
    assert got["movement_ms"] == 1.0 and got["rest_ms"] == 1.0
    assert got["ticks_per_s"] == 500.0
    assert got["ticks_per_s_with_free_movement"] == 1000.0
    assert got["movement_budget_ms_at_target"] == 0.0


def test_measure_times_every_stage_and_puts_the_engine_back():
    before = {
        (module, attr): getattr(importlib.import_module(module), attr)
        for _, module, attr in stages.STAGES
    }
    got = stages.measure(ticks=4, seed=0)
    after = {key: getattr(importlib.import_module(key[0]), key[1]) for key in before}
    assert after == before
    names = {name for name, _, _ in stages.STAGES} | {"drawing actions", "Game.step: the rest"}
    assert set(got["stages_ms"]) == names
    assert all(ms > 0 for ms in got["stages_ms"].values())
    assert got["ms_per_tick"] > 0
    assert sum(got["stages_ms"].values()) == pytest.approx(got["ms_per_tick_wrapped"], rel=0.2)
