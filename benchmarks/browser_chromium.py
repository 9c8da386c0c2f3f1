"""The browser_loop.py timings inside headless Chromium (Debian's /usr/bin/chromium), served
from 127.0.0.1: the engine test page loads Pyodide, NumPy and the engine wheel from
exports/browser/, then runs the same loops as CPython and Node. Used by browser_engine.py."""

from __future__ import annotations

import functools
import json
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the flags the tests use)

PAGE = "/web_demo/engine/tests/index.html"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def available() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return Path(CHROMIUM).exists()


def run(ticks: int, decision_ticks: int, seed: int, systems: list[str]) -> dict:
    """{"load_s", "page_s", "loop": browser_loop.run's answer, "outside": requests elsewhere}."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(ROOT))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    server = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            begin = time.perf_counter()
            page.goto(server + PAGE)
            page.wait_for_selector("#status[data-state=ready]", timeout=120_000)
            page_s = time.perf_counter() - begin
            load_s = page.evaluate("window.engine.loadMs") / 1000
            code = ("import sys; sys.path.insert(0, '.')\nimport browser_loop, json\n"
                    f"json.dumps(browser_loop.run({ticks}, {decision_ticks}, {seed}, {systems!r}))")  # fmt: skip
            loop = page.evaluate(
                """async (code) => {
                  const src = await (await fetch('/benchmarks/browser_loop.py')).text();
                  window.engine.pyodide.FS.writeFile('browser_loop.py', src);
                  return window.engine.run(code);
                }""",
                code,
            )
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    outside = [u for u in requests if not u.startswith(server + "/")]
    return {"load_s": load_s, "page_s": page_s, "loop": json.loads(loop), "outside": outside}
