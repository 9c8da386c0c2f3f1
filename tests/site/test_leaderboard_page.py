"""The Leaderboard pages: generated from a season export, every string escaped, every number
taken from the JSON, and the pages pass `mkdocs build --strict` with no broken link.

The fixture season is a real export (`scripts/export_season.py`) of games from a fast,
deterministic stand-in for `marl_bgs.evaluate`, so no JAX runs here; one entrant is then
renamed in the JSON to a hostile string that the entrants file itself would refuse.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import jinja2
import markdown
import pandas as pd
import pytest
import yaml

from marl_bgs.site import build as site_build
from marl_bgs.site import formatting, hook, leaderboard_page, templates
from marl_bgs.systems.base import System
from marl_bgs.tournament.entrants import NAME_PATTERN
from marl_bgs.tournament.tiers import TIER_NAMES
from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = '<script>alert("x")</script> | *b* _u_ [l](javascript:alert(1)) &amp; `c` \\ {#id}'
STRENGTH = {"low": 0, "mid": 1, "high": 2, "top": 3}
EXTENSIONS = ["admonition", "attr_list", "md_in_html", "tables", "fenced_code"]


def fake_system(label: str) -> System:
    """A System that carries only a label (the stand-in evaluate reads its strength)."""
    return System(label, act=None, init=None)


def fake_evaluate(team_a, team_b, maps, games, seed, first_seed=0, batch_size=128, progress=True):
    """marl_bgs.evaluate's contract. The stronger side wins, except that a draw happens on
    every third seed number and the weaker side steals odd seed numbers on map 48, so some
    (pairing, map) strata vary and others never do (as with deterministic Systems)."""
    rows = []
    for g in range(games):
        pair, number = g // 2, first_seed + g // 2
        map_id = maps[pair % len(maps)]
        gap = STRENGTH[team_a.name] - STRENGTH[team_b.name]
        result = "a" if gap > 0 else "b"
        if number % 3 == 0 and abs(gap) == 1:
            result = "draw"
        elif map_id == 48 and number % 2 and abs(gap) == 1:
            result = "b" if gap > 0 else "a"
        pa, pb = {"a": (20, 11), "b": (8, 20), "draw": (14, 14)}[result]
        rows.append(
            {
                "game": g,
                "pair": pair,
                "seed_number": number,
                "map_id": map_id,
                "spawn_a": ("left", "right")[g % 2],
                "system_a": team_a.name,
                "system_b": team_b.name,
                "result": result,
                "points_a": pa,
                "points_b": pb,
                "margin": pa - pb,
                "kills_a": pa // 2,
                "kills_b": pb // 2,
                "deaths_a": pb // 2,
                "deaths_b": pa // 2,
                "ticks": 300,
            }
        )
    meta = {"versions": {"stand-in": 1}, "root_seed": seed, "counts": {"games": games}}
    return SimpleNamespace(games=pd.DataFrame(rows), meta=meta)


def _entry(name: str, label: str) -> dict:
    load = {
        "entry_point": "tests.site.test_leaderboard_page:fake_system",
        "kwargs": {"label": label},
    }
    return {"name": name, "type": "learned", "load": load}


def _export(tmp: Path) -> Path:
    """A real season export (three entrants, one challenger that enters) under tmp/exports."""
    spec = {
        "format": "marl-bgs/entrants",
        "version": 1,
        "season": "season0",
        "description": "A test season.",
        "field_size": 3,
        "entrants": [_entry("Low", "low"), _entry("Mid", "mid"), _entry("High", "high")],
        "challengers": [_entry("Top", "top")],
    }
    (tmp / "season0.json").write_text(json.dumps(spec))
    script = load_script("export_season")
    argv = ["--season", "season0", "--entrants", str(tmp / "season0.json")]
    argv += ["--games-per-map", "4", "--maps", "47,48", "--refits", "50", "--seed", "2"]
    argv += ["--out", str(tmp / "exports" / "seasons"), "--store", str(tmp / "store")]
    argv += ["--no-progress", "--evaluate", "tests.site.test_leaderboard_page:fake_evaluate"]
    assert script.main(argv) == 0
    return tmp / "exports" / "seasons" / "season0"


def _rename(value, old: str, new: str):
    """Every occurrence of the name `old` (as a whole string or a key) replaced by `new`."""
    if isinstance(value, dict):
        return {(new if k == old else k): _rename(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, old, new) for v in value]
    return new if value == old else value


@pytest.fixture(scope="module")
def export_root(tmp_path_factory) -> Path:
    """A repository-like root holding one exported season whose "Mid" is renamed HOSTILE."""
    root = tmp_path_factory.mktemp("lb")
    folder = _export(root)
    for name in ("leaderboard.json", "provenance.json"):
        data = _rename(json.loads((folder / name).read_text()), "Mid", HOSTILE)
        if name == "leaderboard.json":
            data["description"] = "Test <b>season</b> | *one*"
        (folder / name).write_text(json.dumps(data, indent=2))
    return root


@pytest.fixture()
def root(export_root, tmp_path) -> Path:
    """A fresh copy of the export for tests that change it."""
    shutil.copytree(export_root / "exports", tmp_path / "exports")
    return tmp_path


def _board(root: Path) -> dict:
    return json.loads(
        (root / leaderboard_page.SEASONS / "season0" / "leaderboard.json").read_text()
    )


def _html(md_text: str) -> str:
    return markdown.markdown(md_text, extensions=EXTENSIONS)


class _Cells(HTMLParser):
    """Text of every table row (th/td cells), character references resolved."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.tags: list[str] = []
        self.links: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.links += [v for k, v in attrs if k in ("href", "src") and v]
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _cells(html: str) -> _Cells:
    parser = _Cells()
    parser.feed(html)
    return parser


def _whole(x: float) -> str:
    return str(int(math.floor(x + 0.5)))


# ---- unit tests on the generator -------------------------------------------------------------
def test_every_entrant_row_holds_the_json_numbers(export_root):
    board = _board(export_root)
    page = leaderboard_page.pages(export_root)["leaderboard/index.md"]()
    rows = [r for r in _cells(_html(page)).rows if len(r) == 9 and r[0].isdigit()]
    assert len(rows) == len(board["table"]) == 4
    for entry, cells in zip(board["table"], rows, strict=True):
        bound = {"lower": "≥ ", "upper": "≤ "}.get(entry["prior_bound"], "")
        assert cells[0] == str(entry["rank"])
        assert cells[1] == entry["name"] + entry["type"]  # the hostile name reads back exactly
        assert cells[2] == bound + _whole(entry["elo"])
        assert cells[3].startswith(f"[{_whole(entry['elo_low'])}, {_whole(entry['elo_high'])}]")
        assert cells[3].endswith(f"model SD {entry['elo_sd_model']:.1f}")
        assert cells[4] == entry["tier_label"]
        assert cells[5] == f"{entry['wins']}-{entry['draws']}-{entry['losses']}"
        assert cells[6] == f"{100 * entry['win_chance']:.1f}%"
        assert cells[7] == f"{entry['margin_mean']:+.1f}"
        assert cells[8] == entry["status"]
    assert {e["status"] for e in board["table"]} == {"member", "left the field"}
    assert [int(r[0]) for r in rows] == [1, 2, 3, 4]


def test_hostile_strings_are_shown_as_text_never_as_markup(export_root):
    pages = leaderboard_page.pages(export_root)
    for rel, write in pages.items():
        html = _html(write())
        parsed = _cells(html)
        assert "script" not in parsed.tags, rel
        assert not [u for u in parsed.links if "javascript" in u.lower()], rel
        assert "<b>season</b>" not in html and "<em>one</em>" not in html, rel
        for row in parsed.rows:  # the '|' in the name split no table row
            pieces = [c for c in row if "alert(" in c]
            assert all(HOSTILE in c for c in pieces), (rel, row)
    index = _html(pages["leaderboard/index.md"]())
    assert HOSTILE not in index  # not raw...
    assert HOSTILE in _visible(index)  # ...but shown to the reader character for character
    assert "Test <b>season</b> | *one*" in _visible(index)
    played = _visible(_html(pages["leaderboard/season0-played.md"]()))
    assert played.count(HOSTILE) >= 2  # the schedule's fixtures


def _visible(html: str) -> str:
    parser = HTMLParser(convert_charrefs=True)
    chunks: list[str] = []
    parser.handle_data = chunks.append
    parser.feed(html)
    return "".join(chunks)


def test_text_escapes_markup_and_keeps_plain_words():
    assert formatting.text("TDM-Alpha 2.0") == "TDM-Alpha 2.0"
    assert formatting.text("a|b<c>&_*`[") == "a&#124;b&#60;c&#62;&#38;&#95;&#42;&#96;&#91;"


def test_matchups_per_map_and_heterogeneity_come_from_the_json(export_root):
    board = _board(export_root)
    html = _html(leaderboard_page.pages(export_root)["leaderboard/index.md"]())
    rows = _cells(html).rows
    names = board["matchups"]["entrants"]
    heat = [r for r in rows if r and r[0] in names and len(r) == len(names) + 1]
    assert [r[0] for r in heat] == names
    for i, line in enumerate(board["matchups"]["cells"]):
        for j, cell in enumerate(line):
            shown = heat[i][j + 1]
            if cell is None:
                assert shown == "–"
            else:
                assert shown.startswith(f"{cell['wins']}-{cell['draws']}-{cell['losses']}")
                assert f"score {cell['score']:.3f}" in shown
                assert f"expected {cell['expected_score']:.3f}" in shown
    for r in board["per_map"]["ratings"]:
        row = next(x for x in rows if x[0] == r["entrant"] and x[1][0].isdigit() and "[" in x[1])
        k = board["per_map"]["maps"].index(r["map_id"])
        want = f"{_whole(r['elo'])}[{_whole(r['elo_low'])}, {_whole(r['elo_high'])}]"
        assert row[1 + k] == want
    het = {r[0]: r for r in rows if len(r) == 9 and r[0] != "entrant"}
    for r in board["heterogeneity"]["entrants"]:
        assert het[r["entrant"]][3] == f"{r['q']:.1f}"
        assert het[r["entrant"]][8] == f"{100 * r['i2']:.0f}%"
    assert "Here:" in html and "I²" in html


def test_interval_note_follows_strata_all_alike(root):
    board = _board(root)
    alike, strata = board["rating"]["strata_all_alike"], board["rating"]["strata"]
    assert 0 < alike < strata  # the stand-in's games vary in some strata only
    page = leaderboard_page.pages(root)["leaderboard/index.md"]()
    assert f"In {alike} of the {strata} strata" in page
    board["rating"]["strata_all_alike"] = 0
    (root / leaderboard_page.SEASONS / "season0" / "leaderboard.json").write_text(json.dumps(board))
    assert (
        "Why some intervals are narrow"
        not in leaderboard_page.pages(root)["leaderboard/index.md"]()
    )


def test_downloads_link_every_file_and_figures_are_embedded(export_root):
    folder = export_root / leaderboard_page.SEASONS / "season0"
    page = leaderboard_page.pages(export_root)["leaderboard/index.md"]()
    for p in folder.iterdir():
        assert f"](../exports/seasons/season0/{p.name})" in page, p.name
    for svg in (
        "matchup_heatmap.svg",
        "per_map_wdl.svg",
        "per_map_forest.svg",
        "heterogeneity.svg",
    ):
        assert "![" in page and f"(../exports/seasons/season0/{svg})" in page


def test_played_rules_and_submit_pages(export_root):
    board = _board(export_root)
    pages = leaderboard_page.pages(export_root)
    played = pages["leaderboard/season0-played.md"]()
    facts = board["season_facts"]
    assert f"| games | {facts['games']:,} |" in played
    assert f"| root seed | {facts['root_seed']} |" in played
    assert "--games-per-map 4 --maps 47,48 --refits 50 --seed 2" in played
    assert "```json" in played and '"format": "marl-bgs/entrants"' in played
    rules = _html(pages["leaderboard/rules.md"]())
    cells = _cells(rules).rows
    tiers = [r for r in cells if r and r[0] in TIER_NAMES]
    assert [r[0] for r in tiers] == [t["tier"] for t in board["tiers"]] == list(TIER_NAMES[::-1])
    gold = next(t for t in board["tiers"] if t["tier"] == "Gold")
    assert next(r for r in tiers if r[0] == "Gold")[1] == f"{gold['elo_low']}–{gold['elo_high']}"
    (adm,) = board["admissions"]
    row = next(r for r in cells if r and r[0] == adm["challenger"])
    assert row[1] == _whole(adm["elo"]) and row[4] == ("yes" if adm["admitted"] else "no")
    if not adm["admitted"]:  # it took no seat
        assert row[5] == "–"
    elif adm["replaced"] is None:
        assert row[5] == "empty seat"
    else:
        assert row[5] == f"replaced {adm['replaced']}"
    submit = pages["leaderboard/submit.md"]()
    assert '"entry_point": "my_agents.ppo:load"' in submit and "jax_system" in submit
    assert "python scripts/export_season.py --season season0 --resume" in submit


def test_code_fences_outgrow_backticks_in_file_text():
    block = formatting.code_block("a ```` b", "json")
    assert block.startswith("`````json\n") and block.endswith("\n`````\n")


def test_no_season_no_pages_and_no_nav(tmp_path):
    assert leaderboard_page.pages(tmp_path) == {} and leaderboard_page.nav(tmp_path) == []
    titles = [next(iter(e)) for e in hook.navigation(tmp_path)]
    assert "Leaderboard" not in titles


def test_seasons_in_natural_order_newest_on_the_index(root):
    base = root / leaderboard_page.SEASONS
    for name in ("season2", "season10"):
        shutil.copytree(base / "season0", base / name)
    assert [p.name for p in leaderboard_page.season_dirs(root)] == [
        "season0",
        "season2",
        "season10",
    ]
    pages = leaderboard_page.pages(root)
    assert "# Season 10 leaderboard" in pages["leaderboard/index.md"]()
    assert "# Season 2 leaderboard" in pages["leaderboard/season2.md"]()
    assert "leaderboard/season10.md" not in pages and "leaderboard/season0-played.md" in pages
    section = leaderboard_page.nav(root)[0]["Leaderboard"]
    assert section[0] == {"Season 10 leaderboard": "leaderboard/index.md"}
    assert {"How Season 0 was played": "leaderboard/season0-played.md"} in section


def test_bad_data_errors_name_the_file_and_field(root):
    folder = root / leaderboard_page.SEASONS / "season0"
    board = _board(root)
    board["table"][1]["elo"] = "high"
    (folder / "leaderboard.json").write_text(json.dumps(board))
    with pytest.raises(TypeError, match=r"leaderboard\.json\.table\[1\]\.elo: expected a number"):
        leaderboard_page.pages(root)[
            "leaderboard/index.md"
        ]()  # a wrong type: FieldTypeError, also a ValueError
    board["table"][1]["elo"] = float("nan")
    (folder / "leaderboard.json").write_text(json.dumps(board))
    with pytest.raises(ValueError, match=r"leaderboard\.json: table\[1\]\.elo: NaN is not allowed"):
        leaderboard_page.pages(root)["leaderboard/index.md"]()
    board["table"][1]["elo"] = 1000.0
    text = json.dumps(board).replace('"format"', '"format": "x", "format"', 1)
    (folder / "leaderboard.json").write_text(text)
    with pytest.raises(ValueError, match=r"leaderboard\.json: the key 'format' appears twice"):
        leaderboard_page.pages(root)["leaderboard/index.md"]()
    board["format"] = "something-else"
    (folder / "leaderboard.json").write_text(json.dumps(board))
    with pytest.raises(ValueError, match=r"season0/leaderboard\.json\.format"):
        leaderboard_page.pages(root)
    (folder / "heterogeneity.svg").unlink()
    board["format"] = leaderboard_page.BOARD_FORMAT
    (folder / "leaderboard.json").write_text(json.dumps(board))
    with pytest.raises(FileNotFoundError, match=r"heterogeneity\.svg.*export_season\.py"):
        leaderboard_page.pages(root)
    (folder / "provenance.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"provenance\.json: missing; run"):
        leaderboard_page.pages(root)


def test_every_tier_has_a_badge_colour():
    assert set(leaderboard_page.TIER_STYLE) == set(TIER_NAMES)


# ---- one strict build of the leaderboard pages -----------------------------------------------
HOOK = """
from pathlib import Path
from mkdocs.structure.files import File
from marl_bgs.site import leaderboard_page
ROOT = Path(__file__).resolve().parent

def on_config(config):
    config["nav"] = [{"Home": "index.md"}, {"Atlas": "atlas.md"}, *leaderboard_page.nav(ROOT)]
    return config

def on_files(files, config):
    for rel, write in leaderboard_page.pages(ROOT).items():
        files.append(File.generated(config, rel, content=write()))
    for p in sorted((ROOT / "exports").rglob("*")):
        if p.is_file():
            rel = p.relative_to(ROOT).as_posix()
            files.append(File(rel, str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files
"""


def test_pages_build_strict_with_no_broken_link(export_root, tmp_path):
    """mkdocs build --strict of the leaderboard pages alone (the real site's other pages are
    stand-ins: Home, and an Atlas with the #test anchor the pages link to)."""
    site_root = tmp_path / "mini"
    shutil.copytree(export_root / "exports", site_root / "exports")
    docs = site_root / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n")
    (docs / "atlas.md").write_text("# Atlas\n\n## Test {#test}\n")
    (site_root / "hook.py").write_text(textwrap.dedent(HOOK))
    config = json.loads(json.dumps(_mkdocs_config()))
    (site_root / "mkdocs.yml").write_text(json.dumps(config))
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", "site"],
        cwd=site_root,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    site = site_root / "site"
    for page in ("leaderboard", "leaderboard/rules", "leaderboard/submit"):
        assert (site / page / "index.html").is_file(), page
    assert site_build.broken_links(site) == []
    html = (site / "leaderboard/index.html").read_text()
    assert 'src="../exports/seasons/season0/matchup_heatmap.svg"' in html
    assert "<script>alert" not in html and HOSTILE in _visible(html)


def _mkdocs_config() -> dict:
    """The real site's theme and Markdown settings, with this test's hook and docs."""
    return {
        "site_name": "leaderboard test",
        "docs_dir": "docs",
        "strict": True,
        "theme": {"name": "material", "font": False},
        "hooks": ["hook.py"],
        "markdown_extensions": [
            "admonition",
            "attr_list",
            "md_in_html",
            "tables",
            {"toc": {"permalink": True}},
            "pymdownx.superfences",
            "pymdownx.highlight",
        ],
        "validation": {
            "omitted_files": "warn",
            "absolute_links": "warn",
            "unrecognized_links": "warn",
            "anchors": "warn",
        },
    }


def test_site_config_matches_the_mini_build():
    """The mini build uses the real mkdocs.yml's Markdown extensions, so it tests the same."""
    text = (ROOT / "mkdocs.yml").read_text()
    for ext in _mkdocs_config()["markdown_extensions"]:
        name = ext if isinstance(ext, str) else next(iter(ext))
        assert re.search(rf"^\s*- {re.escape(name)}\b", text, re.M), name


def test_zero_width_per_map_intervals_are_explained(root):
    board = _board(root)
    ratings = board["per_map"]["ratings"]
    for r in ratings:
        r["elo_low"], r["elo_high"] = r["elo"] - 50, r["elo"] + 50
    path = root / leaderboard_page.SEASONS / "season0" / "leaderboard.json"
    path.write_text(json.dumps(board))
    assert (
        "per-map intervals have zero width"
        not in leaderboard_page.pages(root)["leaderboard/index.md"]()
    )
    ratings[3]["elo_low"] = ratings[3]["elo_high"] = ratings[3]["elo"]
    path.write_text(json.dumps(board))
    page = leaderboard_page.pages(root)["leaderboard/index.md"]()
    assert f"1 of these {len(ratings)} per-map intervals have zero width" in page
    # the note stands above the per-map ratings table, whose zero-width cell is marked
    note = page.index("per-map intervals have zero width")
    ratings_table = page.index("| entrant |", page.index("Then a separate joint rating"))
    assert note < ratings_table
    assert page.count(" ‡</small>") == 1


def test_interval_note_stands_above_the_standings_table(root):
    """Before a reader takes a narrow or zero-width interval for a broken page."""
    page = leaderboard_page.pages(root)["leaderboard/index.md"]()
    standings = page.index("## Standings")
    assert standings < page.index("Why some intervals are narrow") < page.index("| rank |")
    board = _board(root)
    row = board["table"][1]
    row["elo_low"] = row["elo_high"] = row["elo"]
    (root / leaderboard_page.SEASONS / "season0" / "leaderboard.json").write_text(json.dumps(board))
    page = leaderboard_page.pages(root)["leaderboard/index.md"]()
    assert "*‡*: an interval of zero width" in page
    assert page.index("The rows marked ‡") < page.index("| rank |")


def test_submit_page_shows_the_name_pattern_as_written(export_root):
    """`text()` inside a code span showed `&#94;&#91;...` to the reader."""
    html = _html(leaderboard_page.pages(export_root)["leaderboard/submit.md"]())
    shown = _visible(html)
    assert f"checked against {NAME_PATTERN.pattern}." in shown
    assert "&#" not in shown[shown.index("Entry names are checked") :]
    assert formatting.inline_code("a`b") == "``a`b``" and formatting.inline_code("`x") == "`` `x ``"


def test_played_page_games_table_has_a_header(export_root):
    html = _html(leaderboard_page.pages(export_root)["leaderboard/season0-played.md"]())
    assert "<th></th>" not in html.replace(" ", "")


def test_wdl_small_multiples_follow_the_records(export_root):
    """One panel per entrant, listed in the JSON's figures and embedded under the records."""
    board = _board(export_root)
    assert board["files"]["figures"]["per_map_wdl"] == ["per_map_wdl.svg", "per_map_wdl.png"]
    page = leaderboard_page.pages(export_root)["leaderboard/index.md"]()
    records = page.index("First each entrant's record on each map")
    figure = page.index("(../exports/seasons/season0/per_map_wdl.svg)")
    assert records < figure < page.index("Then a separate joint rating")
    svg = (export_root / leaderboard_page.SEASONS / "season0" / "per_map_wdl.svg").read_text()
    panels = set(re.findall(r'id="axes_\d+"', svg))
    assert len(panels) == len(board["matchups"]["entrants"]) == 4


def test_one_sided_entrants_and_swept_pairings_get_no_i2(root):
    """I² of an entrant that won (or lost) no game, or of a pairing one side swept, says
    nothing about the maps: the page says so instead of calling it map-dependent."""
    board = _board(root)
    cells = board["matchups"]["cells"]
    names = board["matchups"]["entrants"]
    for r in board["heterogeneity"]["pairings"]:  # the export flags exactly the sweeps
        cell = cells[names.index(r["entrant_i"])][names.index(r["entrant_j"])]
        swept = (
            r["entrant_i"]
            if cell["wins"] == cell["games"]
            else r["entrant_j"]
            if cell["losses"] == cell["games"]
            else None
        )
        assert r["swept_by"] == swept
    assert any(r["swept_by"] for r in board["heterogeneity"]["pairings"])
    for r in board["heterogeneity"]["entrants"]:
        rec = next(t for t in board["table"] if t["name"] == r["entrant"])
        want = "won no game" if rec["wins"] == 0 else "lost no game" if rec["losses"] == 0 else None
        assert r["one_sided"] == want
    low = next(r for r in board["heterogeneity"]["entrants"] if r["entrant"] == "Low")
    low["one_sided"], low["i2"] = "won no game", 0.93
    (root / leaderboard_page.SEASONS / "season0" / "leaderboard.json").write_text(json.dumps(board))
    html = _html(leaderboard_page.pages(root)["leaderboard/index.md"]())
    shown = " ".join(_visible(html).split())
    reading = shown[shown.index("Here:") : shown.index("entrant maps pooled Elo")]
    assert "Low: not tested" in reading and "Low (93%)" not in reading
    row = next(r for r in _cells(html).rows if r and r[0].startswith("Low") and len(r) == 9)
    assert row[0] == "Lowwon no game" and row[8] == "not meaningful" and row[3] == "–"
    assert "Low won no game of the season" in shown
    swept = [r for r in _cells(html).rows if r and "won every game" in r[0]]
    assert swept and all(r[-1] == "not meaningful" for r in swept)
    assert "one entrant won every game" in shown


def test_pages_of_an_older_export_without_the_new_fields(root):
    """An export written before one_sided, swept_by and the W/D/L figure still renders."""
    board = _board(root)
    for group in ("entrants", "pairings"):
        for r in board["heterogeneity"][group]:
            r.pop("one_sided", None)
            r.pop("swept_by", None)
    del board["files"]["figures"]["per_map_wdl"]
    (root / leaderboard_page.SEASONS / "season0" / "leaderboard.json").write_text(json.dumps(board))
    page = leaderboard_page.pages(root)["leaderboard/index.md"]()
    assert "not meaningful" not in page and "The same records drawn" not in page


# ---- the templates the pages are written from ------------------------------------------------
def test_every_leaderboard_template_parses_and_a_missing_value_is_an_error(export_root):
    """A template used only on a rare branch (no challengers, a single map) fails here, not in
    a season's build; a value the page code forgot is an error, never an empty gap."""
    names = [n for n in templates.template_names() if n.startswith("leaderboard/")]
    assert {"leaderboard/season.md.j2", "leaderboard/played.md.j2"} <= set(names)
    for name in names:
        templates.environment().get_template(name)  # parses
    season = leaderboard_page.load_seasons(export_root)[0]
    with pytest.raises(jinja2.UndefinedError, match="season"):
        templates.render(
            "leaderboard/rules.md.j2", b=season.board, facts=None, badge=leaderboard_page.badge
        )


def test_templates_are_not_published():
    from mkdocs.utils.yaml import get_yaml_loader  # mkdocs.yml uses its !ENV tag

    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=get_yaml_loader())
    assert "/_templates/" in config["exclude_docs"].split()
    assert leaderboard_page.TEMPLATES.is_relative_to(ROOT / "site_src" / "_templates")


def test_a_challenger_left_out_took_no_seat():
    from types import SimpleNamespace as NS

    seat = templates.macros("leaderboard/words.md.j2").seat_taken
    assert seat(NS(admitted=False, replaced=None)) == "–"
    assert seat(NS(admitted=True, replaced=None)) == "empty seat"
    assert seat(NS(admitted=True, replaced="Old <b>")) == "replaced Old &#60;b&#62;"


def test_the_page_opens_with_a_summary_and_links_to_its_sections():
    """Issue 46: the leaderboard is long; its top says who leads and links every section."""
    page = leaderboard_page.pages(ROOT)["leaderboard/index.md"]()
    board = json.loads((ROOT / "exports/seasons/season0/leaderboard.json").read_text())
    glance = page.index('!!! abstract "At a glance"')
    assert glance < page.index("## Standings")
    first = page[glance : page.index("## Standings")]
    assert f"**{board['table'][0]['name']}** leads with Elo" in first
    for anchor in ("standings", "matchups", "map-by-map", "does-a-rating-hold-on-every-map",
                   "downloads"):  # fmt: skip
        assert f"](#{anchor})" in first
    for admitted in (a for a in board["admissions"] if a["admitted"]):
        assert f"{admitted['challenger']} joined the field" in first
