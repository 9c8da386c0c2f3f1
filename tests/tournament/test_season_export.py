"""The published Season 0 is exactly what its saved games give (ratings, pages' data, figures)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
SEASON = ROOT / "exports" / "seasons" / "season0"


def test_season0_is_fresh():
    done = subprocess.run(
        [sys.executable, "scripts/export_season.py", "--season", "season0", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_season0_holds_every_game_of_its_schedule():
    games = pd.read_parquet(SEASON / "games.parquet")
    # the Big Nine's 36 pairings, then two challengers against each of the nine seats
    assert len(games) == (36 + 2 * 9) * 200  # 200 games per pairing
    assert sorted(games["map_id"].unique().tolist()) == [47, 48, 49, 50, 51]
    assert games.groupby(["entrant_a", "entrant_b"]).size().eq(200).all()
