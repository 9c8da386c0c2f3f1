"""A season's games turned into the leaderboard data set: ratings, tiers, matchups, maps.

Everything a leaderboard page shows is computed here, once, and written as JSON; the page
only lays it out. Numbers are rounded (Elo to 0.1, shares to 1e-4) so the files stay
readable and identical from run to run.

The files are read back as typed records (`season_records`) by `season_reader`, the one
reader and checker of a season's JSON.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .heterogeneity import entrant_heterogeneity, pairing_heterogeneity, per_map_ratings
from .intervals import DEFAULT_LEVEL, DEFAULT_REFITS, bootstrap, pair_units
from .ratings import (
    DEFAULT_PRIOR_GAMES,
    ELO_CENTRE,
    PairCounts,
    expected_probabilities,
    finite_without_prior,
)
from .season_records import LEADERBOARD_FORMAT, LEADERBOARD_VERSION
from .tiers import tier_of, tier_table, win_chance


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
