"""A page per map (maps/<id>.md), linked from the Map Atlas, and the atlas's statistics as
percentages with units (issue 19). Pages are written from exports/ at build time."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from marl_bgs.site import data_pages, hook

ROOT = Path(__file__).resolve().parents[2]
INDEX = json.loads((ROOT / "exports" / "atlas" / "index.json").read_text())
MAPS = {m["id"]: m for m in INDEX["maps"]}
REPLAY_MAPS = {e["map"] for e in data_pages.replay_entries(ROOT) if "map" in e}


def test_every_map_has_a_generated_page_outside_the_nav():
    pages = hook._generated(ROOT)
    assert {f"maps/{i}.md" for i in MAPS} <= set(pages)
    nav = json.dumps(hook.navigation(ROOT))
    assert "maps/" not in nav  # one atlas entry, not 52 (mkdocs.yml: not_in_nav /maps/)
    assert "atlas.md" in nav
    assert "/maps/" in (ROOT / "mkdocs.yml").read_text()


@pytest.mark.parametrize("map_id", [0, 7, 19, 47, 49, 51])
def test_map_page_has_drawing_stats_with_units_and_split(map_id):
    m = MAPS[map_id]
    st = m["stats"]
    text = data_pages.map_page(ROOT, map_id)
    assert text.startswith(f"# Map {map_id} · {m['name']}")
    assert f"](../exports/atlas/map_{map_id:02d}.svg)" in text
    assert f"[{m['split']}](../atlas.md#{m['split']})" in text
    assert f"{st['blocked_share'] * 100:.2f}% of the arena" in text
    assert (
        f"{st['blocked_share'] * 200:.2f}".rstrip("0").rstrip(".") + " of 200 square units" in text
    )
    assert f"{st['visible_share'] * 100:.1f}% of the other standing points" in text
    assert re.search(r"\| Longest sight line \| [\d.]+ units, from \(", text)
    assert f"{st['standing_points']} of the 180 grid points" in text
    assert "](../atlas.md)" in text  # back to the atlas


def test_sample_replay_only_when_one_exists_for_the_map():
    assert REPLAY_MAPS, "exports/replays/index.json lists no map"
    for map_id in MAPS:
        text = data_pages.map_page(ROOT, map_id)
        if map_id in REPLAY_MAPS:
            (e,) = [e for e in data_pages.replay_entries(ROOT) if e.get("map") == map_id][:1]
            assert f'data-src="../../{e["src"]}"' in text
            assert "## A game on this map" in text
        else:  # no placeholder, no empty section
            assert "mbg-viewer" not in text and "A game on this map" not in text
            assert "replay" not in text.lower()


def test_atlas_links_every_map_page_and_writes_percentages():
    text = data_pages.atlas_page(ROOT)
    for map_id in MAPS:
        assert text.count(f"](maps/{map_id}.md)") == 2  # the drawing and the caption
    assert "(% of floor)" in text and "(% of standing points)" in text and "(units)" in text
    test = INDEX["summary"]["test"]
    assert f"| {test['mean_blocked_share'] * 100:.1f}% |" in text
    m47 = MAPS[47]["stats"]
    assert f"blocked {m47['blocked_share'] * 100:.1f}%" in text
    assert f"sees {m47['visible_share'] * 100:.1f}%" in text
    assert ">1 obstacles" not in text and "(1 pillars" not in text
    # No raw shares (0.0684-style numbers) left in captions or the summary.
    assert not re.search(r"blocked 0\.\d{3}", text)


def test_built_map_pages(tmp_path):
    from marl_bgs.site import build

    built = build.build_once()
    assert build.broken_links(built.site) == []
    for map_id in MAPS:
        html = (built.site / "maps" / str(map_id) / "index.html").read_text()
        assert f"map_{map_id:02d}.svg" in html
    atlas = (built.site / "atlas" / "index.html").read_text()
    assert 'href="../maps/47/"' in atlas
