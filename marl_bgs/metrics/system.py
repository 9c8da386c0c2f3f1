"""One System's full metrics, read from its own side, pooled over its games, as rates.

A game's full metrics name the game's own teams a and b. `system_metrics` turns every game
into its System's point of view (`own_side`: when it played team b, every a label becomes b
and back, and a result of 0 means its own win), pools the games, and divides each count by
the ticks played, per 100 ticks, because games differ in length.

The 95% intervals resample whole spawn-swapped pairs (the two games of a pair share map and
seed and are not independent) within each (opponent, map) stratum, as the season's rating
intervals do, and take the middle 95% of the pooled rates. Repeatable: strata in sorted
order, units within a stratum in order of (source, pair), NumPy's `default_rng(seed)`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from ..core.checks import whole
from .full import FULL_NAMES
from .topics import TOPICS

RESULT = "episode_results.result"
TICKS = "episode_results.ticks"
# The three rows `system_metrics` gives in place of the result code.
OUTCOMES = ("episode_results.won", "episode_results.drawn", "episode_results.lost")
DEFAULT_REFITS = 2000
DEFAULT_LEVEL = 0.95
_SLOT = re.compile(r"^(by_|to_|of_|on_|and_|)([ab])([0-9])$")
_SWAP = {"a": "b", "b": "a"}


def flipped_name(name: str) -> str:
    """The column that holds the same count seen from the other team."""
    topic, _, rest = name.partition(".")
    if topic == "episode_results":
        for own, other in (("_a", "_b"), ("_b", "_a")):
            if rest.endswith(own):
                return f"{topic}.{rest[: -len(own)]}{other}"
        return name
    labels = []
    for label in rest.split("."):
        slot = _SLOT.match(label)
        if slot:
            label = f"{slot[1]}{_SWAP[slot[2]]}{slot[3]}"
        elif label in _SWAP:  # the per-team axis of a topic
            label = _SWAP[label]
        labels.append(label)
    return ".".join([topic, *labels])


@cache
def side_swap() -> np.ndarray:
    """Column order that reads a game from team b's side: `values[..., side_swap()]`."""
    index = {n: i for i, n in enumerate(FULL_NAMES)}
    order = np.array([index[flipped_name(n)] for n in FULL_NAMES])
    if sorted(order.tolist()) != list(range(len(FULL_NAMES))):  # pragma: no cover - table bug
        raise AssertionError("full metrics: the side swap is not a permutation")
    return order


def own_side(values: np.ndarray, side: np.ndarray) -> np.ndarray:
    """(games, FULL_SIZE) values as seen by the team in `side` (0: a, 1: b) of each game."""
    values = np.asarray(values)
    side = np.asarray(side, bool)
    out = np.where(side[:, None], values[:, side_swap()], values)
    result = FULL_NAMES.index(RESULT)
    code = out[:, result]
    out[:, result] = np.where(side & (code == 0), 1, np.where(side & (code == 1), 0, code))
    return out


@dataclass(frozen=True)
class OwnGames:
    """One System's games from its own side, grouped into resampling units."""

    system: str
    values: np.ndarray  # (games, FULL_SIZE) int64, own side
    unit: np.ndarray  # (games,) unit (spawn-swapped pair) of each game
    strata: list[np.ndarray]  # unit indices of each (opponent, map) stratum, in order
    opponents: tuple[str, ...]

    @property
    def units(self) -> int:
        return len(np.unique(self.unit))

    def unit_sums(self, values: np.ndarray | None = None) -> np.ndarray:
        """(units, K) sums of `values` (default: the columns) over each unit's games."""
        values = self.values if values is None else values
        out = np.zeros((self.units, values.shape[1]), np.float64)
        np.add.at(out, self.unit, values)
        return out


def _frames(results: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The games and the full metrics of `results`, row for row, with a `source` column."""
    if isinstance(results, pd.DataFrame):
        missing = [n for n in FULL_NAMES if n not in results.columns]
        if missing:
            raise ValueError(
                f"results: the table lacks {len(missing)} full-metrics column(s), e.g. "
                f"{missing[0]!r}; evaluate with metrics='full'"
            )
        games = results.copy()
        if "source" not in games:
            games["source"] = games["fixture"] if "fixture" in games else 0
        return games, results[list(FULL_NAMES)]
    many = list(results) if isinstance(results, (list, tuple)) else [results]
    if not many:
        raise ValueError("results: no evaluation results given")
    games, full = [], []
    for k, r in enumerate(many):
        where = f"results[{k}]" if len(many) > 1 else "results"
        if not hasattr(r, "games") or not hasattr(r, "full"):
            raise TypeError(f"{where}: expected an EvalResult, got {type(r).__name__}")
        if not len(r.full):
            raise ValueError(f"{where}: has no full metrics; evaluate with metrics='full'")
        if len(r.full) != len(r.games) or (r.full["game"].to_numpy() != r.games["game"].to_numpy()).any():  # fmt: skip
            raise ValueError(f"{where}: its full metrics and games do not match row for row")
        g = r.games.copy()
        g["source"] = k
        games.append(g)
        full.append(r.full[list(FULL_NAMES)])
    return pd.concat(games, ignore_index=True), pd.concat(full, ignore_index=True)


def own_games(results: Any, system: str) -> OwnGames:
    """`system`'s games in `results` (EvalResults, or one table of games and full
    columns such as a season's), each read from its own side."""
    games, full = _frames(results)
    names = ("entrant_a", "entrant_b") if "entrant_a" in games else ("system_a", "system_b")
    a = games[names[0]].astype(str).to_numpy()
    b = games[names[1]].astype(str).to_numpy()
    mine_a, mine_b = a == system, b == system
    if (mine_a & mine_b).any():
        raise ValueError(f"system: {system!r} plays both teams of some games (a self-play game)")
    mine = mine_a | mine_b
    if not mine.any():
        known = sorted(set(a) | set(b))
        raise ValueError(f"system: {system!r} played none of these games; they have {known}")
    rows = np.flatnonzero(mine)
    side = mine_b[rows]
    values = own_side(full.to_numpy(np.int64)[rows], side)
    opponent = np.where(side, a[rows], b[rows])
    keys = pd.DataFrame(
        {
            "opponent": opponent,
            "map": games["map_id"].to_numpy(np.int64)[rows],
            "source": games["source"].to_numpy(np.int64)[rows],
            "pair": games["pair"].to_numpy(np.int64)[rows],
        }
    )
    unit_keys = keys.drop_duplicates().sort_values(["opponent", "map", "source", "pair"])
    unit_keys = unit_keys.reset_index(drop=True)
    unit_of = {tuple(r): k for k, r in enumerate(unit_keys.itertuples(index=False))}
    unit = np.array([unit_of[tuple(r)] for r in keys.itertuples(index=False)])
    stratum = unit_keys.groupby(["opponent", "map"], sort=True).ngroup().to_numpy()
    strata = [np.flatnonzero(stratum == s) for s in range(stratum.max() + 1)]
    return OwnGames(system, values, unit, strata, tuple(sorted(set(opponent))))


def resample_weights(
    strata: Sequence[np.ndarray], units: int, refits: int, seed: int
) -> np.ndarray:
    """(refits, units) how often each unit is drawn when every stratum draws as many units
    as it holds, with replacement."""
    rng = np.random.default_rng(seed)
    weights = np.zeros((refits, units))
    for members in strata:
        draws = rng.integers(0, len(members), size=(refits, len(members)))
        for k, unit in enumerate(members):
            weights[:, unit] = (draws == k).sum(axis=1)
    return weights


def check_resampling(refits: int, seed: int, level: float) -> None:
    """The resampling options, checked before any work; errors name the option."""
    whole(refits, "refits", 2)
    whole(seed, "seed", 0)
    if not 0 < level < 1:
        raise ValueError(f"level: expected a share between 0 and 1, got {level!r}")


def interval(refit: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The middle `level` of the refits (first axis); all-NaN columns stay NaN, quietly."""
    tail = (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(refit, [tail, 1.0 - tail], axis=0)
    return low, high


def _outcomes(values: np.ndarray) -> np.ndarray:
    """(games, 3) won, drawn, lost from the own-side result code."""
    code = values[:, FULL_NAMES.index(RESULT)]
    return np.stack([code == 0, code == 2, code == 1], axis=1).astype(np.float64)


def system_metrics(
    results: Any,
    system: str,
    *,
    refits: int = DEFAULT_REFITS,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> pd.DataFrame:
    """Every full-metrics column of `system`'s games, from its own side, pooled.

    In the rows, team a is `system` and team b its opponents.

    Args:
        results: An EvalResult evaluated with `metrics="full"`, a list of them, or a table
            of games with the full columns beside them (a season's, with
            `entrant_a`/`entrant_b`).
        system: The System's name as the results write it (`system_a`/`system_b`, or
            `entrant_a`/`entrant_b` in a season's table).
        refits: Pair-resampled refits behind the interval, at least 2.
        seed: The resampling's seed, 0 or more.
        level: The interval's coverage, strictly between 0 and 1.

    Returns:
        One row per column, indexed by name: `topic`, `section`, `total` (summed over the
            games), `per_game`, `value` and `unit` (a rate per 100 ticks; for the result,
            the share of games won, drawn and lost, in three rows
            `episode_results.won/drawn/lost`; for `episode_results.ticks`, the mean ticks
            per game) and `low`/`high`, the `level` interval of `value` from `refits`
            pair-resampled refits. `attrs` holds the counts (`system`, `games`, `pairs`,
            `ticks`, `opponents`, `refits`, `seed`, `level`).

    Raises:
        TypeError: An item of `results` that is not an EvalResult.
        FieldTypeError: `refits` or `seed` not a whole number (also a ValueError).
        ValueError: `refits`, `seed` or `level` out of range; results without full
            metrics (or whose full metrics and games do not match row for row); a
            `system` that played none of the games, or both teams of one.
    """
    check_resampling(refits, seed, level)
    own = own_games(results, system)
    result_col, ticks_col = FULL_NAMES.index(RESULT), FULL_NAMES.index(TICKS)
    keep = [i for i in range(len(FULL_NAMES)) if i != result_col]
    names = [FULL_NAMES[i] for i in keep]
    counts = own.values[:, keep].astype(np.float64)
    outcomes = _outcomes(own.values)
    ones = np.ones((len(own.values), 1))
    ticks = own.values[:, ticks_col : ticks_col + 1].astype(np.float64)
    sums = own.unit_sums(np.concatenate([outcomes, counts, ticks, ones], axis=1))
    weights = resample_weights(own.strata, own.units, refits, seed)

    def rates(totals: np.ndarray) -> np.ndarray:  # (..., K + 2) -> (..., 3 + K)
        t, n = totals[..., -2:-1], totals[..., -1:]
        shares = totals[..., :3] / n
        per_100 = 100.0 * totals[..., 3:-2] / t
        per_100[..., names.index(TICKS)] = (totals[..., 3:-2] / n)[..., names.index(TICKS)]
        return np.concatenate([shares, per_100], axis=-1)

    with np.errstate(invalid="ignore", divide="ignore"):
        value = rates(sums.sum(axis=0))
        refit = rates(weights @ sums)
    low, high = interval(refit, level)
    all_names = list(OUTCOMES) + names
    total = np.concatenate([outcomes.sum(axis=0), counts.sum(axis=0)])
    topic_of = {t.name: t for t in TOPICS}
    unit = ["share of games"] * 3 + [
        "ticks per game" if n == TICKS else "per 100 ticks" for n in names
    ]
    frame = pd.DataFrame(
        {
            "topic": [n.split(".")[0] for n in all_names],
            "section": [topic_of[n.split(".")[0]].section for n in all_names],
            "total": total,
            "per_game": total / len(own.values),
            "value": value,
            "unit": unit,
            "low": low,
            "high": high,
        },
        index=pd.Index(all_names, name="column"),
    )
    frame.attrs.update(
        system=system,
        games=int(len(own.values)),
        pairs=int(own.units),
        ticks=int(ticks.sum()),
        opponents=list(own.opponents),
        refits=int(refits),
        seed=int(seed),
        level=float(level),
    )
    return frame


__all__ = [
    "OUTCOMES", "check_resampling", "interval", "OwnGames", "flipped_name", "own_games", "own_side", "resample_weights",
    "side_swap", "system_metrics",
]  # fmt: skip
