"""The engine in headless Chromium, served from 127.0.0.1 only: the test page loads
Pyodide, NumPy and the engine wheel from exports/browser/, reproduces the NumPy engine's
fingerprint prefix and a short game, and a NumPy wheel that fails its checksum shows the
visitor a clear error (Pyodide's loadPackage returns [] rather than throwing)."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.browser import CHROMIUM
from tests.browser_engine.test_node import GOLDEN, PREFIX_GAMES, cpython_reference
from tests.engine_files import ROOT, need_fetched_files

sync_api = pytest.importorskip("playwright.sync_api")
if shutil.which(CHROMIUM) is None and not Path(CHROMIUM).exists():
    pytest.skip("Chromium is not installed at /usr/bin/chromium", allow_module_level=True)

PAGE = "/web_demo/engine/tests/index.html"
PLAY = """async () => {
  const py = window.engine.pyodide;
  const src = await (await fetch('/benchmarks/fingerprint.py')).text();
  py.FS.writeFile('fingerprint.py', src);
  const prefix = window.engine.run(`
import sys; sys.path.insert(0, '.')
import fingerprint
fingerprint.play_numpy(%d, %d, %d)[1]`);
  const game = window.engine.newGame({map: 47, winning_score: 3, horizon: 120, seed: 5});
  const log = [];
  while (!game.state().done) {
    log.push(game.step([game.decide(0, 'tdm-alpha'), game.decide(1, 'random')]));
  }
  let error = null;
  try { window.engine.newGame({map: 47, horizon: 'long'}); } catch (e) { error = e.message; }
  return {prefix, log, state: game.state(), error};
}"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    need_fetched_files()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(ROOT)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _open(browser, server, tamper: bool = False):
    """The test page in a fresh context (the session's Chromium, tests/conftest.py)."""
    context = browser.new_context()
    page = context.new_page()
    page.requests, page.errors = [], []
    page.on("request", lambda r: page.requests.append(r.url))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    if tamper:
        page.route("**/numpy-*.whl", lambda route: route.fulfill(status=200, body=b"PK tampered"))
    page.goto(server + PAGE)
    page.wait_for_selector("#status:not([data-state=loading])", timeout=90_000)
    return context, page


def test_engine_loads_offline_and_plays_the_numpy_engines_games(browser, server):
    context, page = _open(browser, server)
    status = page.locator("#status")
    assert status.get_attribute("data-state") == "ready", status.text_content()
    got = page.evaluate(PLAY % (PREFIX_GAMES, GOLDEN["ticks"], GOLDEN["seed"]))
    want = cpython_reference()
    assert got["prefix"] == want["prefix"]
    assert got["log"] == want["log"]
    assert got["state"] == want["state"]
    assert got["error"].startswith("horizon: expected a whole number")
    outside = [u for u in page.requests if not u.startswith(server + "/")]
    assert outside == [], outside
    assert page.errors == []
    fetched = {u.split("?")[0].rsplit("/", 1)[-1] for u in page.requests}
    manifest = json.loads((ROOT / "exports/browser/manifest.json").read_text())
    assert {manifest["numpy_wheel"], manifest["engine_wheel"], "pyodide.asm.wasm"} <= fetched
    context.close()


def test_a_numpy_wheel_failing_its_checksum_shows_a_clear_error(browser, server):
    context, page = _open(browser, server, tamper=True)
    status = page.locator("#status")
    assert status.get_attribute("data-state") == "error"
    assert status.text_content().startswith("NumPy could not be loaded into Python")
    assert [u for u in page.requests if not u.startswith(server + "/")] == []
    context.close()
