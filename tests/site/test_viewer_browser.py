"""The replay viewer in headless Chromium: a real exported replay, stepping, points of view,
shared URLs, hostile names shown as text, bad files showing the reader's error; no console
errors and no request leaving 127.0.0.1. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.core.position import starting_position
from marl_bgs.replay import load_replay, record_game
from tests.browser import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
REPLAY = "alpha-vs-random-map47.json"
XSS = "<img src=x onerror=alert(1)>"
ARGS = CHROMIUM_ARGS

sync_api = pytest.importorskip("playwright.sync_api")
if shutil.which(CHROMIUM) is None and not Path(CHROMIUM).exists():
    pytest.skip("Chromium is not installed at /usr/bin/chromium", allow_module_level=True)


def _hostile_files() -> dict[str, bytes]:
    """Replays served from memory: a hostile name, a truncated file, a wrong number type."""
    game = Game(starting_position(47), backend="numpy")
    rng = np.random.default_rng(0)

    def choose(g: Game) -> np.ndarray:
        legal = g.legal_actions().reshape(10, -1)
        flat = np.asarray([rng.choice(np.flatnonzero(legal[s])) for s in range(10)])
        return np.stack([flat // 22, (flat // 2) % 11, flat % 2], axis=1)

    xss = record_game(game, choose, (XSS, "random"), 0, title=XSS, max_ticks=15).to_bytes()
    doc = json.loads(xss)
    doc["frames"]["health"][4][2] = 1.5
    return {
        "/__test__/xss.json": xss,
        "/__test__/truncated.json": xss[: len(xss) // 2],
        "/__test__/float.json": json.dumps(doc).encode(),
    }


class _Handler(SimpleHTTPRequestHandler):
    extra: dict[str, bytes] = {}

    def do_GET(self):  # noqa: N802 (the http.server name)
        body = self.extra.get(self.path.split("?")[0])
        if body is None:
            return super().do_GET()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    _Handler.extra = _hostile_files()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(ROOT)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
    pg = context.new_page()
    pg.errors, pg.requests, pg.dialogs = [], [], []
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    outside = [u for u in pg.requests if not u.startswith(server + "/")]
    assert outside == [], outside
    assert pg.errors == [], pg.errors
    context.close()


def viewer_url(server: str, src: str, hash_: str = "") -> str:
    return f"{server}/web_demo/viewer/index.html?replay={src}{hash_}"


def open_loaded(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector(".mbg-root.mbg-loaded", timeout=15000)


def state(page) -> tuple[int, str]:
    root = page.locator(".mbg-root")
    return int(root.get_attribute("data-tick")), root.get_attribute("data-view")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def test_opens_a_real_replay_and_steps(page, server):
    replay = load_replay(ROOT / "exports" / "replays" / REPLAY)
    open_loaded(page, viewer_url(server, f"../../exports/replays/{REPLAY}"))
    assert page.locator(".mbg-title").text_content() == replay.title
    assert "tdm-alpha" in page.locator(".mbg-matchup").text_content()
    assert state(page) == (0, "oracle")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert state(page)[0] == 2
    page.keyboard.press("ArrowLeft")
    assert state(page)[0] == 1
    page.keyboard.press("Shift+ArrowRight")
    assert state(page)[0] == 11
    page.keyboard.press("End")
    assert state(page)[0] == replay.ticks
    winner = {0: "team a wins", 1: "team b wins", 2: "draw"}[replay.metrics["result"]]
    assert page.locator(".mbg-clock").text_content().endswith(winner)
    final = f"a {replay.metrics['points_a']} : {replay.metrics['points_b']} b"
    assert page.locator(".mbg-score").text_content().startswith(final)
    mid = replay.ticks // 2
    page.locator(".mbg-scrub").fill(str(mid))
    assert state(page)[0] == mid
    assert page.locator(".mbg-log li").count() > 5
    shot(page, "viewer-oracle.png")
    page.locator(".mbg-back").click()
    assert state(page)[0] == mid - 1
    page.locator(".mbg-play").click()
    for _ in range(100):  # the page's CSP forbids eval, so poll from here
        if state(page)[0] >= mid + 1:
            break
        page.wait_for_timeout(50)
    assert state(page)[0] >= mid + 1
    page.keyboard.press(" ")
    page.keyboard.press("?")
    assert page.locator(".mbg-help").is_visible()
    assert "play / pause" in page.locator(".mbg-help").text_content()
    shot(page, "viewer-help.png")
    page.keyboard.press("Escape")
    assert not page.locator(".mbg-help").is_visible()


def _hidden_enemy_tick(replay, team: str) -> tuple[int, int]:
    """A tick where an enemy is alive in the full replay but hidden from `team`, with no
    other living agent drawn within 1.5 units of it and outside the Red Zones (so the pixel
    at its centre is its own colour)."""
    vis = (replay.as_seen_by(team).visible[:, None] >> np.arange(10)) & 1 == 1
    enemies = range(5, 10) if team == "a" else range(0, 5)
    pos = replay.frames["pos"].astype(np.int64)
    for t in range(20, replay.ticks):
        living = replay.frames["alive"][t] == 1
        for s in enemies:
            alive = living[s] and replay.frames["shield"][t, s] == 0
            near = ((pos[t] - pos[t, s]) ** 2).sum(-1) < 1500**2
            crowded = np.any(near & living & (np.arange(10) != s))
            mid = 5500 < pos[t, s, 0] < 14500  # off the Red Zones tinted at both ends
            if alive and not vis[t, s] and not crowded and mid:
                return t, s
    raise AssertionError("no hidden enemy found")


def _pixel(page, x_milli: int, y_milli: int) -> list[int]:
    return page.evaluate(
        """([x, y]) => {
            const c = document.querySelector('.mbg-canvas');
            const s = c.clientWidth / 20000;
            const r = c.width / c.clientWidth;
            const px = Math.round(x * s * r), py = Math.round(c.height - y * s * r);
            return Array.from(c.getContext('2d').getImageData(px, py, 1, 1).data);
        }""",
        [x_milli, y_milli],
    )


HIDDEN_REPLAY = "beta-vs-gamma-map49.json"  # both teams leave their Red Zones


def test_a_hidden_enemy_vanishes_in_the_team_view(page, server):
    replay = load_replay(ROOT / "exports" / "replays" / HIDDEN_REPLAY)
    t, slot = _hidden_enemy_tick(replay, "a")
    name = f"b{slot - 5}"
    x, y = (int(v) for v in replay.frames["pos"][t, slot])
    open_loaded(page, viewer_url(server, f"../../exports/replays/{HIDDEN_REPLAY}", f"#tick={t}"))
    assert state(page) == (t, "oracle")
    row = page.locator(f'.mbg-agents tr[data-agent="{name}"]')
    assert "mbg-hidden" not in (row.get_attribute("class") or "")
    red = _pixel(page, x, y)
    assert red[0] > 150 and red[2] < 120, red  # team b's colour under the agent
    page.locator(".mbg-view").select_option("a")
    assert state(page) == (t, "a")
    assert "mbg-hidden" in row.get_attribute("class")
    assert row.text_content() == f"{name}hidden"
    gone = _pixel(page, x, y)
    assert not (gone[0] > 150 and gone[2] < 120 and gone[1] < 120), gone
    # Frame t + 1 shows tick t + 1, whose events are judged by what team a saw at frame t:
    # none of the hidden enemy's may be listed (the oracle lists them when it has any).
    page.keyboard.press("ArrowRight")
    lines = page.locator(".mbg-log li").all_text_contents()
    now = [line for line in lines if line.startswith(f"tick {t + 1}:")]
    assert all(f"{name} (" not in line for line in now), now
    assert any(line.startswith("tick ") for line in lines)  # the log's format is the one read
    page.keyboard.press("ArrowLeft")
    shot(page, "viewer-team-a.png")
    page.keyboard.press("o")
    assert state(page) == (t, "oracle")
    page.locator(".mbg-view").select_option("a2")
    assert state(page)[1] == "a2"
    shot(page, "viewer-agent-a2.png")


def test_a_shared_url_opens_the_tick_and_view(page, server):
    open_loaded(page, viewer_url(server, f"../../exports/replays/{REPLAY}", "#tick=37&view=b"))
    assert state(page) == (37, "b")
    assert page.locator(".mbg-view").input_value() == "b"
    page.keyboard.press("ArrowRight")
    page.locator(".mbg-share").click()
    link = page.locator(".mbg-share-url").input_value()
    assert link.endswith("#tick=38&view=b") and "replay=" in link
    assert page.url.endswith("#tick=38&view=b")  # the address bar follows too
    page.goto("about:blank")
    open_loaded(page, link)
    assert state(page) == (38, "b")


def test_names_from_the_file_are_text(page, server):
    open_loaded(page, viewer_url(server, "/__test__/xss.json"))
    assert page.locator(".mbg-title").text_content() == XSS
    assert XSS in page.locator(".mbg-matchup").text_content()
    assert XSS in page.locator(".mbg-agents").text_content()
    assert page.locator("img").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == []
    shot(page, "viewer-hostile-name.png")


@pytest.mark.parametrize(
    "src,message",
    [
        ("/__test__/truncated.json", "file: not valid JSON"),
        ("/__test__/float.json", "frames.health[4][2]: expected a whole number, got 1.5"),
        ("/__test__/missing.json", "__test__/missing.json (HTTP 404)"),
        ("https://example.com/r.json", "only files from this site"),
    ],
)
def test_bad_files_show_the_readers_error(page, server, src, message):
    page.goto(viewer_url(server, src))
    box = page.locator(".mbg-error")
    box.wait_for(state="visible", timeout=15000)
    assert "Cannot open this replay." in box.text_content()
    assert message in box.text_content()
    if "truncated" in src:
        shot(page, "viewer-error.png")
    if "404" in message:
        page.errors[:] = [e for e in page.errors if "404" not in e]  # the browser logs the 404


def test_embedding_mounts_and_destroys(page, server):
    page.goto(f"{server}/web_demo/viewer/index.html")
    assert page.locator("#hint").is_visible()
    count = page.evaluate(
        f"""async () => {{
            const m = await import('./embed.js');
            const div = document.createElement('div');
            div.className = 'mbg-viewer';
            div.dataset.src = '../../exports/replays/{REPLAY}';
            div.dataset.tick = '12';
            div.dataset.view = 'b';
            document.body.append(div);
            const destroy = m.mountAll(document);
            await new Promise((ok) => {{
                const wait = () => div.querySelector('.mbg-loaded') ? ok() : setTimeout(wait, 50);
                wait();
            }});
            const root = div.querySelector('.mbg-root');
            const seen = [root.dataset.tick, root.dataset.view, root.classList.contains('mbg-compact')];
            destroy();
            return [...seen, div.children.length];
        }}"""
    )
    assert count == ["12", "b", True, 0]
