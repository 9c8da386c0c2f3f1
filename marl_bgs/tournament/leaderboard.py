"""A season's games turned into the leaderboard data set: ratings, tiers, matchups, maps.

Everything a leaderboard page shows is computed here, once, and written as JSON; the page
only lays it out. Numbers are rounded (Elo to 0.1, shares to 1e-4) so the files stay
readable and identical from run to run.

The files are also read back here, as typed records (`Leaderboard`, `Provenance`, `Timing`,
built by `read_record` from their type hints): the one reader and checker of a season's
JSON, shared by `scripts/export_season.py` (which checks what it writes) and the site's
leaderboard pages.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from pathlib import Path
from types import UnionType
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

import numpy as np
import pandas as pd

from ..core import checks
from .heterogeneity import entrant_heterogeneity, pairing_heterogeneity, per_map_ratings
from .intervals import DEFAULT_LEVEL, DEFAULT_REFITS, bootstrap, pair_units
from .ratings import (
    DEFAULT_PRIOR_GAMES,
    ELO_CENTRE,
    PairCounts,
    expected_probabilities,
    finite_without_prior,
)
from .tiers import tier_of, tier_table, win_chance

LEADERBOARD_FORMAT = "marl-bgs/leaderboard"
LEADERBOARD_VERSION = 1
EXPORT_SCRIPT = "scripts/export_season.py"  # writes every file of a season's folder
T = TypeVar("T")


def _round_or_none(x: float, digits: int = 1) -> float | None:
    """x rounded to `digits` decimals; None for NaN or an infinity (JSON has neither)."""
    x = float(x)
    return None if not np.isfinite(x) else round(x, digits)


def from_side(games: pd.DataFrame, name: str) -> pd.DataFrame:
    """An entrant's games read from its own side (opponent, outcome, points, kills...)."""
    parts = []
    for mine, theirs, win in (("a", "b", "a"), ("b", "a", "b")):
        sub = games[games[f"entrant_{mine}"] == name]
        outcome = np.where(
            sub["result"] == "draw", "draw", np.where(sub["result"] == win, "win", "loss")
        )
        parts.append(
            pd.DataFrame(
                {
                    "opponent": sub[f"entrant_{theirs}"].to_numpy(),
                    "map_id": sub["map_id"].to_numpy(),
                    "outcome": outcome,
                    "points_for": sub[f"points_{mine}"].to_numpy(),
                    "points_against": sub[f"points_{theirs}"].to_numpy(),
                    "kills": sub[f"kills_{mine}"].to_numpy(),
                    "deaths": sub[f"deaths_{mine}"].to_numpy(),
                }
            )
        )
    out = pd.concat(parts, ignore_index=True)
    out["margin"] = out["points_for"] - out["points_against"]
    return out


def record(side: pd.DataFrame) -> dict:
    """Games, wins, draws, losses, score share and per-game averages of some games."""
    n = len(side)
    w = int((side["outcome"] == "win").sum())
    d = int((side["outcome"] == "draw").sum())
    lo = int((side["outcome"] == "loss").sum())
    mean = (lambda c: _round_or_none(side[c].mean(), 3)) if n else (lambda c: None)
    return {
        "games": n,
        "wins": w,
        "draws": d,
        "losses": lo,
        "score": _round_or_none((w + 0.5 * d) / n, 4) if n else None,
        "win_rate_decisive": _round_or_none(w / (w + lo), 4) if w + lo else None,
        "margin_mean": mean("margin"),
        "points_for_mean": mean("points_for"),
        "points_against_mean": mean("points_against"),
        "kills_mean": mean("kills"),
        "deaths_mean": mean("deaths"),
    }


def _prior_bound(rec: dict) -> str | None:
    """'lower' for an entrant that won every game, 'upper' for one that lost every game.

    Its distance from the field is then set by the weak prior (and the number of games), not
    by the games themselves: the true gap may be larger still.
    """
    if rec["games"] and rec["wins"] == rec["games"]:
        return "lower"
    if rec["games"] and rec["losses"] == rec["games"]:
        return "upper"
    return None


def build(
    games: pd.DataFrame,
    entrants: Sequence[dict],
    refits: int = DEFAULT_REFITS,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    prior_games: float = DEFAULT_PRIOR_GAMES,
    statuses: dict[str, str] | None = None,
) -> tuple[dict, dict]:
    """(leaderboard dict, extra facts such as refits per second) from every game of a season.

    `entrants` are the entrants file's entries (name, type, load) that played.
    """
    names = [e["name"] for e in entrants]
    kinds = {e["name"]: e["type"] for e in entrants}
    iv = bootstrap(games, refits, seed, level, names, prior_games)
    units = pair_units(games, names)
    fit = iv.fit
    elo = fit.elo
    model_sd = fit.elo_sd()
    order = sorted(range(len(names)), key=lambda k: (-elo[k], names[k]))
    table = []
    for rank, k in enumerate(order, start=1):
        name = names[k]
        tier = tier_of(float(elo[k]))
        rec = record(from_side(games, name))
        table.append(
            {
                "rank": rank,
                "name": name,
                "type": kinds[name],
                "status": (statuses or {}).get(name, "member"),
                "elo": _round_or_none(elo[k]),
                "elo_low": _round_or_none(iv.low[k]),
                "elo_high": _round_or_none(iv.high[k]),
                "elo_sd": _round_or_none(iv.sd[k]),  # spread of the refits
                "elo_sd_model": _round_or_none(model_sd[k]),  # inverse information, prior included
                "tier": tier.name,
                "division": tier.division,
                "tier_label": tier.label,
                "win_chance": _round_or_none(win_chance(float(elo[k])), 4),
                "prior_bound": _prior_bound(rec),
                **rec,
            }
        )
    ranked = [names[k] for k in order]
    sides = {name: from_side(games, name) for name in names}
    cells = []
    nu = float(fit.nu)
    for row in ranked:
        line = []
        for col in ranked:
            sub = sides[row][sides[row]["opponent"] == col]
            if row == col or sub.empty:
                line.append(None)
                continue
            pw, pd_, _ = expected_probabilities(
                float(elo[names.index(row)]), float(elo[names.index(col)]), nu
            )
            line.append({**record(sub), "expected_score": _round_or_none(pw + 0.5 * pd_, 4)})
        cells.append(line)
    maps = sorted(int(m) for m in games["map_id"].unique())
    map_results = []
    for name in ranked:
        for m in maps:
            sub = sides[name][sides[name]["map_id"] == m]
            map_results.append({"map_id": m, "entrant": name, **record(sub)})
    per_map = per_map_ratings(games, names, refits, seed, level, prior_games)
    het_e = entrant_heterogeneity(per_map)
    het_p = pairing_heterogeneity(games, names, refits, seed, prior_games)
    board = {
        "format": LEADERBOARD_FORMAT,
        "version": LEADERBOARD_VERSION,
        "rating": {
            "model": "Bradley-Terry-Davidson, one joint maximum-likelihood fit of every game",
            "elo_per_factor_of_ten": 400,
            "centre": ELO_CENTRE,
            "draw_nu": _round_or_none(nu, 6),
            "draw_chance_between_equals": _round_or_none(nu / (2 + nu), 4),
            "prior_games_per_pairing": prior_games,
            "finite_without_prior": finite_without_prior(
                PairCounts(units.entrants, units.pairs, units.counts())
            ),
            "interval_level": level,
            "refits": refits,
            "refit_seed": seed,
            "resampling": "whole spawn-swapped pairs with replacement within each "
            "(pairing, map); NumPy default_rng(refit_seed) (PCG64)",
            # where every pair of a stratum ended alike (deterministic Systems, sweeps),
            # resampling cannot move it: intervals then show only the other strata's spread
            "strata": len(units.strata),
            "strata_all_alike": sum(
                len(np.unique(units.unit_counts[m], axis=0)) == 1 for m in units.strata
            ),
        },
        "table": table,
        "matchups": {
            "entrants": ranked,
            "orientation": "cells[i][j]: the row entrant's games against the column entrant",
            "cells": cells,
        },
        "per_map": {
            "maps": maps,
            "results": map_results,
            "ratings": [
                {
                    "map_id": int(r.map_id),
                    "entrant": r.entrant,
                    "elo": _round_or_none(r.elo),
                    "elo_low": _round_or_none(r.elo_low),
                    "elo_high": _round_or_none(r.elo_high),
                    "sampling_sd": _round_or_none(r.sampling_sd),
                }
                for r in per_map.itertuples()
            ],
            "refit_seed": f"default_rng([{seed}, map_id])",
        },
        "heterogeneity": {
            "entrants": [
                {**_het_row(r), "one_sided": _one_sided(record(sides[r["entrant"]]))}
                for r in het_e.to_dict("records")
            ],
            "pairings": [
                {**_het_row(r), "swept_by": _swept_by(sides, r["entrant_i"], r["entrant_j"])}
                for r in het_p.to_dict("records")
            ],
            "refit_seed_pairings": f"default_rng([{seed}, i, j, map_id])",
            "method": "Cochran's Q over maps with inverse-variance weights, DerSimonian-Laird "
            "tau^2 (Elo^2), Higgins' I^2 = max(0, (Q - df) / Q)",
        },
        "tiers": tier_table(),
    }
    return board, {"refits_per_second": iv.refits_per_second, "per_map": per_map}


def _one_sided(rec: dict) -> str | None:
    """'won no game' or 'lost no game' when an entrant's season went one way on every map.

    Its per-map ratings then rest on draws and the weak prior alone, not on how it played
    one map against another, so Q, tau and I^2 say nothing about where it plays well.
    """
    if rec["games"] and rec["wins"] == 0:
        return "won no game"
    if rec["games"] and rec["losses"] == 0:
        return "lost no game"
    return None


def _swept_by(sides: dict[str, pd.DataFrame], i: str, j: str) -> str | None:
    """The entrant of a pairing that won every one of its games, if one did: each map's lead
    is then the weak prior's cap, the same on every map, and the test measures nothing."""
    rec = record(sides[i][sides[i]["opponent"] == j])
    if rec["games"] and rec["wins"] == rec["games"]:
        return i
    if rec["games"] and rec["losses"] == rec["games"]:
        return j
    return None


def _het_row(row: dict) -> dict:
    out = {}
    for key, value in row.items():
        if isinstance(value, list):
            out[key] = [_round_or_none(v) if isinstance(v, float) else v for v in value]
        elif isinstance(value, (float, np.floating)):
            out[key] = _round_or_none(value, 4 if key in ("i2", "p") else 1)
        elif isinstance(value, np.integer):
            out[key] = int(value)
        else:
            out[key] = value
    return out


# ---- the files as typed records: the one reader and checker of the season's JSON -------------
# `build` above and scripts/export_season.py write these files; the leaderboard pages
# (`marl_bgs.site.leaderboard_page`) read them only through `read_season_files`, so every field
# a page shows is named, typed and checked here. A field with a default may be missing (files
# written before it existed); keys not named here are ignored.
PROVENANCE_FORMAT = "marl-bgs/season-provenance"


@dataclass(frozen=True, kw_only=True)
class Record:
    """Games, wins, draws, losses, score share and per-game averages of some games."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float | None
    win_rate_decisive: float | None
    margin_mean: float | None
    points_for_mean: float | None
    points_against_mean: float | None
    kills_mean: float | None
    deaths_mean: float | None


@dataclass(frozen=True, kw_only=True)
class SeasonFacts:
    """How many games, pairs, seed numbers, fixtures and maps a season had, and its field."""

    games: int
    pairs: int
    seed_numbers: int
    fixtures: int
    maps: tuple[int, ...]
    games_per_map: int
    games_per_pairing: int
    root_seed: int
    field_size: int
    field: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class RatingModel:
    """The rating model's settings and the bootstrap's (`leaderboard.json`'s `rating`)."""

    model: str
    elo_per_factor_of_ten: float
    centre: float
    draw_nu: float
    draw_chance_between_equals: float
    prior_games_per_pairing: float
    finite_without_prior: bool
    interval_level: float
    refits: int
    refit_seed: int
    resampling: str
    strata: int
    strata_all_alike: int


@dataclass(frozen=True, kw_only=True)
class Standing(Record):
    """One row of the standings: rank, entrant, rating, interval, tier and record."""

    rank: int
    name: str
    type: str
    status: str
    elo: float
    elo_low: float | None
    elo_high: float | None
    elo_sd: float | None
    elo_sd_model: float | None
    tier: str
    division: int | None
    tier_label: str
    win_chance: float
    prior_bound: str | None


@dataclass(frozen=True, kw_only=True)
class Matchup(Record):
    """The row entrant's games against the column entrant, with the model's expectation."""

    score: float  # never None: a cell exists only where the two met
    expected_score: float


@dataclass(frozen=True, kw_only=True)
class Matchups:
    """`cells[i][j]`: the games of `entrants[i]` against `entrants[j]` (None on the diagonal
    and for pairings that never met)."""

    entrants: tuple[str, ...]
    orientation: str
    cells: tuple[tuple[Matchup | None, ...], ...]


@dataclass(frozen=True, kw_only=True)
class MapResult(Record):
    """One entrant's record on one map."""

    map_id: int
    entrant: str


@dataclass(frozen=True, kw_only=True)
class MapRating:
    """One entrant's rating from one map's games alone."""

    map_id: int
    entrant: str
    elo: float
    elo_low: float | None
    elo_high: float | None
    sampling_sd: float | None


@dataclass(frozen=True, kw_only=True)
class PerMap:
    """Records and ratings map by map."""

    maps: tuple[int, ...]
    results: tuple[MapResult, ...]
    ratings: tuple[MapRating, ...]
    refit_seed: str


@dataclass(frozen=True, kw_only=True)
class Spread:
    """Cochran's Q, tau and I^2 of one entrant's (or pairing's) per-map values."""

    maps: int
    pooled: float
    q: float | None
    df: int
    p: float | None
    tau2: float | None
    tau: float | None
    i2: float | None
    typical_sampling_variance: float | None = None
    typical_sampling_sd: float | None = None


@dataclass(frozen=True, kw_only=True)
class EntrantSpread(Spread):
    """How much one entrant's rating changes from map to map."""

    entrant: str
    one_sided: str | None = None  # 'won no game' / 'lost no game': the test means nothing


@dataclass(frozen=True, kw_only=True)
class PairingSpread(Spread):
    """How much one pairing's Elo lead changes from map to map."""

    entrant_i: str
    entrant_j: str
    map_ids: tuple[int, ...]
    leads: tuple[float | None, ...]
    lead_sds: tuple[float | None, ...]
    swept_by: str | None = None  # the entrant that won every game of the pairing


@dataclass(frozen=True, kw_only=True)
class Heterogeneity:
    """Does a rating hold on every map: per entrant and per pairing."""

    entrants: tuple[EntrantSpread, ...]
    pairings: tuple[PairingSpread, ...]
    refit_seed_pairings: str
    method: str


@dataclass(frozen=True, kw_only=True)
class Division:
    """One division of a tier (Elo bounds inclusive; None: open)."""

    division: int
    elo_low: float | None
    elo_high: float | None


@dataclass(frozen=True, kw_only=True)
class TierRange:
    """One tier of Table S8: its Elo range, win chance against 1,200 and divisions."""

    tier: str
    elo_low: float | None
    elo_high: float | None
    win_chance_low: float | None
    win_chance_high: float | None
    divisions: tuple[Division, ...]


@dataclass(frozen=True, kw_only=True)
class Admission:
    """One challenger's try at entering the field."""

    challenger: str
    elo: float
    field_elo: dict[str, float]
    lowest_member: str
    lowest_elo: float
    admitted: bool
    replaced: str | None
    reason: str


@dataclass(frozen=True, kw_only=True)
class SeasonFiles:
    """The files of the season's folder that the leaderboard names."""

    games_csv: str
    games_parquet: str
    ratings_json: str
    ratings_csv: str
    per_map_ratings_csv: str
    provenance: str
    timing: str
    figures: dict[str, tuple[str, ...]]

    def names(self) -> list[tuple[str, str]]:
        """(file name, the field naming it) of every file named here."""
        out = [(getattr(self, f.name), f.name) for f in fields(self) if f.name != "figures"]
        for key, names in self.figures.items():
            out += [(name, f"figures.{key}[{k}]") for k, name in enumerate(names)]
        return out


@dataclass(frozen=True, kw_only=True)
class Leaderboard:
    """`leaderboard.json`: everything a season's leaderboard pages show."""

    format: str
    version: int
    season: str
    season_facts: SeasonFacts
    rating: RatingModel
    table: tuple[Standing, ...]
    matchups: Matchups
    per_map: PerMap
    heterogeneity: Heterogeneity
    tiers: tuple[TierRange, ...]
    admissions: tuple[Admission, ...]
    files: SeasonFiles
    description: str = ""


@dataclass(frozen=True, kw_only=True)
class Fixture:
    """One fixture of the schedule, as `provenance.json` records it."""

    index: int
    stage: str
    entrant_a: str
    entrant_b: str
    maps: tuple[int, ...]
    games: int
    first_seed: int


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """`provenance.json`: what produced a season's files (command, versions, schedule)."""

    format: str
    version: int
    season: str
    entrants_file: Any  # the entrants file as it was read (plain JSON)
    versions: dict[str, Any]  # package -> version; `evaluate`: the games' own versions
    root_seed: int
    refits: int
    refit_seed: int
    command: str
    schedule_rule: str
    fixtures: tuple[Fixture, ...]


@dataclass(frozen=True, kw_only=True)
class Timing:
    """`timing.json`: how long the export that played the games took."""

    wall_seconds: float
    playing_seconds: float
    rating_seconds: float
    refits_per_second: float
    fixture_seconds: dict[str, float] = field(default_factory=dict)
    resumed_fixtures: tuple[int, ...] = ()


def read_record(kind: Any, value: Any, where: str) -> Any:
    """`value` (parsed JSON) checked against the type `kind` and built into it: a record
    class above, `int`, `float`, `str`, `bool`, `X | None`, `tuple[X, ...]`, `dict[str, X]`
    or `Any` (kept as it is). Every error names the field (`where.table[1].elo`)."""
    if kind is Any:
        return value
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return read_record(inner, value, where)
    if origin is tuple:
        items = checks.sequence(value, where)
        return tuple(read_record(args[0], v, f"{where}[{k}]") for k, v in enumerate(items))
    if origin is dict:
        items = checks.mapping(value, where)
        return {
            checks.string(k, where): read_record(args[1], v, f"{where}.{k}")
            for k, v in items.items()
        }
    if kind is int:
        return checks.whole(value, where)
    if kind is float:
        return checks.number(value, where)
    if kind is str:
        return checks.string(value, where)
    if kind is bool:
        return checks.boolean(value, where)
    if is_dataclass(kind):
        data = checks.mapping(value, where)
        hints = _hints(kind)
        out = {}
        for f in fields(kind):
            if f.name in data:
                out[f.name] = read_record(hints[f.name], data[f.name], f"{where}.{f.name}")
            elif f.default is MISSING and f.default_factory is MISSING:
                raise ValueError(f"{where}.{f.name}: missing")
        return kind(**out)
    raise TypeError(f"read_record: no reader for {kind!r}")


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return get_type_hints(kind)


def read_json(path: Path, rel: str, kind: type[T], fmt: str | None = None) -> T:
    """One JSON file read strictly (`core.checks.strict_json`) and checked as `kind`; `fmt`:
    the `format` it must name. Errors name `rel` and the field."""
    if not path.is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {EXPORT_SCRIPT}` to write it")
    data = checks.strict_json(path.read_bytes(), rel)
    if fmt is not None:
        got = checks.mapping(data, rel).get("format")
        if got != fmt:
            raise ValueError(f"{rel}.format: expected {fmt!r}, got {got!r}")
    return read_record(kind, data, rel)


def read_leaderboard(path: Path, rel: str) -> Leaderboard:
    """`leaderboard.json`, checked: its format and version, every field's type, and a square
    matchup table."""
    board = read_json(path, rel, Leaderboard, LEADERBOARD_FORMAT)
    if board.version != LEADERBOARD_VERSION:
        raise ValueError(f"{rel}.version: expected {LEADERBOARD_VERSION}, got {board.version!r}")
    n = len(board.matchups.entrants)
    if len(board.matchups.cells) != n:
        where = f"{rel}.matchups.cells"
        raise ValueError(f"{where}: expected {n} rows, got {len(board.matchups.cells)}")
    for i, line in enumerate(board.matchups.cells):
        if len(line) != n:
            where = f"{rel}.matchups.cells[{i}]"
            raise ValueError(f"{where}: expected {n} cells, got {len(line)}")
    return board


def read_provenance(path: Path, rel: str) -> Provenance:
    """`provenance.json`, checked."""
    return read_json(path, rel, Provenance, PROVENANCE_FORMAT)


def read_timing(path: Path, rel: str) -> Timing:
    """`timing.json`, checked."""
    return read_json(path, rel, Timing)
