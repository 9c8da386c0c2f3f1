"""Tiers (`marl_bgs/tournament/tiers.py`): where a rating is placed, the edges of every tier and
division, rounding to the printed whole Elo, the win chance against 1,200 and Table S8's rows.

Expected values are written out by hand (arithmetic in the comments) or come from a few-line
placement rule written here from the module's docstring, never from the module itself."""

from __future__ import annotations

import math

import pytest

from marl_bgs.tournament.tiers import Tier, tier_of, tier_table, win_chance

NAMES = ("Iron", "Bronze", "Silver", "Gold", "Platinum", "Diamond", "Master", "Grandmaster")


def placed(r: int) -> str:
    """The docstring's rule for a whole Elo r, written independently: tiers 200 wide from
    Bronze at 800 up to Grandmaster at 2,000; five divisions 40 wide, 5 at the bottom; Iron
    counts down from 800 like the others and everything below 600 is Iron 5."""
    if r >= 2000:
        return "Grandmaster"
    if r < 800:
        name, floor = "Iron", 600
    else:
        k = (r - 800) // 200  # 0 = Bronze ... 5 = Master
        name, floor = NAMES[k + 1], 800 + 200 * k
    division = 5 - max(0, (r - floor) // 40)  # 5 in [floor, floor+40), 1 in [floor+160, +200)
    return f"{name} {division}"


# ---- placement -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("elo", "label"),
    [
        # every edge of Gold's divisions: 1200-1239 is 5, 1240-1279 is 4, ..., 1360-1399 is 1
        (1200, "Gold 5"),
        (1239, "Gold 5"),
        (1240, "Gold 4"),
        (1279, "Gold 4"),
        (1280, "Gold 3"),
        (1320, "Gold 2"),
        (1359, "Gold 2"),
        (1360, "Gold 1"),
        (1399, "Gold 1"),
        (1400, "Platinum 5"),
        # each tier's floor is its division 5, one below is the tier underneath's division 1
        (800, "Bronze 5"),
        (799, "Iron 1"),
        (1000, "Silver 5"),
        (999, "Bronze 1"),
        (1599, "Platinum 1"),
        (1600, "Diamond 5"),
        (1799, "Diamond 1"),
        (1800, "Master 5"),
        (1999, "Master 1"),
        (2000, "Grandmaster"),
        (5000, "Grandmaster"),
        # Iron counts down from 800: 760-799 is 1, 720-759 is 2, 680-719 is 3, 640-679 is 4,
        # and everything below 640 (600 and under included) is 5
        (760, "Iron 1"),
        (759, "Iron 2"),
        (720, "Iron 2"),
        (719, "Iron 3"),
        (680, "Iron 3"),
        (679, "Iron 4"),
        (640, "Iron 4"),
        (639, "Iron 5"),
        (600, "Iron 5"),
        (599, "Iron 5"),
        (0, "Iron 5"),
        (-350, "Iron 5"),
    ],
)
def test_edges_of_tiers_and_divisions(elo, label):
    assert tier_of(elo).label == label


@pytest.mark.parametrize(
    ("elo", "label"),
    [
        # placed by the printed whole Elo, rounded half up: floor(x + 0.5)
        (1199.5, "Gold 5"),  # floor(1200.0) = 1200
        (1199.49, "Silver 1"),  # floor(1199.99) = 1199
        (1239.5, "Gold 4"),  # floor(1240.0) = 1240
        (1239.4999, "Gold 5"),  # floor(1239.9999) = 1239
        (1999.5, "Grandmaster"),  # floor(2000.0) = 2000
        (1999.49, "Master 1"),
        (799.5, "Bronze 5"),  # floor(800.0) = 800
        (799.4, "Iron 1"),
        (1399.5, "Platinum 5"),  # floor(1400.0) = 1400
    ],
)
def test_a_rating_is_placed_by_its_printed_whole_elo(elo, label):
    assert tier_of(elo).label == label


def test_every_whole_elo_from_minus_100_to_2100_follows_the_documented_rule():
    wrong = [
        (r, tier_of(r).label, placed(r)) for r in range(-100, 2101) if tier_of(r).label != placed(r)
    ]
    assert not wrong, wrong[:5]


def test_placement_never_goes_down_as_the_rating_goes_up():
    order = [f"Iron {d}" for d in range(5, 0, -1)]
    for name in NAMES[1:-1]:
        order += [f"{name} {d}" for d in range(5, 0, -1)]
    order.append("Grandmaster")  # 7 tiers x 5 divisions + Grandmaster = 36 labels, in order
    assert len(order) == 36
    ranks = [order.index(tier_of(r / 4).label) for r in range(0, 4 * 2100)]  # steps of 0.25
    assert all(b >= a for a, b in zip(ranks[:-1], ranks[1:], strict=True))
    assert set(ranks) == set(range(36))  # and every division is reached


def test_tier_carries_its_elo_range_and_open_ends():
    assert tier_of(1300) == Tier("Gold", 3, 1200, 1399)  # 1280 <= 1300 < 1320: division 3
    assert tier_of(1450) == Tier("Platinum", 4, 1400, 1599)  # 1440 <= 1450 < 1480
    assert tier_of(850) == Tier("Bronze", 4, 800, 999)  # 840 <= 850 < 880
    iron = tier_of(700)  # Iron has no floor
    assert (iron.name, iron.division, iron.low, iron.high) == ("Iron", 3, None, 799)
    gm = tier_of(2222)  # Grandmaster has no divisions and no ceiling
    assert (gm.name, gm.division, gm.low, gm.high) == ("Grandmaster", None, 2000, None)
    assert gm.label == "Grandmaster" and Tier("Gold", 2, 1200, 1399).label == "Gold 2"


@pytest.mark.parametrize("bad", [float("nan"), "1200", None, [1200]])
def test_what_is_not_a_rating_is_refused(bad):
    with pytest.raises(ValueError, match="elo"):
        tier_of(bad)


# ---- win chance ------------------------------------------------------------------------------
def test_win_chance_is_the_elo_logistic_against_1200():
    assert win_chance(1200) == 0.5  # 1 / (1 + 10^0)
    assert math.isclose(win_chance(1600), 10 / 11)  # 1 / (1 + 10^-1) = 10/11 = 0.90909
    assert math.isclose(win_chance(800), 1 / 11)  # 1 / (1 + 10^1)
    assert math.isclose(win_chance(2000), 100 / 101)  # 1 / (1 + 10^-2) = 0.990099
    assert math.isclose(win_chance(1400), 1 / (1 + 10**-0.5))  # 0.759747
    # against another rating: 1,400 vs 1,000 is 400 ahead, the same 10/11
    assert math.isclose(win_chance(1400, against=1000), 10 / 11)
    assert math.isclose(win_chance(1000, against=1400), 1 / 11)


def test_win_chances_of_both_sides_add_up_to_one_and_rise_with_the_rating():
    for a, b in [(1200, 1200), (1313.7, 987.2), (400, 2400)]:
        assert math.isclose(win_chance(a, b) + win_chance(b, a), 1.0)
    chances = [win_chance(e) for e in range(600, 2001, 50)]
    assert all(y > x for x, y in zip(chances[:-1], chances[1:], strict=True))


# ---- Table S8 --------------------------------------------------------------------------------
def test_tier_table_rows_by_hand():
    rows = tier_table()
    assert [r["tier"] for r in rows] == list(reversed(NAMES))  # highest first
    spans = {r["tier"]: (r["elo_low"], r["elo_high"]) for r in rows}
    assert spans == {"Grandmaster": (2000, None), "Master": (1800, 1999), "Diamond": (1600, 1799),
                     "Platinum": (1400, 1599), "Gold": (1200, 1399), "Silver": (1000, 1199),
                     "Bronze": (800, 999), "Iron": (None, 799)}  # fmt: skip
    by = {r["tier"]: r for r in rows}
    # win chance at the tier's floor and at the exclusive top, to 4 decimals:
    # 1600: 10/11 = 0.909090..., 1800: 1/(1+10^-1.5) = 0.969347..., 1000: 1/(1+10^0.5) = 0.240253
    assert (by["Diamond"]["win_chance_low"], by["Diamond"]["win_chance_high"]) == (0.9091, 0.9693)
    assert (by["Silver"]["win_chance_low"], by["Silver"]["win_chance_high"]) == (0.2403, 0.5)
    assert (by["Iron"]["win_chance_low"], by["Iron"]["win_chance_high"]) == (None, 0.0909)
    assert by["Grandmaster"]["win_chance_high"] is None
    assert by["Grandmaster"]["win_chance_low"] == 0.9901  # 100/101 = 0.990099
    assert by["Grandmaster"]["divisions"] == []


def test_tier_table_divisions_by_hand():
    by = {r["tier"]: r for r in tier_table()}
    gold = [(d["division"], d["elo_low"], d["elo_high"]) for d in by["Gold"]["divisions"]]
    assert gold == [
        (5, 1200, 1239),
        (4, 1240, 1279),
        (3, 1280, 1319),
        (2, 1320, 1359),
        (1, 1360, 1399),
    ]
    iron = [(d["division"], d["elo_low"], d["elo_high"]) for d in by["Iron"]["divisions"]]
    # Iron 5 is open below (None), its top is 800 - 4 * 40 - 1 = 639
    assert iron == [(5, None, 639), (4, 640, 679), (3, 680, 719), (2, 720, 759), (1, 760, 799)]


def test_tier_table_and_tier_of_agree_on_every_division():
    """Every division's printed range places at both ends into that division and tier."""
    for row in tier_table():
        for d in row["divisions"]:
            for r in (d["elo_low"], d["elo_high"]):
                if r is not None:
                    assert tier_of(r).label == f"{row['tier']} {d['division']}", r


# ---- gaps found by these tests, now mended ---------------------------------------------
def test_an_infinite_rating_is_refused_like_nan():
    with pytest.raises(ValueError, match="elo"):
        tier_of(float("inf"))


@pytest.mark.parametrize("kind", ["int64", "float32"])
def test_a_numpy_rating_is_placed_like_a_python_number(kind):
    import numpy as np

    assert tier_of(np.dtype(kind).type(1300)).label == "Gold 3"


def test_a_boolean_is_not_a_rating():
    with pytest.raises(ValueError, match="elo: expected a number"):
        tier_of(True)  # bool is an int to Python, but no rating
