"""Ratings: the BTD fit recovers known strengths, its intervals cover them about 95% of the
time, game order does not matter, degenerate fields stay finite, and tiers follow Table S8."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest

from marl_bgs.tournament.heterogeneity import chi2_sf, entrant_heterogeneity, meta_analysis
from marl_bgs.tournament.intervals import bootstrap
from marl_bgs.tournament.ratings import (
    ELO_PER_NAT,
    expected_probabilities,
    finite_without_prior,
    fit_btd,
    pair_counts,
    theta_to_elo,
)
from marl_bgs.tournament.tiers import tier_of, tier_table, win_chance

MAPS = (47, 48, 49, 50, 51)


def simulate(elo: dict[str, float], nu: float, pairs_per_map: int, rng, maps=MAPS):
    """Games as the tournament plays them: spawn-swapped pairs per pairing and map."""
    names = list(elo)
    rows, number = [], 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = expected_probabilities(elo[a], elo[b], nu)
            for m in maps:
                outcomes = rng.choice(3, size=(pairs_per_map, 2), p=p)
                for pair in outcomes:
                    for o in pair:
                        rows.append((a, b, ("a", "draw", "b")[o], m, number))
                    number += 1
    return pd.DataFrame(rows, columns=["entrant_a", "entrant_b", "result", "map_id", "seed_number"])


def centred(elo: dict[str, float]) -> np.ndarray:
    v = np.array(list(elo.values()))
    return v - v.mean() + 1200


TRUE = {"A": 1500.0, "B": 1350.0, "C": 1200.0, "D": 1100.0, "E": 950.0}
TRUE_NU = 0.4


@pytest.fixture(scope="module")
def season():
    return simulate(TRUE, TRUE_NU, 20, np.random.default_rng(11))  # 200 games a pairing


def test_known_strengths_are_recovered_within_the_intervals(season):
    started = time.perf_counter()
    iv = bootstrap(season, refits=5000, seed=0, entrants=list(TRUE))
    seconds = time.perf_counter() - started
    truth = centred(TRUE)
    assert np.all((iv.low <= truth) & (truth <= iv.high)), (iv.low, iv.fit.elo, iv.high)
    assert abs(iv.fit.elo.mean() - 1200) < 1e-9
    assert np.all(iv.high - iv.low < 120)  # 800 games each: intervals of a few dozen Elo
    assert abs(float(iv.fit.nu) - TRUE_NU) < 0.1
    assert iv.fit.converged and seconds < 60
    print(f"5,000 refits: {seconds:.2f}s including resampling, {iv.refits_per_second:.0f}/s")


def test_intervals_cover_the_truth_about_95_percent(season):
    """100 simulated seasons (3 entrants, 200 games a pairing as in the tournament), 300 refits.

    Resampling m pairs within a stratum shrinks the variance by (m - 1) / m, so with 20 pairs a
    stratum the intervals cover about 94% (measured over 1,200 intervals: 93.6%); smaller
    strata cover less (6 pairs a stratum: 91%).
    """
    truth3 = {"A": 1350.0, "B": 1200.0, "C": 1000.0}
    rng = np.random.default_rng(2024)
    hits = total = 0
    for sim in range(100):
        games = simulate(truth3, 0.3, 20, rng)
        iv = bootstrap(games, refits=300, seed=sim, entrants=list(truth3))
        truth = centred(truth3)
        hits += int(((iv.low <= truth) & (truth <= iv.high)).sum())
        total += len(truth)
    coverage = hits / total
    # 300 intervals (three per season, correlated): 0.95 +- ~4 binomial standard errors
    sd = math.sqrt(0.95 * 0.05 / total)
    assert abs(coverage - 0.95) < 4 * sd + 0.01, coverage


def test_fit_does_not_depend_on_game_order(season):
    shuffled = season.sample(frac=1.0, random_state=7).reset_index(drop=True)
    a = bootstrap(season, refits=300, seed=4, entrants=list(TRUE))
    b = bootstrap(shuffled, refits=300, seed=4, entrants=list(TRUE))
    np.testing.assert_array_equal(a.fit.elo, b.fit.elo)
    np.testing.assert_array_equal(a.refit_elo, b.refit_elo)
    # and the game's sides do not matter either: swap a and b, flip the result
    flipped = season.rename(columns={"entrant_a": "entrant_b", "entrant_b": "entrant_a"})
    flipped["result"] = flipped["result"].map({"a": "b", "b": "a", "draw": "draw"})
    c = fit_btd(flipped["entrant_a"], flipped["entrant_b"], flipped["result"], list(TRUE))
    np.testing.assert_allclose(c.elo, a.fit.elo, atol=1e-9)


def test_newton_matches_a_general_optimiser(season):
    from scipy.optimize import minimize

    fit = fit_btd(season["entrant_a"], season["entrant_b"], season["result"], prior_games=0)
    pc = pair_counts(season["entrant_a"], season["entrant_b"], season["result"])
    i, j = pc.pairs[:, 0], pc.pairs[:, 1]

    def nll(v):
        theta = np.concatenate([[0.0], v[:-1]])
        x, d = theta[i] - theta[j], v[-1]
        log_z = np.logaddexp(np.logaddexp(x / 2, -x / 2), d)
        w, dr, lo = pc.counts.T
        return -(w * (x / 2 - log_z) + dr * (d - log_z) + lo * (-x / 2 - log_z)).sum()

    best = minimize(nll, np.zeros(len(pc.entrants)), method="BFGS", options={"gtol": 1e-8})
    elo = theta_to_elo(np.concatenate([[0.0], best.x[:-1]]))
    np.testing.assert_allclose(fit.elo, elo, atol=0.05)
    assert abs(float(fit.delta) - best.x[-1]) < 1e-4
    assert abs(float(fit.loglik) + best.fun) < 1e-6


def test_weak_prior_moves_ratings_only_a_little(season):
    assert finite_without_prior(
        pair_counts(season["entrant_a"], season["entrant_b"], season["result"])
    )
    ml = fit_btd(season["entrant_a"], season["entrant_b"], season["result"], prior_games=0)
    prior = fit_btd(season["entrant_a"], season["entrant_b"], season["result"])
    assert np.abs(ml.elo - prior.elo).max() < 5


def test_degenerate_fields_stay_finite():
    # A never loses (and B never wins against A); no draws at all anywhere
    a = ["A"] * 20 + ["B"] * 20 + ["A"] * 20
    b = ["B"] * 20 + ["C"] * 20 + ["C"] * 20
    res = ["a"] * 20 + ["a"] * 10 + ["b"] * 10 + ["a"] * 20
    fit = fit_btd(a, b, res)
    elo = fit.elo_of()
    assert all(np.isfinite(list(elo.values())))
    assert elo["A"] > elo["B"] > 0 and elo["A"] < 3000
    assert 0 < float(fit.nu) < 0.2 and fit.converged
    assert not finite_without_prior(pair_counts(a, b, res))
    with pytest.raises(ValueError, match="no finite maximum"):
        fit_btd(a, b, res, prior_games=0)
    # a field that never wins, and one whose every game is a draw
    never = fit_btd(["X"] * 10, ["Y"] * 10, ["b"] * 10).elo_of()
    assert never["X"] < 1200 < never["Y"] and np.isfinite(never["X"])
    drawn = fit_btd(["X"] * 10, ["Y"] * 10, ["draw"] * 10)
    assert abs(drawn.elo_of()["X"] - 1200) < 1e-6 and float(drawn.nu) > 10
    # bootstrap over a sweep: every refit identical, interval collapses but is finite
    sweep = pd.DataFrame(
        {
            "entrant_a": "X",
            "entrant_b": "Y",
            "result": "a",
            "map_id": 47,
            "seed_number": np.repeat(np.arange(5), 2),
        }
    )
    iv = bootstrap(sweep, refits=100, seed=0)
    assert np.isfinite(iv.low).all() and np.isfinite(iv.high).all()


def test_bad_games_name_the_field():
    with pytest.raises(ValueError, match=r"outcome\[1\]"):
        fit_btd(["A", "A"], ["B", "B"], ["a", "win"])
    with pytest.raises(ValueError, match="cannot play itself"):
        fit_btd(["A"], ["A"], ["a"])
    with pytest.raises(ValueError, match="no chain of games"):
        fit_btd(["A", "C"], ["B", "D"], ["a", "b"])
    with pytest.raises(ValueError, match="missing column"):
        bootstrap(pd.DataFrame({"entrant_a": ["A"], "entrant_b": ["B"], "result": ["a"]}))
    with pytest.raises(ValueError, match="refits"):
        bootstrap(simulate({"A": 1, "B": 2}, 0.3, 1, np.random.default_rng(0)), refits=-1)


def test_elo_scale_is_400_per_factor_of_ten():
    assert math.isclose(ELO_PER_NAT * math.log(10), 400)
    w, d, lo = expected_probabilities(1400, 1000, nu=0.0)
    assert math.isclose(w / lo, 10.0)
    assert math.isclose(w + d + lo, 1.0)


@pytest.mark.parametrize(
    ("elo", "label"),
    [
        (1441, "Platinum 4"),
        (1358, "Gold 2"),
        (1240, "Gold 4"),
        (1200, "Gold 5"),
        (1199.4, "Silver 1"),
        (1199.5, "Gold 5"),
        (1000, "Silver 5"),
        (999, "Bronze 1"),
        (800, "Bronze 5"),
        (799, "Iron 1"),
        (640, "Iron 4"),
        (100, "Iron 5"),
        (1999, "Master 1"),
        (2000, "Grandmaster"),
        (2600, "Grandmaster"),
        (1600, "Diamond 5"),
        (1839, "Master 5"),
    ],
)
def test_tiers_follow_table_s8(elo, label):
    assert tier_of(elo).label == label


def test_tier_table_and_win_chances():
    rows = {r["tier"]: r for r in tier_table()}
    assert list(rows) == [
        "Grandmaster",
        "Master",
        "Diamond",
        "Platinum",
        "Gold",
        "Silver",
        "Bronze",
        "Iron",
    ]
    assert (rows["Gold"]["elo_low"], rows["Gold"]["elo_high"]) == (1200, 1399)
    # Table S8's win chances, in percent to one decimal
    expected = {
        "Master": (96.9, 99.0),
        "Diamond": (90.9, 96.9),
        "Platinum": (76.0, 90.9),
        "Gold": (50.0, 76.0),
        "Silver": (24.0, 50.0),
        "Bronze": (9.1, 24.0),
    }
    for tier, (low, high) in expected.items():
        assert round(100 * rows[tier]["win_chance_low"], 1) == low
        assert round(100 * rows[tier]["win_chance_high"], 1) == high
    assert round(100 * win_chance(2000), 1) == 99.0
    assert [d["elo_low"] for d in rows["Gold"]["divisions"]] == [1200, 1240, 1280, 1320, 1360]
    assert round(win_chance(1400), 2) == 0.76 and round(win_chance(1441), 2) == 0.80


def test_meta_analysis_separates_map_spread_from_sampling():
    same = meta_analysis([1200, 1200, 1200], [100, 100, 100])
    assert same["q"] == 0 and same["i2"] == 0 and same["tau2"] == 0 and same["p"] == 1.0
    spread = meta_analysis([1000, 1200, 1400, 1100, 1300], [100] * 5)
    assert spread["i2"] > 0.95 and spread["p"] < 1e-6
    # DerSimonian-Laird with equal variances: tau^2 = sample variance - sampling variance
    assert math.isclose(spread["tau2"], np.var([1000, 1200, 1400, 1100, 1300], ddof=1) - 100)
    from scipy.stats import chi2

    for q in (0.5, 3.0, 12.0):
        for df in (1, 2, 4, 7):
            assert math.isclose(chi2_sf(q, df), chi2.sf(q, df), rel_tol=1e-9)
    with pytest.raises(ValueError, match="variance"):
        meta_analysis([1, 2], [1, 0])


def test_a_map_that_differs_shows_up_as_heterogeneity():
    from marl_bgs.tournament.heterogeneity import per_map_ratings

    rng = np.random.default_rng(5)
    even = simulate({"A": 1300, "B": 1200, "C": 1100}, 0.3, 20, rng, maps=(47, 48, 49, 50))
    odd = simulate({"A": 900, "B": 1200, "C": 1500}, 0.3, 20, rng, maps=(51,))
    odd["seed_number"] += 10_000
    per_map = per_map_ratings(pd.concat([even, odd]), ["A", "B", "C"], refits=200, seed=1)
    het = entrant_heterogeneity(per_map).set_index("entrant")
    assert het.loc["A", "i2"] > 0.9 and het.loc["C", "i2"] > 0.9
    assert len(per_map) == 15 and (per_map["elo_low"] <= per_map["elo_high"]).all()
