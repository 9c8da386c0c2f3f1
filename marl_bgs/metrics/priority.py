"""The sixteen priority metrics of a game, accumulated tick by tick without a trajectory.

Team "a" is the first team of the game, "b" the second, whatever their spawn ends. Damage
and healing are in milli-HP (whole thousandths of a point), so sums are exact on every
backend. Useful healing is ability healing received minus what went above maximum health;
out-of-combat healing is not counted.
"""

from __future__ import annotations

from typing import Any

from ..core.state import TEAM_SIZE, State

PRIORITY_NAMES: tuple[str, ...] = (
    "result",  # -1 open, 0 team a won, 1 team b won, 2 draw
    "points_a",
    "points_b",
    "kills_a",
    "kills_b",
    "deaths_a",
    "deaths_b",
    "damage_dealt_a",
    "damage_dealt_b",
    "useful_healing_a",
    "useful_healing_b",
    "ultimates_used_a",
    "ultimates_used_b",
    "red_zone_deaths_a",
    "red_zone_deaths_b",
    "ticks",
)


METRIC_DESCRIPTIONS: dict[str, str] = {
    "result": "How the game ended: -1 still open, 0 team a won, 1 team b won, 2 draw.",
    "points_a": "Team a's score: one point per enemy death, two when the victim started the "
    "tick in its own Red Zone.",
    "points_b": "Team b's score, counted the same way.",
    "kills_a": "Enemy deaths caused by team a (every death of a team b agent).",
    "kills_b": "Enemy deaths caused by team b.",
    "deaths_a": "Deaths of team a's agents.",
    "deaths_b": "Deaths of team b's agents.",
    "damage_dealt_a": "Damage team a's abilities dealt, in thousandths of a health point, "
    "including the part beyond a target's remaining health.",
    "damage_dealt_b": "Damage team b's abilities dealt, in thousandths of a health point.",
    "useful_healing_a": "Ability healing team a's agents received, minus what went above "
    "maximum health, in thousandths of a point (out-of-combat healing is not counted).",
    "useful_healing_b": "The same for team b.",
    "ultimates_used_a": "Ultimates team a's agents cast (accepted Ultimate actions).",
    "ultimates_used_b": "Ultimates team b's agents cast.",
    "red_zone_deaths_a": "Deaths of team a's agents in their own Red Zone (two points to b).",
    "red_zone_deaths_b": "Deaths of team b's agents in their own Red Zone (two points to a).",
    "ticks": "Ticks played until the game ended (at most the horizon).",
}


def priority_start(xp: Any, game: State) -> Any:
    """The metrics of a game before its first tick here: its result, score and tick (an
    authored position may start mid-game), everything else 0."""
    head = xp.stack([game.result, game.score[0], game.score[1]]).astype(xp.int32)
    return xp.concatenate([head, xp.zeros(12, xp.int32), game.tick[None].astype(xp.int32)])


def priority_update(xp: Any, metrics: Any, info: Any, after: State, counted: Any) -> Any:
    """Add one tick's record to the running metrics (16,); `counted` is False for a tick
    played after the game had ended (it adds nothing)."""

    def per_team(values):
        return xp.stack([xp.sum(values[:TEAM_SIZE]), xp.sum(values[TEAM_SIZE:])])

    deaths = per_team(info.killed.astype(xp.int32))
    dealt = per_team(xp.sum(info.damage, axis=1))
    useful = per_team(xp.sum(info.healing, axis=0) - info.excess)
    ults = per_team((info.actions[:, 2] == 1).astype(xp.int32))
    red = per_team((info.points == 2).astype(xp.int32))
    step = xp.concatenate(
        [
            xp.zeros(3, xp.int32),
            deaths[::-1],  # a team's kills are the other team's deaths
            deaths,
            dealt,
            useful,
            ults,
            red,
            xp.zeros(1, xp.int32),
        ]
    ).astype(xp.int32)
    summed = metrics + xp.where(counted, step, 0)
    head = xp.stack([after.result, after.score[0], after.score[1]]).astype(xp.int32)
    summed = xp.concatenate([head, summed[3:15], after.tick[None].astype(xp.int32)])
    return xp.where(counted, summed, metrics).astype(xp.int32)
