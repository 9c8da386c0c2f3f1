"""benchmarks/loop_timeline.py and loop_ab.py: the thread accounting from hand-built kernel
events, and a missing patch file refused before anything compiles."""

from __future__ import annotations

import sys

import pytest

from tests.script_loader import BENCHMARKS, load_script

timeline = load_script("loop_timeline", "loop_timeline_under_test", BENCHMARKS)
loop_ab = load_script("loop_ab", "loop_ab_under_test", BENCHMARKS)


def _event(tid: int, ts: float, dur: float) -> dict:
    return {"tid": tid, "ts": ts, "dur": dur}


def test_occupancy_splits_the_span_into_idle_one_thread_and_both():
    # thread 1 runs 0-10 and 20-30; thread 2 runs 5-15; nothing runs 15-20.
    events = [_event(1, 0, 10), _event(2, 5, 10), _event(1, 20, 10)]
    span, idle, one, both = timeline.occupancy(events)
    assert span == 30
    assert (idle, one, both) == (5, 20, 5)  # one: 0-5, 10-15, 20-30; both: 5-10


def test_occupancy_counts_a_thread_once_while_it_runs_back_to_back():
    events = [_event(1, 0, 4), _event(1, 4, 6), _event(2, 10, 2)]
    assert timeline.occupancy(events) == (12, 0, 12, 0)


def test_loop_ab_refuses_a_missing_patch_file(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "argv", ["loop_ab.py", "--patch", str(tmp_path / "none.py")])
    with pytest.raises(SystemExit) as stop:
        loop_ab.main()
    assert stop.value.code == 2
    assert "--patch: no file" in capsys.readouterr().err
