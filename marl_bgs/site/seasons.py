"""The exported seasons the Leaderboard and Metrics Explorer pages read (`exports/seasons/`).

`scripts/export_season.py` writes each season's folder; the files are read and checked by
`marl_bgs.tournament.season_reader` into the typed records of
`marl_bgs.tournament.season_records` (`Leaderboard`, `Provenance`, `Timing`), the records
the export builds. This module finds the folders, in natural order, and loads one season's
records and file list for the pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..tournament.entrants import SEASON_PATTERN
from ..tournament.season_reader import (
    EXPORT_SCRIPT,
    read_leaderboard,
    read_provenance,
    read_timing,
)
from ..tournament.season_records import Leaderboard, Provenance, Timing
from .formatting import season_title, text

SEASONS = "exports/seasons"


def season_dirs(root: Path) -> list[Path]:
    """Exported season folders, in natural order (season2 before season10)."""
    base = root / SEASONS
    if not base.is_dir():
        return []

    def natural(p: Path) -> list:
        return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", p.name)]

    return sorted((p for p in base.iterdir() if p.is_dir()), key=natural)


@dataclass(frozen=True)
class Season:
    """One exported season: its folder name and the files the pages read."""

    folder: str
    board: Leaderboard
    provenance: Provenance
    timing: Timing | None
    files: tuple[tuple[str, int], ...]  # (file name, bytes) of every file in the folder
    newest: bool = False  # shown on leaderboard/index.md rather than leaderboard/<folder>.md

    @property
    def title(self) -> str:
        return text(season_title(self.folder))

    @property
    def page(self) -> str:
        """Its leaderboard page, as a link from a page under leaderboard/."""
        return "index.md" if self.newest else f"{self.folder}.md"

    @property
    def base(self) -> str:
        """The folder as a link from a page under leaderboard/."""
        return f"../{SEASONS}/{self.folder}"

    @property
    def source(self) -> str:
        """The leaderboard file, as the pages' comments name it."""
        return f"{SEASONS}/{self.folder}/leaderboard.json"


def check_folder(folder: Path, rel: str) -> None:
    if not SEASON_PATTERN.match(folder.name):
        raise ValueError(f"{rel}: a season folder is named like 'season0', got {folder.name!r}")


def load_season(folder: Path, root: Path) -> Season:
    """Read and check one season folder; errors name the file and the field."""
    rel = folder.relative_to(root).as_posix()
    check_folder(folder, rel)
    board = read_leaderboard(folder / "leaderboard.json", f"{rel}/leaderboard.json")
    provenance = read_provenance(folder / "provenance.json", f"{rel}/provenance.json")
    timing_path = folder / "timing.json"
    timing = read_timing(timing_path, f"{rel}/timing.json") if timing_path.is_file() else None
    files = tuple((p.name, p.stat().st_size) for p in sorted(folder.iterdir()) if p.is_file())
    names = {n for n, _ in files}
    for name, key in board.files.names():
        if name not in names:
            raise FileNotFoundError(
                f"{rel}/{name}: named by {rel}/leaderboard.json.files.{key} but missing; "
                f"run `python {EXPORT_SCRIPT}`"
            )
    return Season(folder.name, board, provenance, timing, files)


def load_seasons(root: Path) -> list[Season]:
    return [load_season(folder, root) for folder in season_dirs(root)]
