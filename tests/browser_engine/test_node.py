"""The engine in Pyodide under Node, from the fetched files: it plays exactly the NumPy
engine's games. Under Node it replays all of benchmarks/golden_fingerprint.json's NumPy games
(50 games, 6,000 ticks; about 30 s) and must give its hash; a short Alpha-vs-random game
must match CPython event for event. The Chromium test (test_engine_browser.py) checks the
first PREFIX_GAMES of those games against CPython, to stay quick."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.engine_files import BROWSER, NODE, ROOT, need_fetched_files

PREFIX_GAMES = 3
GOLDEN = json.loads((ROOT / "benchmarks" / "golden_fingerprint.json").read_text())
SNIPPET = f"""
import json, time
import fingerprint
from marl_bgs import browser_api
t = time.perf_counter()
_, full = fingerprint.play_numpy({GOLDEN["games"]}, {GOLDEN["ticks"]}, {GOLDEN["seed"]})
seconds = time.perf_counter() - t
g = browser_api.new_game(json.dumps({{"map": 47, "winning_score": 3, "horizon": 120, "seed": 5}}))
log = []
while not json.loads(browser_api.state(g))["done"]:
    acts = [json.loads(browser_api.decide_team(g, 0, "tdm-alpha")), json.loads(browser_api.decide_team(g, 1, "random"))]
    log.append(json.loads(browser_api.step(g, json.dumps(acts))))
json.dumps({{"full": full, "seconds": seconds, "log": log, "state": json.loads(browser_api.state(g)),
            "process_time": time.process_time()}})
"""


def run_in_node(tmp_path, snippet: str, timeout: int = 1200) -> dict:
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


def cpython_reference(prefix: bool = True) -> dict:
    """The fingerprint prefix (when asked) and the short game in this CPython."""
    from marl_bgs import browser_api

    if prefix:
        sys.path.insert(0, str(ROOT / "benchmarks"))  # benchmarks/ is not a package
        try:
            import fingerprint
        finally:
            sys.path.remove(str(ROOT / "benchmarks"))
        prefix = fingerprint.play_numpy(PREFIX_GAMES, GOLDEN["ticks"], GOLDEN["seed"])[1]
    g = browser_api.new_game(json.dumps({"map": 47, "winning_score": 3, "horizon": 120, "seed": 5}))
    log = []
    while not json.loads(browser_api.state(g))["done"]:
        acts = [
            json.loads(browser_api.decide_team(g, 0, "tdm-alpha")),
            json.loads(browser_api.decide_team(g, 1, "random")),
        ]
        log.append(json.loads(browser_api.step(g, json.dumps(acts))))
    return {"prefix": prefix, "log": log, "state": json.loads(browser_api.state(g))}


def test_pyodide_in_node_plays_the_numpy_engines_games(tmp_path):
    got = run_in_node(tmp_path, SNIPPET)
    assert got["full"] == GOLDEN["numpy_engine"]
    want = cpython_reference(prefix=False)
    assert got["log"] == want["log"]  # the same short game, Alpha against NumPy's random
    assert got["state"] == want["state"]
    assert got["process_time"] == 0  # Pyodide's process_time is always 0: time by perf_counter
