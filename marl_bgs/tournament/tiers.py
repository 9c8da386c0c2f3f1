"""Leaderboard tiers and divisions (the reference's Table S8) and the win chance against 1,200.

Eight tiers step up every 200 Elo, Gold starting at the field's average of 1,200. Every tier
below Grandmaster splits into five divisions 40 Elo apart, numbered 5 (lowest) to 1 (highest).
Iron is open below 800: its divisions count down from 800 like the others, and anything below
600 is Iron 5. A rating is placed by its value rounded to a whole Elo (as it is printed), so
the label never disagrees with the number beside it. Tiers are labels only: they never change
rank or admission.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.checks import number

TIER_NAMES = ("Iron", "Bronze", "Silver", "Gold", "Platinum", "Diamond", "Master", "Grandmaster")
TIER_WIDTH = 200
GOLD_FLOOR = 1200
DIVISIONS = 5
DIVISION_WIDTH = 40
IRON_CEILING = GOLD_FLOOR - 2 * TIER_WIDTH  # 800: Bronze's floor
GRANDMASTER_FLOOR = GOLD_FLOOR + 4 * TIER_WIDTH  # 2000 (Gold, Platinum, Diamond, Master)


@dataclass(frozen=True)
class Tier:
    """Where a rating sits: tier name, division (None for Grandmaster) and the label."""

    name: str
    division: int | None
    low: float | None  # Elo range of the tier, None where it is open
    high: float | None

    @property
    def label(self) -> str:
        return self.name if self.division is None else f"{self.name} {self.division}"


def win_chance(elo: float, against: float = GOLD_FLOOR) -> float:
    """Share of decisive games a policy rated `elo` wins against one rated `against`."""
    return 1.0 / (1.0 + 10.0 ** (-(elo - against) / 400.0))


def tier_of(elo: float) -> Tier:
    """The tier and division of a rating."""
    elo = number(elo, "elo")  # finite; NumPy numbers too, booleans refused
    r = math.floor(elo + 0.5)  # the printed whole Elo
    if r >= GRANDMASTER_FLOOR:
        return Tier("Grandmaster", None, GRANDMASTER_FLOOR, None)
    k = max(0, (r - IRON_CEILING) // TIER_WIDTH + 1)  # 0 = Iron ... 6 = Master
    high = IRON_CEILING + k * TIER_WIDTH  # exclusive top of the tier
    steps = (high - 1 - r) // DIVISION_WIDTH  # 0 in the top division
    division = min(DIVISIONS, steps + 1)
    low = None if k == 0 else high - TIER_WIDTH
    return Tier(TIER_NAMES[k], int(division), low, high - 1)


def tier_table() -> list[dict]:
    """Every tier's Elo range, divisions and win chance against 1,200, highest first (Table S8).

    `None` marks an open end (Iron has no floor, Grandmaster no ceiling).
    """
    rows = []
    for k in range(len(TIER_NAMES) - 1, -1, -1):
        low = None if k == 0 else IRON_CEILING + (k - 1) * TIER_WIDTH
        top = None if k == len(TIER_NAMES) - 1 else IRON_CEILING + k * TIER_WIDTH  # exclusive
        divisions = []
        if top is not None:
            for d in range(DIVISIONS, 0, -1):
                d_low = top - d * DIVISION_WIDTH
                divisions.append(
                    {
                        "division": d,
                        "elo_low": None if (low is None and d == DIVISIONS) else d_low,
                        "elo_high": d_low + DIVISION_WIDTH - 1,
                    }
                )
        rows.append(
            {
                "tier": TIER_NAMES[k],
                "elo_low": low,
                "elo_high": None if top is None else top - 1,
                "win_chance_low": None if low is None else round(win_chance(low), 4),
                "win_chance_high": None if top is None else round(win_chance(top), 4),
                "divisions": divisions,
            }
        )
    return rows
