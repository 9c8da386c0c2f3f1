"""The schedule of an evaluation and the keys its games draw from: no randomness but what
is folded from the root seed.

Every random key is folded from the root seed, the use (memory start or actions), the game's
seed number, the tick (action keys only) and the team, so a game's course depends on nothing
else: not on how many games run at once, nor in which order, nor on which other games share
its batch. The two games of a pair share map and seed number and swap ends, so they draw the
same keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import jax

from .core.position import starting_position
from .core.state import SPAWN_END_NAMES

USE_MEMORY = 0  # key use: a System's memory at a game's start
USE_ACTIONS = 1  # key use: a System's actions at one tick


@dataclass(frozen=True)
class Schedule:
    """Which map, seed number and ends each game gets: no randomness, only arithmetic.

    Pair p plays map `maps[p % len(maps)]` with seed number `first_seed + p`; its game 2p has
    team a on the left end and game 2p+1 on the right.

    Attributes:
        maps: The map ids, cycled over the pairs.
        games: How many games (an even number).
        first_seed: The seed number of pair 0.
    """

    maps: tuple[int, ...]
    games: int
    first_seed: int = 0

    def game(self, g: int) -> tuple[int, int, int, str]:
        """Where game `g` stands in the schedule.

        Args:
            g: The game's number, 0 to `games - 1`.

        Returns:
            pair: The game's pair, `g // 2`.
            seed_number: `first_seed + pair`.
            map_id: The pair's map.
            spawn_a: Team a's end, `"left"` (even g) or `"right"` (odd g).
        """
        pair = g // 2
        return (
            pair,
            self.first_seed + pair,
            self.maps[pair % len(self.maps)],
            SPAWN_END_NAMES[g % 2],
        )

    def as_dict(self) -> dict:
        """The schedule as plain JSON, with its rule in words (stored in `meta.json`).

        Returns:
            `maps`, `games`, `pairs`, `first_seed` and `rule`.
        """
        return {
            "maps": list(self.maps),
            "games": self.games,
            "pairs": self.games // 2,
            "first_seed": self.first_seed,
            "rule": "pair p plays maps[p % len(maps)] with seed number first_seed + p; "
            "game 2p puts team a on the left end, game 2p+1 on the right",
        }


def memory_key(root, seed_number, team: int):
    """The key a team's System starts a game's memory from.

    Args:
        root (jax.Array): The evaluation's root key, `jax.random.key(seed)`.
        seed_number (int | jax.Array): The game's seed number (shared by a spawn-swapped
            pair).
        team: 0 for team a's System, 1 for team b's.

    Returns:
        (jax.Array): `fold_in(fold_in(fold_in(root, 0), seed_number), team)`.
    """
    return jax.random.fold_in(
        jax.random.fold_in(jax.random.fold_in(root, USE_MEMORY), seed_number), team
    )


def action_key(root, seed_number, tick, team: int):
    """The key a team's System draws its actions from at one tick of one game.

    Args:
        root (jax.Array): The evaluation's root key, `jax.random.key(seed)`.
        seed_number (int | jax.Array): The game's seed number.
        tick (int | jax.Array): The tick (0 for the first).
        team: 0 for team a's System, 1 for team b's.

    Returns:
        (jax.Array): `root` folded with 1 (actions), the seed number, the tick, the team.
    """
    k = jax.random.fold_in(jax.random.fold_in(root, USE_ACTIONS), seed_number)
    return jax.random.fold_in(jax.random.fold_in(k, tick), team)


def starting_positions(schedule: Schedule, games: Sequence[int], rosters, horizon,
                       winning_score) -> list[dict]:  # fmt: skip
    """The starting position (a `positions` dict) of each of `games`: its map, and team a
    on the end the schedule gives."""
    out = []
    for g in games:
        _, _, map_id, spawn_a = schedule.game(g)
        ends = (spawn_a, SPAWN_END_NAMES[1 - SPAWN_END_NAMES.index(spawn_a)])
        out.append(
            starting_position(
                map_id,
                rosters=rosters,
                spawn_ends=ends,
                horizon=horizon,
                winning_score=winning_score,
            )
        )
    return out
