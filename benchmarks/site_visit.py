"""What a first-time visitor meets on the built site, measured in headless Chromium (issue 46).

Serves a built site from 127.0.0.1 with a server that counts the bytes it sends, and
measures, at 1280x800 and 390x844: where the home page's game starts and whether its Play
and leaderboard links are on the first screen; how many bytes the Play page's engine costs
on a first visit and on a reload, the longest main-thread task while it loads and how long
the visitor waits from the click; where the arena, Commit and the event log sit once a game
starts, how long a committed turn takes to be drawn, and how many ticks a second a game of
Systems plays at each speed; the Metrics Explorer's name column, plots, colours and filter
example; the replay gallery and the viewer's clock; the leaderboard's length. Prints each
figure and writes them all as JSON (`--out`).

    python benchmarks/site_visit.py --out artifacts/site_visit.json  # builds the site first
    python benchmarks/site_visit.py --site /tmp/site                 # an already built site

Needs Debian's Chromium (/usr/bin/chromium), Playwright's Python API, and the browser engine
files (scripts/export_pyodide.py).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

PLAY = "[data-play] .bgp-root"
CHROMIUM = "/usr/bin/chromium"
SIZES = ((1280, 800), (390, 844))
SEARCH_TERMS = ("github", "arxiv", "license", "cite", "bibtex")

LONG_TASKS = """() => { window.longTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries())
    window.longTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' }); }"""
BOX = """(e) => { const b = e.getBoundingClientRect();
  return {top: Math.round(b.top), bottom: Math.round(b.bottom), left: Math.round(b.left),
          right: Math.round(b.right), width: Math.round(b.width), height: Math.round(b.height)}; }"""
DRAW_TIMES = """() => { const root = document.querySelector('[data-play] .bgp-root');
  window.keyTimes = []; window.drawTimes = [];
  root.addEventListener('keydown', (e) => window.keyTimes.push(performance.now()), true);
  new MutationObserver(() => window.drawTimes.push([Number(root.dataset.tick),
    root.dataset.flash ? 'flash' : 'position', performance.now()]))
    .observe(root, { attributes: true, attributeFilter: ['data-drawn'] }); }"""
TICK_TIMES = """() => { window.tickTimes = []; const root = document.querySelector('[data-play] .bgp-root');
  new MutationObserver(() => window.tickTimes.push([Number(root.dataset.tick), performance.now()]))
    .observe(root, { attributes: true, attributeFilter: ['data-tick'] }); }"""


class CountingHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site quietly and adds every body byte it sends to `sent[0]`."""

    sent = [0]

    def log_message(self, *args) -> None:
        pass

    def copyfile(self, source, outputfile) -> None:
        data = source.read()
        CountingHandler.sent[0] += len(data)
        outputfile.write(data)


def box(page, selector: str) -> dict | None:
    node = page.locator(selector).first
    return node.evaluate(BOX) if node.count() else None


def search_hits(site: Path) -> dict[str, int]:
    """Pages of the search index whose text holds each term (case-insensitive)."""
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    text = [(d.get("title", "") + " " + d.get("text", "")).lower() for d in docs]
    return {term: sum(term in t for t in text) for term in SEARCH_TERMS}


def home(browser, base: str) -> dict:
    """The home page's first game (its canvas) and which of its Play and leaderboard links
    lie on the first screen, at each size."""
    out = {}
    for w, h in SIZES:
        ctx = browser.new_context(viewport={"width": w, "height": h})
        page = ctx.new_page()
        page.goto(base, wait_until="load")
        page.wait_for_selector("article canvas")
        page.wait_for_timeout(500)
        links = page.eval_on_selector_all(
            "article a",
            f"as => as.filter(a => {{ const b = a.getBoundingClientRect();"
            f" return b.bottom <= {h} && b.height > 0 && /(play|leaderboard)\\/$/.test(a.getAttribute('href') || ''); }})"
            ".map(a => a.getAttribute('href'))",
        )
        out[f"{w}x{h}"] = {
            "game_canvas": box(page, "article canvas"),
            "links_on_first_screen": sorted(set(links)),
        }
        ctx.close()
    return out


def engine_load(page, base: str, visit: str) -> dict:
    """Open (or reload) Play, press its button, wait for the setup form."""
    CountingHandler.sent[0] = 0
    if visit == "first":
        page.goto(f"{base}play/", wait_until="load")
    else:
        page.reload(wait_until="load")
    page.wait_for_selector(f"{PLAY}[data-state=idle]")
    page.wait_for_timeout(300)  # the button learns the download's size
    label = page.locator(f"{PLAY} .bgp-load").text_content()
    page.evaluate(LONG_TASKS)
    clicked = page.evaluate("performance.now()")
    start = time.perf_counter()
    page.locator(f"{PLAY} .bgp-load").click()
    page.wait_for_selector(f"{PLAY}[data-state=setup]", timeout=180_000)
    waited = time.perf_counter() - start
    tasks = [d for t, d in page.evaluate("window.longTasks") if t >= clicked]
    return {
        "button": label,
        "bytes_sent": CountingHandler.sent[0],
        "click_to_game_s": round(waited, 2),
        "page_says": page.locator(f"{PLAY} .bgp-status").text_content(),
        "longest_main_thread_task_ms": round(max(tasks, default=0.0)),
    }


def start_game(page, settings: dict[str, str]) -> None:
    for name, value in settings.items():
        field = page.locator(f"{PLAY} [name={name}]")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    page.locator(f"{PLAY} .bgp-start").click()
    page.wait_for_selector(f"{PLAY}[data-state=turn], {PLAY}[data-state=over]", timeout=60_000)


def commit_to_drawn(page, ticks: int) -> list[float]:
    """ms from each Enter (commit every agent) to the first drawing of the next tick's
    position (not the replay of where the tick started)."""
    page.evaluate(DRAW_TIMES)
    waits = []
    for _ in range(ticks):
        tick = int(page.get_attribute(PLAY, "data-tick"))
        page.evaluate("window.keyTimes = []; window.drawTimes = []")
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => window.drawTimes.some(([t, what]) => t === {tick + 1} && what === 'position')"
        )
        page.wait_for_selector(f"{PLAY}[data-state=turn], {PLAY}[data-state=over]")
        pressed = page.evaluate("window.keyTimes")[0]
        drawn = next(
            t
            for k, what, t in page.evaluate("window.drawTimes")
            if k == tick + 1 and what == "position"
        )
        waits.append(round(drawn - pressed, 1))
    return waits


def speeds(page, base: str) -> dict[str, float]:
    """Ticks a second a 5-against-5 game of TDM-Alpha and TDM-Beta plays at each speed."""
    out = {}
    for speed in ("8", "20", "0"):
        page.goto(f"{base}play/", wait_until="load")
        page.locator(f"{PLAY} .bgp-load").click()
        page.wait_for_selector(f"{PLAY}[data-state=setup]", timeout=180_000)
        settings = {"size_a": "5", "size_b": "5", "winning_score": "100", "horizon": "300"}
        settings |= {
            f"controller_{s}{k}": w
            for s, w in (("a", "tdm-alpha"), ("b", "tdm-beta"))
            for k in range(5)
        }
        start_game(page, settings)
        label = "max" if speed == "0" else f"{speed} ticks/s"
        if not page.locator(f"{PLAY} .bgp-speed option[value='{speed}']").count():
            out[label] = None  # the menu has no such speed
            continue
        page.locator(f"{PLAY} .bgp-speed").select_option(speed)
        page.evaluate(TICK_TIMES)
        page.wait_for_function("() => window.tickTimes.length >= 61", timeout=120_000)
        times = page.evaluate("window.tickTimes")
        (t0, s0), (t1, s1) = times[0], times[60]
        out[label] = round((t1 - t0) / ((s1 - s0) / 1000), 1)
    return out


def play(browser, base: str) -> dict:
    out = {}
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    out["engine_first_visit"] = engine_load(page, base, "first")
    out["engine_reload"] = engine_load(page, base, "reload")
    start_game(page, {})  # the page's default game: the human a0 against TDM-Alpha
    out["layout_1280x800"] = {
        "arena": box(page, f"{PLAY} .bgp-canvas"),
        "commit": box(page, f"{PLAY} .bgp-commit"),
        "event_log": box(page, f"{PLAY} .bgp-events") or box(page, f"{PLAY} .bgp-log"),
    }
    waits = commit_to_drawn(page, 9)
    out["commit_to_drawn_ms"] = {"each": waits, "median": statistics.median(waits)}
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(200)
    heights = page.eval_on_selector_all(
        f"{PLAY} .mbg-btn:visible", "bs => bs.map(b => b.getBoundingClientRect().height)"
    )
    out["layout_390x844"] = {
        "arena": box(page, f"{PLAY} .bgp-canvas"),
        "event_log": box(page, f"{PLAY} .bgp-events") or box(page, f"{PLAY} .bgp-log"),
        "smallest_button_height": round(min(heights), 1),
    }
    page.set_viewport_size({"width": 1280, "height": 800})
    out["ticks_per_second"] = speeds(page, base)
    ctx.close()
    return out


def explorer(browser, base: str) -> dict:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.goto(f"{base}metrics-explorer/", wait_until="load")
    page.wait_for_selector(".mbg-ex-table tbody tr")
    plot = box(page, ".mbg-ex-table .mbg-ex-plot")
    name_width = box(page, ".mbg-ex-table td.mbg-ex-name")["width"]
    colours = page.eval_on_selector_all(
        ".mbg-ex-swatch", "s => s.map(x => getComputedStyle(x).backgroundColor)"
    )
    example = page.get_attribute(".mbg-ex-filter", "placeholder").removeprefix("e.g. ")
    page.fill(".mbg-ex-filter", example)
    found = page.locator(".mbg-ex-table tbody tr").count()
    ctx.close()
    return {
        "name_column_width": name_width,
        "plot": plot,
        "entrants": len(colours),
        "distinct_colours": len(set(colours)),
        "filter_example": example,
        "rows_the_example_finds": found,
    }


def pages(browser, base: str, site: Path) -> dict:
    """The replay gallery and the viewer's clock at a game's end; the leaderboard's length."""
    gallery = json.loads((site / "exports" / "replays" / "index.json").read_text())
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.goto(f"{base}replays/", wait_until="load")
    page.wait_for_selector(".mbg-root .mbg-clock")
    viewer = page.locator(".mbg-root").first
    viewer.focus()
    page.keyboard.press("End")
    page.wait_for_timeout(300)
    clock = viewer.locator(".mbg-clock").text_content()
    page.goto(f"{base}leaderboard/", wait_until="load")
    height = page.evaluate("document.documentElement.scrollHeight")
    glance = page.locator("text=At a glance").count()
    ctx.close()
    games = gallery if isinstance(gallery, list) else gallery.get("replays", gallery)
    return {
        "replay_gallery_games": len(games),
        "viewer_clock_at_end": clock,
        "leaderboard": {"page_height_px": height, "at_a_glance_summary": bool(glance)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    site = args.site
    if site is None:
        from marl_bgs.site.build import build_site

        site = Path(tempfile.mkdtemp(prefix="marl-bgs-site-"))
        build_site(site)
    handler = functools.partial(CountingHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    figures: dict = {"search_index_pages_with": search_hits(site)}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        figures["home"] = home(browser, base)
        figures["play"] = play(browser, base)
        figures["explorer"] = explorer(browser, base)
        figures |= pages(browser, base, site)
        browser.close()
    server.shutdown()
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
