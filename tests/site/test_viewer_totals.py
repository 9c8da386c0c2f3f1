"""The viewer's "who did what to whom" panel against Python: the matrix read from headless
Chromium at a tick and point of view equals totals summed here from the replay's events (as
`Replay.as_seen_by` filters them), also after scrubbing back; at the last frame it equals the
full metrics recomputed by replaying the game on the NumPy engine. Screenshot in
artifacts/screenshots/viewer-totals.png."""

from __future__ import annotations

from collections import Counter

import pytest

from marl_bgs.replay import load_replay
from tests.site import test_viewer_browser as viewer_tests
from tests.site.test_viewer_browser import ROOT, open_loaded, shot, state, viewer_url

# The viewer tests' fixtures: a server on 127.0.0.1, and a page that fails on console errors
# or requests leaving it.
server = viewer_tests.server
page = viewer_tests.page

REPLAY = "beta-vs-gamma-map49.json"  # both teams fight, heal, and apply every kind of effect
SRC = f"../../exports/replays/{REPLAY}"
KINDS = ("damage", "healing", "kills", "effects")
HP_KINDS = ("damage", "healing")

READ_TABLE = """() => [...document.querySelectorAll('.mbg-totals-table tr[data-by] td[data-to]')]
  .map((td) => [td.parentElement.dataset.by, td.dataset.to, Number(td.dataset.value), td.textContent])"""


@pytest.fixture(scope="module")
def replay():
    return load_replay(ROOT / "exports" / "replays" / REPLAY)


def _cells(event: dict, kind: str, effect: str | None) -> list[tuple[str, str, int]]:
    """What one event adds, as the replay format defines it (milli-HP; a death credits
    every agent in `by`; one per effect applied)."""
    k = event["kind"]
    if (kind, k) in (("damage", "damage"), ("healing", "heal")):
        return [(event["source"], event["target"], round(event["amount"] * 1000))]
    if kind == "kills" and k == "death":
        return [(name, event["target"], 1) for name in event["by"]]
    if kind == "effects" and k == "effect" and effect in (None, event["effect"]):
        return [(event["source"], event["target"], 1)]
    return []


def python_totals(events: list, t: int, kind: str, effect: str | None = None) -> Counter:
    """Nonzero totals per (by, to) at frame t: ticks 1..t, i.e. the replay's event lists
    0..t-1 (frame t draws tick t, whose events the log marks as now)."""
    out: Counter = Counter()
    for tick_events in events[:t]:
        for event in tick_events:
            for by, to, value in _cells(event, kind, effect):
                out[(by, to)] += value
    return +out


def read_totals(page, kind: str, effect: str = "") -> Counter:
    """Pick the tab (and effect), then read every cell's exact value; the shown text must be
    that value in the viewer's units (HP with one decimal, or a count)."""
    page.locator(f'.mbg-tab[data-kind="{kind}"]').click()
    if kind == "effects":
        page.locator(".mbg-totals-effect").select_option(effect)
    assert page.locator(".mbg-totals-table").get_attribute("data-kind") == kind
    cells = page.evaluate(READ_TABLE)
    assert len(cells) == 100  # every pair of the ten agents
    for _, _, value, text in cells:
        if value == 0:
            assert text == "\u00b7"
        elif kind in HP_KINDS:
            assert abs(float(text) - value / 1000) <= 0.05 + 1e-9, (value, text)
        else:
            assert text == str(value)
    return +Counter({(by, to): value for by, to, value, _ in cells})


def check_all_kinds(page, events: list, t: int) -> None:
    for kind in KINDS:
        assert read_totals(page, kind) == python_totals(events, t, kind), kind
    for effect in ("stun", "blessing"):
        assert read_totals(page, "effects", effect) == python_totals(
            events, t, "effects", effect
        ), effect


@pytest.mark.parametrize("view,t", [("oracle", 0), ("oracle", 97), ("a", 150), ("b2", 120)])
def test_totals_equal_pythons_in_each_view(page, server, replay, view, t):
    events = replay.events if view == "oracle" else replay.as_seen_by(view).events
    open_loaded(page, viewer_url(server, SRC, f"#tick={t}&view={view}"))
    assert state(page) == (t, view)
    assert page.locator(".mbg-totals").get_attribute("open") is not None
    check_all_kinds(page, events, t)
    if view != "oracle":  # the view hid something by then, or the test would prove nothing
        hid = [python_totals(events, t, k) != python_totals(replay.events, t, k) for k in KINDS]
        assert any(hid)
    # Forwards to the end and back by the scrubber: the same table again.
    page.keyboard.press("End")
    assert state(page)[0] == replay.ticks
    assert read_totals(page, "damage") == python_totals(events, replay.ticks, "damage")
    page.locator(".mbg-scrub").fill(str(t))
    assert state(page) == (t, view)
    check_all_kinds(page, events, t)
    page.keyboard.press("ArrowLeft" if t else "ArrowRight")
    moved = state(page)[0]
    assert read_totals(page, "kills") == python_totals(events, moved, "kills")


def _full_pairs(full: dict, topic: str, keep: set | None = None) -> Counter:
    """Sum a full-metrics topic's `topic.by_X.to_Y.label` columns per (X, Y)."""
    out: Counter = Counter()
    for name, value in full.items():
        parts = name.split(".")
        if parts[0] != topic or len(parts) != 4 or (keep is not None and parts[3] not in keep):
            continue
        out[(parts[1].removeprefix("by_"), parts[2].split("_", 1)[1])] += value
    return +out


def test_final_totals_equal_the_full_metrics(page, server, replay):
    record = pytest.importorskip("marl_bgs.metrics.game_metrics")
    full = record.replay_full_metrics(replay)
    open_loaded(page, viewer_url(server, SRC, f"#tick={replay.ticks}"))
    assert state(page) == (replay.ticks, "oracle")
    assert read_totals(page, "damage") == _full_pairs(full, "damage_done")
    assert read_totals(page, "healing") == _full_pairs(full, "healing_done")
    assert read_totals(page, "kills") == _full_pairs(full, "kill_contributions", {"kill"})
    assert read_totals(page, "effects") == _full_pairs(full, "status_applications")
    traps = _full_pairs(full, "status_applications", {"trap"})
    assert read_totals(page, "effects", "trap") == traps
    page.locator('.mbg-tab[data-kind="damage"]').click()
    page.locator(".mbg-totals").scroll_into_view_if_needed()
    shot(page, "viewer-totals.png")


def test_a_compact_viewer_opens_its_totals_on_demand(page, server):
    page.goto(f"{server}/web_demo/viewer/index.html")
    filled = page.evaluate(
        f"""async () => {{
            const m = await import('./embed.js');
            const div = document.createElement('div');
            document.body.append(div);
            const v = m.mountViewer(div, {{ src: '{SRC}', tick: 40, compact: true }});
            await new Promise((ok) => {{
                const wait = () => v.state.loaded ? ok() : setTimeout(wait, 50);
                wait();
            }});
            const box = div.querySelector('.mbg-totals');
            const before = [box.open, box.querySelectorAll('td').length];
            box.open = true;
            await new Promise((ok) => setTimeout(ok, 100));  // the toggle event is async
            return [...before, box.querySelectorAll('td[data-to]').length];
        }}"""
    )
    assert filled == [False, 0, 110]  # 100 pairs and 10 column sums
