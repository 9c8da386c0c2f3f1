"""Rating intervals (`marl_bgs/tournament/intervals.py`): refits on resampled spawn-swapped
pairs, stratified by (pairing, map), and the middle `level` of the refits' Elo.

Every case here has two entrants, so each fit has a closed form: the Bradley-Terry-Davidson
model is saturated for one pairing, and with W wins, D draws and L losses (each plus
prior_games / 3 = 1/3 virtual games) A's Elo is 1200 + (ELO_PER_NAT / 2) * ln(W / L) and
nu = D / sqrt(W L). The refits are reproduced independently from the documented recipe: NumPy's
`default_rng(seed)`, one multinomial per (pairing, map) stratum, in map order, over the sorted
kinds of pair the stratum holds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from marl_bgs.tournament.intervals import bootstrap, pair_units
from marl_bgs.tournament.ratings import ELO_PER_NAT

COLUMNS = ["entrant_a", "entrant_b", "result", "map_id", "seed_number"]
THIRD = 1 / 3  # prior_games = 1, split evenly over win, draw and loss
FLIP = {"a": "b", "b": "a", "draw": "draw"}


def games(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


def pairs(outcomes, map_id=47, first_seed=0, a="A", b="B") -> list[tuple]:
    """Spawn-swapped pairs: each (r1, r2) from a's side; the second game lists b as team a."""
    rows = []
    for p, (r1, r2) in enumerate(outcomes):
        rows.append((a, b, r1, map_id, first_seed + p))
        rows.append((b, a, FLIP[r2], map_id, first_seed + p))
    return rows


def elo_a(w, d, l):  # noqa: E741 - wins, draws, losses of A
    """A's Elo from A's real counts (array or number), the weak prior added."""
    return 1200 + ELO_PER_NAT / 2 * np.log((w + THIRD) / (l + THIRD))


# ---- the fit the interval is built around ----------------------------------------------------
def test_fit_by_hand():
    # pairs: (win, win), (win, win), (win, loss), (draw, draw): W = 5, D = 2, L = 1
    iv = bootstrap(games(pairs([("a", "a"), ("a", "a"), ("a", "b"), ("draw", "draw")])), 10)
    w, d, l = 5 + THIRD, 2 + THIRD, 1 + THIRD  # noqa: E741
    a = 1200 + ELO_PER_NAT / 2 * math.log(w / l)  # 1200 + 86.859 * ln 4 = 1320.412
    np.testing.assert_allclose(iv.fit.elo, [a, 2400 - a], atol=1e-7)
    assert math.isclose(float(iv.fit.nu), d / math.sqrt(w * l), rel_tol=1e-7)  # 0.875
    assert iv.fit.entrants == ("A", "B")


def test_more_wins_never_lower_the_rating():
    last = -math.inf
    for k in range(0, 6):  # A wins k of 5 pairs outright, loses the rest outright
        outcomes = [("a", "a")] * k + [("b", "b")] * (5 - k)
        iv = bootstrap(games(pairs(outcomes)), refits=0)
        a = float(iv.fit.elo[0])
        assert math.isclose(a, elo_a(2 * k, 0, 2 * (5 - k)), abs_tol=1e-7)
        assert a > last
        last = a


# ---- the documented resampling recipe --------------------------------------------------------
def test_refits_follow_the_documented_recipe_one_stratum():
    outcomes = [("a", "a"), ("a", "a"), ("a", "b"), ("draw", "draw")]
    refits, seed = 400, 17
    iv = bootstrap(games(pairs(outcomes)), refits=refits, seed=seed)
    # the stratum's kinds of pair as (wins, draws, losses) of A, sorted: (0,2,0) once,
    # (1,0,1) once, (2,0,0) twice; 4 pairs drawn with replacement = multinomial(4, shares)
    kinds = np.array([[0, 2, 0], [1, 0, 1], [2, 0, 0]])
    draws = np.random.default_rng(seed).multinomial(4, [1 / 4, 1 / 4, 2 / 4], size=refits)
    w, d, l = (draws @ kinds).T  # noqa: E741
    expected = elo_a(w, d, l)
    np.testing.assert_allclose(iv.refit_elo[:, 0], expected, atol=1e-6)
    np.testing.assert_allclose(iv.refit_elo[:, 1], 2400 - expected, atol=1e-6)
    low, high = np.quantile(expected, [0.025, 0.975])
    np.testing.assert_allclose([iv.low[0], iv.high[0]], [low, high], atol=1e-6)
    np.testing.assert_allclose([iv.low[1], iv.high[1]], [2400 - high, 2400 - low], atol=1e-6)
    assert iv.seed == seed and iv.level == 0.95


def test_refits_follow_the_documented_recipe_two_maps():
    """Two strata, (A-B, 47) then (A-B, 48): one multinomial each, drawn in map order, added up."""
    rows = pairs([("b", "b"), ("a", "b"), ("a", "a")], map_id=48, first_seed=10)  # listed first
    rows += pairs([("a", "a"), ("a", "draw")], map_id=47, first_seed=0)
    refits, seed = 300, 5
    iv = bootstrap(games(rows), refits=refits, seed=seed, level=0.8)
    rng = np.random.default_rng(seed)
    k47 = np.array([[1, 1, 0], [2, 0, 0]])  # sorted kinds on map 47, one pair each
    k48 = np.array([[0, 0, 2], [1, 0, 1], [2, 0, 0]])  # map 48, one pair each
    counts = rng.multinomial(2, [1 / 2, 1 / 2], size=refits) @ k47
    counts = counts + rng.multinomial(3, [1 / 3, 1 / 3, 1 / 3], size=refits) @ k48
    expected = elo_a(*counts.T)
    np.testing.assert_allclose(iv.refit_elo[:, 0], expected, atol=1e-6)
    np.testing.assert_allclose(
        [iv.low[0], iv.high[0]], np.quantile(expected, [0.1, 0.9]), atol=1e-6
    )


def test_seed_given_as_a_list_seeds_numpy_with_the_list():
    outcomes = [("a", "b"), ("a", "a"), ("b", "b")]
    iv = bootstrap(games(pairs(outcomes)), refits=200, seed=[3, 47])
    # sorted kinds (0,0,2), (1,0,1), (2,0,0), one pair each
    kinds = np.array([[0, 0, 2], [1, 0, 1], [2, 0, 0]])
    draws = np.random.default_rng([3, 47]).multinomial(3, [1 / 3] * 3, size=200)
    np.testing.assert_allclose(iv.refit_elo[:, 0], elo_a(*(draws @ kinds).T), atol=1e-6)
    assert iv.seed == (3, 47)


# ---- the pair is the unit --------------------------------------------------------------------
def test_pairs_split_one_each_give_no_spread_but_the_same_games_paired_alike_do():
    """Ten games, five won by each side. As five 1-1 pairs every resample is the same table;
    as pairs won 2-0 the number of A's pairs varies from refit to refit."""
    split = bootstrap(games(pairs([("a", "b")] * 5)), refits=500, seed=1)
    alike = bootstrap(games(pairs([("a", "a")] * 2 + [("b", "b")] * 2 + [("a", "b")])), 500, 1)
    assert split.fit.elo[0] == pytest.approx(1200, abs=1e-9)  # W = L = 5
    assert alike.fit.elo[0] == pytest.approx(1200, abs=1e-9)  # W = L = 5 as well
    np.testing.assert_allclose([split.low[0], split.high[0]], [1200, 1200], atol=1e-6)
    assert np.allclose(split.sd, 0, atol=1e-6)
    assert alike.high[0] - alike.low[0] > 100 and alike.sd[0] > 20


def test_pair_units_group_games_by_pairing_map_and_seed_from_the_lower_entrants_side():
    rows = [
        ("B", "A", "a", 48, 7),  # B wins as team a: a loss for A (index 0)
        ("A", "B", "draw", 48, 7),
        ("A", "B", "a", 47, 3),
        ("B", "A", "b", 47, 3),  # A wins as team b
        ("A", "C", "b", 47, 3),  # another pairing, same map and seed number: its own unit
        ("C", "A", "a", 47, 3),
    ]
    u = pair_units(games(rows))
    assert u.entrants == ("A", "B", "C")
    assert u.pairs.tolist() == [[0, 1], [0, 2]]
    # units sorted by (lo, hi, map, seed): (A-B, 47, 3), (A-B, 48, 7), (A-C, 47, 3)
    assert u.unit_counts.tolist() == [[2, 0, 0], [0, 1, 1], [0, 0, 2]]
    assert u.unit_pairing.tolist() == [0, 0, 1]
    assert [s.tolist() for s in u.strata] == [[0], [1], [2]]  # three (pairing, map) strata
    assert u.counts().tolist() == [[2, 1, 1], [0, 0, 2]]


def test_game_order_and_listed_sides_do_not_change_the_intervals():
    outcomes = [("a", "b"), ("a", "a"), ("b", "draw"), ("draw", "draw"), ("a", "a")]
    g = games(pairs(outcomes, 47) + pairs(outcomes[::-1], 48, first_seed=20))
    mirror = g.rename(columns={"entrant_a": "entrant_b", "entrant_b": "entrant_a"})
    mirror["result"] = mirror["result"].map(FLIP)  # the same games, sides listed the other way
    mirror = mirror.iloc[::-1].reset_index(drop=True)  # and in reverse order
    first = bootstrap(g, refits=300, seed=8)
    second = bootstrap(mirror, refits=300, seed=8)
    np.testing.assert_array_equal(first.refit_elo, second.refit_elo)
    np.testing.assert_array_equal(first.low, second.low)


# ---- edge cases ------------------------------------------------------------------------------
def test_all_wins_is_a_finite_point():
    # A wins all 10 games: W = 10 + 1/3 = 31/3, D = L = 1/3: Elo 1200 + (ELO_PER_NAT / 2) ln 31
    # = 1200 + 86.859 * 3.434 = 1498.27; every resample is the same table, so low = high
    iv = bootstrap(games(pairs([("a", "a")] * 5)), refits=200, seed=0)
    top = 1200 + ELO_PER_NAT / 2 * math.log(31)
    np.testing.assert_allclose(iv.fit.elo, [top, 2400 - top], atol=1e-6)
    np.testing.assert_allclose(iv.low, iv.fit.elo, atol=1e-6)
    np.testing.assert_allclose(iv.high, iv.fit.elo, atol=1e-6)
    assert math.isclose(float(iv.fit.nu), (1 / 3) / math.sqrt(31 / 9), rel_tol=1e-6)


def test_all_wins_without_the_prior_has_no_rating():
    with pytest.raises(ValueError, match="no finite maximum"):
        bootstrap(games(pairs([("a", "a")] * 5)), refits=10, prior_games=0)


def test_all_draws_is_a_point_at_1200():
    # D = 10 + 1/3, W = L = 1/3: x = ln 1 = 0, nu = (31/3) / (1/3) = 31
    iv = bootstrap(games(pairs([("draw", "draw")] * 5)), refits=200, seed=0)
    np.testing.assert_allclose(iv.fit.elo, [1200, 1200], atol=1e-7)
    np.testing.assert_allclose(iv.low, [1200, 1200], atol=1e-6)
    np.testing.assert_allclose(iv.high, [1200, 1200], atol=1e-6)
    assert math.isclose(float(iv.fit.nu), 31.0, rel_tol=1e-6)


def test_no_refits_gives_the_fit_without_an_interval():
    iv = bootstrap(games(pairs([("a", "b"), ("a", "a")])), refits=0)
    assert iv.refit_elo.shape == (0, 2)
    assert np.isnan(iv.low).all() and np.isnan(iv.high).all()
    assert math.isnan(iv.refits_per_second)
    np.testing.assert_allclose(iv.fit.elo[0], elo_a(3, 0, 1), atol=1e-7)


def test_named_entrants_set_the_order_and_may_include_every_name():
    g = games(pairs([("a", "a"), ("a", "b")], a="Zed", b="Amy"))
    iv = bootstrap(g, refits=0, entrants=["Zed", "Amy"])
    assert iv.fit.entrants == ("Zed", "Amy")
    assert iv.fit.elo[0] == pytest.approx(float(elo_a(3, 0, 1)), abs=1e-7)  # Zed: 3 wins, 1 loss
    assert bootstrap(g, refits=0).fit.entrants == ("Amy", "Zed")  # sorted by default


# ---- levels, data and seeds ------------------------------------------------------------------
OUTCOMES = [("a", "a"), ("a", "b"), ("b", "b"), ("a", "draw"), ("draw", "b"), ("a", "a")]


def test_a_higher_level_never_gives_a_narrower_interval():
    g = games(pairs(OUTCOMES))
    ivs = [bootstrap(g, refits=1000, seed=2, level=lv) for lv in (0.5, 0.8, 0.95, 0.99)]
    for inner, outer in zip(ivs[:-1], ivs[1:], strict=True):
        assert np.all(outer.low <= inner.low) and np.all(inner.high <= outer.high)
    assert ivs[-1].high[0] - ivs[-1].low[0] > ivs[0].high[0] - ivs[0].low[0]
    for iv in ivs:  # the fit lies inside each interval here
        assert np.all(iv.low <= iv.fit.elo) and np.all(iv.fit.elo <= iv.high)


def test_four_times_the_pairs_roughly_halve_the_interval():
    small = bootstrap(games(pairs(OUTCOMES)), refits=2000, seed=4)
    big = bootstrap(games(pairs(OUTCOMES * 4)), refits=2000, seed=4)
    w_small = small.high[0] - small.low[0]
    w_big = big.high[0] - big.low[0]
    # sd ~ 1 / sqrt(pairs): a width ratio near 1/2 (the prior and the 6-pair grid blur it)
    assert 0.35 < w_big / w_small < 0.65, (w_small, w_big)
    assert big.sd[0] < small.sd[0]


def test_the_same_seed_gives_the_same_intervals_and_another_seed_other_refits():
    g = games(pairs(OUTCOMES))
    a = bootstrap(g, refits=300, seed=11)
    b = bootstrap(g, refits=300, seed=11)
    c = bootstrap(g, refits=300, seed=12)
    np.testing.assert_array_equal(a.refit_elo, b.refit_elo)
    np.testing.assert_array_equal(a.low, b.low)
    assert not np.array_equal(a.refit_elo, c.refit_elo)


def test_sd_is_the_refits_sample_sd():
    iv = bootstrap(games(pairs(OUTCOMES)), refits=500, seed=6)
    e = iv.refit_elo[:, 0]
    assert math.isclose(iv.sd[0], math.sqrt(((e - e.mean()) ** 2).sum() / (len(e) - 1)))


# ---- refusals --------------------------------------------------------------------------------
def test_bad_arguments_name_what_is_wrong():
    g = games(pairs([("a", "b")]))
    for level in (0, 1, 1.5, -0.1):
        with pytest.raises(ValueError, match="level"):
            bootstrap(g, refits=10, level=level)
    with pytest.raises(ValueError, match="refits"):
        bootstrap(g, refits=-1)
    with pytest.raises(ValueError, match="seed"):
        bootstrap(g, refits=10, seed=-3)
    with pytest.raises(ValueError, match=r"seed\[1\]"):
        bootstrap(g, refits=10, seed=[1, -2])
    with pytest.raises(ValueError, match="missing column"):
        bootstrap(g.drop(columns="seed_number"))
    with pytest.raises(ValueError, match="no games"):
        bootstrap(g.iloc[:0])
    with pytest.raises(ValueError, match="DataFrame"):
        bootstrap(g.to_dict("records"))
    with pytest.raises(ValueError, match="not among the entrants"):
        bootstrap(g, refits=0, entrants=["A", "C"])
    with pytest.raises(ValueError, match="cannot play itself"):
        bootstrap(games([("A", "A", "a", 47, 0), ("A", "B", "a", 47, 1)]), refits=0)
