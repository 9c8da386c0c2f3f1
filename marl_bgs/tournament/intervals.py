"""95% rating intervals from refits on resampled spawn-swapped pairs.

The two games of a pair share map and seed number and differ only in who starts where, so
they are not independent; the unit of resampling is the whole pair. Each refit draws, within
every (pairing, map) stratum, as many pairs as the stratum holds, with replacement, and
refits the joint rating from the resampled counts. The interval is the middle 95% of the
refits' Elo.

Repeatability: strata are visited in order of (pairing, map) and pairs within a stratum in
order of seed number, with NumPy's `default_rng(seed)` (PCG64) drawing one multinomial per
stratum over the kinds of pair it holds (sorted win/draw/loss splits), so the same games and
seed give the same intervals whatever order the games came in.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.checks import one_or_many, whole
from .ratings import DEFAULT_PRIOR_GAMES, Fit, PairCounts, fit_counts, outcome_codes

DEFAULT_REFITS = 5000
DEFAULT_LEVEL = 0.95
REQUIRED_COLUMNS = ("entrant_a", "entrant_b", "result", "map_id", "seed_number")


@dataclass(frozen=True)
class PairUnits:
    """Spawn-swapped pairs as resampling units, grouped into (pairing, map) strata."""

    entrants: tuple[str, ...]
    pairs: np.ndarray  # (K, 2) pairings i < j
    unit_pairing: np.ndarray  # (U,) pairing index of each unit
    unit_counts: np.ndarray  # (U, 3) (i wins, draws, j wins) within the unit
    strata: list[np.ndarray]  # unit indices of each stratum, in a fixed order

    def counts(self) -> np.ndarray:
        out = np.zeros((len(self.pairs), 3))
        np.add.at(out, self.unit_pairing, self.unit_counts)
        return out


@dataclass(frozen=True)
class Intervals:
    """A fit, its refits and the percentile interval of every entrant's Elo."""

    fit: Fit
    refit_elo: np.ndarray  # (refits, n)
    low: np.ndarray  # (n,)
    high: np.ndarray  # (n,)
    level: float
    seed: int | tuple[int, ...]
    refits_per_second: float

    @property
    def sd(self) -> np.ndarray:
        return self.refit_elo.std(axis=0, ddof=1) if len(self.refit_elo) > 1 else np.zeros(0)


def check_games(games: pd.DataFrame, columns: Sequence[str] = REQUIRED_COLUMNS) -> None:
    """Fail with the missing column's name rather than a KeyError deep inside."""
    if not isinstance(games, pd.DataFrame):
        raise ValueError(f"games: expected a pandas DataFrame, got {type(games).__name__}")
    missing = [c for c in columns if c not in games.columns]
    if missing:
        raise ValueError(f"games: missing column(s) {missing}; needs {list(columns)}")
    if games.empty:
        raise ValueError("games: no games to rate")


def pair_units(games: pd.DataFrame, entrants: Sequence[str] | None = None) -> PairUnits:
    """Group games into spawn-swapped pairs (same pairing, map and seed number)."""
    check_games(games)
    a = games["entrant_a"].astype(str).to_numpy()
    b = games["entrant_b"].astype(str).to_numpy()
    names = tuple(sorted(set(a) | set(b))) if entrants is None else tuple(entrants)
    index = {name: k for k, name in enumerate(names)}
    for col, vals in (("entrant_a", a), ("entrant_b", b)):
        unknown = sorted(set(vals) - set(index))
        if unknown:
            raise ValueError(f"{col}: {unknown} not among the entrants {list(names)}")
    ia = np.array([index[x] for x in a])
    ib = np.array([index[x] for x in b])
    if (ia == ib).any():
        raise ValueError(f"games: {a[ia == ib][0]!r} cannot play itself in a rated game")
    codes = outcome_codes(games["result"].to_numpy())
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    side = np.where(ia > ib, 2 - codes, codes)
    frame = pd.DataFrame(
        {
            "lo": lo,
            "hi": hi,
            "map": games["map_id"].to_numpy(dtype=np.int64),
            "seed": games["seed_number"].to_numpy(dtype=np.int64),
            "w": (side == 0).astype(float),
            "d": (side == 1).astype(float),
            "l": (side == 2).astype(float),
        }
    )
    units = frame.groupby(["lo", "hi", "map", "seed"], sort=True)[["w", "d", "l"]].sum()
    keys = units.index.to_frame(index=False)
    pairing_keys = keys[["lo", "hi"]].drop_duplicates().to_numpy()
    pairing_of = {(int(i), int(j)): k for k, (i, j) in enumerate(pairing_keys)}
    unit_pairing = np.array([pairing_of[(int(i), int(j))] for i, j in keys[["lo", "hi"]].values])
    stratum_id = keys.groupby(["lo", "hi", "map"], sort=True).ngroup().to_numpy()
    order = np.argsort(stratum_id, kind="stable")
    bounds = np.flatnonzero(np.diff(stratum_id[order])) + 1
    strata = np.split(order, bounds)
    return PairUnits(names, pairing_keys, unit_pairing, units.to_numpy(), strata)


def resample_counts(units: PairUnits, refits: int, rng: np.random.Generator) -> np.ndarray:
    """(refits, K, 3) counts, each from pairs drawn with replacement within every stratum.

    Drawing m of a stratum's m pairs with replacement is the same as drawing how many of each
    kind of pair (its win/draw/loss split) to take, in proportion to how often that kind
    occurred: one small multinomial per stratum over at most six kinds, in sorted order.
    """
    out = np.zeros((refits, len(units.pairs), 3))
    for members in units.strata:
        kinds, seen = np.unique(units.unit_counts[members], axis=0, return_counts=True)
        draws = rng.multinomial(len(members), seen / len(members), size=refits)  # (refits, T)
        out[:, units.unit_pairing[members[0]], :] += draws @ kinds
    return out


def bootstrap(
    games: pd.DataFrame,
    refits: int = DEFAULT_REFITS,
    seed: int | Sequence[int] = 0,
    level: float = DEFAULT_LEVEL,
    entrants: Sequence[str] | None = None,
    prior_games: float = DEFAULT_PRIOR_GAMES,
) -> Intervals:
    """The joint fit of `games` and the middle `level` of `refits` pair-resampled refits.

    `games` needs columns entrant_a, entrant_b, result ('a'/'draw'/'b'), map_id, seed_number.
    `seed` is a whole number or a list of them (NumPy's `default_rng` takes either).
    """
    whole(refits, "refits", 0)
    seeds, many = one_or_many(seed, "seed")
    for i, x in enumerate(seeds):
        whole(x, f"seed[{i}]" if many else "seed", 0)
    if not 0 < level < 1:
        raise ValueError(f"level: expected a share between 0 and 1, got {level!r}")
    units = pair_units(games, entrants)
    fit = fit_counts(PairCounts(units.entrants, units.pairs, units.counts()), prior_games)
    rng = np.random.default_rng([int(x) for x in seeds] if len(seeds) > 1 else int(seeds[0]))
    started = time.perf_counter()
    elo = np.zeros((0, len(units.entrants)))
    if refits:
        counts = resample_counts(units, refits, rng)  # all refits at once: one random stream
        batch = fit_counts(PairCounts(units.entrants, units.pairs, counts), prior_games, start=fit)
        if not batch.converged.all():
            raise RuntimeError(
                f"bootstrap: {int((~batch.converged).sum())} refits did not converge"
            )
        elo = batch.elo
    elapsed = time.perf_counter() - started
    tail = (1.0 - level) / 2.0
    if refits:
        low, high = np.quantile(elo, [tail, 1.0 - tail], axis=0)
    else:
        low = high = np.full(len(units.entrants), np.nan)
    return Intervals(
        fit=fit,
        refit_elo=elo,
        low=low,
        high=high,
        level=level,
        seed=int(seeds[0]) if len(seeds) == 1 else tuple(int(x) for x in seeds),
        refits_per_second=refits / elapsed if refits and elapsed > 0 else float("nan"),
    )
