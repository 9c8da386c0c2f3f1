"""The runner cache stays inside the process's memory-mapping budget: each compiled runner
holds thousands of mappings, and a process that passes vm.max_map_count crashes in LLVM."""

from __future__ import annotations

from marl_bgs import memory_budget, runner


def test_runners_are_dropped_oldest_first_while_over_the_map_budget(monkeypatch):
    saved = dict(runner.RUNNERS)
    budget = memory_budget.map_budget()
    assert 30_000 < budget < 10**7  # 0.7 of vm.max_map_count (65,530 by default)
    counts = iter([budget + 500, budget + 1, 100])
    monkeypatch.setattr(memory_budget, "memory_maps", lambda: next(counts))
    monkeypatch.setattr(memory_budget, "resident_bytes", lambda: 0)
    try:
        runner.RUNNERS.clear()
        runner.RUNNERS.update({"old": object(), "mid": object(), "new": object()})
        runner.drop_while_over_budget()
        assert list(runner.RUNNERS) == ["new"]  # two dropped, then under budget
        runner.clear_runners()
        assert runner.RUNNERS == {}
    finally:
        runner.RUNNERS.clear()
        runner.RUNNERS.update(saved)


def test_runners_are_dropped_oldest_first_while_over_the_memory_budget(monkeypatch):
    saved = dict(runner.RUNNERS)
    budget = memory_budget.memory_budget()
    assert budget > 0
    sizes = iter([budget + 10**9, budget + 1, budget])  # the third is within budget
    monkeypatch.setattr(memory_budget, "memory_maps", lambda: 0)
    monkeypatch.setattr(memory_budget, "resident_bytes", lambda: next(sizes))
    try:
        runner.RUNNERS.clear()
        runner.RUNNERS.update({"old": object(), "mid": object(), "new": object()})
        runner.drop_while_over_budget()
        assert list(runner.RUNNERS) == ["new"]
    finally:
        runner.RUNNERS.clear()
        runner.RUNNERS.update(saved)


def test_resident_memory_is_read_from_proc():
    assert memory_budget.resident_bytes() > 10**6  # this interpreter alone holds more


def test_the_mapping_count_is_read_from_proc_where_there_is_one():
    count = memory_budget.memory_maps()
    assert count is None or count > 10
