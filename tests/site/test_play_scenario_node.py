"""The Play page's `loadScenario` (web_demo/play/scenarios.js) under Node, over HTTP: every
exported scenario comes back exactly as the export wrote it, and each broken or missing file
is refused with a message that names it (the page shows that message as text)."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from tests.engine_files import NODE, ROOT

SCENARIOS = ROOT / "exports" / "scenarios"
PLAY = ROOT / "web_demo" / "play" / "scenarios.js"
# Prints, per request, either {"ok": what loadScenario returned} or {"error": its message}.
RUNNER = """
const { loadScenario } = await import(process.argv[2]);
const base = process.argv[3];
const out = [];
for (const id of JSON.parse(process.argv[4])) {
  try { out.push({ ok: await loadScenario(id, base) }); }
  catch (err) { out.push({ error: String(err.message) }); }
}
console.log(JSON.stringify(out));
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def served(tmp_path):
    """(root folder, address) of a server over a copy of the exported scenario files."""
    root = tmp_path / "site"
    shutil.copytree(SCENARIOS, root / "exports" / "scenarios",
                    ignore=shutil.ignore_patterns("*.csv", "line.json", "variant.json"))  # fmt: skip
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def load(tmp_path: Path, base: str, ids: list) -> list[dict]:
    if NODE is None:
        pytest.skip("node is not installed (apt-get install -y nodejs; .ci/run does it)")
    runner = tmp_path / "load.mjs"
    runner.write_text(RUNNER)
    done = subprocess.run(
        [NODE, str(runner), PLAY.as_uri(), base, json.dumps(ids)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_exported_scenario_loads_as_exported(served, tmp_path):
    root, base = served
    index = json.loads((SCENARIOS / "index.json").read_text())["scenarios"]
    got = load(tmp_path, base, [e["id"] for e in index] + [str(index[0]["id"])])
    assert len(got) == len(index) + 1 and len(index) == 8
    for entry, answer in zip(index + [index[0]], got, strict=True):
        position = json.loads((SCENARIOS / f"scenario_{entry['id']}" / "position.json").read_text())
        assert answer == {"ok": {
            "id": entry["id"], "name": entry["name"], "controller": entry["controller"],
            "briefing": entry["briefing"], "position": position,
        }}  # fmt: skip


@pytest.mark.parametrize("bad", [0, 9, "1a", "", " 3", -1, 2.5])
def test_a_number_outside_1_to_8_is_refused(served, tmp_path, bad):
    _, base = served
    assert load(tmp_path, base, [bad]) == [
        {"error": "scenario: expected a scenario number from 1 to 8"}
    ]


def _break(root: Path, rel: str, text: str | None) -> None:
    path = root / "exports" / "scenarios" / rel
    if text is None:
        path.unlink()
    else:
        path.write_text(text)


def _index_with(root: Path, sid: int, **changes) -> str:
    doc = json.loads((SCENARIOS / "index.json").read_text())
    for e in doc["scenarios"]:
        if e["id"] == sid:
            e.update(changes)
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("rel", "text", "sid", "message"),
    [
        ("index.json", None, 2, "could not load exports/scenarios/index.json (HTTP 404)"),
        ("index.json", "{not json", 2, "exports/scenarios/index.json: not JSON"),
        ("index.json", '{"scenarios": 3}', 2, "scenario 2 is not in exports/scenarios/index.json"),
        ("scenario_4/position.json", None, 4,
         "could not load exports/scenarios/scenario_4/position.json (HTTP 404)"),
        ("scenario_4/position.json", "[1, 2]", 4,
         "exports/scenarios/scenario_4/position.json: expected a position object"),
        ("scenario_5/position.json", "<html>", 5,
         "exports/scenarios/scenario_5/position.json: not JSON"),
    ],
)  # fmt: skip
def test_a_missing_or_broken_file_is_named(served, tmp_path, rel, text, sid, message):
    root, base = served
    _break(root, rel, text)
    [answer] = load(tmp_path, base, [sid])
    assert "ok" not in answer and answer["error"].startswith(message), answer


@pytest.mark.parametrize("key", ["name", "controller", "briefing"])
def test_an_index_entry_without_its_text_is_refused(served, tmp_path, key):
    root, base = served
    _break(root, "index.json", _index_with(root, 6, **{key: 17}))
    assert load(tmp_path, base, [6]) == [
        {"error": f"exports/scenarios/index.json: scenario 6's {key} is not text"}
    ]
