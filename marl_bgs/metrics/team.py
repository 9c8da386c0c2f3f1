"""Team measures (the paper's Table S14 and Figure 6), derived from the full metrics.

Each measure is a ratio of two weighted sums of full-metrics columns read from a System's
own side (team a is the System): `scale * (totals @ numerator) / (totals @ denominator)`.
Pooling sums before dividing weights every tick alike, and the same form serves the pair
resampling: a refit's totals are a weighted sum of the spawn-swapped pairs' totals.

`season_team_measures` gives every entrant's measures and, per measure, Spearman's rho
against the entrants' Elo with its exact permutation p and Holm's correction over the
measures that vary. Where our columns cannot give the paper's exact definition, the
measure says what it is instead (`note`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from .full import FULL_NAMES
from .rank_tests import holm, spearman_exact
from .system import (
    DEFAULT_LEVEL,
    DEFAULT_REFITS,
    TICKS,
    check_resampling,
    interval,
    own_games,
    resample_weights,
)

MILLI = 1000.0  # full metrics hold milli-HP and milli-units
PER_100_TICKS = "per 100 ticks"


@dataclass(frozen=True)
class TeamMeasure:
    """One team measure: column patterns (full regexes over own-side names) with weights."""

    key: str
    group: str
    title: str
    unit: str
    numerator: tuple[tuple[str, float], ...]
    denominator: tuple[tuple[str, float], ...]
    scale: float
    note: str = ""

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        """(numerator, denominator) weight vectors over FULL_NAMES."""
        return _weights(self.numerator), _weights(self.denominator)


def _weights(terms: tuple[tuple[str, float], ...]) -> np.ndarray:
    w = np.zeros(len(FULL_NAMES))
    for pattern, weight in terms:
        hits = [i for i, n in enumerate(FULL_NAMES) if re.fullmatch(pattern, n)]
        if not hits:  # pragma: no cover - a table bug, caught by the tests
            raise AssertionError(f"team measure: no column matches {pattern!r}")
        w[hits] += weight
    return w


def _rate(key, group, title, column, scale=100.0, unit=PER_100_TICKS, note="") -> TeamMeasure:
    """A count per 100 ticks (amounts in milli-units: pass scale=100 / MILLI)."""
    return TeamMeasure(key, group, title, unit, ((column, 1.0),), ((re.escape(TICKS), 1.0),), scale, note)  # fmt: skip


A = r"a\d"  # any of the System's own slots
B = r"b\d"  # any opponent slot

TEAM_MEASURES: tuple[TeamMeasure, ...] = (
    TeamMeasure(
        "teammate_distance", "Formation", "Teammate distance", "map units",
        ((rf"formation\.{A}\.and_{A}\.distance", 1.0),),
        ((rf"formation\.{A}\.and_{A}\.ticks", 1.0),), 1.0 / MILLI,
        "Mean distance between living teammates, weighted by the ticks both were alive.",
    ),
    TeamMeasure(
        "time_in_mage_aura", "Formation", "Time inside a Mage aura", "% of living ticks",
        ((rf"aura_coverage\.{A}\.any_mage", 1.0),),
        ((rf"aura_coverage\.{A}\.alive", 1.0),), 100.0,
        "A Mage inside its own aura counts.",
    ),
    TeamMeasure(
        "time_in_warrior_aura", "Formation", "Time inside a Warrior aura", "% of living ticks",
        ((rf"aura_coverage\.{A}\.any_warrior", 1.0),),
        ((rf"aura_coverage\.{A}\.alive", 1.0),), 100.0,
        "A Warrior inside its own aura counts.",
    ),
    _rate("mage_aura_damage", "Aura payoff", "Damage Mage auras added",
          r"aura_payoff\.a\.mage_added", 100.0 / MILLI, "HP per 100 ticks"),
    TeamMeasure(
        "warrior_aura_protection", "Aura payoff", "Warrior aura protection",
        "HP kept off per 100 HP taken",
        ((r"aura_payoff\.a\.warrior_blocked", 1.0),),
        ((rf"damage_received\.{A}\.total", 1.0),), 100.0,
    ),
    TeamMeasure(
        "useful_healing_share", "Support", "Useful share of ability healing", "%",
        ((rf"healing_done\.by_{A}\.to_{A}\.(basic|ultimate)", 1.0),
         (rf"excess_healing\.by_({A}|shared)\.to_{A}", -1.0)),
        ((rf"healing_done\.by_{A}\.to_{A}\.(basic|ultimate)", 1.0),), 100.0,
        "Healing that restored missing health. The paper counts Basic healing only; our "
        "excess healing is not split by ability, so Salvation's healing is included.",
    ),
    _rate("damage_to_hunter_slowed", "Setups", "Damage to Hunter-slowed enemies",
          rf"damage_to_affected\.by_{A}\.to_{B}\.slow_hunter", 100.0 / MILLI,
          "HP per 100 ticks"),
    TeamMeasure(
        "kills_with_helpers", "Setups", "Kills with two or more helpers", "% of kills",
        ((r"coordination\.a\.kills_with_helpers", 1.0),),
        ((r"episode_results\.kills_a", 1.0),), 100.0,
        "Kills of an enemy that two or more of the team had damaged in that life (the paper "
        "counts damage or a useful heal on the killing tick).",
    ),
    _rate("focus_ticks", "Setups", "Ticks with two or more attackers",
          r"coordination\.a\.focus_ticks",
          note="Ticks on which two or more of the team damaged the same enemy."),
    TeamMeasure(
        "kills_of_charge_slowed", "Abilities", "Kill credits on Charge-slowed enemies",
        "% of kill credits",
        ((rf"kills_of_affected\.by_{A}\.of_{B}\.slow_charge", 1.0),),
        ((rf"kill_contributions\.by_{A}\.of_{B}\.kill", 1.0),), 100.0,
        "Our stand-in for the paper's share of kills a Warrior Ultimate helped: kill credits "
        "on enemies still slowed by a Warrior's Charge.",
    ),
    _rate("ultimates_used", "Abilities", "Ultimates used", r"episode_results\.ultimates_used_a"),
    _rate("basic_used", "Abilities", "Basic abilities used",
          rf"activations\.by_{A}\.basic\.on_.*"),
    _rate("kills", "Results", "Kills", r"episode_results\.kills_a"),
    _rate("deaths", "Results", "Deaths", r"episode_results\.deaths_a"),
)  # fmt: skip

# The six panels of the figure, as in the paper's Figure 6.
FIGURE_MEASURES = (
    "teammate_distance",
    "warrior_aura_protection",
    "damage_to_hunter_slowed",
    "kills_with_helpers",
    "useful_healing_share",
    "focus_ticks",
)


@cache
def _matrices() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K, M) numerator and denominator weights and (M,) scales of every measure."""
    pairs = [m.weights() for m in TEAM_MEASURES]
    num = np.stack([p[0] for p in pairs], axis=1)
    den = np.stack([p[1] for p in pairs], axis=1)
    return num, den, np.array([m.scale for m in TEAM_MEASURES])


def _values(num: np.ndarray, den: np.ndarray, scale: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, scale * num / np.where(den > 0, den, 1.0), np.nan)


def team_measures(
    results: Any,
    system: str,
    *,
    refits: int = DEFAULT_REFITS,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> pd.DataFrame:
    """`system`'s team measures over its games in `results`, pooled over the games.

    The refits draw the same pairs as `system_metrics` with the same seed.

    Args:
        results: What `system_metrics` takes: an EvalResult evaluated with
            `metrics="full"`, a list of them, or a season's table of games with the full
            columns beside them.
        system: The System's name as the results write it.
        refits: Pair-resampled refits behind the interval, at least 2.
        seed: The resampling's seed, 0 or more.
        level: The interval's coverage, strictly between 0 and 1.

    Returns:
        One row per measure, indexed by its key: `group`, `title`, `unit`, `value` (NaN
            where the games give the measure nothing to divide by) and `low`/`high`, the
            `level` interval from the refits. `attrs` holds `system`, `games`, `pairs`,
            `refits`, `seed` and `level`.

    Raises:
        TypeError: An item of `results` that is not an EvalResult.
        FieldTypeError: `refits` or `seed` not a whole number (also a ValueError).
        ValueError: `refits`, `seed` or `level` out of range; results without full
            metrics (or whose full metrics and games do not match row for row); a
            `system` that played none of the games, or both teams of one.
    """
    check_resampling(refits, seed, level)
    own = own_games(results, system)
    num_w, den_w, scale = _matrices()
    units = own.unit_sums()
    unit_num, unit_den = units @ num_w, units @ den_w
    value = _values(unit_num.sum(axis=0), unit_den.sum(axis=0), scale)
    weights = resample_weights(own.strata, own.units, refits, seed)
    refit = _values(weights @ unit_num, weights @ unit_den, scale)
    low, high = interval(refit, level)
    frame = pd.DataFrame(
        {
            "group": [m.group for m in TEAM_MEASURES],
            "title": [m.title for m in TEAM_MEASURES],
            "unit": [m.unit for m in TEAM_MEASURES],
            "value": value,
            "low": low,
            "high": high,
        },
        index=pd.Index([m.key for m in TEAM_MEASURES], name="measure"),
    )
    frame.attrs.update(system=system, games=int(len(own.values)), pairs=int(own.units),
                       refits=int(refits), seed=int(seed), level=float(level))  # fmt: skip
    return frame


def season_team_measures(
    results: Any,
    elo: Mapping[str, float],
    *,
    refits: int = DEFAULT_REFITS,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every entrant's team measures and their rank tests against Elo.

    Returns (`values`: one row per entrant and measure, with `elo`; `tests`: one row per
    measure with `rho`, its exact two-sided `p`, and `holm`, Holm's correction over the
    measures whose rho is defined)."""
    if len(elo) < 3:
        raise ValueError(f"elo: a rank test needs at least 3 entrants, got {len(elo)}")
    rows = []
    for name, rating in elo.items():
        frame = team_measures(results, name, refits=refits, seed=seed, level=level)
        frame = frame.reset_index()
        frame.insert(0, "entrant", name)
        frame.insert(1, "elo", float(rating))
        rows.append(frame)
    values = pd.concat(rows, ignore_index=True)
    names = list(elo)
    ratings = [float(elo[n]) for n in names]
    tests = []
    for m in TEAM_MEASURES:
        by = values[values["measure"] == m.key].set_index("entrant")["value"]
        ys = [float(by[n]) for n in names]
        if any(np.isnan(ys)):
            rho, p = float("nan"), float("nan")
        else:
            rho, p = spearman_exact(ratings, ys)
        tests.append({"measure": m.key, "group": m.group, "title": m.title, "unit": m.unit,
                      "rho": rho, "p": p, "note": m.note})  # fmt: skip
    table = pd.DataFrame(tests)
    table.insert(table.columns.get_loc("p") + 1, "holm", holm(table["p"].to_numpy()))
    table.attrs.update(entrants=len(names), orderings=int(np.prod(range(1, len(names) + 1))))
    return values, table


__all__ = [
    "FIGURE_MEASURES", "TEAM_MEASURES", "TeamMeasure", "season_team_measures", "team_measures",
]  # fmt: skip
