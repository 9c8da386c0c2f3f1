"""The Sight Lab's body test (web_demo/sightlab/sight.js, `bodyBlocked`) gives the engine's
answer (`body_overlap`) on every map, so the spots it snaps agents to are ones the engine
accepts (issue 19, fix 5). Runs the JavaScript in Node; skipped without Node.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from marl_bgs.core.geometry import body_overlap
from marl_bgs.core.state import map_arrays
from marl_bgs.maps import available_maps, load_map

ROOT = Path(__file__).resolve().parents[2]
STEP = 100  # milli-units between the points tested (a 0.1 grid over the whole arena)

SCRIPT = """
import { readFileSync } from "node:fs";
import { bodyBlocked } from "%s";
const lab = JSON.parse(readFileSync(%s, "utf8"));
const out = {};
for (const m of lab.maps) {
  let bits = "";
  for (let y = 0; y <= 10000; y += %d)
    for (let x = 0; x <= 20000; x += %d) bits += bodyBlocked(m, [x, y]) ? "1" : "0";
  out[m.id] = bits;
}
console.log(JSON.stringify(out));
"""


def _grid() -> np.ndarray:
    ys, xs = np.mgrid[0:10001:STEP, 0:20001:STEP]
    return np.stack([xs.ravel(), ys.ravel()], -1).astype(np.int32)


@pytest.fixture(scope="module")
def js_answers() -> dict[str, str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    module = (ROOT / "web_demo" / "sightlab" / "sight.js").as_uri()
    lab = json.dumps(str(ROOT / "exports" / "sight" / "lab.json"))
    proc = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT % (module, lab, STEP, STEP)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(proc.stdout)


def test_body_test_matches_the_engine_on_every_map(js_answers):
    pts = _grid()
    assert len(js_answers) == len(available_maps()) == 52
    for map_id in available_maps():
        m = map_arrays(load_map(map_id)["obstacles"])
        engine = np.asarray(body_overlap(np, pts, m).any)
        js = np.frombuffer(js_answers[str(map_id)].encode(), np.uint8) == ord("1")
        bad = np.flatnonzero(engine != js)
        assert bad.size == 0, f"map {map_id}: differs at {pts[bad[:5]].tolist()}"
        assert 0 < engine.mean() < 1  # both answers occur (the arena edge at least)
