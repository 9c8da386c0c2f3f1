"""The BattleClient page (web_demo/play/) in headless Chromium on the browser's own engine
(Pyodide, from exports/browser/), served from 127.0.0.1 only: it loads with no request
leaving 127.0.0.1, a human plays a whole short game against TDM-Alpha by keyboard while
the page offers only the engine's legal choices and hides unseen enemies, the downloaded
replay reads back and replays identically on the Python engine, and a bad position file
shows the reader's own error as text. A game of Systems alone plays itself (pause, one
tick, speed, stop at the end); ghosts stand where the engine moves slowed agents; clicks on
the arena select agents and pick only legal targets; the finished game's last tick shows
again without the position before it; and on the built site the client works after
arriving by Material's instant navigation. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.battle_games import ENTRANTS
from marl_bgs.core.position import starting_position
from marl_bgs.replay import load_replay, replay_game
from marl_bgs.replay.fields import rules_table
from tests.browser import CHROMIUM
from tests.browser_engine import test_browser as test_engine_browser
from tests.engine_files import ROOT
from tests.play_helpers import (
    EAST_KEYS,
    arena_points,
    check_against_engine,
    commit_to_the_end,
    download_replay,
    play_by_keyboard,
    set_up,
    start_position,
    wait_state,
)

sync_api = pytest.importorskip("playwright.sync_api")
server = test_engine_browser.server  # the same fixture: files from 127.0.0.1, fetched files
if shutil.which(CHROMIUM) is None and not Path(CHROMIUM).exists():
    pytest.skip("Chromium is not installed at /usr/bin/chromium", allow_module_level=True)

SHOTS = ROOT / "artifacts" / "screenshots"
PAGE = "/web_demo/play/index.html?flash=0"
XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def page(browser, server):
    """One page for the module (Pyodide loads once); each test starts its own game."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    pg = context.new_page()
    pg.requests, pg.errors = [], []
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.goto(server + PAGE)
    wait_state(pg, "setup", "error")
    yield pg
    context.close()


def test_the_page_loads_offline_from_127_0_0_1_only(page, server):
    assert page.get_attribute(".bgp-root", "data-state") == "setup", page.text_content(".bgp-root")
    assert page.text_content(".bgp-status").startswith("Engine: NumPy in your browser")
    outside = [u for u in page.requests if not u.startswith(server + "/")]
    assert outside == [], outside
    assert page.errors == []
    offered = page.eval_on_selector_all(
        "select[name=controller_b0] option", "os => os.map(o => o.value)"
    )
    assert offered == ["human", "random", "tdm-alpha", "tdm-beta", "tdm-gamma", *ENTRANTS]


def test_a_human_plays_a_whole_game_by_keyboard_against_tdm_alpha(page, server, tmp_path):
    set_up(page, sizes=(1, 1), classes=(("mage",), ("warrior",)), winning_score=3, horizon=40)
    assert page.get_attribute(".bgp-root", "data-view") == "a"
    page.keyboard.press("ArrowRight")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "play-browser-start.png"))
    page.keyboard.press("ArrowRight")  # the same move again changes nothing
    records = play_by_keyboard(page)
    assert wait_state(page, "over") == "over"
    assert page.text_content(".bgp-result").split()[0] in ("Team", "Draw")
    # The log numbers ticks as every page does: "tick n:" for the n-th step, from 1.
    lines = [t for t in page.locator(".bgp-log li").all_text_contents() if "no events" not in t]
    assert lines and all(re.match(r"tick [1-9][0-9]*: ", t) for t in lines), lines[:3]
    page.wait_for_selector(".bgp-review .mbg-root.mbg-loaded")  # the viewer opened the replay
    page.screenshot(path=str(SHOTS / "play-browser-end.png"), full_page=True)
    path = download_replay(page, tmp_path)
    check_against_engine(path, records)
    assert any(r["hidden"] for r in records), "the enemy should start out of sight"
    assert [u for u in page.requests if not u.startswith(server + "/")] == []
    assert page.errors == []
    page.click(".bgp-new")
    wait_state(page, "setup")


def _bad_positions() -> list[tuple[str, bytes, str]]:
    """(file name, bytes, the reader's own message) for files the page must refuse."""
    missing = starting_position(47)
    del missing["horizon"]
    hostile = starting_position(47)
    hostile["teams"][0]["agents"][0]["class"] = XSS
    out = []
    for name, doc in ((f"{XSS}.json", missing), ("hostile.json", hostile)):
        try:
            Game(doc)
        except ValueError as err:
            out.append((name, json.dumps(doc).encode(), str(err)))
    out.append(("broken.json", b'{"format": "marl-bgs/position", ', "position: not JSON"))
    return out


def test_a_bad_position_file_shows_the_readers_error_as_text(page):
    wait_state(page, "setup")
    for name, data, message in _bad_positions():
        page.set_input_files(
            "input[name=position]",
            files=[{"name": name, "mimeType": "application/json", "buffer": data}],
        )
        if not message.startswith("position: not JSON"):
            page.click(".bgp-start")
        page.wait_for_selector(".bgp-error:not([hidden])")
        shown = page.text_content(".bgp-error")
        assert message in shown, (message, shown)
        assert page.locator(".bgp-root img").count() == 0  # shown as text, never as markup
        assert page.get_attribute(".bgp-root", "data-state") == "setup"
    page.click("text=Clear file")
    assert page.is_enabled("select[name=map]")


def test_a_position_file_game_with_the_learned_entrant(page, tmp_path):
    """A game from a position file, a human beside nobody against the learned entrant (its
    `.npz` NumPy forward pass, carried by the engine wheel) and TDM-Beta."""
    wait_state(page, "setup")
    doc = starting_position(42, (["priest"], ["rogue", "hunter"]), horizon=9, winning_score=2)
    controllers = {"a0": "human", "b0": "ppo-rec-ippo-0", "b1": "tdm-beta"}
    start_position(page, doc, controllers)
    assert wait_state(page, "turn") == "turn"
    assert json.loads(page.get_attribute(".bgp-root", "data-legal")).keys() == {"a0"}
    commit_to_the_end(page, 9)  # Enter commits every human agent
    assert "After 9 ticks" in page.text_content(".bgp-end")
    replay = load_replay(download_replay(page, tmp_path))
    assert replay.systems[:1] + replay.systems[5:7] == ["human", "ppo-rec-ippo-0", "tdm-beta"]
    assert replay_game(replay, "numpy") == 9
    new_game(page)


def new_game(page) -> None:
    """Back to an empty setup form (no position file) after a finished game."""
    page.click(".bgp-new")
    wait_state(page, "setup")
    if page.is_visible(".bgp-root button:has-text('Clear file')"):
        page.click(".bgp-root button:has-text('Clear file')")


def _tick(page) -> int:
    return int(page.get_attribute(".bgp-root", "data-tick"))


def test_systems_alone_play_by_themselves_with_pause_and_speed(page, tmp_path):
    """No human slot: the game plays itself; Pause holds it, Next tick plays one, Space
    resumes, the speed sets the pace, and it stops at the end."""
    wait_state(page, "setup")
    controllers = {"a0": "tdm-alpha", "b0": "tdm-beta"}
    page.fill("input[name=horizon]", "30")
    assert page.text_content(".bgp-game-kind").startswith("A quick game (the official game: ")
    set_up(page, classes=(("mage",), ("priest",)), controllers=controllers, horizon=30)
    root = ".bgp-root"
    assert page.get_attribute(root, "data-auto") == "playing"
    assert page.is_visible(".bgp-pause") and page.is_hidden(".bgp-pad")
    page.wait_for_function("() => Number(document.querySelector('.bgp-root').dataset.tick) >= 2")
    page.click(".bgp-pause")
    assert page.get_attribute(root, "data-auto") == "paused"
    assert page.text_content(".bgp-pause") == "Resume"
    wait_state(page, "turn")  # a tick already asked for still lands
    held = _tick(page)
    page.wait_for_timeout(1600)  # 3 ticks at the default 2 ticks/s
    assert _tick(page) == held
    page.click(".bgp-next")
    page.wait_for_function(
        f"() => document.querySelector('.bgp-root').dataset.tick === '{held + 1}'"
    )
    wait_state(page, "turn")
    assert page.get_attribute(root, "data-auto") == "paused"
    page.select_option(".bgp-speed", "1")
    page.keyboard.press("Space")  # resume
    assert page.get_attribute(root, "data-auto") == "playing"
    page.wait_for_timeout(2500)
    assert _tick(page) <= held + 1 + 3  # at most one tick a second
    page.select_option(".bgp-speed", "20")
    assert wait_state(page, "over") == "over"
    assert page.get_attribute(root, "data-auto") == "over"
    # the result sits over the arena, and the header says it too (issue 46)
    verdict = page.locator(".bgp-verdict")
    assert verdict.is_visible()
    box, arena = verdict.bounding_box(), page.locator(".bgp-canvas").bounding_box()
    assert arena["x"] <= box["x"] and box["x"] + box["width"] <= arena["x"] + arena["width"]
    assert arena["y"] <= box["y"] and box["y"] + box["height"] <= arena["y"] + arena["height"]
    headline = page.text_content(".bgp-result")
    assert page.text_content(".bgp-verdict strong") == headline
    assert page.text_content(".bgp-turn-text") == headline
    assert page.text_content(".bgp-verdict span").startswith("After ")
    assert page.is_disabled(".bgp-pause") and page.is_disabled(".bgp-next")
    ended = _tick(page)
    page.wait_for_timeout(300)
    assert _tick(page) == ended  # nothing plays after the end
    replay = load_replay(download_replay(page, tmp_path))
    assert replay.systems[0] == "tdm-alpha" and replay.systems[5] == "tdm-beta"
    assert replay_game(replay, "numpy") == replay.ticks == ended
    assert page.errors == []
    new_game(page)


def _slowed_position() -> dict:
    """Three human agents in the open middle of map 47, each slowed differently."""
    doc = starting_position(47, (["mage", "rogue", "priest"], ["warrior"]), horizon=3)
    a = doc["teams"][0]["agents"]
    a[0].update(x=9.0, y=3.6, effects={"slow_charge": 3})  # Charge: x0.5
    a[1].update(x=9.0, y=5.0, effects={"slow_hunter": 1, "slow_poison": 2})  # x0.85 x0.5
    a[2].update(x=9.0, y=6.4, effects={"slow_charge": 4, "blessing": 1})  # Blessing: x0.85
    return doc


def test_ghosts_stand_where_the_engine_moves_slowed_agents(page):
    """A pending move's ghost is the engine's stride for that agent (its slows, Blessing):
    where the Python engine moves it when nothing is in the way."""
    wait_state(page, "setup")
    doc = _slowed_position()
    start_position(page, doc, {"a0": "human", "a1": "human", "a2": "human", "b0": "tdm-alpha"})
    moves = {"a0": ("ArrowRight", 3), "a1": ("Numpad9", 5), "a2": ("Numpad7", 6)}
    for slot, (key, _) in moves.items():
        page.click(f".bgp-tab[data-agent={slot}]")
        page.keyboard.press(key)
    ghosts = json.loads(page.get_attribute(".bgp-root", "data-ghosts"))
    game = Game(doc)
    start = game.state.pos.copy()
    game.step([[list((m, 0, 0)) for _, m in moves.values()], [[0, 0, 0]]])
    for s, slot in enumerate(moves):
        assert ghosts[slot] == game.state.pos[s].tolist(), slot
    strides = {
        slot: float(np.hypot(*(game.state.pos[s] - start[s]))) for s, slot in enumerate(moves)
    }
    assert strides["a0"] == pytest.approx(500, abs=1)  # a Mage under Charge's slow
    assert strides["a1"] == pytest.approx(1300 * 0.85 * 0.5, abs=1)
    assert strides["a2"] == pytest.approx(850, abs=1)  # Blessing holds the slow at 85%
    commit_to_the_end(page, 3)
    new_game(page)


def _targets(page) -> tuple[str, int]:
    offered = json.loads(page.get_attribute(".bgp-root", "data-offered"))
    return page.get_attribute(".bgp-root", "data-selected"), offered["order"][1]


def test_clicks_on_the_arena_select_agents_and_pick_legal_targets(page):
    wait_state(page, "setup")
    doc = starting_position(47, (["priest", "mage", "warrior"], ["mage", "warrior"]), horizon=2)
    a, b = doc["teams"][0]["agents"], doc["teams"][1]["agents"]
    a[0].update(x=9.0, y=4.0)
    a[1].update(x=9.0, y=6.0)
    a[2].update(x=10.2, y=4.8)  # a System's agent: a teammate the Priest may heal
    b[0].update(x=11.2, y=6.0)  # in the Mage's range and sight, not a Priest's target
    start_position(page, doc, {"a0": "human", "a1": "human", "a2": "tdm-alpha"})
    legal = Game(doc).legal_actions()
    offered = json.loads(page.get_attribute(".bgp-root", "data-legal"))
    assert offered["a0"] == np.flatnonzero(legal[0, 0]).tolist()
    pos = Game(doc).state.pos
    names = ["a0", "a1", "a2", "b0"]
    points = arena_points(page, [pos[s].tolist() for s in (0, 1, 2, 5)], rules_table()["arena"])
    at = dict(zip(names, points, strict=True))
    canvas = page.locator(".bgp-canvas")
    assert _targets(page) == ("a0", 0)
    canvas.click(position=at["a1"])  # one of yours: selected
    assert _targets(page) == ("a1", 0)
    canvas.click(position=at["b0"])  # an enemy in range: the Mage's target (enemy slot 0)
    assert _targets(page) == ("a1", 6)
    canvas.click(position=at["a0"])  # your other agent: selected, not targeted
    assert _targets(page) == ("a0", 0)
    canvas.click(position=at["b0"])  # not a target a Priest can take: nothing but a hint
    assert _targets(page) == ("a0", 0)
    assert "a Priest heals allies" in page.text_content(".bgp-order")  # and why (issue 46)
    canvas.click(position=at["a2"])  # a System's teammate: healed (own slot 2)
    assert _targets(page) == ("a0", 3)
    canvas.click(position=at["a1"], modifiers=["Shift"])  # Shift: your own agent as target
    assert _targets(page) == ("a0", 2)
    canvas.click(position=at["a0"])  # the selected agent itself: a self-heal
    assert _targets(page) == ("a0", 1)
    for slot, k, t in (("a0", 0, 1), ("a1", 1, 6)):  # what was picked is the engine's choice
        page.click(f".bgp-tab[data-agent={slot}]")
        order = json.loads(page.get_attribute(".bgp-root", "data-offered"))["order"]
        assert order[1] == t and legal[0, k, (order[0] * 11 + t) * 2 + order[2]], slot
    canvas.click(position={"x": 5, "y": 5})  # empty ground: nothing
    assert _targets(page) == ("a1", 6)
    commit_to_the_end(page, 2)
    new_game(page)


RECORD_DRAWS = """() => {
  const root = document.querySelector('.bgp-root');
  const canvas = root.querySelector('.bgp-canvas');
  window.drawn = [];
  if (window.drawWatch) window.drawWatch.disconnect();
  window.drawWatch = new MutationObserver(() => window.drawn.push([root.dataset.drawn, canvas.toDataURL()]));
  window.drawWatch.observe(root, { attributes: true, attributeFilter: ['data-drawn'] });
}"""


def test_the_last_tick_shows_again_at_the_end_without_the_start_position(page):
    """After the game, "Last tick" (and L) draw the last tick's attacks, heals and deaths,
    then the final state: never the position before that tick."""
    wait_state(page, "setup")
    doc = starting_position(47, (["mage"], ["mage"]), horizon=5, winning_score=1)
    doc["teams"][0]["agents"][0].update(x=9.0, y=5.0)
    doc["teams"][1]["agents"][0].update(x=11.0, y=5.0, health=5)
    start_position(page, doc, {"a0": "human", "b0": "tdm-alpha"})
    page.keyboard.press("Digit1")  # Arcane Blast on b0: 13 damage, it dies
    page.keyboard.press("Enter")
    assert wait_state(page, "over") == "over"
    assert page.text_content(".bgp-result").startswith("Team a wins")
    root = ".bgp-root"
    assert page.get_attribute(root, "data-drawn") == "frame-1"  # the last frame, its lines
    final = page.locator(".bgp-canvas").evaluate("(c) => c.toDataURL()")
    for press in (lambda: page.click(".bgp-again"), lambda: page.keyboard.press("KeyL")):
        page.evaluate(RECORD_DRAWS)
        press()
        page.wait_for_function("() => !document.querySelector('.bgp-root').dataset.flash")
        page.wait_for_timeout(50)
        drawn = page.evaluate("window.drawn")
        assert [d for d, _ in drawn] == ["last-tick", "frame-1"], [d for d, _ in drawn]
        assert drawn[0][1] != final and drawn[-1][1] == final
    new_game(page)


def _instant_page(browser, site_url):
    """A page on the built site where Material's instant navigation is on, with the lists of
    its page errors and fetched addresses; skips when the site has no browser engine."""
    from tests.engine_files import need_fetched_files

    base, site = site_url
    if not (site / "exports" / "browser" / "manifest.json").is_file():
        need_fetched_files()
        pytest.skip("this site was built before exports/browser/ was fetched")
    built_for = re.search(r"^site_url: (\S+)$", (ROOT / "mkdocs.yml").read_text(), re.M)[1]
    sitemap = (site / "sitemap.xml").read_text()
    assert f"<loc>{built_for}play/</loc>" in sitemap
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.errors, pg.fetched = [], []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("request", lambda r: pg.fetched.append(r.url))
    # Served here on another port than the one it was built for: the sitemap names this one,
    # as it would name the site's own address where it is served.
    pg.route(
        "**/sitemap.xml",
        lambda route: route.fulfill(
            body=sitemap.replace(built_for, base), content_type="application/xml"
        ),
    )
    return context, pg


SITE_PLAY = "[data-play] .bgp-root"


def _load_play(pg, base: str) -> None:
    """A direct visit to the Play page, and its engine loaded."""
    pg.goto(f"{base}play/", wait_until="load")
    pg.wait_for_selector(f"{SITE_PLAY}[data-state=idle]")
    pg.locator(f"{SITE_PLAY} .bgp-load").click()
    pg.wait_for_selector(f"{SITE_PLAY}[data-state=setup]", timeout=90_000)


def _go_instantly(pg, path: str) -> None:
    """Follow the navigation's link to `path` (an instant swap, checked: no reload), and wait
    for the new page's content to replace the old (the address changes first)."""
    pg.evaluate("window.notReloaded = true; window.oldArticle = document.querySelector('article')")
    pg.locator(f"nav a[href$='/{path}/']:visible").first.click()  # a tab or its section
    pg.wait_for_function(
        f"() => location.pathname.endsWith('/{path}/') && !window.oldArticle.isConnected"
    )
    assert pg.evaluate("window.notReloaded") is True  # instant: the page did not reload


def test_play_works_after_instant_navigation(browser, site_url):
    """With `site_url` set, Material's instant navigation swaps pages without reloading:
    Play mounts on arrival either way, keeps its engine across swaps, and plays."""
    base, _ = site_url
    context, pg = _instant_page(browser, site_url)
    play = SITE_PLAY
    _load_play(pg, base)
    _go_instantly(pg, "getting-started")
    assert pg.locator("[data-play]").count() == 0
    pg.evaluate("window.notReloaded = true")
    pg.locator("nav a[href$='/play/']:visible").first.click()
    pg.wait_for_selector(f"{play}[data-state=setup]", timeout=30_000)  # the engine is kept
    assert pg.evaluate("window.notReloaded") is True  # instant: the page did not reload
    assert pg.locator(f"{play}").count() == 1
    # one engine for the visit: one worker, the wasm asked for by the download (counted for
    # the progress bar) and by Pyodide (answered by the service worker's cache)
    assert sum(u.endswith("/engine/worker.js") for u in pg.fetched) == 1
    assert 1 <= sum(u.endswith("pyodide.asm.wasm") for u in pg.fetched) <= 2
    entrant = pg.locator(f"{play} select[name=controller_b0] option[value='nav-dagger-0']")
    assert re.search(r"^nav-dagger-0 \(Season 0: #\d+ of \d+, Elo \d+\)$", entrant.text_content())
    pg.select_option(f"{play} select[name=controller_a0]", "tdm-alpha")
    pg.fill(f"{play} input[name=horizon]", "3")
    pg.locator(f"{play} .bgp-start").click()
    pg.wait_for_selector(f"{play}[data-state=over]", timeout=30_000)  # it played itself
    assert pg.get_attribute(play, "data-tick") == "3"
    assert pg.errors == []
    assert all(urlsplit(u).hostname == "127.0.0.1" for u in pg.fetched)
    context.close()


# A key press sent to the client kept in window.oldPlay; returns its order's move after it.
PRESS_OLD = """(code) => {
  const root = window.oldPlay;
  root.dispatchEvent(new KeyboardEvent('keydown', { code, key: code, bubbles: true }));
  return JSON.parse(root.dataset.offered).order[0];
}"""
# Whether the page's engine still holds game `id`: "open", or the engine's refusal.
ENGINE_GAME = """async (id) => {
  const engine = await window.mbgPlays.engine();
  try {
    await engine.view(id, 'a');
    return 'open';
  } catch (err) {
    return err.message;
  }
}"""


def test_leaving_a_half_played_game_destroys_its_client(browser, site_url):
    """Instant navigation away from a half-played human game destroys its client (as it does
    the replay viewers): its root says "destroyed" and has left the document, its keys do
    nothing, and the engine has forgotten its game; the engine stays for the next page."""
    base, _ = site_url
    context, pg = _instant_page(browser, site_url)
    _load_play(pg, base)
    set_up(pg, sizes=(1, 1), classes=(("mage",), ("warrior",)), horizon=40)
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("Space")  # a0's order: the tick resolves
    pg.wait_for_function(
        f"() => document.querySelector('{SITE_PLAY}').dataset.tick === '1'", timeout=30_000
    )
    wait_state(pg, "turn")
    pg.evaluate(f"window.oldPlay = document.querySelector('{SITE_PLAY}')")
    offered = json.loads(pg.get_attribute(SITE_PLAY, "data-offered"))
    (key, move), (other, _) = [
        (k, m) for k, m in EAST_KEYS if m in offered["moves"] and m != offered["order"][0]
    ][:2]
    assert pg.evaluate(PRESS_OLD, key) == move  # keys reach it: a new move is pending
    assert pg.evaluate("window.mbgPlays.clients.size") == 1
    assert pg.evaluate(ENGINE_GAME, 1) == "open"  # the first game of this page's engine
    _go_instantly(pg, "getting-started")
    pg.wait_for_function("() => window.oldPlay.dataset.state === 'destroyed'", timeout=10_000)
    assert pg.evaluate("window.oldPlay.isConnected") is False
    assert pg.evaluate("window.mbgPlays.clients.size") == 0
    assert pg.evaluate(PRESS_OLD, other) == move  # its key listener is gone
    assert "no game with id 1" in pg.evaluate(ENGINE_GAME, 1)  # the engine forgot the game
    tick = pg.evaluate("window.oldPlay.dataset.tick")
    pg.wait_for_timeout(600)  # longer than the site's flash of the last tick
    assert pg.evaluate("[window.oldPlay.dataset.tick, window.oldPlay.dataset.state]") == [
        tick,
        "destroyed",
    ]
    assert pg.errors == []
    context.close()


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site and adds every body byte it sends to `sent` (per server)."""

    sent: list[int]

    def log_message(self, *args) -> None:
        pass

    def copyfile(self, source, outputfile) -> None:
        data = source.read()
        self.sent[0] += len(data)
        outputfile.write(data)


LONG_TASKS = """() => { window.longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries())
    window.longTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' }); }"""


def _engine_load(pg, base: str) -> float:
    """Open Play, press its load button, wait for the set-up form; the load's longest task
    on the page's main thread (ms), from the click on."""
    pg.goto(f"{base}play/", wait_until="load")
    pg.wait_for_selector(f"{SITE_PLAY}[data-state=idle]")
    pg.evaluate(LONG_TASKS)
    clicked = pg.evaluate("performance.now()")
    pg.locator(f"{SITE_PLAY} .bgp-load").click()
    pg.wait_for_selector(f"{SITE_PLAY}[data-state=setup]", timeout=90_000)
    tasks = pg.evaluate("window.longTasks")
    return max([d for t, d in tasks if t >= clicked], default=0.0)


def test_the_engine_loads_off_the_page_and_a_reload_takes_it_from_the_browser(browser, site_url):
    """Issue 46: the button says the download's size; the engine loads in a Web Worker, so no
    task on the page's main thread takes 200 ms or more meanwhile; a reload of Play loads it
    from Cache Storage (the service worker), under 1 MB sent by the server; the load time
    shown is the wait from the click."""
    _, site = site_url
    if not (site / "exports" / "browser" / "manifest.json").is_file():
        pytest.skip("this site was built before exports/browser/ was fetched")
    total = json.loads((site / "exports" / "browser" / "manifest.json").read_text())["total_bytes"]
    handler = functools.partial(type("H", (_CountingHandler,), {"sent": [0]}), directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    sent = handler.func.sent
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(f"{base}play/", wait_until="load")
        pg.wait_for_selector(f"{SITE_PLAY}[data-state=idle]")
        pg.wait_for_function(
            f"() => document.querySelector('{SITE_PLAY} .bgp-load')?.textContent.includes('MB')"
        )
        label = pg.locator(f"{SITE_PLAY} .bgp-load").text_content()
        assert f"({total / 1e6:.1f} MB)" in label
        sent[0] = 0
        longest_first = _engine_load(pg, base)
        first = sent[0]
        status = pg.locator(f"{SITE_PLAY} .bgp-status").text_content()
        assert re.search(r"ready \d+\.\d s after you asked", status), status
        assert first >= total  # the engine came over the network once
        assert longest_first < 200, longest_first
        sent[0] = 0
        pg.reload(wait_until="load")
        pg.wait_for_function(
            f"() => document.querySelector('{SITE_PLAY} .bgp-load')?.textContent"
            ".includes('kept in your browser')"
        )
        longest_again = _engine_load(pg, base)
        assert sent[0] < 1_000_000, sent[0]
        assert longest_again < 200, longest_again
        assert errors == []
    finally:
        context.close()
        server.shutdown()


TICK_TIMES = """() => { window.tickTimes = [];
  const root = document.querySelector('.bgp-root');
  new MutationObserver(() => window.tickTimes.push([Number(root.dataset.tick), performance.now()]))
    .observe(root, { attributes: true, attributeFilter: ['data-tick'] }); }"""


def test_the_speed_menu_plays_what_it_says_and_skip_goes_to_the_end(page):
    """Issue 46: at 8 ticks a second an AI-only game plays at least 90% of that (the engine's
    and the drawing's time comes out of the wait), and Skip to end plays the rest at once.
    (20 ticks/s on a 5-against-5 game is measured by benchmarks/site_visit.py: 20.1 on a
    quiet machine; with the suite's other worker beside it, CI measured 13.8.)"""
    wait_state(page, "setup")
    controllers = {"a0": "tdm-alpha", "b0": "tdm-beta"}
    set_up(page, classes=(("warrior",), ("warrior",)), controllers=controllers,
           winning_score=50, horizon=400)  # fmt: skip
    page.select_option(".bgp-speed", "8")
    page.evaluate(TICK_TIMES)
    page.wait_for_function("() => window.tickTimes.length >= 17", timeout=20_000)
    times = page.evaluate("window.tickTimes")
    (t0, s0), (t1, s1) = times[0], times[16]
    rate = (t1 - t0) / ((s1 - s0) / 1000)
    assert rate >= 0.9 * 8, rate
    assert page.locator(".bgp-speed option[value='0']").text_content() == "max"
    page.click(".bgp-skip")
    assert wait_state(page, "over", timeout=60_000) == "over"
    assert page.is_disabled(".bgp-skip")
    new_game(page)


def test_a_move_into_the_arena_wall_is_announced_on_the_arena(page):
    """Issue 46: a0 starts touching the left wall (x = 0.5 on map 47); an order west is
    offered, goes nowhere, and the arena says so; targeting b0, out of sight, says why not."""
    wait_state(page, "setup")
    set_up(page)  # a0 (human mage) against b0 (TDM-Alpha), map 47
    assert wait_state(page, "turn") == "turn"
    page.keyboard.press("Digit1")  # b0, across the map: the refusal says why
    refused = page.text_content(".bgp-order")
    assert refused == "a0: b0 cannot be targeted: b0 is not in sight of your team", refused
    page.keyboard.press("ArrowLeft")
    order = json.loads(page.get_attribute(".bgp-root", "data-offered"))["order"]
    assert order[0] == 4  # west, offered by the rules
    page.keyboard.press("Space")
    page.wait_for_function("() => document.querySelector('.bgp-root').dataset.tick === '1'")
    wait_state(page, "turn", "over")
    assert page.get_attribute(".bgp-root", "data-blocked") == "a0 (W)"
    notice = page.locator(".bgp-notice")
    assert notice.is_visible() and "a0 (W) did not move" in notice.text_content()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")
    page.wait_for_function("() => document.querySelector('.bgp-root').dataset.tick === '2'")
    wait_state(page, "turn", "over")
    assert page.get_attribute(".bgp-root", "data-blocked") == ""
    assert notice.is_hidden()


def _box(pg, selector: str) -> dict:
    """The element's box in the viewport: left, top, right, bottom, width, height (px)."""
    return pg.locator(selector).evaluate(
        "(e) => { const b = e.getBoundingClientRect(); return {left: b.left, top: b.top,"
        " right: b.right, bottom: b.bottom, width: b.width, height: b.height}; }"
    )


# Times (performance.now) of every key press and every drawing of the arena, with the tick
# the page was on when it drew.
DRAW_TIMES = """() => { const root = document.querySelector('[data-play] .bgp-root');
  window.keyTimes = []; window.drawTimes = [];
  root.addEventListener('keydown', (e) => window.keyTimes.push([e.code, performance.now()]), true);
  new MutationObserver(() => window.drawTimes.push([Number(root.dataset.tick),
    root.dataset.flash ? 'flash' : root.dataset.drawn, performance.now()]))
    .observe(root, { attributes: true, attributeFilter: ['data-drawn'] }); }"""


def _commit_to_drawn(pg, ticks: int) -> list[float]:
    """Commit `ticks` turns with Enter; for each, ms from the key press to the arena's first
    drawing of the new tick's position (a replay of where the tick started does not count)."""
    pg.evaluate(DRAW_TIMES)
    waits = []
    for _ in range(ticks):
        tick = int(pg.get_attribute(SITE_PLAY, "data-tick"))
        pg.evaluate("window.keyTimes = []; window.drawTimes = []")
        pg.keyboard.press("Enter")
        pg.wait_for_function(
            f"() => window.drawTimes.some(([t, d]) => t === {tick + 1} && d !== 'flash')",
            timeout=30_000,
        )
        wait_state(pg, "turn", "over")
        pressed = [t for code, t in pg.evaluate("window.keyTimes") if code == "Enter"][0]
        drawn = next(
            t for k, d, t in pg.evaluate("window.drawTimes") if k == tick + 1 and d != "flash"
        )
        waits.append(drawn - pressed)
    return waits


def test_play_keeps_the_arena_its_controls_and_the_log_in_view(browser, site_url):
    """Issue 46: at 1280x800 the arena, Commit and the event log (beside the arena) are on
    the first screen once a game starts; a committed turn is drawn within 150 ms of the key
    (median; each tick's start replayed first only when asked); at 390x844 the parts stack
    (arena, controls, log, agents), the arena spans the screen and the buttons are 40 px."""
    base, _ = site_url
    context, pg = _instant_page(browser, site_url)
    pg.set_viewport_size({"width": 1280, "height": 800})
    _load_play(pg, base)
    set_up(pg, classes=(("mage",), ("warrior",)), horizon=60, winning_score=20)
    assert wait_state(pg, "turn") == "turn"
    canvas, commit = _box(pg, f"{SITE_PLAY} .bgp-canvas"), _box(pg, f"{SITE_PLAY} .bgp-commit")
    events = _box(pg, f"{SITE_PLAY} .bgp-events")
    assert 0 <= canvas["top"] and canvas["bottom"] <= 800 and canvas["width"] >= 600, canvas
    assert commit["bottom"] <= 800, commit
    assert events["left"] >= canvas["right"] and events["top"] + 80 <= 800, (events, canvas)
    SHOTS.joinpath("site").mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / "site" / "play-game-1280x800.png"))

    assert pg.is_checked(f"{SITE_PLAY} .bgp-replay-ticks") is False
    waits = _commit_to_drawn(pg, 7)
    assert sorted(waits)[len(waits) // 2] <= 150, waits
    # "Replay each tick": the position the tick started from first, then its result
    pg.check(f"{SITE_PLAY} .bgp-replay-ticks")
    tick = int(pg.get_attribute(SITE_PLAY, "data-tick"))
    pg.evaluate(DRAW_TIMES)
    pg.keyboard.press("Enter")
    pg.wait_for_function(
        f"() => {{ const mine = window.drawTimes.filter(([t]) => t === {tick + 1});"
        " const f = mine.findIndex(([, d]) => d === 'flash');"
        " return f >= 0 && mine.slice(f).some(([, d]) => d === 'frame-1'); }",
        timeout=30_000,
    )
    drawn = [(d, t) for k, d, t in pg.evaluate("window.drawTimes") if k == tick + 1]
    # (one record per observer call, which reads the drawing that call sees: drawn last)
    start = next(t for d, t in drawn if d == "flash")
    result = next(t for d, t in drawn if d == "frame-1" and t > start)
    assert result - start >= 140, drawn  # the site's 150 ms

    pg.set_viewport_size({"width": 390, "height": 844})
    pg.wait_for_timeout(100)
    parts = ["bgp-canvas", "bgp-controls", "bgp-events", "bgp-agents-panel"]
    boxes = [_box(pg, f"{SITE_PLAY} .{p}") for p in parts]
    for k in range(len(parts) - 1):
        assert boxes[k]["bottom"] <= boxes[k + 1]["top"] + 1, (parts[k], boxes[k], boxes[k + 1])
    assert boxes[0]["left"] <= 0.5 and boxes[0]["width"] >= 389, boxes[0]
    assert boxes[0]["height"] <= 0.55 * boxes[0]["width"], boxes[0]  # drawn again, not stretched
    heights = pg.eval_on_selector_all(
        f"{SITE_PLAY} .bgp-pad .mbg-btn, {SITE_PLAY} .bgp-commit",
        "bs => bs.map(b => b.getBoundingClientRect().height)",
    )
    assert min(heights) >= 40, heights
    pg.screenshot(path=str(SHOTS / "site" / "play-game-390x844.png"))
    assert pg.errors == []
    context.close()
