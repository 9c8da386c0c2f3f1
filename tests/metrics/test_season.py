"""A season's published full metrics (issue 21): the committed files are fresh, belong to the
season's games, and the Explorer's numbers are `system_metrics`'s; the Full metrics and Metrics
Explorer pages come from the code's table and the files, with file strings escaped."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from marl_bgs.metrics.full import FULL_NAMES
from marl_bgs.metrics.season import (
    EXPLORER_FILE,
    FOLDER,
    MEASURES_FILE,
    explorer_document,
    load_season_full,
)
from marl_bgs.metrics.system import system_metrics
from marl_bgs.metrics.team import TEAM_MEASURES
from marl_bgs.metrics.topics import TOPICS
from marl_bgs.site import explorer_page
from marl_bgs.site.metrics_page import FIGURE4_COLUMNS, full_metrics_page

ROOT = Path(__file__).resolve().parents[2]
SEASON = ROOT / "exports" / "seasons" / "season0"


@pytest.fixture(scope="module")
def season():
    return load_season_full(SEASON)


def test_the_published_files_are_fresh():
    done = subprocess.run(
        [sys.executable, "scripts/export_team_measures.py", "--season", "season0", "--check"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_full_metrics_are_the_seasons_games(season):
    provenance = json.loads((SEASON / "full_metrics.json").read_text())
    assert provenance["every_game_repeated"] is True
    games = json.loads((SEASON / "provenance.json").read_text())["counts"]["games"]
    assert provenance["games"] == len(season.table) == games
    assert provenance["columns"] == len(FULL_NAMES)
    # Kills recorded per agent add up to the team's kills in every game.
    kills = season.table[[f"deaths.b{s}.deaths" for s in range(5)]].sum(axis=1)
    assert (kills.to_numpy() == season.table["kills_a"].to_numpy()).all()


def _copy(tmp: Path) -> Path:
    folder = tmp / "season0"
    folder.mkdir()
    for name in ("games.parquet", "ratings.json", "full_metrics.parquet"):
        shutil.copy(SEASON / name, folder / name)
    return folder


def test_full_metrics_of_other_games_are_refused(tmp_path):
    folder = _copy(tmp_path)
    full = pd.read_parquet(folder / "full_metrics.parquet")
    full.loc[7, "episode_results.kills_b"] += 1
    full.to_parquet(folder / "full_metrics.parquet", index=False)
    with pytest.raises(
        ValueError, match=r"full_metrics.parquet: game 7 has episode_results.kills_b"
    ):
        load_season_full(folder)
    n = len(full)
    full.drop(index=[3]).to_parquet(folder / "full_metrics.parquet", index=False)
    with pytest.raises(ValueError, match=f"{n - 1} games, the season has {n}"):
        load_season_full(folder)
    (folder / "full_metrics.parquet").unlink()
    with pytest.raises(FileNotFoundError, match="replay_season_full.py"):
        load_season_full(folder)


def test_the_explorer_holds_system_metrics_numbers(season):
    doc = json.loads((SEASON / FOLDER / EXPLORER_FILE).read_text())
    assert doc["columns"][:3] == [
        "episode_results.won",
        "episode_results.drawn",
        "episode_results.lost",
    ]
    assert len(doc["columns"]) == len(FULL_NAMES) + 2  # the result becomes three shares
    assert [t["name"] for t in doc["topics"]] == [t.name for t in TOPICS]
    entrant = doc["entrants"][3]
    direct = system_metrics(season.table, entrant["name"], refits=doc["refits"], seed=doc["seed"])
    for name in (
        "damage_done.by_a0.to_b1.basic",
        "coordination.a.focus_ticks",
        "episode_results.won",
    ):
        k = doc["columns"].index(name)
        for key in ("value", "low", "high"):
            assert entrant[key][k] == pytest.approx(direct.loc[name, key], rel=1e-4)
    assert doc["roster"] == ["mage", "warrior", "hunter", "rogue", "priest"]


def test_the_explorer_document_is_repeatable(season):
    small = explorer_document(season, refits=20, seed=1)
    again = explorer_document(season, refits=20, seed=1)
    assert json.dumps(small) == json.dumps(again)


def test_team_measures_file_lists_every_measure_and_entrant():
    doc = json.loads((SEASON / FOLDER / MEASURES_FILE).read_text())
    assert [m["measure"] for m in doc["measures"]] == [m.key for m in TEAM_MEASURES]
    ratings = json.loads((SEASON / "ratings.json").read_text())["table"]
    members = [r["name"] for r in ratings if r["status"] == "member"]
    assert [e["name"] for e in doc["entrants"]] == members  # the field, in rating order
    orderings = math.factorial(len(members))
    assert f"over all {orderings} orderings" in doc["test"]
    for m in doc["measures"]:
        if m["p"] is not None:
            assert 0 < m["p"] <= 1 and m["p"] <= m["holm"] <= 1
            # p is a whole number of the orderings (to the 5 digits the file keeps)
            assert m["p"] * orderings == pytest.approx(round(m["p"] * orderings), rel=1e-4)


# ---- pages -------------------------------------------------------------------------------------


def test_full_metrics_page_counts_every_topic_beside_figure_4():
    assert list(FIGURE4_COLUMNS) == [t.name for t in TOPICS]
    assert sum(FIGURE4_COLUMNS.values()) == 11_192
    page = full_metrics_page()
    assert "**2,994**" in page and "**11,192**" in page
    for t in TOPICS:
        row = next(line for line in page.splitlines() if f"[`{t.name}`]" in line)
        assert f"| {t.size:,} |" in row and row.endswith(f"| {FIGURE4_COLUMNS[t.name]:,} |")
        assert f"### {t.name.replace('_', '-')}" in page
    assert "metrics-explorer.md" not in full_metrics_page(explorer=False)


def _site(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "root"
    folder = root / "exports" / "seasons" / "season0" / FOLDER
    folder.mkdir(parents=True)
    doc = json.loads((SEASON / FOLDER / MEASURES_FILE).read_text())
    doc["entrants"][0]["name"] = name
    doc["measures"][0]["note"] = name
    (folder / MEASURES_FILE).write_text(json.dumps(doc))
    return root


def test_explorer_page_escapes_strings_from_the_file(tmp_path):
    hostile = "<img src=x onerror=alert(1)>|*_[x](y)"
    root = _site(tmp_path, hostile)
    pages = explorer_page.pages(root)
    assert list(pages) == [explorer_page.PAGE]
    page = pages[explorer_page.PAGE]()
    assert "<img" not in page and "onerror=alert(1)>" not in page and "[x](y)" not in page
    assert "&#60;img src=x onerror=alert(1)&#62;" in page
    assert 'data-src="../exports/seasons/season0/metrics/explorer.json"' in page
    assert explorer_page.nav(root) == [{"Metrics Explorer": explorer_page.PAGE}]


def test_explorer_page_refuses_a_foreign_file(tmp_path):
    root = _site(tmp_path, "X")
    path = root / "exports" / "seasons" / "season0" / FOLDER / MEASURES_FILE
    doc = json.loads(path.read_text())
    doc["format"] = "something-else"
    path.write_text(json.dumps(doc))
    with pytest.raises(
        ValueError, match=r"team_measures.json.format: expected 'marl-bgs/team-measures'"
    ):
        explorer_page.pages(root)[explorer_page.PAGE]()


def test_no_explorer_without_published_metrics(tmp_path):
    assert explorer_page.pages(tmp_path) == {} and explorer_page.nav(tmp_path) == []


def test_the_page_table_shows_the_files_numbers():
    page = explorer_page.explorer_page(SEASON, ROOT)
    doc = json.loads((SEASON / FOLDER / MEASURES_FILE).read_text())
    row = next(line for line in page.splitlines() if line.startswith("| Setups | Ticks with two"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    first = doc["entrants"][0]["values"]["focus_ticks"]
    assert cells[3].startswith(f"{first[0]:,.1f}<br>")
    rho = next(m for m in doc["measures"] if m["measure"] == "focus_ticks")["rho"]
    assert cells[-3] == f"{rho:+.2f}"
    assert re.search(
        r"!\[Six team measures.*\]\(exports/seasons/season0/metrics/team_measures\.svg\)", page
    )
    assert np.isfinite(first[0])


def test_replaying_with_reuse_takes_matching_fixtures_and_replays_the_rest(tmp_path):
    """scripts/replay_season_full.py --reuse: every fixture whose rows an earlier table holds
    for the saved games is taken from it (nothing played: the published table again, byte
    for byte); a fixture with a changed row is played again."""
    from tests.script_loader import load_script

    script = load_script("replay_season_full", "replay_season_full_reuse")
    out = tmp_path / "out"
    (out / "season0").mkdir(parents=True)
    for name in ("games.parquet", "provenance.json"):
        shutil.copy(SEASON / name, out / "season0" / name)
    played: list[int] = []

    def refuse(*args, **kwargs):
        played.append(kwargs.get("seed", -1))
        raise RuntimeError("played")

    script.replay("season0", out, 64, False, evaluate_fn=refuse,
                  reuse=SEASON / "full_metrics.parquet")  # fmt: skip
    assert not played
    written = out / "season0" / "full_metrics.parquet"
    assert written.read_bytes() == (SEASON / "full_metrics.parquet").read_bytes()
    record = json.loads((out / "season0" / "full_metrics.json").read_text())
    assert record["games"] == len(pd.read_parquet(SEASON / "games.parquet", columns=["game"]))

    earlier = pd.read_parquet(SEASON / "full_metrics.parquet")
    earlier.loc[earlier["fixture"] == 2, "episode_results.ticks"] += 1
    changed = tmp_path / "changed.parquet"
    earlier.to_parquet(changed, index=False)
    with pytest.raises(RuntimeError, match="played"):
        script.replay("season0", out, 64, False, evaluate_fn=refuse, reuse=changed)
    assert len(played) == 1  # fixture 2, the first not taken, is played

    with pytest.raises(SystemExit, match="not today's full metrics"):
        script.replay("season0", out, 64, False, evaluate_fn=refuse,
                      reuse=SEASON / "games.parquet")  # fmt: skip
