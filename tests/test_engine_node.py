"""The engine in Pyodide under Node, from the fetched files: it plays exactly the NumPy
engine's games. The golden fingerprint (50 games, 6,000 ticks) takes minutes under Pyodide,
so this test compares a prefix, its first PREFIX_GAMES games, computed by
benchmarks/fingerprint.py in both Pythons; `benchmarks/browser_engine.py --full-fingerprint`
checks all 50 games against benchmarks/golden_fingerprint.json."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .engine_files import BROWSER, NODE, ROOT, need_fetched_files

PREFIX_GAMES = 3
GOLDEN = json.loads((ROOT / "benchmarks" / "golden_fingerprint.json").read_text())
SNIPPET = f"""
import json, time
import fingerprint
from marl_bgs import browser as B
t = time.perf_counter()
_, prefix = fingerprint.play_numpy({PREFIX_GAMES}, {GOLDEN["ticks"]}, {GOLDEN["seed"]})
seconds = time.perf_counter() - t
g = B.new_game(json.dumps({{"map": 47, "winning_score": 3, "horizon": 120, "seed": 5}}))
log = []
while not json.loads(B.state(g))["done"]:
    acts = [json.loads(B.decide_team(g, 0, "tdm-alpha")), json.loads(B.decide_team(g, 1, "random"))]
    log.append(json.loads(B.step(g, json.dumps(acts))))
json.dumps({{"prefix": prefix, "seconds": seconds, "log": log, "state": json.loads(B.state(g)),
            "process_time": time.process_time()}})
"""


def run_in_node(tmp_path, snippet: str, timeout: int = 300) -> dict:
    if NODE is None:
        pytest.skip("node is not installed (apt-get install -y nodejs; .ci/run does it)")
    need_fetched_files()
    path = tmp_path / "snippet.py"
    path.write_text(snippet)
    runner = ROOT / "web_demo" / "engine" / "tests" / "node_run.mjs"
    fingerprint = ROOT / "benchmarks" / "fingerprint.py"
    done = subprocess.run(
        [NODE, str(runner), str(BROWSER), str(path), str(fingerprint)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return {"load_ms": out["load_ms"], **json.loads(out["answer"])}


def cpython_reference() -> dict:
    """The same prefix and short game in this CPython (benchmarks/ is not a package)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import fingerprint
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from marl_bgs import browser as B

    _, prefix = fingerprint.play_numpy(PREFIX_GAMES, GOLDEN["ticks"], GOLDEN["seed"])
    g = B.new_game(json.dumps({"map": 47, "winning_score": 3, "horizon": 120, "seed": 5}))
    log = []
    while not json.loads(B.state(g))["done"]:
        acts = [
            json.loads(B.decide_team(g, 0, "tdm-alpha")),
            json.loads(B.decide_team(g, 1, "random")),
        ]
        log.append(json.loads(B.step(g, json.dumps(acts))))
    return {"prefix": prefix, "log": log, "state": json.loads(B.state(g))}


def test_pyodide_in_node_plays_the_numpy_engines_games(tmp_path):
    got = run_in_node(tmp_path, SNIPPET)
    want = cpython_reference()
    assert got["prefix"] == want["prefix"]
    assert got["log"] == want["log"]  # the same short game, Alpha against NumPy's random
    assert got["state"] == want["state"]
    assert got["process_time"] == 0  # Pyodide's process_time is always 0: time by perf_counter
