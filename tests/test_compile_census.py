"""benchmarks/compile_census.py: the plugin logs each compile with the test that caused it
(a real pytest run in a subprocess, cache off), and the report's tally from hand-made
events."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.script_loader import BENCHMARKS, load_script

census = load_script("compile_census", "compile_census_under_test", BENCHMARKS)

TWO_TESTS = """
import jax, jax.numpy as jnp

def test_doubles():
    assert int(jax.jit(lambda x: 2 * x)(jnp.int32(3))) == 6

def test_adds_twice():
    add = jax.jit(lambda x: x + 1)
    assert int(add(jnp.int32(1))) == 2 and int(add(jnp.int32(2))) == 3  # compiled once
"""


def test_the_plugin_logs_each_compile_under_its_test(tmp_path):
    pytest.importorskip("jax")
    (tmp_path / "test_two.py").write_text(TWO_TESTS)
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")
    }
    env |= {"PYTHONPATH": str(BENCHMARKS), "MARL_BGS_CENSUS_DIR": str(tmp_path / "log"),
            "JAX_COMPILATION_CACHE_DIR": "", "JAX_PLATFORMS": "cpu"}  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "compile_census", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-c", os.devnull, str(tmp_path / "test_two.py")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    events = census.read_events(tmp_path / "log")
    compiles = [
        (e["test"].split("::")[1], e["fun"]) for e in events if e["event"] == census.COMPILE
    ]
    assert ("test_doubles", "jit(<lambda>)") in compiles
    assert compiles.count(("test_adds_twice", "jit(<lambda>)")) == 1
    files, functions, repeats = census.tally(events)
    assert files["test_two.py"]["compile_n"] >= 2 and repeats == []


def _event(t, test, event, seconds=None, fun=None, worker="gw0"):
    return {"t": t, "test": test, "event": event, "s": seconds, "fun": fun, "worker": worker}


def test_the_tally_tells_compiles_from_cache_reads_and_finds_repeats():
    a, b = "tests/test_a.py::test_one", "tests/test_b.py::test_two"
    events = [
        _event(1, a, census.TRACE, 2.0, "f"),
        _event(2, a, census.LOWER, 1.0, "jit(f)"),
        _event(3, a, census.CACHE_ASKED),
        _event(4, a, census.COMPILE, 30.0, "jit(f)"),
        _event(5, a, census.CACHE_ASKED),
        _event(6, a, census.COMPILE, 20.0, "jit(f)"),  # the same test compiles f again
        _event(7, b, census.CACHE_ASKED),
        _event(8, b, census.CACHE_HIT),
        _event(9, b, census.COMPILE, 0.5, "jit(f)"),  # read from the cache
        _event(10, b, census.COMPILE, 0.1, "jit(g)"),  # no cache asked: a compile
    ]
    files, functions, repeats = census.tally(events)
    assert dict(files["tests/test_a.py"]) == {"trace": 2.0, "trace_n": 1, "lower": 1.0,
                                              "lower_n": 1, "compile": 50.0, "compile_n": 2}  # fmt: skip
    assert files["tests/test_b.py"]["cache_hit"] == 0.5
    assert files["tests/test_b.py"]["compile"] == pytest.approx(0.1)
    assert functions["jit(f)"]["compile_n"] == 2 and functions["jit(f)"]["cache_hit_n"] == 1
    assert repeats == [{"test": a, "function": "jit(f)", "compiles": 2, "seconds": 50.0}]


def test_the_report_refuses_a_folder_without_logs(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "argv", ["compile_census.py", str(tmp_path)])
    with pytest.raises(SystemExit) as stop:
        census.main()
    assert stop.value.code == 2
    assert "no census-*.jsonl" in capsys.readouterr().err


def test_a_broken_log_line_is_named(tmp_path):
    (tmp_path / "census-gw1.jsonl").write_text(json.dumps({"t": 1}) + "\n{oops\n")
    with pytest.raises(ValueError, match=r"census-gw1.jsonl:2: not a JSON line"):
        census.read_events(tmp_path)
