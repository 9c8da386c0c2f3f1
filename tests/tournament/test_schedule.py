"""The fixed schedule (`marl_bgs/tournament/schedule.py`): who meets whom, on which maps, with
which blocks of seed numbers, for the round robin and the challengers.

The module promises no randomness (there is no seed to give it): the same entrants, maps and
games per map always give the same fixtures. Games come in spawn-swapped pairs, so a fixture's
game count is even and its `pairs` is half of it; `evaluate` puts pair p on maps[p % len(maps)]
with seed number first_seed + p. Expected values are written out by hand."""

from __future__ import annotations

from collections import Counter

import pytest

from marl_bgs.tournament.schedule import (
    CHALLENGE,
    ROUND_ROBIN,
    Fixture,
    challenge,
    check_games_per_map,
    round_robin,
    seed_base_after,
)


# ---- round robin -----------------------------------------------------------------------------
def test_three_entrants_two_maps_by_hand():
    # 3 entrants: 3 * 2 / 2 = 3 pairings; 4 games a map on 2 maps = 8 games = 4 pairs a fixture;
    # seed blocks of 4 pairs: 0-3, 4-7, 8-11
    fixtures = round_robin(["A", "B", "C"], [47, 48], 4)
    assert fixtures == [
        Fixture(0, ROUND_ROBIN, "A", "B", (47, 48), 8, 0),
        Fixture(1, ROUND_ROBIN, "A", "C", (47, 48), 8, 4),
        Fixture(2, ROUND_ROBIN, "B", "C", (47, 48), 8, 8),
    ]
    assert [f.pairs for f in fixtures] == [4, 4, 4]
    assert seed_base_after(fixtures) == 12  # 8 + 4


def test_every_pairing_meets_once_with_the_earlier_entrant_as_team_a():
    names = ["Zed", "Amy", "Kim", "Bo", "Lu"]  # not alphabetical: the file's order is kept
    fixtures = round_robin(names, [51], 2)
    assert len(fixtures) == 10  # 5 * 4 / 2
    seen = [(f.entrant_a, f.entrant_b) for f in fixtures]
    expected = [(names[i], names[j]) for i in range(5) for j in range(i + 1, 5)]
    assert seen == expected  # i before j, i as team a, in file order
    unordered = Counter(frozenset(p) for p in seen)
    assert len(unordered) == 10 and set(unordered.values()) == {1}  # never (j, i) as well
    assert [f.index for f in fixtures] == list(range(10))
    assert all(f.stage == ROUND_ROBIN for f in fixtures)


def test_seed_numbers_are_consecutive_blocks_one_pair_each():
    # 4 entrants -> 6 fixtures; 6 games a map on 3 maps = 18 games = 9 pairs each
    fixtures = round_robin(["A", "B", "C", "D"], [47, 49, 50], 6)
    assert [f.games for f in fixtures] == [18] * 6
    assert [f.first_seed for f in fixtures] == [0, 9, 18, 27, 36, 45]  # k * 18 / 2
    numbers = [f.first_seed + p for f in fixtures for p in range(f.pairs)]
    assert numbers == list(range(54))  # 6 * 9 pairs: every number once, no gap
    assert seed_base_after(fixtures) == 54


def test_pairs_spread_evenly_over_the_maps():
    """With pair p on maps[p % len(maps)], each map gets games_per_map games (half as many
    spawn-swapped pairs) in every fixture."""
    for maps, per_map in [((47,), 2), ((47, 48), 40), ((47, 48, 49, 50, 51), 40), ((3, 1, 2), 10)]:
        for f in round_robin(["A", "B", "C"], maps, per_map):
            assert f.maps == tuple(maps)
            on = Counter(f.maps[p % len(f.maps)] for p in range(f.pairs))
            assert on == {m: per_map // 2 for m in maps}, (maps, per_map, on)
            assert 2 * f.pairs == f.games == per_map * len(maps)


def test_the_schedule_has_no_randomness():
    first = round_robin(["A", "B", "C", "D"], [47, 48, 49, 50, 51], 40)
    again = round_robin(["A", "B", "C", "D"], (47, 48, 49, 50, 51), 40)
    assert first == again
    assert [f.as_dict() for f in first] == [f.as_dict() for f in again]
    # the default is 40 games a map: 5 maps -> 200 games, 100 pairs, blocks of 100
    default = round_robin(["A", "B"], [47, 48, 49, 50, 51])
    assert (default[0].games, default[0].pairs, default[0].first_seed) == (200, 100, 0)


def test_as_dict_lists_the_maps():
    d = round_robin(["A", "B"], (47, 48), 2)[0].as_dict()
    assert d == {
        "index": 0,
        "stage": "round-robin",
        "entrant_a": "A",
        "entrant_b": "B",
        "maps": [47, 48],
        "games": 4,
        "first_seed": 0,
    }


@pytest.mark.parametrize(
    ("entrants", "match"),
    [(["A"], "two or more"), ([], "two or more"), (["A", "B", "A"], "distinct")],
)
def test_round_robin_refuses_a_field_that_cannot_play(entrants, match):
    with pytest.raises(ValueError, match=match):
        round_robin(entrants, [47], 2)


def test_round_robin_refuses_no_maps():
    with pytest.raises(ValueError, match="at least one map"):
        round_robin(["A", "B"], [], 2)


# ---- games per map ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4, 40, 1000])
def test_even_games_per_map_are_accepted(n):
    assert check_games_per_map(n) == n


@pytest.mark.parametrize("n", [1, 3, 41, 0, -2])
def test_odd_or_too_few_games_per_map_are_refused(n):
    # games come in spawn-swapped pairs: an odd count would leave one game without its swap
    with pytest.raises(ValueError, match="games_per_map"):
        check_games_per_map(n)
    with pytest.raises(ValueError, match="games_per_map"):
        round_robin(["A", "B"], [47], n)
    with pytest.raises(ValueError, match="games_per_map"):
        challenge("C", ["A", "B"], [47], n, 1, 1)


@pytest.mark.parametrize("n", [4.0, "4", True, None])
def test_games_per_map_must_be_a_whole_number(n):
    with pytest.raises(ValueError, match="games_per_map"):
        check_games_per_map(n)


# ---- challengers -----------------------------------------------------------------------------
def test_challenge_by_hand():
    rr = round_robin(["A", "B", "C"], [47, 48], 4)  # 3 fixtures, seeds 0-11
    base = seed_base_after(rr)
    assert base == 12
    seats = challenge("D", ["A", "B", "C"], [47, 48], 4, len(rr), base)
    # challenger is team a; seat s starts at 12 + s * 8 / 2 = 12, 16, 20; indices follow on
    assert seats == [
        Fixture(3, CHALLENGE, "D", "A", (47, 48), 8, 12),
        Fixture(4, CHALLENGE, "D", "B", (47, 48), 8, 16),
        Fixture(5, CHALLENGE, "D", "C", (47, 48), 8, 20),
    ]
    assert seed_base_after(rr + seats) == 24  # 20 + 4


def test_every_challenger_meets_a_seat_on_the_same_block():
    field = ["A", "B", "C"]
    rr = round_robin(field, [47, 48, 49], 2)  # 6 games, 3 pairs a fixture: seeds 0-8
    base = seed_base_after(rr)
    first = challenge("X", field, [47, 48, 49], 2, 3, base)
    second = challenge("Y", field, [47, 48, 49], 2, 6, base)
    blocks = [(f.entrant_b, f.maps, f.games, f.first_seed) for f in first]
    assert blocks == [(f.entrant_b, f.maps, f.games, f.first_seed) for f in second]
    assert [f.first_seed for f in first] == [9, 12, 15]  # 9 + s * 3
    assert [f.index for f in second] == [6, 7, 8]
    assert {f.entrant_a for f in second} == {"Y"}
    # and no challenge block reuses a round-robin seed number
    rr_numbers = {f.first_seed + p for f in rr for p in range(f.pairs)}
    ch_numbers = {f.first_seed + p for f in first for p in range(f.pairs)}
    assert not rr_numbers & ch_numbers and len(ch_numbers) == 9


def test_a_seat_holder_cannot_challenge():
    with pytest.raises(ValueError, match="already holds a seat"):
        challenge("B", ["A", "B"], [47], 2, 1, 1)


def test_seed_base_after_nothing_is_zero_and_takes_the_highest_block():
    assert seed_base_after([]) == 0
    a = Fixture(0, ROUND_ROBIN, "A", "B", (47,), 10, 100)  # seeds 100-104
    b = Fixture(1, ROUND_ROBIN, "A", "C", (47,), 4, 3)  # seeds 3-4
    assert seed_base_after([a, b]) == 105 and seed_base_after([b, a]) == 105


def test_challenge_refuses_no_maps_like_the_round_robin():
    with pytest.raises(ValueError, match="map"):
        challenge("C", ["A", "B"], [], 2, 1, 1)  # was: two Fixtures with games == 0
