"""A season's JSON files as typed records: `Leaderboard` (`leaderboard.json`), `Provenance`
(`provenance.json`), `Timing` (`timing.json`) and the records they hold.

`leaderboard.build` and scripts/export_season.py write these files; `season_reader` reads
and checks them into these records, and the leaderboard pages (`marl_bgs.site`) read them
only that way, so every field a page shows is named and typed here. A field with a default
may be missing (files written before it existed); keys not named here are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

LEADERBOARD_FORMAT = "marl-bgs/leaderboard"
LEADERBOARD_VERSION = 1
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
