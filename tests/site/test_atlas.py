"""The Map Atlas export: up to date, deterministic, and sensible numbers and drawings."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from marl_bgs import maps
from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[2]
ATLAS = ROOT / "exports" / "atlas"
SVG = "{http://www.w3.org/2000/svg}"


ea = load_script("export_atlas")


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    """The whole atlas, computed once for this module."""
    return ea.build_atlas()


@pytest.fixture(scope="module")
def index(files) -> dict:
    return json.loads(files["index.json"])


def test_committed_atlas_is_up_to_date(files):
    stale = ea.stale_files(files, ATLAS)
    assert not stale, f"stale atlas files {stale}: run python scripts/export_atlas.py"


def test_export_writes_exactly_these_files(files, tmp_path):
    (tmp_path / "map_99.svg").write_text("old", encoding="utf-8")
    ea.write_atlas(files, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)
    assert ea.stale_files(files, tmp_path) == []
    for name, text in files.items():
        assert (tmp_path / name).read_bytes() == text.encode("utf-8")
    (tmp_path / "map_00.svg").write_text("changed", encoding="utf-8")
    assert ea.stale_files(files, tmp_path) == ["map_00.svg"]


def test_export_is_deterministic(files):
    again = ea.build_atlas([0, 47])
    for name in ("map_00.json", "map_00.svg", "map_47.json", "map_47.svg"):
        assert again[name] == files[name]
    assert not {"date", "generated_at", "timestamp"} & set(json.loads(files["index.json"]))


def test_index(index, files):
    assert index["format"] == "marl-bgs/atlas" and index["version"] == 1
    assert [e["id"] for e in index["maps"]] == list(range(52))
    assert "unlimited range" in index["method"]["visible_share"]
    assert index["splits"] == {k: list(v) for k, v in maps.SPLITS.items()}
    for e in index["maps"]:
        assert e["split"] == maps.split_of(e["id"])
        assert e["obstacle_count"] == e["stats"]["obstacle_count"]
        assert set(e["files"].values()) <= set(files)
    summary = index["summary"]
    assert [summary[s]["maps"] for s in maps.SPLITS] == [12, 30, 5, 5]
    mean = sum(e["stats"]["visible_share"] for e in index["maps"] if e["split"] == "test") / 5
    assert summary["test"]["mean_visible_share"] == pytest.approx(mean, abs=1e-4)


def test_map_files_match_the_maps(files):
    for map_id in maps.MAP_IDS:
        data = json.loads(files[f"map_{map_id:02d}.json"])
        source = maps.load_map(map_id)
        assert data["format"] == "marl-bgs/atlas-map"
        assert (data["id"], data["name"], data["split"]) == (
            map_id,
            source["name"],
            source["split"],
        )
        assert data["obstacles"] == source["obstacles"]
        assert data["spawn_pads"] == maps.standard_pads()
        assert data["red_zones"]["left"]["x1"] == 5.0 and data["red_zones"]["right"]["x0"] == 15.0


def test_statistics_make_sense(index, files):
    stats = {e["id"]: e["stats"] for e in index["maps"]}
    assert stats[0]["blocked_share"] == 0.0 and stats[0]["visible_share"] == 1.0
    assert stats[0]["longest_sight_line"] == round(math.hypot(19, 8), 4)
    assert stats[1]["blocked_share"] == pytest.approx(math.pi / 200, abs=2e-3)  # one r=1 pillar
    assert stats[7]["blocked_share"] == pytest.approx(0.2 / 200, abs=2e-4)  # 10 x 0.02 thin walls
    assert stats[47]["obstacle_count"] == 32 and stats[47]["tilted_walls"] == 2
    for map_id, s in stats.items():
        assert 0 < s["visible_share"] <= 1
        assert 0 <= s["blocked_share"] < 0.2
        assert 10 < s["longest_sight_line"] <= round(math.hypot(19, 8), 4)
        assert s["pillars"] + s["walls"] == s["obstacle_count"]
        # The maps are mirrored, so is every point's view.
        grid = json.loads(files[f"map_{map_id:02d}.json"])["visibility_grid"]["visible_share"]
        assert all(row == row[::-1] for row in grid), map_id
    # Held-out maps are denser than the curriculum.
    by = index["summary"]
    assert by["test"]["mean_visible_share"] < by["curriculum"]["mean_visible_share"]


def test_svg_drawings(files):
    for map_id in maps.MAP_IDS:
        root = ET.fromstring(files[f"map_{map_id:02d}.svg"])
        data = maps.load_map(map_id)
        assert root.tag == f"{SVG}svg" and root.get("viewBox") == "-0.25 -0.9 20.5 11.15"
        title = root.find(f"{SVG}title").text
        assert data["name"] in title and data["split"] in title and f"{map_id:02d}" in title
        by_class: dict[str, int] = {}
        for el in root.iter():
            for c in (el.get("class") or "").split():
                by_class[c] = by_class.get(c, 0) + 1
        pillars = sum(ob["kind"] == "pillar" for ob in data["obstacles"])
        assert by_class.get("pillar", 0) == pillars
        assert (
            by_class.get("wall", 0) + by_class.get("thin-wall", 0)
            == len(data["obstacles"]) - pillars
        )
        assert by_class["pad-left"] == by_class["pad-right"] == 5
        assert by_class["red-zone"] == 2
        assert "Red Zone (left)" in files[f"map_{map_id:02d}.svg"]


def test_svg_escapes_names():
    data = maps.load_map(3)
    data["name"] = 'Q&A <"Arena">'
    text = ea.map_svg(data)
    root = ET.fromstring(text)
    assert root.find(f"{SVG}title").text.startswith('Map 03 \u00b7 Q&A <"Arena">')


def test_statistics_table(files):
    table = ea.stats_table(files)
    assert table.count("\n| ") >= 52 + 4
    assert "| 47 | Crossfire | test | 32 |" in table
