"""Issue 19 in Chromium (fixes 1, 3, 6): the rules page's clips and its event lists agree.

For every clip on How a Match Works, the viewer at tick n prints the same tick number as the
page's event list and names the same agents; the frame drawn is the state after that tick
(the fallen shown where they fell); short clips count their own ticks, a position-only clip
says so and offers no Play; headers and lines use words, not ids.
"""

from __future__ import annotations

import re
from pathlib import Path

from marl_bgs.replay import load_replay
from tests.site.test_browser import FAILED_VIEWERS, VIEWERS_SETTLED, page  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
AGENT = re.compile(r"\b([ab]\d) \(")

CLIP_FACTS = """() => [...document.querySelectorAll('.bgs-clip')].map((clip) => {
  let node = clip.nextElementSibling;
  while (node && node.tagName !== 'UL') node = node.nextElementSibling;
  return {
    key: clip.dataset.clip,
    lines: node ? [...node.querySelectorAll(':scope > li')].map((li) => li.textContent) : [],
    clock: clip.querySelector('.mbg-clock').textContent,
    matchup: clip.querySelector('.mbg-matchup').textContent,
    play: clip.querySelector('.mbg-play').disabled,
  };
})"""


def _now(pg, key: str) -> list[str]:
    return pg.locator(f".bgs-clip[data-clip={key}] .mbg-now-events li").all_text_contents()


def test_clip_ticks_and_event_lines_agree_with_the_page(page, site_url):  # noqa: F811
    base, _ = site_url
    page.goto(f"{base}rules/how-a-match-works/", wait_until="load")
    page.wait_for_function(VIEWERS_SETTLED, timeout=20_000)
    assert page.evaluate(FAILED_VIEWERS) == []
    facts = page.evaluate(CLIP_FACTS)
    assert len(facts) >= 16
    checked = 0
    for clip in facts:
        key = clip["key"]
        replay = load_replay(ROOT / "exports/clips" / f"{key}.json")
        assert "authored vs" not in clip["matchup"] and "authored" not in clip["matchup"]
        if replay.ticks == 0:
            assert clip["play"] is True, key  # nothing to play: the button says so
            assert "no ticks" in clip["clock"], clip["clock"]
            assert _now(page, key) == ["a position only: no ticks are played"]
            continue
        if int(replay.frames["result"][-1]) == -1:
            assert "/ 300" not in clip["clock"], clip["clock"]
        page_lines = {ln.split(":")[0]: ln for ln in clip["lines"]}
        host = f".bgs-clip[data-clip={key}]"
        assert _now(page, key)[0].startswith("the start")
        for n in range(1, replay.ticks + 1):
            page.locator(f"{host} .mbg-fwd").click()
            assert page.locator(f"{host} .mbg-root").get_attribute("data-tick") == str(n)
            shown = _now(page, key)
            tick = int(replay.frames["tick"][n])
            label = f"tick {tick}"
            assert all(line.startswith(f"{label}:") for line in shown), (key, shown)
            assert label in page_lines, (key, label, list(page_lines))
            seen = {a for line in shown for a in AGENT.findall(line)}
            assert seen <= set(AGENT.findall(page_lines[label])), (key, shown, page_lines[label])
            for line in shown:
                assert "(1 ticks)" not in line and "_" not in line, line
            checked += 1
    assert checked >= 16
    assert page.watch.errors == [] and page.watch.outside == []


def _pixel(pg, host: str, x_milli: int, y_milli: int) -> list[int]:
    return pg.evaluate(
        """([host, x, y]) => {
            const c = document.querySelector(host + ' .mbg-canvas');
            const s = c.clientWidth / 20000;
            const r = c.width / c.clientWidth;
            const px = Math.round(x * s * r), py = Math.round(c.height - y * s * r);
            return Array.from(c.getContext('2d').getImageData(px, py, 1, 1).data);
        }""",
        [host, x_milli, y_milli],
    )


def test_the_log_and_the_drawing_show_the_same_moment(page, site_url):  # noqa: F811
    """Paused at tick 1 of 'Red Zone deaths count double': the log highlights tick 1's kills,
    the table already says dead, and the fallen are drawn where they fell."""
    base, _ = site_url
    src = "../../exports/clips/points.json"
    page.goto(f"{base}web_demo/viewer/index.html?replay={src}#tick=1", wait_until="load")
    page.wait_for_selector(".mbg-root.mbg-loaded", timeout=15_000)
    now = page.locator(".mbg-log li.mbg-now").all_text_contents()
    assert now and all(line.startswith("tick 1:") for line in now), now
    assert any("b0 (Mage) dies" in line for line in now)
    row = page.locator('.mbg-agents tr[data-agent="b0"]').text_content()
    assert row.endswith("dead"), row
    replay = load_replay(ROOT / "exports/clips/points.json")
    x, y = (int(v) for v in replay.frames["pos"][0, 5])
    fallen = _pixel(page, "#viewer", x, y)
    floor_like = fallen[0] > 200 and fallen[1] > 200
    assert not floor_like, fallen  # something is drawn where b0 fell
    page.keyboard.press("Home")
    assert page.locator(".mbg-log li").all_text_contents() == ["no events seen yet"]
    assert page.watch.errors == [] and page.watch.outside == []
