"""Pages written from exported data (marl_bgs/site/data_pages.py): which replay entries count,
what each page writes from the files, and the errors that name the script to run. Map page
contents are covered by test_map_pages.py; here the real `exports/` is only read, and the
edge cases use small hand-written roots under tmp_path."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from marl_bgs.site import data_pages

ROOT = Path(__file__).resolve().parents[2]


def _root(tmp_path: Path, entries, files=(), viewer: bool = True) -> Path:
    """A repository root holding exports/replays/index.json with `entries` and the replay
    `files` it names (and web_demo/viewer/embed.js unless `viewer` is False)."""
    replays = tmp_path / "exports" / "replays"
    replays.mkdir(parents=True)
    (replays / "index.json").write_text(json.dumps(entries))
    for name in files:
        (replays / name).write_text("{}")
    if viewer:
        (tmp_path / "web_demo" / "viewer").mkdir(parents=True)
        (tmp_path / "web_demo" / "viewer" / "embed.js").write_text("")
    return tmp_path


# ---- read_json and the map page paths -------------------------------------------------------
def test_read_json_names_the_missing_file_and_its_script(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        data_pages.read_json(tmp_path, "exports/sight/lab.json", data_pages.SIGHT_SCRIPT)
    assert str(err.value) == (
        "exports/sight/lab.json: missing; run `python scripts/export_sight_vectors.py` to write it"
    )


def test_read_json_reads_the_file(tmp_path):
    (tmp_path / "a.json").write_text('{"x": [1, 2]}')
    assert data_pages.read_json(tmp_path, "a.json", "s.py") == {"x": [1, 2]}


def test_atlas_without_its_export_names_the_atlas_script(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"exports/atlas/index\.json.*export_atlas\.py"):
        data_pages.atlas_page(tmp_path)


def test_map_pages_register_one_page_per_atlas_map():
    pages = data_pages.map_pages(ROOT)
    ids = [m["id"] for m in json.loads((ROOT / "exports/atlas/index.json").read_text())["maps"]]
    assert sorted(pages) == sorted(f"maps/{i}.md" for i in ids)
    # Each writer is bound to its own map (not the loop's last one).
    assert pages["maps/3.md"]().startswith("# Map 3 · ")


def test_map_pages_link_to_their_neighbours():
    first = data_pages.map_page(ROOT, 0)
    assert "[Map 1 · Lone Pillar](1.md) →" in first
    assert "←" not in first  # map 0 has no previous map
    last = data_pages.map_page(ROOT, 51)
    assert "← [Map 50 · Starfall](50.md)" in last
    assert "→" not in last  # map 51 is the last


# ---- replay entries --------------------------------------------------------------------------
def test_no_replay_index_means_no_entries(tmp_path):
    assert data_pages.replay_entries(tmp_path) == []
    assert not data_pages.viewer_ready(tmp_path)


def test_entries_whose_file_is_missing_are_left_out_and_the_rest_get_a_src(tmp_path):
    root = _root(
        tmp_path,
        {"replays": [{"file": "a.json", "map": 3}, {"file": "gone.json"}, {"file": "b.json"}]},
        files=["a.json", "b.json"],
    )
    assert data_pages.replay_entries(root) == [
        {"file": "a.json", "map": 3, "src": "exports/replays/a.json"},
        {"file": "b.json", "src": "exports/replays/b.json"},
    ]
    assert [e["file"] for e in data_pages.map_replays(root, 3)] == ["a.json"]
    assert data_pages.map_replays(root, 4) == []


def test_a_bare_list_index_is_read_too(tmp_path):
    root = _root(tmp_path, [{"file": "a.json"}], files=["a.json"])
    assert [e["src"] for e in data_pages.replay_entries(root)] == ["exports/replays/a.json"]


@pytest.mark.parametrize("bad", [{"title": "no file"}, {"file": 7}, "a.json"])
def test_an_entry_without_a_file_string_is_an_error(tmp_path, bad):
    root = _root(tmp_path, {"replays": [bad]})
    with pytest.raises(ValueError, match="every replay entry needs a 'file' string"):
        data_pages.replay_entries(root)


def test_viewer_ready_needs_both_the_viewer_and_a_replay(tmp_path):
    no_viewer = _root(tmp_path / "a", [{"file": "a.json"}], files=["a.json"], viewer=False)
    assert not data_pages.viewer_ready(no_viewer)
    no_replay = _root(tmp_path / "b", [{"file": "gone.json"}])
    assert not data_pages.viewer_ready(no_replay)
    both = _root(tmp_path / "c", [{"file": "a.json"}], files=["a.json"])
    assert data_pages.viewer_ready(both)


# ---- replays page and the Home page's game ---------------------------------------------------
def test_replays_page_lists_entries_and_escapes_their_strings(tmp_path):
    entries = [
        {
            "title": "A <b>bold</b> & odd game",
            "file": "a.json",
            "systems": ["x<y", "random"],
            "ticks": 115,
            "result": 1,
            "score": [3, 20],
        },
        {"file": "b.json"},  # nothing else known: question marks, the file as its title
    ]
    root = _root(tmp_path, {"replays": entries}, files=["a.json", "b.json"])
    text = data_pages.replays_page(root)
    assert "A &lt;b&gt;bold&lt;/b&gt; &amp; odd game" in text
    assert "<b>bold</b>" not in text
    assert "x&lt;y vs random" in text
    assert "| 115 | team b wins, 3–20 |" in text
    assert "| b.json |  | ? | ?, ?–? |" in text
    # The first entry is pressed and loaded in the main viewer; paths are from the page.
    assert 'aria-pressed="true" data-replay-pick="../exports/replays/a.json"' in text
    assert 'aria-pressed="false" data-replay-pick="../exports/replays/b.json"' in text
    assert 'data-src="../exports/replays/a.json"' in text
    assert text.count("data-replay-main") == 1


def test_replays_page_without_the_viewer_names_the_script(tmp_path):
    root = _root(tmp_path, [{"file": "a.json"}], files=["a.json"], viewer=False)
    with pytest.raises(FileNotFoundError, match=r"embed\.js.*export_replays\.py"):
        data_pages.replays_page(root)


def test_home_game_plays_the_first_replay(tmp_path):
    root = _root(
        tmp_path, [{"file": "gone.json"}, {"file": "b.json", "title": "B & C"}], files=["b.json"]
    )
    text = data_pages.home_game(root)
    assert "\n*B &amp; C*: a real game recorded from the engine" in text
    assert 'data-src="exports/replays/b.json"' in text
    assert "data-autoplay" in text and 'data-compact="true"' in text


def test_home_game_starts_where_the_fighting_starts_with_buttons_to_pages_built(tmp_path):
    entry = {"file": "b.json", "title": "B", "score": [20, 19], "fighting_from": 8}
    root = _root(tmp_path, [entry], files=["b.json"])
    text = data_pages.home_game(root, {"play.md", "getting-started.md"})
    assert 'data-tick="8"' in text and "starting at tick 8" in text and "20–19" in text
    assert "(play.md){ .md-button .md-button--primary }" in text
    assert "(getting-started.md){ .md-button }" in text
    assert "leaderboard/index.md" not in text and "tutorials/index.md" not in text
    # every button by default; a game that fights from its first tick has no start
    entry["fighting_from"] = 0
    root = _root(tmp_path / "again", [entry], files=["b.json"])
    text = data_pages.home_game(root)
    assert "data-tick" not in text and text.count("{ .md-button") == 4


def _source(root: Path, **change) -> Path:
    folder = root / "exports" / "source"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "marl-bgs-0.1.0.tar.gz").write_bytes(b"x" * 2048)
    doc = {"format": "marl-bgs/source-index", "version": 1, "file": "marl-bgs-0.1.0.tar.gz",
           "bytes": 3 * 2**20, "files": 975, "sha256": "ab" * 32, **change}  # fmt: skip
    (folder / "index.json").write_text(json.dumps(doc))
    return root


def test_home_about_links_the_source_paper_licence_and_cites_both(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    text = data_pages.home_about(tmp_path, None)
    assert "scripts/export_source.py" in text and "exports/source/" not in text
    assert "arXiv:2610.14883](https://arxiv.org/abs/2610.14883)" in text
    assert "Apache License 2.0 ([full text](license.md))" in text
    assert "@misc{hawili2026marlbgs," in text and "eprint        = {2610.14883}," in text
    assert "version = {0.1.0}," in text and "url     =" not in text
    text = data_pages.home_about(_source(tmp_path), "https://example.org/marl-bgs")
    assert "[marl-bgs-0.1.0.tar.gz](exports/source/marl-bgs-0.1.0.tar.gz)" in text
    assert "3.0 MiB, 975 files" in text and "ab" * 32 in text
    assert "[https://example.org/marl-bgs](https://example.org/marl-bgs)" in text
    assert "url     = {https://example.org/marl-bgs}," in text
    assert "export_source.py" not in text


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"format": "other"}, "format: expected 'marl-bgs/source-index'"),
        ({"bytes": "3"}, "bytes: expected int"),
        ({"files": True}, "files: expected int"),
        ({"file": "../etc/passwd"}, "file: '../etc/passwd' is not beside it"),
        ({"file": "gone.tar.gz"}, "file: 'gone.tar.gz' is not beside it"),
    ],
)
def test_a_bad_source_index_is_refused_naming_the_field(tmp_path, change, says):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with pytest.raises(ValueError, match=re.escape(f"exports/source/index.json: {says}")):
        data_pages.home_about(_source(tmp_path, **change), None)


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "https://x.org/a b", "https://x.org/(a)", "https://x.org/`"]
)
def test_a_repo_url_that_is_not_a_plain_address_is_refused(tmp_path, url):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with pytest.raises(ValueError, match=r"^mkdocs.yml: repo_url: "):
        data_pages.home_about(tmp_path, url)


def test_the_licence_page_is_the_licence_file():
    page = data_pages.license_page(ROOT)
    assert "released under the Apache License 2.0" in page
    assert (ROOT / "LICENSE").read_text().strip().splitlines()[-1].strip() in page
    assert "Version 2.0, January 2004" in page


def test_home_game_without_replays_names_the_script(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"export_replays\.py"):
        data_pages.home_game(tmp_path)


# ---- Sight Lab -------------------------------------------------------------------------------
def test_sight_lab_counts_the_exported_vectors(tmp_path):
    sight = tmp_path / "exports" / "sight"
    sight.mkdir(parents=True)
    lab = {
        "classes": [
            {
                "title": "Ranger <1>",
                "sight": 6.25,
                "basic_name": "Shot",
                "basic_target": "enemy",
                "basic_range": 2.5,
                "ultimate_name": "Mend",
                "ultimate_target": "self",
                "ultimate_range": 0.0,
            }
        ]
    }
    (sight / "lab.json").write_text(json.dumps(lab))
    (sight / "vectors.json").write_text(json.dumps({"lines": [1, 2, 3], "sight": [[0], [1]]}))
    text = data_pages.sight_lab_page(tmp_path)
    assert "checked against 3 sight lines and 2 full sight matrices" in " ".join(text.split())
    assert "| Ranger &lt;1&gt; | 6.25 | Shot: 2.5 | Mend: itself |" in text


def test_sight_lab_without_vectors_names_the_script(tmp_path):
    sight = tmp_path / "exports" / "sight"
    sight.mkdir(parents=True)
    (sight / "lab.json").write_text('{"classes": []}')
    with pytest.raises(FileNotFoundError, match=r"exports/sight/vectors\.json.*export_sight"):
        data_pages.sight_lab_page(tmp_path)


def test_sight_lab_from_the_real_exports_shows_the_class_table():
    text = data_pages.sight_lab_page(ROOT)
    # classes.py: Hunter sight 6.5, Basic 3.5, Freezing Trap 3.0; Priest abilities heal allies.
    assert "| Hunter | 6.5 | Serrated Arrows: 3.5 | Freezing Trap: 3 |" in text
    assert "| Priest | 6 | Lesser Heal: allies only | Holy Word: Salvation: allies only |" in text
    assert "| Mage | 6 | Arcane Blast: 3 | Burst: itself |" in text


def test_play_opponents_carry_their_strength_in_the_newest_season():
    strengths = data_pages.play_strengths(ROOT)
    board = json.loads((ROOT / "exports/seasons/season0/leaderboard.json").read_text())["table"]
    rank = {row["name"]: (row["rank"], round(row["elo"])) for row in board}
    n = len(board)
    assert (
        strengths["tdm-alpha"]
        == f"Season 0: #{rank['TDM-Alpha'][0]} of {n}, Elo {rank['TDM-Alpha'][1]}"
    )
    assert strengths["nav-dagger-0"].startswith(f"Season 0: #{rank['Nav-DAgger 0'][0]} of {n}")
    assert {"random", "tdm-beta", "tdm-gamma", "rec-ippo-500k", "qmix-500k"} <= set(strengths)
    host = data_pages.play_host(ROOT)
    assert host.startswith('<div class="bgp-host" data-play data-strengths="{&quot;')
    assert data_pages.play_host(Path("/nonexistent")) == data_pages.PLAY_HOST
