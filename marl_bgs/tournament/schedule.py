"""The tournament's fixed schedule: which entrants meet, on which maps, with which seed numbers.

No randomness: a fixture is one `evaluate` call, and `evaluate` spreads its spawn-swapped
pairs over the maps (pair p on maps[p % len(maps)], seed number first_seed + p). Round-robin
fixtures follow the entrants file's order (i before j, i as team a) and take consecutive
blocks of seed numbers, so every seed number in the round robin belongs to exactly one pair.
Challenger fixtures are numbered after the round robin: the block of a field seat is the same
for every challenger, so all challengers meet a seat on the same maps, ends and seed numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ..core.checks import whole

ROUND_ROBIN = "round-robin"
CHALLENGE = "challenge"
DEFAULT_GAMES_PER_MAP = 40


@dataclass(frozen=True)
class Fixture:
    """One pairing's block of games: `games` games from seed number `first_seed` on."""

    index: int
    stage: str  # "round-robin" or "challenge"
    entrant_a: str
    entrant_b: str
    maps: tuple[int, ...]
    games: int
    first_seed: int

    @property
    def pairs(self) -> int:
        return self.games // 2

    def as_dict(self) -> dict:
        out = asdict(self)
        out["maps"] = list(self.maps)
        return out


def check_games_per_map(games_per_map: int) -> int:
    whole(games_per_map, "games_per_map")
    if games_per_map < 2 or games_per_map % 2:
        raise ValueError(
            f"games_per_map: {games_per_map} must be even and >= 2 (games come in "
            "spawn-swapped pairs)"
        )
    return games_per_map


def round_robin(
    entrants: Sequence[str], maps: Sequence[int], games_per_map: int = DEFAULT_GAMES_PER_MAP
) -> list[Fixture]:
    """Every pair of entrants once, `games_per_map` games on each map."""
    check_games_per_map(games_per_map)
    if len(set(entrants)) != len(entrants) or len(entrants) < 2:
        raise ValueError(f"entrants: need two or more distinct names, got {list(entrants)}")
    if not maps:
        raise ValueError("maps: the schedule needs at least one map")
    games = games_per_map * len(maps)
    out = []
    for i in range(len(entrants)):
        for j in range(i + 1, len(entrants)):
            k = len(out)
            out.append(
                Fixture(
                    k, ROUND_ROBIN, entrants[i], entrants[j], tuple(maps), games, k * games // 2
                )
            )
    return out


def challenge(
    challenger: str,
    field: Sequence[str],
    maps: Sequence[int],
    games_per_map: int,
    first_index: int,
    seed_base: int,
) -> list[Fixture]:
    """A challenger (team a) against every seat of the field; seat s's block is fixed."""
    check_games_per_map(games_per_map)
    if challenger in field:
        raise ValueError(f"challenger: {challenger!r} already holds a seat in the field")
    if not maps:
        raise ValueError("maps: the schedule needs at least one map")
    games = games_per_map * len(maps)
    return [
        Fixture(
            first_index + s,
            CHALLENGE,
            challenger,
            member,
            tuple(maps),
            games,
            seed_base + s * games // 2,
        )
        for s, member in enumerate(field)
    ]


def seed_base_after(fixtures: Sequence[Fixture]) -> int:
    """The first seed number after a list of fixtures' blocks."""
    return max((f.first_seed + f.pairs for f in fixtures), default=0)
