"""The Scenarios section of the site (marl_bgs/site/scenarios_page.py) and the Play page's
`?scenario=<id>`.

Without a browser: each exported scenario's page holds its briefing (escaped), its controller
and the sentence saying what its failing variant changed, in the Markdown and in the built
HTML; strings from the files are escaped wherever they land; the section, its pages and its
results rows exist only for what was exported. In headless Chromium on the built site: every
scenario page opens both replays, the line's viewer stepped to its last tick shows Team A's
win, and "Play this position" opens Play with the scenario's position (every agent where
position.json puts it, Team A human, Team B the controller), where playing the stored line
by keyboard wins.
"""

from __future__ import annotations

import json
import re
import shutil
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

import markdown
import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.replay import load_replay
from marl_bgs.scenarios import export_file
from marl_bgs.site import scenarios_page
from tests.browser import CHROMIUM

ROOT = Path(__file__).resolve().parents[2]
EXPORTED = export_file.entries(ROOT)
HOSTILE = "<img src=x onerror=alert(1)> *bold* [link](http://x) | pipe"
need_exports = pytest.mark.skipif(
    not EXPORTED, reason="exports/scenarios/index.json has not been written"
)


def _position(sid: int) -> dict:
    return json.loads(
        (ROOT / export_file.SCENARIO_DIR / f"scenario_{sid}" / "position.json").read_text()
    )


# ---- Markdown and HTML ----------------------------------------------------------------------


@need_exports
@pytest.mark.parametrize("entry", EXPORTED, ids=lambda e: f"scenario-{e['id']}")
def test_each_scenario_page_holds_briefing_controller_and_variant(entry):
    text = scenarios_page.scenario_page(ROOT, entry, EXPORTED)
    sentence = scenarios_page.variant_sentence(entry, _position(entry["id"]))
    assert escape(entry["briefing"]) in text
    assert scenarios_page.label(entry["controller"]) in text and entry["controller"] in text
    assert escape(sentence) in text
    assert sentence.startswith(f"At tick {entry['variant']['tick'] + 1} of ")
    assert f"(a{entry['variant']['agent']})" in sentence
    sid = entry["id"]
    for name in ("line.json", "variant.json"):
        assert f'data-src="../../exports/scenarios/scenario_{sid}/{name}"' in text
    assert f"](../play.md?scenario={sid})" in text
    assert '<figure class="bgs-frame bgs-scenario-start"><svg' in text  # the start, drawn
    assert '<p class="bgs-variant-why">The two games ' in text


@need_exports
def test_the_built_pages_show_each_exported_scenario():
    from marl_bgs.site import build as site_build

    site = site_build.build_once().site
    overview = (site / "scenarios" / "index.html").read_text()
    for entry in EXPORTED:
        sid = entry["id"]
        page = (site / "scenarios" / str(sid) / "index.html").read_text()
        assert f'<p class="bgs-briefing">{escape(entry["briefing"])}</p>' in page
        assert entry["controller"] in page and scenarios_page.label(entry["controller"]) in page
        sentence = scenarios_page.variant_sentence(entry, _position(sid))
        assert f'<p class="bgs-variant-change">{escape(sentence)}</p>' in page
        assert 'href="../../play/?scenario=' + str(sid) + '"' in page
        assert page.count('class="mbg-viewer"') == 2
        assert f'href="{sid}/"' in overview  # listed on the overview
    # Nothing for a scenario that was not exported: no page, no link.
    exported = {e["id"] for e in EXPORTED}
    for sid in set(range(1, 9)) - exported:
        assert not (site / "scenarios" / str(sid)).exists()
        assert f'href="{sid}/"' not in overview
    broken = [b for b in site_build.broken_links(site) if b.startswith("scenarios/")]
    assert broken == []


def _copy_exports(tmp_path: Path, keep: list[int]) -> Path:
    """A fake checkout root holding only the exported files of the scenarios `keep`."""
    src = ROOT / export_file.SCENARIO_DIR
    dst = tmp_path / export_file.SCENARIO_DIR
    dst.mkdir(parents=True)
    index = json.loads((src / "index.json").read_text())
    index["scenarios"] = [e for e in index["scenarios"] if e["id"] in keep]
    (dst / "index.json").write_text(json.dumps(index))
    for sid in keep:
        shutil.copytree(src / f"scenario_{sid}", dst / f"scenario_{sid}")
    return tmp_path


def _results(entries: list[dict], systems: dict[str, str]) -> dict:
    """A results.json for these scenarios (system -> label), every row the same."""
    rows = lambda system: [  # noqa: E731
        {"scenario": e["id"], "name": e["name"], "controller": e["controller"], "games": 8,
         "wins": 3, "draws": 1, "losses": 4, "win_rate": 0.375,
         **({} if system == "random" else {"reference_wins": 2, "fisher_p": 0.0004})}
        for e in entries
    ]  # fmt: skip
    return {
        "games_per_scenario": 8,
        "root_seed": 77,
        "systems": {s: rows(s) for s in systems},
        "scenario_sha256": {str(e["id"]): e["file_sha256"] for e in entries},
        "versions": {"numpy": "<b>9</b>"},
    }


@need_exports
def test_strings_from_the_files_are_escaped(tmp_path):
    sid = EXPORTED[0]["id"]
    root = _copy_exports(tmp_path, [sid])
    path = root / export_file.SCENARIO_DIR / "index.json"
    index = json.loads(path.read_text())
    entry = index["scenarios"][0]
    entry.update(name=HOSTILE, briefing=f"{HOSTILE} & <script>alert(2)</script>",
                 controller="tdm-alpha<b>x</b>", skills=[HOSTILE])  # fmt: skip
    path.write_text(json.dumps(index))
    res = _results([entry], {"random": "Random", "<i>sys</i>": "?"})
    (root / export_file.SCENARIO_DIR / "results.json").write_text(json.dumps(res))
    items = export_file.entries(root)
    pages = {rel: write() for rel, write in scenarios_page.pages(root).items()}
    assert set(pages) == {"scenarios/index.md", f"scenarios/{sid}.md"}
    for rel, text in pages.items():
        for raw in ("<img", "<script", "<b>", "<i>"):
            assert raw not in text, (rel, raw)
        assert "&lt;img src=x onerror=alert" in text
        # Rendered as the site renders it: the strings stay text, never links or emphasis.
        html = markdown.markdown(text, extensions=["tables", "attr_list", "md_in_html", "toc"])
        for made in ('href="http://x"', "<em>bold", "<strong>bold", "<img", "<script"):
            assert made not in html, (rel, made)
        assert "*bold* [link](http://x) | pipe" in html
    page = pages[f"scenarios/{sid}.md"]
    assert f'<p class="bgs-briefing">{escape(items[0]["briefing"])}</p>' in page
    assert "\\*bold\\*" in page and "\\[link\\]\\(http://x\\)" in page and "\\| pipe" in page
    assert "&lt;i&gt;sys&lt;/i&gt;" in pages["scenarios/index.md"]
    title = next(iter(scenarios_page.nav(root)[0]["Scenarios"][1]))
    assert "<img" not in title and "&lt;img" in title


@need_exports
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("score", ["<b>18</b>", 19], "scenarios[0].score[0]: expected a whole number"),
        ("ticks_left", "5", "scenarios[0].ticks_left: expected a whole number"),
        ("living", [["warrior"], ["<i>"]], "unknown class '<i>'"),
        ("line_lengths", [5.5], "scenarios[0].line_lengths[0]: expected a whole number"),
    ],
)
def test_a_field_the_pages_print_as_a_number_must_be_one(tmp_path, field, value, message):
    root = _copy_exports(tmp_path, [EXPORTED[0]["id"]])
    path = root / export_file.SCENARIO_DIR / "index.json"
    index = json.loads(path.read_text())
    index["scenarios"][0][field] = value
    path.write_text(json.dumps(index))
    with pytest.raises(ValueError, match=re.escape(message)):
        export_file.entries(root)


@need_exports
def test_no_section_before_the_export_and_only_exported_scenarios_after(tmp_path):
    assert scenarios_page.pages(tmp_path) == {} and scenarios_page.nav(tmp_path) == []
    keep = [EXPORTED[-1]["id"]]
    root = _copy_exports(tmp_path, keep)
    assert set(scenarios_page.pages(root)) == {"scenarios/index.md", f"scenarios/{keep[0]}.md"}
    assert [list(d.values())[0] for d in scenarios_page.nav(root)[0]["Scenarios"]] == [
        "scenarios/index.md",
        f"scenarios/{keep[0]}.md",
    ]
    # No results.json: no results section, no placeholder.
    overview = scenarios_page.index_page(root)
    assert "## Results" not in overview and "results.json" not in overview
    assert "## Results" not in scenarios_page.scenario_page(
        root, export_file.entries(root)[0], export_file.entries(root)
    )


@need_exports
def test_results_rows_show_for_fresh_files_only(tmp_path):
    keep = [e["id"] for e in EXPORTED[:2]]
    root = _copy_exports(tmp_path, keep)
    items = export_file.entries(root)
    res = _results(items, {"random": "", "tdm-alpha": ""})
    missing = next(i for i in range(1, 9) if i not in keep)  # a row for a scenario not exported
    res["systems"]["tdm-alpha"].append({**res["systems"]["tdm-alpha"][0], "scenario": missing})
    if len(items) > 1:
        res["scenario_sha256"][str(items[1]["id"])] = "0" * 64  # played on an older file
    (root / export_file.SCENARIO_DIR / "results.json").write_text(json.dumps(res))
    overview = scenarios_page.index_page(root)
    assert "8 games per System per scenario" in overview and "root seed 77" in overview
    table = overview.split("## Results")[1]
    row = next(line for line in table.splitlines() if line.startswith(f"| [{keep[0]}]("))
    assert row.endswith("| 3-1-4 | 3-1-4<br>p < 0.001 | 2 |"), row
    page = scenarios_page.scenario_page(root, items[0], items)
    assert "| TDM-Alpha | 8 | 3 | 1 | 4 | 37.5% | 2 | < 0.001 |" in page
    if len(items) > 1:
        assert f"| [{keep[1]}](" not in table
        assert f"Not shown: the results of scenario {keep[1]}" in overview
        assert "earlier version of its file" in scenarios_page.scenario_page(root, items[1], items)
    assert f"({missing}.md)" not in overview


def test_the_variant_sentence_names_the_change_in_words():
    position = {
        "tick": 295,
        "teams": [
            {"agents": [{"class": "mage"}, {"class": "warrior"}, {"class": "priest"}]},
            {"agents": [{"class": "rogue"}, {"class": "mage"}]},
        ],
    }
    entry = {
        "ticks_left": 5,
        "variant": {"tick": 0, "agent": 2, "head": "combat", "line_action": [4, 3, 1],
                    "variant_action": [4, 0, 0], "alternatives": 4, "variant_result": "b"},
    }  # fmt: skip
    assert scenarios_page.variant_sentence(entry, position) == (
        "At tick 1 of 5 (game tick 296), the Priest (a2) uses no ability instead of using "
        "Holy Word: Salvation on itself; it still moves west, as in the line."
    )
    entry["variant"].update(tick=2, agent=1, head="move", line_action=[3, 7, 1],
                            variant_action=[0, 7, 1])  # fmt: skip
    assert scenarios_page.variant_sentence(entry, position) == (
        "At tick 3 of 5 (game tick 298), the Warrior (a1) stays where it is instead of "
        "moving east; it still uses Charge on the Mage (b1), as in the line."
    )
    entry["variant"].update(agent=0, head="combat", line_action=[0, 0, 1],
                            variant_action=[0, 7, 0])  # fmt: skip
    assert scenarios_page.variant_sentence(entry, position) == (
        "At tick 3 of 5 (game tick 298), the Mage (a0) uses Arcane Blast on the Mage (b1) "
        "instead of using Burst; it still stays where it is, as in the line."
    )


# ---- Chromium -------------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"needs {CHROMIUM}")
VIEWERS_SETTLED = """() => {
  const hosts = [...document.querySelectorAll('.mbg-viewer[data-src]')];
  return hosts.length > 0 && hosts.every((h) => h.querySelector('.mbg-root.mbg-loaded, .mbg-root.mbg-failed'));
}"""
RESULT = {"a": "team a wins", "b": "team b wins", "draw": "draw"}


def _new_page(browser, site_url):
    """A page with lists of its errors and fetched addresses. The site is served here on
    another port than the one it was built for (mkdocs.yml's site_url); Material's instant
    navigation follows only the addresses of the sitemap, so it is given this one's."""
    base, site = site_url
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.errors, pg.fetched = [], []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: m.type == "error" and pg.errors.append(m.text))
    pg.on("request", lambda r: pg.fetched.append(r.url))
    built_for = re.search(r"^site_url: (\S+)$", (ROOT / "mkdocs.yml").read_text(), re.M)[1]
    sitemap = (site / "sitemap.xml").read_text().replace(built_for, base)
    pg.route(
        "**/sitemap.xml",
        lambda route: route.fulfill(body=sitemap, content_type="application/xml"),
    )
    return context, pg


@need_exports
@needs_chromium
def test_scenario_pages_open_both_replays_and_the_line_ends_in_team_as_win(browser, site_url):
    base, _ = site_url
    context, pg = _new_page(browser, site_url)
    for entry in EXPORTED:
        sid = entry["id"]
        pg.goto(f"{base}scenarios/{sid}/", wait_until="load")
        pg.wait_for_function(VIEWERS_SETTLED, timeout=30_000)
        line = pg.locator(".mbg-viewer[data-scenario-line] .mbg-root")
        variant = pg.locator(".mbg-viewer[data-scenario-variant] .mbg-root")
        assert "mbg-loaded" in line.get_attribute("class"), sid
        assert "mbg-loaded" in variant.get_attribute("class"), sid
        ticks = load_replay(ROOT / export_file.SCENARIO_DIR / f"scenario_{sid}" / "line.json").ticks
        for _ in range(ticks):  # step through the line, tick by tick
            line.locator(".mbg-fwd").click()
        assert line.get_attribute("data-tick") == str(ticks)
        assert "team a wins" in line.locator(".mbg-clock").text_content(), sid
        assert line.locator(".mbg-now-events li").count() >= 1
        variant.locator(".mbg-last").click()
        clock = variant.locator(".mbg-clock").text_content()
        if entry["variant"]["variant_result"] in RESULT:
            assert RESULT[entry["variant"]["variant_result"]] in clock, (sid, clock)
        else:  # still open when the line's actions run out: a clip, nobody has won
            assert "wins" not in clock and "draw" not in clock, (sid, clock)
    assert pg.errors == []
    assert all(urlsplit(u).hostname == "127.0.0.1" for u in pg.fetched)
    context.close()


SITE_PLAY = "[data-play] .bgp-root"
# The oracle's view of the page's game, through the page's own engine.
ENGINE_STATE = """async (id) => {
  const engine = await window.mbgPlays.engine();
  const view = await engine.view(id, 'oracle');
  const f = view.window.frames;
  const last = f.tick.length - 1;
  return { pos: f.pos[last], alive: f.alive[last], health: f.health[last], cls: f.cls[last],
           tick: view.tick, controllers: view.controllers };
}"""
# numpad key per move 0-8 (turns.js MOVE_KEYS)
MOVE_KEY = ["Numpad5", "Numpad8", "Numpad2", "Numpad6", "Numpad4", "Numpad9", "Numpad7",
            "Numpad3", "Numpad1"]  # fmt: skip


def _wait_state(pg, *states: str, timeout: float = 120_000) -> str:
    cond = " || ".join(f"r.dataset.state === '{s}'" for s in states)
    pg.wait_for_function(
        f"() => {{ const r = document.querySelector('{SITE_PLAY}'); return r && ({cond}); }}",
        timeout=timeout,
    )
    return pg.get_attribute(SITE_PLAY, "data-state")


@pytest.fixture(scope="module")
def scenario_play(browser, site_url):
    """The first exported scenario's page, its "Play this position" followed (an instant
    navigation) and the engine loaded: Play waiting for Team A's first orders."""
    if not EXPORTED:
        pytest.skip("exports/scenarios/index.json has not been written")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"needs {CHROMIUM}")
    base, site = site_url
    if not (site / "exports" / "browser" / "manifest.json").is_file():
        pytest.skip("this site was built without the browser engine (exports/browser/)")
    entry = EXPORTED[0]
    context, pg = _new_page(browser, site_url)
    pg.goto(f"{base}scenarios/{entry['id']}/", wait_until="load")
    pg.evaluate("window.notReloaded = true")
    pg.locator("a[data-scenario-play]").click()
    pg.wait_for_function("() => location.pathname.endsWith('/play/')")
    assert _wait_state(pg, "turn", "error", "setup") in ("turn", "setup")
    _wait_state(pg, "turn", "error")
    yield entry, pg
    context.close()


def test_play_this_position_opens_play_with_the_scenarios_position(scenario_play):
    entry, pg = scenario_play
    sid = entry["id"]
    assert pg.evaluate("window.notReloaded") is True  # the site's instant navigation
    assert pg.evaluate("location.search") == f"?scenario={sid}"
    root = pg.locator(SITE_PLAY)
    assert root.get_attribute("data-state") == "turn", pg.text_content(SITE_PLAY)
    assert root.get_attribute("data-scenario") == str(sid)
    assert root.get_attribute("data-tick") == str(_position(sid)["tick"])
    assert pg.text_content(f"{SITE_PLAY} .mbg-title") == f"Scenario {sid}: {entry['name']}"
    note = pg.text_content(f"{SITE_PLAY} .bgp-scenario")
    assert entry["briefing"] in note and entry["controller"] in note
    position = _position(sid)
    game = Game(position)
    state = pg.evaluate(ENGINE_STATE, int(root.get_attribute("data-session")))
    assert state["pos"] == np.asarray(game.state.pos).tolist()
    assert state["alive"] == np.asarray(game.state.alive).astype(int).tolist()
    assert state["health"] == np.asarray(game.state.health).tolist()
    assert state["cls"] == np.asarray(game.state.cls).tolist()
    team_a = len(position["teams"][0]["agents"])
    team_b = len(position["teams"][1]["agents"])
    controllers = state["controllers"]
    assert controllers[:team_a] == ["human"] * team_a
    assert controllers[5 : 5 + team_b] == [entry["controller"]] * team_b
    # The page offers orders to Team A's living agents, and shows each one's health.
    living = [f"a{k}" for k, a in enumerate(position["teams"][0]["agents"]) if a.get("alive", True)]
    tabs = pg.eval_on_selector_all(
        f"{SITE_PLAY} .bgp-tab:not(.bgp-done)", "ts => ts.map(t => t.dataset.agent)"
    )
    assert tabs == living
    for k, a in enumerate(position["teams"][0]["agents"]):
        if a.get("alive", True):
            row = pg.text_content(f"{SITE_PLAY} .mbg-agents tr[data-agent=a{k}]")
            hp = int(game.state.health[k])
            shown = str(hp // 1000) if hp % 1000 == 0 else f"{hp / 1000:.1f}"
            assert f"{shown}/" in row, row
    assert pg.errors == []


def _press_order(pg, slot: str, order: list[int]) -> None:
    """Give one human agent the order [move, target, ultimate] with keys only."""
    move, target, ult = order
    pg.click(f"{SITE_PLAY} .bgp-tab[data-agent={slot}]")
    pg.keyboard.press(MOVE_KEY[move])
    key = (
        "Digit0" if target == 0 else f"Shift+Digit{target}" if target <= 5 else f"Digit{target - 5}"
    )
    pg.keyboard.press(key)
    offered = json.loads(pg.get_attribute(SITE_PLAY, "data-offered"))
    if offered["order"][2] != ult:
        pg.keyboard.press("KeyU")
    offered = json.loads(pg.get_attribute(SITE_PLAY, "data-offered"))
    assert offered["order"] == list(order), (slot, offered)


def test_the_stored_line_played_by_keyboard_wins_on_the_play_page(scenario_play):
    entry, pg = scenario_play
    sid = entry["id"]
    line = load_replay(ROOT / export_file.SCENARIO_DIR / f"scenario_{sid}" / "line.json")
    start = int(_position(sid)["tick"])
    for t, tick in enumerate(entry["shown_line"]):
        assert _wait_state(pg, "turn", "over") == "turn"
        assert pg.get_attribute(SITE_PLAY, "data-tick") == str(start + t)
        for k, order in enumerate(tick):
            if line.frames["alive"][t][k] and line.frames["present"][t][k]:
                _press_order(pg, f"a{k}", order)
        pg.keyboard.press("Enter")
        pg.wait_for_function(
            f"() => {{ const r = document.querySelector('{SITE_PLAY}'); return r.dataset.state "
            f"=== 'over' || r.dataset.tick === '{start + t + 1}'; }}",
            timeout=30_000,
        )
    assert _wait_state(pg, "over") == "over"
    result = pg.text_content(f"{SITE_PLAY} .bgp-result")
    assert result.startswith("Team a wins") and "you win" in result, result
    assert pg.errors == []


def test_a_bad_scenario_number_shows_an_error_as_text(scenario_play):
    """Shown at once, as text, before the engine has loaded; no game starts."""
    _, pg = scenario_play
    base = pg.evaluate("location.origin")
    pg.goto(f"{base}/play/?scenario=<img src=x onerror=alert(1)>", wait_until="load")
    pg.wait_for_selector(f"{SITE_PLAY} .bgp-error:not([hidden])", timeout=30_000)
    shown = pg.text_content(f"{SITE_PLAY} .bgp-error")
    assert shown == "Cannot open this scenario. scenario: expected a scenario number from 1 to 8"
    assert pg.locator(f"{SITE_PLAY} img").count() == 0
    assert pg.get_attribute(SITE_PLAY, "data-scenario") is None
    assert pg.get_attribute(SITE_PLAY, "data-session") is None


def test_the_learned_note_says_which_rows_sample_and_which_play_their_best_q():
    def entry(plays):
        return {"weights": "w.npz", "weights_sha256": "0" * 64, "greedy": False, "plays": plays}

    one = scenarios_page.learned_note({"learned": {"A": entry("samples")}})
    assert "learned entrant," in one and "A (`w.npz`) samples its actions" in one
    both = scenarios_page.learned_note(
        {"learned": {"A": entry("samples"), "B": entry("samples"), "Q": entry("argmax_q")}}
    )
    assert "A (`w.npz`) and B (`w.npz`) sample their actions from the learned policy" in both
    assert "Q (`w.npz`) plays its highest-valued legal action" in both
    assert "Q (`w.npz`) sample" not in both and "entrants, acting as in the season" in both
    assert scenarios_page.learned_note({"learned": {}}) == ""
