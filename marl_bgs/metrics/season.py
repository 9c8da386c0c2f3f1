"""A season's full metrics, read back and published: the Metrics Explorer's data and the
team measures (Table S14 / Figure 6) of every entrant, from files already on disk.

`scripts/replay_season_full.py` plays the season again and writes
`exports/seasons/<season>/full_metrics.parquet`; this module plays nothing. It checks that
the parquet belongs to the season's games (same games, same results, points, kills, deaths,
Ultimates and length), then builds the documents `scripts/export_team_measures.py` writes
under `exports/seasons/<season>/metrics/`.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core import checks
from .full import FULL_NAMES
from .system import system_metrics
from .team import FIGURE_MEASURES, season_team_measures
from .topics import TOPICS

EXPLORER_FORMAT = "marl-bgs/season-metrics"
MEASURES_FORMAT = "marl-bgs/team-measures"
FORMAT_VERSION = 1
FULL_FILE = "full_metrics.parquet"
FOLDER = "metrics"  # under the season's folder
EXPLORER_FILE = "explorer.json"
MEASURES_FILE = "team_measures.json"
MEASURES_CSV = "team_measures.csv"
TESTS_CSV = "team_tests.csv"
FIGURE_STEM = "team_measures"
REFITS = 2000
SEED = 0
_RESULT_CODE = {"a": 0, "b": 1, "draw": 2}
_SAME_AS_GAMES = (  # full column -> games column that must hold the same integers
    ("points_a", "points_b", "kills_a", "kills_b", "deaths_a", "deaths_b", "ultimates_used_a",
     "ultimates_used_b", "red_zone_deaths_a", "red_zone_deaths_b", "ticks")
)  # fmt: skip


@dataclass(frozen=True)
class SeasonFull:
    """A season's games beside their full metrics, row for row, and its ratings."""

    folder: Path
    table: pd.DataFrame  # games columns, then FULL_NAMES
    entrants: list[dict[str, Any]]  # name, type, elo, elo_low, elo_high (rating order)
    sources: dict[str, str]  # file name -> sha256 of what was read
    members: tuple[str, ...] = ()  # the field at the season's end (status "member")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def full_rows_differ(full: pd.DataFrame, games: pd.DataFrame) -> str | None:
    """Why the full-metrics rows `full` are not those of the games rows `games`, row for
    row (their fixture and game numbers, results, points, kills, deaths, Ultimates, red-zone
    deaths and ticks), or None where they are."""
    if len(full) != len(games):
        return f"{len(full)} games, the season has {len(games)}"
    for key in ("fixture", "game"):
        if (full[key].to_numpy() != games[key].to_numpy()).any():
            return f"its {key!r} column is not the season's, row for row"
    expected = {"result": games["result"].map(_RESULT_CODE).to_numpy()}
    expected |= {c: games[c].to_numpy() for c in _SAME_AS_GAMES}
    for name, want in expected.items():
        got = full[f"episode_results.{name}"].to_numpy()
        if (got != want).any():
            row = int(np.flatnonzero(got != want)[0])
            return (f"game {row} has episode_results.{name} = {got[row]}, the season's games "
                    f"say {want[row]}")  # fmt: skip
    return None


def load_season_full(folder: Path) -> SeasonFull:
    """Read games, full metrics and ratings of one published season; refuse a full-metrics
    file that is not this season's, naming the file and the first difference."""
    files = {n: folder / n for n in ("games.parquet", FULL_FILE, "ratings.json")}
    for name, path in files.items():
        if not path.is_file():
            hint = " (run scripts/replay_season_full.py)" if name == FULL_FILE else ""
            raise FileNotFoundError(f"{path}: missing{hint}")
    raw = {n: p.read_bytes() for n, p in files.items()}
    where = f"{folder.name}/{FULL_FILE}"
    games = pd.read_parquet(io.BytesIO(raw["games.parquet"]))
    full = pd.read_parquet(io.BytesIO(raw[FULL_FILE]))
    missing = [c for c in ("fixture", "game", *FULL_NAMES) if c not in full.columns]
    if missing:
        raise ValueError(f"{where}: lacks {len(missing)} column(s), e.g. {missing[0]!r}")
    problem = full_rows_differ(full, games)
    if problem:
        raise ValueError(f"{where}: {problem}; replay it with scripts/replay_season_full.py")
    board = checks.strict_json(raw["ratings.json"], f"{folder.name}/ratings.json")
    entrants = [
        {k: row[k] for k in ("name", "type", "elo", "elo_low", "elo_high")}
        for row in board["table"]
    ]
    members = tuple(row["name"] for row in board["table"] if row.get("status") == "member")
    table = pd.concat([games, full[list(FULL_NAMES)]], axis=1)
    return SeasonFull(folder, table, entrants, {n: _sha(b) for n, b in raw.items()}, members)


def _num(x: float, digits: int = 5) -> float | None:
    """Round to `digits` significant digits so files stay small and repeatable; NaN -> null."""
    if x is None or not math.isfinite(x):
        return None
    if x == 0:
        return 0.0
    return float(f"{x:.{digits}g}")


def _nums(values: Any) -> list[float | None]:
    return [_num(float(v)) for v in values]


def explorer_document(season: SeasonFull, refits: int = REFITS, seed: int = SEED) -> dict:
    """Every entrant's full metrics from its own side (`system_metrics`), for the Explorer."""
    per = {}
    for e in season.entrants:
        per[e["name"]] = system_metrics(season.table, e["name"], refits=refits, seed=seed)
    names = list(next(iter(per.values())).index)
    first = next(iter(per.values()))
    topics = [
        {
            "name": t.name,
            "section": t.section,
            "title": t.title,
            "description": t.description,
            "axes": [list(a) for a in t.axes],
            "columns": t.size,
            "pairs": t.pairs,
        }
        for t in TOPICS
    ]
    entrants = []
    for e in season.entrants:
        frame = per[e["name"]]
        entrants.append(
            {
                **e,
                "games": frame.attrs["games"],
                "pairs": frame.attrs["pairs"],
                "ticks": frame.attrs["ticks"],
                "total": _nums(frame["total"]),
                "value": _nums(frame["value"]),
                "low": _nums(frame["low"]),
                "high": _nums(frame["high"]),
            }
        )
    rosters = set(season.table["roster_a"]) | set(season.table["roster_b"])
    return {
        "format": EXPLORER_FORMAT,
        "version": FORMAT_VERSION,
        "season": season.folder.name,
        "sources": season.sources,
        "reading": "each entrant's games from its own side (its team is a), pooled; counts "
        "per 100 ticks, amounts in milli-HP or milli-units per 100 ticks",
        "refits": refits,
        "seed": seed,
        "level": first.attrs["level"],
        # Every game's teams had this roster, so slot labels can name classes; else null.
        "roster": rosters.pop().split(",") if len(rosters) == 1 else None,
        "topics": topics,
        "columns": names,
        "units": list(first["unit"]),
        "entrants": entrants,
    }


def measures_document(
    season: SeasonFull, refits: int = REFITS, seed: int = SEED
) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """(document, values table, tests table) of the season's team measures against Elo.

    Over the field (its members at the season's end), as the tournament rates it: a
    challenger that was not admitted (Random, say) is not one of the teams compared."""
    field = set(season.members) or {e["name"] for e in season.entrants}
    elo = {e["name"]: e["elo"] for e in season.entrants if e["name"] in field}
    values, tests = season_team_measures(season.table, elo, refits=refits, seed=seed)
    kinds = {e["name"]: e for e in season.entrants}
    doc = {
        "format": MEASURES_FORMAT,
        "version": FORMAT_VERSION,
        "season": season.folder.name,
        "sources": season.sources,
        "refits": refits,
        "seed": seed,
        "test": f"Spearman's rho against Elo over the field's {len(elo)} members; two-sided "
        "exact p over all "
        f"{tests.attrs['orderings']} orderings of the ratings; Holm's correction over the "
        f"{int(tests['p'].notna().sum())} measures with a defined rho",
        "figure": list(FIGURE_MEASURES),
        "measures": [
            {
                **{k: row[k] for k in ("measure", "group", "title", "unit", "note")},
                "rho": _num(row["rho"]),
                "p": _num(row["p"]),
                "holm": _num(row["holm"]),
            }
            for row in tests.to_dict("records")
        ],  # fmt: skip
        "entrants": [
            {
                **kinds[name],
                "values": {
                    r["measure"]: [_num(r["value"]), _num(r["low"]), _num(r["high"])]
                    for r in values[values["entrant"] == name].to_dict("records")
                },
            }
            for name in elo
        ],
    }
    return doc, values, tests


def _json_bytes(doc: dict, compact: bool = False) -> bytes:
    if compact:  # the Explorer's data: 15,000 numbers, read by the page, not by people
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    else:
        text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode()


def _csv_bytes(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False, float_format="%.6g", lineterminator="\n").encode()


def build_files(folder: Path, refits: int = REFITS, seed: int = SEED) -> dict[str, bytes]:
    """Every file of `<season>/metrics/`, in memory (name -> bytes)."""
    from .team_figure import draw_team_measures

    season = load_season_full(folder)
    doc, values, tests = measures_document(season, refits, seed)
    files = {
        EXPLORER_FILE: _json_bytes(explorer_document(season, refits, seed), compact=True),
        MEASURES_FILE: _json_bytes(doc),
        MEASURES_CSV: _csv_bytes(values),
        TESTS_CSV: _csv_bytes(tests),
    }
    files.update(draw_team_measures(doc, FIGURE_STEM))
    return files


__all__ = [
    "EXPLORER_FILE", "FOLDER", "MEASURES_FILE", "SeasonFull", "build_files",
    "explorer_document", "full_rows_differ", "load_season_full", "measures_document",
]  # fmt: skip
