"""The BattleClient page (web_demo/play/) in headless Chromium on the browser's own engine
(Pyodide, from exports/browser/), served from 127.0.0.1 only: it loads with no request
leaving 127.0.0.1, a human plays a whole short game against TDM-Alpha by keyboard while
the page offers only the engine's legal choices and hides unseen enemies, the downloaded
replay reads back and replays identically on the Python engine, and a bad position file
shows the reader's own error as text. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from marl_bgs import Game
from marl_bgs.core.position import starting_position
from marl_bgs.replay import load_replay, replay_game

from . import test_engine_browser
from .browser import CHROMIUM
from .engine_files import ROOT
from .play_helpers import (
    check_against_engine,
    download_replay,
    play_by_keyboard,
    set_up,
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
    assert offered == ["human", "random", "tdm-alpha", "tdm-beta", "tdm-gamma", "ppo-rec-ippo-0"]


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
    page.set_input_files(
        "input[name=position]",
        files=[
            {"name": "p.json", "mimeType": "application/json", "buffer": json.dumps(doc).encode()}
        ],
    )
    page.select_option("select[name=controller_a0]", "human")
    page.select_option("select[name=controller_b0]", "ppo-rec-ippo-0")
    page.select_option("select[name=controller_b1]", "tdm-beta")
    page.click(".bgp-start")
    assert wait_state(page, "turn") == "turn"
    assert json.loads(page.get_attribute(".bgp-root", "data-legal")).keys() == {"a0"}
    for _ in range(9):
        if page.get_attribute(".bgp-root", "data-state") == "over":
            break
        tick = page.get_attribute(".bgp-root", "data-tick")
        page.keyboard.press("Enter")  # commit every human agent
        page.wait_for_function(
            f"() => {{ const r = document.querySelector('.bgp-root'); return r.dataset.state "
            f"=== 'over' || (r.dataset.state === 'turn' && r.dataset.tick !== '{tick}'); }}"
        )
    assert wait_state(page, "over") == "over"
    assert "After 9 ticks" in page.text_content(".bgp-end")
    replay = load_replay(download_replay(page, tmp_path))
    assert replay.systems[:1] + replay.systems[5:7] == ["human", "ppo-rec-ippo-0", "tdm-beta"]
    assert replay_game(replay, "numpy") == 9
    page.click(".bgp-new")
