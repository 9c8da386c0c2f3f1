"""Does a rating hold on every map? Per-map ratings and meta-analytic heterogeneity.

Each test map gets its own joint fit (with pair-resampled intervals, the same recipe as the
season's ratings). Treating the maps as studies of one entrant (or one pairing), the usual
random-effects summaries say how much of the spread between maps is more than chance:

- Q: Cochran's statistic, the inverse-variance weighted squared deviations from the pooled
  value, with k - 1 degrees of freedom for k maps, and its chi-square p;
- tau^2: the DerSimonian-Laird between-map variance (Elo^2), max(0, (Q - df) / c);
- I^2: the share of the spread that is between-map rather than sampling, max(0, (Q - df) / Q).

Sampling variance of a per-map value is its variance over the pair-resampled refits, but never
below the model's own (inverse-information) variance: on a map where every pair ended alike,
the resamples do not move at all and would otherwise claim a certainty the games lack.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .intervals import DEFAULT_LEVEL, bootstrap, check_games
from .ratings import DEFAULT_PRIOR_GAMES, ELO_PER_NAT


def chi2_sf(q: float, df: int) -> float:
    """P(chi-square with `df` (a whole number) degrees of freedom > q), in closed form."""
    if df < 1:
        return float("nan")
    x = max(q, 0.0) / 2.0
    if df % 2 == 0:  # e^-x * sum_{i < df/2} x^i / i!
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= x / i
            total += term
        return min(1.0, math.exp(-x) * total)
    # odd: erfc(sqrt(x)) + e^-x * sum_{i=1}^{(df-1)/2} x^(i - 1/2) / Gamma(i + 1/2)
    total = math.erfc(math.sqrt(x))
    term = math.sqrt(x) / math.gamma(1.5) if x > 0 else 0.0
    for i in range(1, (df - 1) // 2 + 1):
        if i > 1:
            term *= x / (i - 0.5)
        total += math.exp(-x) * term
    return min(1.0, total)


def meta_analysis(values: Sequence[float], variances: Sequence[float]) -> dict:
    """Fixed-effect pool, Cochran's Q, DerSimonian-Laird tau^2 and Higgins' I^2."""
    y = np.asarray(values, dtype=float)
    v = np.asarray(variances, dtype=float)
    if y.shape != v.shape or y.ndim != 1:
        raise ValueError("meta_analysis: values and variances must be two lists of one length")
    if (v <= 0).any() or not np.isfinite(v).all():
        raise ValueError("meta_analysis: every variance must be a positive number")
    k = len(y)
    w = 1.0 / v
    pooled = float((w * y).sum() / w.sum())
    q = float((w * (y - pooled) ** 2).sum())
    df = k - 1
    c = float(w.sum() - (w**2).sum() / w.sum())
    tau2 = max(0.0, (q - df) / c) if df > 0 and c > 0 else 0.0
    i2 = max(0.0, (q - df) / q) if q > 0 and df > 0 else 0.0
    typical = df * w.sum() / (w.sum() ** 2 - (w**2).sum()) if df > 0 else float(v.mean())
    return {
        "maps": k,
        "pooled": pooled,
        "q": q,
        "df": df,
        "p": chi2_sf(q, df) if df > 0 else float("nan"),
        "tau2": tau2,
        "tau": math.sqrt(tau2),
        "i2": i2,
        "typical_sampling_variance": float(typical),
        "typical_sampling_sd": math.sqrt(typical),
    }


def per_map_ratings(
    games: pd.DataFrame,
    entrants: Sequence[str],
    refits: int,
    seed: int,
    level: float = DEFAULT_LEVEL,
    prior_games: float = DEFAULT_PRIOR_GAMES,
) -> pd.DataFrame:
    """One joint fit per map, each with its own pair-resampled interval.

    Map m's refits draw from `default_rng([seed, m])`, so adding a map changes no other map's
    interval. Rows: map_id, entrant, elo, elo_low, elo_high, sampling_sd (Elo).
    """
    check_games(games)
    rows = []
    for map_id in sorted(int(m) for m in games["map_id"].unique()):
        sub = games[games["map_id"] == map_id]
        iv = bootstrap(sub, refits, [seed, map_id], level, entrants, prior_games)
        model_sd = iv.fit.elo_sd()
        boot_sd = iv.sd if refits > 1 else np.zeros(len(entrants))
        for k, name in enumerate(iv.fit.entrants):
            rows.append(
                {
                    "map_id": map_id,
                    "entrant": name,
                    "elo": float(iv.fit.elo[k]),
                    "elo_low": float(iv.low[k]),
                    "elo_high": float(iv.high[k]),
                    "sampling_sd": float(max(boot_sd[k], model_sd[k])),
                }
            )
    return pd.DataFrame(rows)


def entrant_heterogeneity(per_map: pd.DataFrame) -> pd.DataFrame:
    """Per entrant: how much its per-map ratings spread beyond sampling error."""
    rows = []
    for name, grp in per_map.groupby("entrant", sort=False):
        stats = meta_analysis(grp["elo"].to_numpy(), grp["sampling_sd"].to_numpy() ** 2)
        rows.append({"entrant": name, **stats})
    return pd.DataFrame(rows)


def pairing_heterogeneity(
    games: pd.DataFrame,
    entrants: Sequence[str],
    refits: int,
    seed: int,
    prior_games: float = DEFAULT_PRIOR_GAMES,
) -> pd.DataFrame:
    """Per pairing (i before j in `entrants`): i's Elo lead over j on each map, pooled.

    Each map's lead comes from a fit of that pairing's games on that map alone, with refits
    drawn from `default_rng([seed, i, j, map])`.
    """
    check_games(games)
    order = {name: k for k, name in enumerate(entrants)}
    a = games["entrant_a"].map(order)
    b = games["entrant_b"].map(order)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    rows = []
    for (i, j), grp in games.groupby([lo, hi], sort=True):
        pair_names = (entrants[int(i)], entrants[int(j)])
        leads, variances, maps = [], [], []
        for map_id in sorted(int(m) for m in grp["map_id"].unique()):
            sub = grp[grp["map_id"] == map_id]
            iv = bootstrap(
                sub,
                refits,
                [seed, int(i), int(j), map_id],
                entrants=pair_names,
                prior_games=prior_games,
            )
            lead = float(iv.fit.elo[0] - iv.fit.elo[1])
            model_var = float(
                ELO_PER_NAT**2
                * (iv.fit.covariance[0, 0] + iv.fit.covariance[1, 1] - 2 * iv.fit.covariance[0, 1])
            )
            boot_var = (
                float(np.var(iv.refit_elo[:, 0] - iv.refit_elo[:, 1], ddof=1))
                if refits > 1
                else 0.0
            )
            leads.append(lead)
            variances.append(max(boot_var, model_var))
            maps.append(map_id)
        stats = meta_analysis(leads, variances)
        rows.append(
            {
                "entrant_i": pair_names[0],
                "entrant_j": pair_names[1],
                "map_ids": maps,
                "leads": leads,
                "lead_sds": [math.sqrt(v) for v in variances],
                **stats,
            }
        )
    return pd.DataFrame(rows)
