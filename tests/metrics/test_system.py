"""`system_metrics` (issue 21): games read from one System's side, pooled as rates per 100
ticks, with intervals from spawn-swapped pairs resampled within (opponent, map).

Every table here is built by hand, with full-metrics columns set to chosen counts, so each
expected number is worked out in the test's comments.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from marl_bgs.metrics.full import FULL_NAMES
from marl_bgs.metrics.system import (
    flipped_name,
    own_games,
    own_side,
    resample_weights,
    side_swap,
    system_metrics,
)

WON_A, WON_B, DRAW = 0, 1, 2


def table(games: list[dict]) -> pd.DataFrame:
    """A season-like table: one row per game, every full column 0 unless given."""
    rows = []
    for k, g in enumerate(games):
        row = dict.fromkeys(FULL_NAMES, 0)
        row.update(g.get("cols", {}))
        row["episode_results.result"] = g.get("result", DRAW)
        row["episode_results.ticks"] = g.get("ticks", 100)
        row.update(
            entrant_a=g["a"], entrant_b=g["b"], map_id=g.get("map", 47), pair=g.get("pair", k),
            fixture=g.get("fixture", 0), game=k,
        )  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)


# ---- reading a game from the other side ---------------------------------------------------


def test_flipped_names_swap_teams_in_every_label():
    assert flipped_name("damage_done.by_a0.to_b3.basic") == "damage_done.by_b0.to_a3.basic"
    assert flipped_name("coordination.a.focus_ticks") == "coordination.b.focus_ticks"
    assert flipped_name("formation.a0.and_a4.distance") == "formation.b0.and_b4.distance"
    assert flipped_name("excess_healing.by_shared.to_b2") == "excess_healing.by_shared.to_a2"
    assert flipped_name("episode_results.kills_a") == "episode_results.kills_b"
    assert flipped_name("episode_results.ticks") == "episode_results.ticks"
    assert (
        flipped_name("activations.by_b1.ultimate.on_none") == "activations.by_a1.ultimate.on_none"
    )


def test_the_side_swap_is_a_permutation_that_undoes_itself():
    swap = side_swap()
    assert sorted(swap) == list(range(len(FULL_NAMES)))
    assert (swap[swap] == np.arange(len(FULL_NAMES))).all()
    assert (swap != np.arange(len(FULL_NAMES))).sum() > 2500  # nearly every column has a twin


def test_own_side_turns_a_team_b_win_into_the_systems_own_win():
    values = np.zeros((2, len(FULL_NAMES)), np.int64)
    col = {n: i for i, n in enumerate(FULL_NAMES)}
    values[:, col["episode_results.result"]] = WON_B
    values[:, col["episode_results.kills_b"]] = 7
    values[:, col["damage_done.by_b2.to_a0.ultimate"]] = 1500
    own = own_side(values, np.array([True, False]))
    # Played as b: its win (1) becomes 0, its kills and damage move to the a labels.
    assert own[0, col["episode_results.result"]] == WON_A
    assert own[0, col["episode_results.kills_a"]] == 7
    assert own[0, col["damage_done.by_a2.to_b0.ultimate"]] == 1500
    # Played as a: the row is unchanged, and a draw stays a draw either way.
    assert (own[1] == values[1]).all()
    draw = values.copy()
    draw[:, col["episode_results.result"]] = DRAW
    assert (own_side(draw, np.array([True, True]))[:, col["episode_results.result"]] == DRAW).all()


# ---- pooling into rates --------------------------------------------------------------------


def test_counts_pool_into_rates_per_100_ticks_from_the_systems_side():
    # X plays a pair against Y: once as team a (100 ticks, 2 kills, won) and once as team b
    # (300 ticks, 6 kills, lost). Pooled: 8 kills in 400 ticks = 2.0 per 100 ticks.
    t = table(
        [
            {"a": "X", "b": "Y", "pair": 0, "ticks": 100, "result": WON_A,
             "cols": {"episode_results.kills_a": 2, "episode_results.kills_b": 5}},
            {"a": "Y", "b": "X", "pair": 0, "ticks": 300, "result": WON_A,
             "cols": {"episode_results.kills_a": 9, "episode_results.kills_b": 6}},
        ]
    )  # fmt: skip
    x = system_metrics(t, "X", refits=50)
    assert x.loc["episode_results.kills_a", "total"] == 8
    assert x.loc["episode_results.kills_a", "value"] == pytest.approx(2.0)
    assert x.loc["episode_results.kills_a", "per_game"] == pytest.approx(4.0)
    assert x.loc["episode_results.kills_b", "value"] == pytest.approx(100 * 14 / 400)  # against X
    assert x.loc["episode_results.ticks", "value"] == pytest.approx(200.0)  # mean per game
    assert x.loc["episode_results.ticks", "unit"] == "ticks per game"
    assert list(x.loc[["episode_results.won", "episode_results.drawn", "episode_results.lost"], "value"]) == [0.5, 0.0, 0.5]  # fmt: skip
    assert "episode_results.result" not in x.index
    assert x.attrs["games"] == 2 and x.attrs["pairs"] == 1 and x.attrs["ticks"] == 400
    # One pair in its only stratum: every refit draws it, so the interval is the value.
    assert x.loc["episode_results.kills_a", "low"] == pytest.approx(2.0)
    assert x.loc["episode_results.kills_a", "high"] == pytest.approx(2.0)
    # And Y sees the mirror image: 14 kills in 400 ticks.
    y = system_metrics(t, "Y", refits=50)
    assert y.loc["episode_results.kills_a", "value"] == pytest.approx(3.5)


def test_the_interval_spans_the_pairs_of_a_stratum_and_no_further():
    # Two pairs on one map against one opponent: kill rates 1 and 5 per 100 ticks.
    t = table(
        [
            {"a": "X", "b": "Y", "pair": p, "ticks": 100, "cols": {"episode_results.kills_a": k}}
            for p, k in ((0, 1), (0, 1), (1, 5), (1, 5))
        ]
    )
    x = system_metrics(t, "X", refits=400, seed=3)
    row = x.loc["episode_results.kills_a"]
    assert row["value"] == pytest.approx(3.0)
    # Refits draw two pairs with replacement: rates 1, 3 or 5, each with its binomial share.
    assert row["low"] == pytest.approx(1.0) and row["high"] == pytest.approx(5.0)
    narrow = system_metrics(t, "X", refits=400, seed=3, level=0.2)
    assert narrow.loc["episode_results.kills_a", ["low", "high"]].tolist() == [3.0, 3.0]
    # The same seed gives the same interval.
    assert system_metrics(t, "X", refits=400, seed=3).equals(x)


def test_resampling_draws_each_stratum_from_itself():
    strata = [np.array([0, 1, 2]), np.array([3]), np.array([4, 5])]
    w = resample_weights(strata, 6, refits=300, seed=0)
    assert w.shape == (300, 6)
    assert (w[:, :3].sum(axis=1) == 3).all()
    assert (w[:, 3] == 1).all()
    assert (w[:, 4:].sum(axis=1) == 2).all()
    assert (w[:, 0] != w[:, 1]).any()  # really random
    assert (resample_weights(strata, 6, refits=300, seed=0) == w).all()


def test_pairs_are_grouped_by_opponent_and_map():
    t = table(
        [
            {"a": "X", "b": "Y", "map": 47, "pair": 0},
            {"a": "Y", "b": "X", "map": 47, "pair": 0},
            {"a": "X", "b": "Y", "map": 48, "pair": 0},
            {"a": "X", "b": "Z", "map": 47, "pair": 0, "fixture": 1},
            {"a": "Y", "b": "Z", "map": 47, "pair": 5, "fixture": 2},  # not X's
        ]
    )
    own = own_games(t, "X")
    assert len(own.values) == 4 and own.units == 3
    assert own.opponents == ("Y", "Z")
    assert [len(s) for s in own.strata] == [1, 1, 1]
    assert own.unit[0] == own.unit[1] != own.unit[2]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda t: system_metrics(t, "W"), r"'W' played none of these games; they have \['X', 'Y'\]"),
        (lambda t: system_metrics(t.drop(columns=["deaths.a0.deaths"]), "X"), "lacks 1 full-metrics"),
        (lambda t: system_metrics(t, "X", refits=1), "refits"),
        (lambda t: system_metrics(t, "X", level=1.5), "level"),
        (lambda t: system_metrics([], "X"), "no evaluation results"),
        (lambda t: system_metrics(["not a result"], "X"), "expected an EvalResult"),
    ],
)  # fmt: skip
def test_bad_calls_name_what_is_wrong(call, message):
    t = table([{"a": "X", "b": "Y"}])
    with pytest.raises((ValueError, TypeError), match=message):
        call(t)


def test_a_self_play_game_is_refused():
    with pytest.raises(ValueError, match="plays both teams"):
        system_metrics(table([{"a": "X", "b": "X"}]), "X")
