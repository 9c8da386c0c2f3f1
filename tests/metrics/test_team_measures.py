"""Team measures (Table S14 / Figure 6) and their rank tests against Elo, on hand-built
tables whose expected numbers are worked out in the comments."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from scipy import stats

from marl_bgs.metrics.full import FULL_NAMES
from marl_bgs.metrics.rank_tests import holm, ranks, spearman, spearman_exact
from marl_bgs.metrics.team import (
    FIGURE_MEASURES,
    TEAM_MEASURES,
    season_team_measures,
    team_measures,
)
from tests.metrics.test_system import WON_A, table

# ---- rank tests ---------------------------------------------------------------------------


def test_ranks_share_ties():
    assert ranks([3, 1, 2, 2]).tolist() == [4.0, 1.0, 2.5, 2.5]


def test_spearman_by_hand_and_against_scipy():
    # d = 0, 1, 1, 0: rho = 1 - 6 * 2 / (4 * 15) = 0.8
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([1, 2, 3], [9, 5, 1]) == pytest.approx(-1.0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        x, y = rng.integers(0, 4, 7), rng.integers(0, 4, 7)  # many ties
        if len(set(x)) > 1 and len(set(y)) > 1:
            assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert np.isnan(spearman([1, 2, 3], [4, 4, 4]))


def test_the_exact_p_counts_orderings():
    # n = 4: |rho| >= 0.8 iff the sum of squared rank differences is <= 2 or >= 18; 1 + 3
    # orderings at the low end and 4 mirrored ones at the high end: 8 of 24.
    rho, p = spearman_exact([1, 2, 3, 4], [1, 3, 2, 4])
    assert rho == pytest.approx(0.8) and p == pytest.approx(8 / 24)
    # A perfect order is matched only by itself and its reverse: 2 of 5! = 120.
    assert spearman_exact([10, 20, 30, 40, 50], [5, 4, 3, 2, 1]) == pytest.approx((-1.0, 2 / 120))
    # Brute force with scipy's rho for a case with ties.
    x, y = [1, 2, 3, 4, 5, 6], [2, 2, 1, 5, 4, 6]
    observed = abs(stats.spearmanr(x, y).statistic)
    hits = sum(abs(stats.spearmanr(x, perm).statistic) >= observed - 1e-9 for perm in itertools.permutations(y))  # fmt: skip
    assert spearman_exact(x, y)[1] == pytest.approx(hits / 720)
    with pytest.raises(ValueError, match="3 to 9"):
        spearman_exact(range(10), range(10))


def test_holm_steps_down_and_keeps_order():
    # Sorted: 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, then max(0.06, 0.04 * 1) = 0.06.
    out = holm([0.01, 0.04, 0.03, float("nan")])
    assert out[:3] == pytest.approx([0.03, 0.06, 0.06]) and np.isnan(out[3])
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]


# ---- the measures --------------------------------------------------------------------------


def test_every_measure_reads_only_the_systems_own_side():
    for m in TEAM_MEASURES:
        num, den = m.weights()
        assert num.any() and den.any(), m.key
        for w in (num, den):
            for i in np.flatnonzero(w):
                name = FULL_NAMES[i]
                # Own-side labels only: the team axis 'a', by/of/at own slots, or the game.
                assert not re.search(r"(^|\.)(by_b\d|b\d|b)(\.|$)", name) and not name.endswith("_b"), (m.key, name)  # fmt: skip
    assert set(FIGURE_MEASURES) <= {m.key for m in TEAM_MEASURES}


def test_measures_by_hand_from_either_side():
    # X as team a in game 0 and as team b in game 1, 100 ticks each (200 in all).
    game_a = {
        "formation.a0.and_a1.distance": 6000, "formation.a0.and_a1.ticks": 2,
        "formation.a2.and_a3.distance": 2000, "formation.a2.and_a3.ticks": 2,
        "healing_done.by_a4.to_a0.basic": 800, "excess_healing.by_a4.to_a0": 200,
        "coordination.a.kills_with_helpers": 1, "episode_results.kills_a": 4,
        "coordination.a.focus_ticks": 10, "aura_payoff.a.warrior_blocked": 500,
        "damage_received.a0.total": 10000, "damage_to_affected.by_a1.to_b2.slow_hunter": 3000,
    }  # fmt: skip
    game_b = {
        "formation.b0.and_b1.distance": 4000, "formation.b0.and_b1.ticks": 4,
        "healing_done.by_b4.to_b1.ultimate": 1200, "excess_healing.by_shared.to_b1": 600,
        "coordination.b.kills_with_helpers": 3, "episode_results.kills_b": 4,
        "coordination.b.focus_ticks": 20, "damage_received.b3.total": 10000,
        # Team a's numbers in this game are X's opponent's and must not count.
        "formation.a0.and_a1.distance": 99000, "formation.a0.and_a1.ticks": 1,
        "coordination.a.focus_ticks": 50,
    }  # fmt: skip
    t = table(
        [
            {"a": "X", "b": "Y", "pair": 0, "result": WON_A, "cols": game_a},
            {"a": "Y", "b": "X", "pair": 0, "cols": game_b},
        ]
    )
    m = team_measures(t, "X", refits=20)["value"]
    assert m["teammate_distance"] == pytest.approx((6 + 2 + 4) / (2 + 2 + 4))  # 1.5 map units
    assert m["useful_healing_share"] == pytest.approx(100 * (2000 - 800) / 2000)  # 60%
    assert m["kills_with_helpers"] == pytest.approx(100 * 4 / 8)
    assert m["focus_ticks"] == pytest.approx(100 * 30 / 200)
    assert m["warrior_aura_protection"] == pytest.approx(100 * 500 / 20000)
    assert m["damage_to_hunter_slowed"] == pytest.approx(100 * 3.0 / 200)
    assert m["kills"] == pytest.approx(100 * 8 / 200)
    # Nothing recorded for a measure's denominator: undefined, not zero.
    assert np.isnan(m["time_in_mage_aura"])


def test_a_season_ranks_measures_against_elo():
    # Three entrants in a round robin; the stronger the entrant, the more focus ticks.
    focus = {"Low": 1, "Mid": 2, "Top": 3}
    games = []
    for k, (a, b) in enumerate(itertools.permutations(focus, 2)):
        cols = {"coordination.a.focus_ticks": focus[a], "coordination.b.focus_ticks": focus[b],
                "episode_results.kills_a": 3 - focus[a], "episode_results.kills_b": 3 - focus[b]}  # fmt: skip
        games.append({"a": a, "b": b, "pair": k, "cols": cols})
    values, tests = season_team_measures(
        table(games), {"Top": 1500.0, "Mid": 1200.0, "Low": 900.0}, refits=20
    )
    assert len(values) == 3 * len(TEAM_MEASURES)
    row = tests.set_index("measure").loc["focus_ticks"]
    assert row["rho"] == pytest.approx(1.0) and row["p"] == pytest.approx(2 / 6)
    assert tests.set_index("measure").loc["kills", "rho"] == pytest.approx(-1.0)
    # Measures with no data (no formation columns) are untested and left out of Holm.
    assert np.isnan(tests.set_index("measure").loc["teammate_distance", "p"])
    tested = tests["p"].notna().sum()
    assert tested == 2
    assert tests.set_index("measure").loc["focus_ticks", "holm"] == pytest.approx(min(1, 2 * 2 / 6))
    with pytest.raises(ValueError, match="at least 3 entrants"):
        season_team_measures(table(games), {"Top": 1.0, "Mid": 0.0})
