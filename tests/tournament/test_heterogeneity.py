"""Heterogeneity (`marl_bgs/tournament/heterogeneity.py`): Cochran's Q, DerSimonian-Laird tau^2,
Higgins' I^2 and the chi-square p, on hand-computed examples; the per-map and per-pairing
tables built from small games whose fits have closed forms.

Two entrants on one map: the Bradley-Terry-Davidson model is saturated, so with W wins, D
draws and L losses (each plus prior_games / 3 = 1/3) the fit is x = theta_A - theta_B =
ln(W / L), i.e. a lead of ELO_PER_NAT * ln(W / L), Elo 1200 +- lead / 2, and the model's own
variance of x is 1/W + 1/L (delta method on the multinomial shares)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from marl_bgs.tournament.heterogeneity import (
    chi2_sf,
    entrant_heterogeneity,
    meta_analysis,
    pairing_heterogeneity,
    per_map_ratings,
)
from marl_bgs.tournament.ratings import ELO_PER_NAT

COLUMNS = ["entrant_a", "entrant_b", "result", "map_id", "seed_number"]


def games(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


def record(a, b, map_id, first_seed, outcomes) -> list[tuple]:
    """Spawn-swapped pairs of a against b: one (result, result) per pair, a as team a."""
    return [(a, b, r, map_id, first_seed + p) for p, pair in enumerate(outcomes) for r in pair]


# ---- chi-square tail -------------------------------------------------------------------------
def test_chi2_sf_closed_forms_by_hand():
    # df 2: P(X > q) = e^(-q/2)
    assert math.isclose(chi2_sf(3.0, 2), math.exp(-1.5), rel_tol=1e-12)
    # df 4: e^(-x) (1 + x), x = q/2 = 2
    assert math.isclose(chi2_sf(4.0, 4), 3 * math.exp(-2), rel_tol=1e-12)
    # df 1: P(|Z| > sqrt(q)) = erfc(sqrt(q/2)); q = 3.841459 is the 95% point, so 0.05
    assert math.isclose(chi2_sf(2.0, 1), math.erfc(1.0), rel_tol=1e-12)
    assert abs(chi2_sf(3.841459, 1) - 0.05) < 1e-7
    # df 3: erfc(sqrt(x)) + 2 sqrt(x / pi) e^(-x), x = q/2 = 1
    assert math.isclose(chi2_sf(2.0, 3), math.erfc(1) + 2 / math.sqrt(math.pi) / math.e)


def test_chi2_sf_matches_scipy_over_many_degrees_of_freedom():
    from scipy.stats import chi2

    for df in range(1, 16):
        for q in (0.01, 0.7, df - 0.5, df + 3.0, 4.0 * df + 10):
            assert math.isclose(chi2_sf(q, df), chi2.sf(q, df), rel_tol=1e-9, abs_tol=1e-300)


def test_chi2_sf_edges():
    for df in (1, 2, 3, 6):
        assert chi2_sf(0.0, df) == 1.0  # nothing is below 0
        assert chi2_sf(-4.0, df) == 1.0  # a negative statistic counts as 0
    assert math.isnan(chi2_sf(1.0, 0))  # no degrees of freedom: undefined
    tail = [chi2_sf(q, 3) for q in np.linspace(0, 30, 61)]
    assert all(b < a for a, b in zip(tail[:-1], tail[1:], strict=True))  # falls as q grows


# ---- meta-analysis ---------------------------------------------------------------------------
def test_meta_analysis_by_hand():
    # y = (0, 10, 20), v = (1, 4, 4): w = (1, 1/4, 1/4), sum w = 1.5
    # pooled = (0 + 2.5 + 5) / 1.5 = 5
    # Q = 1 * 25 + 0.25 * 25 + 0.25 * 225 = 25 + 6.25 + 56.25 = 87.5, df = 2
    # c = 1.5 - (1 + 1/16 + 1/16) / 1.5 = 1.5 - 0.75 = 0.75; tau^2 = (87.5 - 2) / 0.75 = 114
    # I^2 = 85.5 / 87.5; p = e^(-87.5 / 2)
    # typical sampling variance = df * sum w / ((sum w)^2 - sum w^2) = 3 / 1.125 = 8/3
    out = meta_analysis([0.0, 10.0, 20.0], [1.0, 4.0, 4.0])
    assert out["maps"] == 3 and out["df"] == 2
    assert math.isclose(out["pooled"], 5.0)
    assert math.isclose(out["q"], 87.5)
    assert math.isclose(out["tau2"], 114.0)
    assert math.isclose(out["tau"], math.sqrt(114.0))
    assert math.isclose(out["i2"], 85.5 / 87.5)
    assert math.isclose(out["p"], math.exp(-43.75), rel_tol=1e-9)
    assert math.isclose(out["typical_sampling_variance"], 8 / 3)
    assert math.isclose(out["typical_sampling_sd"], math.sqrt(8 / 3))


def test_less_spread_than_chance_is_no_heterogeneity():
    # y = (0, 1, 0), v = 1 each: pooled 1/3, Q = 1/9 + 4/9 + 1/9 = 2/3 < df = 2
    # so tau^2 = max(0, (2/3 - 2) / c) = 0 and I^2 = max(0, (2/3 - 2) / (2/3)) = 0; p = e^(-1/3)
    out = meta_analysis([0.0, 1.0, 0.0], [1.0, 1.0, 1.0])
    assert math.isclose(out["pooled"], 1 / 3)
    assert math.isclose(out["q"], 2 / 3)
    assert out["tau2"] == 0.0 and out["tau"] == 0.0 and out["i2"] == 0.0
    assert math.isclose(out["p"], math.exp(-1 / 3))
    # equal variances v: the typical sampling variance is v itself (2 * 3 / (9 - 3) = 1)
    assert math.isclose(out["typical_sampling_variance"], 1.0)


def test_identical_maps_have_q_zero_and_p_one():
    out = meta_analysis([1250.0, 1250.0, 1250.0, 1250.0], [30.0, 60.0, 90.0, 120.0])
    assert out["pooled"] == 1250.0 and out["q"] == 0.0
    assert out["i2"] == 0.0 and out["tau2"] == 0.0 and out["p"] == 1.0


def test_one_map_leaves_heterogeneity_undefined():
    # k = 1: df = 0, no chi-square test (p is NaN); nothing can spread, so Q = tau^2 = I^2 = 0;
    # the typical sampling variance is the one map's variance
    out = meta_analysis([1300.0], [400.0])
    assert out["maps"] == 1 and out["df"] == 0
    assert out["pooled"] == 1300.0 and out["q"] == 0.0
    assert math.isnan(out["p"])
    assert out["tau2"] == 0.0 and out["i2"] == 0.0
    assert out["typical_sampling_variance"] == 400.0 and out["typical_sampling_sd"] == 20.0


def test_precise_maps_pull_the_pooled_value():
    # inverse-variance weights: y = (0, 100), v = (1, 99): pooled = (0 + 100/99) / (1 + 1/99)
    # = (100/99) / (100/99) = 1
    assert math.isclose(meta_analysis([0.0, 100.0], [1.0, 99.0])["pooled"], 1.0)


def test_more_spread_means_more_heterogeneity():
    v = [100.0] * 4
    last = None
    for s in (5.0, 10.0, 20.0, 40.0, 80.0):
        out = meta_analysis([-s, -s / 3, s / 3, s], v)
        # equal variances: Q = sum (y - mean)^2 / v = (2 s^2 + 2 s^2 / 9) / 100
        assert math.isclose(out["q"], (2 * s**2 + 2 * s**2 / 9) / 100)
        if last is not None:
            assert out["q"] > last["q"] and out["i2"] >= last["i2"] and out["p"] < last["p"]
        last = out
    # at s = 80: Q = (12,800 + 1,422.2) / 100 = 142.222 (= 1280/9), df = 3,
    # I^2 = (1280/9 - 3) / (1280/9) = 1253/1280 = 0.97890625
    assert math.isclose(last["i2"], 1253 / 1280)


@pytest.mark.parametrize(
    ("values", "variances"),
    [
        ([1.0, 2.0], [1.0, 0.0]),  # zero variance
        ([1.0, 2.0], [1.0, -1.0]),  # negative
        ([1.0, 2.0], [1.0, float("nan")]),
        ([1.0, 2.0], [1.0, float("inf")]),
        ([1.0, 2.0], [1.0]),  # lengths differ
        ([[1.0, 2.0]], [[1.0, 1.0]]),  # not one list
    ],
)
def test_meta_analysis_refuses_bad_variances(values, variances):
    with pytest.raises(ValueError, match="meta_analysis"):
        meta_analysis(values, variances)


def test_entrant_heterogeneity_pools_each_entrant_over_its_maps():
    per_map = pd.DataFrame(
        {
            "map_id": [47, 48, 49, 47, 48, 49],
            "entrant": ["Z", "Z", "Z", "A", "A", "A"],
            "elo": [0.0, 10.0, 20.0, 1200.0, 1200.0, 1200.0],
            "sampling_sd": [1.0, 2.0, 2.0, 5.0, 5.0, 5.0],  # variances 1, 4, 4 as above
        }
    )
    het = entrant_heterogeneity(per_map)
    assert list(het["entrant"]) == ["Z", "A"]  # in the order the entrants first appear
    z, a = het.iloc[0], het.iloc[1]
    assert math.isclose(z["q"], 87.5) and math.isclose(z["tau2"], 114.0)
    assert math.isclose(z["i2"], 85.5 / 87.5) and z["maps"] == 3
    assert a["q"] == 0.0 and a["i2"] == 0.0 and a["pooled"] == 1200.0


# ---- per-map ratings and pairings ------------------------------------------------------------
def two_maps() -> pd.DataFrame:
    """A against B: on map 47, A wins 3 of 4 games; on map 48, A wins 1 of 4 (B as team a in
    one game: its side must not matter)."""
    rows = record("A", "B", 47, 0, [("a", "a"), ("a", "b")])
    rows += [("A", "B", "b", 48, 2), ("B", "A", "a", 48, 2)]  # B wins both games of pair 2
    rows += record("A", "B", 48, 3, [("a", "b")])
    return games(rows)


# map 47: W = 3 + 1/3 = 10/3, L = 1 + 1/3 = 4/3: lead = ELO_PER_NAT * ln(10/4) = 159.176
# map 48: the mirror image, lead -159.176; variance of the lead on either map
# V = ELO_PER_NAT^2 * (3/10 + 3/4) = 1.05 * ELO_PER_NAT^2 (sd 178.008)
LEAD = ELO_PER_NAT * math.log(2.5)
V = 1.05 * ELO_PER_NAT**2


def test_per_map_ratings_by_hand_without_refits():
    pm = per_map_ratings(two_maps(), ["A", "B"], refits=0, seed=0)
    assert list(pm.columns) == ["map_id", "entrant", "elo", "elo_low", "elo_high", "sampling_sd"]
    assert list(zip(pm["map_id"], pm["entrant"], strict=True)) == [
        (47, "A"),
        (47, "B"),
        (48, "A"),
        (48, "B"),
    ]
    # Elo 1200 +- lead / 2 = 1279.588 / 1120.412; sd of each is half the lead's: sqrt(V) / 2
    np.testing.assert_allclose(
        pm["elo"], [1200 + LEAD / 2, 1200 - LEAD / 2, 1200 - LEAD / 2, 1200 + LEAD / 2]
    )
    np.testing.assert_allclose(pm["sampling_sd"], [math.sqrt(V) / 2] * 4)
    assert pm["elo_low"].isna().all() and pm["elo_high"].isna().all()  # no refits, no interval


def test_a_map_where_every_pair_ended_alike_keeps_the_models_variance():
    """Every pair on map 47 is one win each (a 1-1 split): the resamples never move, so the
    refits' sd is 0 and the model's sd must be used instead."""
    g = games(record("A", "B", 47, 0, [("a", "b")] * 5))
    pm = per_map_ratings(g, ["A", "B"], refits=200, seed=3)
    # W = L = 5 + 1/3 = 16/3: elo 1200 each, sd = ELO_PER_NAT / 2 * sqrt(2 * 3/16)
    np.testing.assert_allclose(pm["elo"], [1200.0, 1200.0], atol=1e-9)
    np.testing.assert_allclose(pm["elo_low"], [1200.0, 1200.0], atol=1e-6)
    np.testing.assert_allclose(pm["elo_high"], [1200.0, 1200.0], atol=1e-6)
    np.testing.assert_allclose(pm["sampling_sd"], [ELO_PER_NAT / 2 * math.sqrt(3 / 8)] * 2)


def test_adding_a_map_changes_no_other_maps_interval():
    base = games(record("A", "B", 47, 0, [("a", "a"), ("a", "b"), ("b", "b"), ("a", "draw")]))
    more = games(record("A", "B", 48, 10, [("b", "b"), ("a", "b"), ("b", "b")]))
    alone = per_map_ratings(base, ["A", "B"], refits=300, seed=9)
    both = per_map_ratings(pd.concat([more, base]), ["A", "B"], refits=300, seed=9)
    first = both[both["map_id"] == 47].reset_index(drop=True)
    pd.testing.assert_frame_equal(first, alone)
    assert alone["elo_high"].gt(alone["elo_low"]).all()  # a real interval, not a point


def test_pairing_heterogeneity_by_hand_without_refits():
    ph = pairing_heterogeneity(two_maps(), ["A", "B"], refits=0, seed=0)
    assert len(ph) == 1
    row = ph.iloc[0]
    assert (row["entrant_i"], row["entrant_j"], row["map_ids"]) == ("A", "B", [47, 48])
    np.testing.assert_allclose(row["leads"], [LEAD, -LEAD])
    np.testing.assert_allclose(row["lead_sds"], [math.sqrt(V)] * 2)
    # two leads +-L with equal variance V: pooled 0, Q = 2 L^2 / V, df 1
    # = 2 ln(2.5)^2 / 1.05 = 2 * 0.839589 / 1.05 = 1.599217
    q = 2 * math.log(2.5) ** 2 / 1.05
    assert math.isclose(row["pooled"], 0.0, abs_tol=1e-9)
    assert math.isclose(row["q"], q) and row["df"] == 1
    assert math.isclose(row["i2"], (q - 1) / q)  # 0.3747
    # c = 2/V - (2/V^2) / (2/V) = 1/V, so tau^2 = (Q - 1) V
    assert math.isclose(row["tau2"], (q - 1) * V)
    assert math.isclose(row["p"], math.erfc(math.sqrt(q / 2)))  # df 1: 0.2060


def test_pairing_lead_is_i_over_j_in_the_entrants_order():
    g = games(record("B", "A", 47, 0, [("a", "a"), ("a", "a")]))  # B wins all 4
    # W(B) = 4 + 1/3 = 13/3, L = 1/3: B leads by ELO_PER_NAT * ln 13 = 445.57
    ab = pairing_heterogeneity(g, ["A", "B"], refits=0, seed=0).iloc[0]
    ba = pairing_heterogeneity(g, ["B", "A"], refits=0, seed=0).iloc[0]
    assert (ab["entrant_i"], ab["entrant_j"]) == ("A", "B")
    assert math.isclose(ab["leads"][0], -ELO_PER_NAT * math.log(13))
    assert math.isclose(ba["leads"][0], ELO_PER_NAT * math.log(13))
    assert ab["maps"] == 1 and math.isnan(ab["p"])  # one map: heterogeneity undefined


def test_pairings_are_rated_separately():
    rows = record("A", "B", 47, 0, [("a", "a"), ("a", "b")])  # A 3 of 4 against B
    rows += record("A", "C", 47, 2, [("b", "b"), ("b", "b")])  # C wins all 4 against A
    ph = pairing_heterogeneity(games(rows), ["A", "B", "C"], refits=0, seed=0)
    pairs = [(r["entrant_i"], r["entrant_j"]) for _, r in ph.iterrows()]
    assert pairs == [("A", "B"), ("A", "C")]  # B and C never met: no row
    assert math.isclose(ph.iloc[0]["leads"][0], LEAD)  # as on map 47 above
    assert math.isclose(ph.iloc[1]["leads"][0], -ELO_PER_NAT * math.log(13))
