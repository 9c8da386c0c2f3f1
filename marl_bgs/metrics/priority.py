"""The sixteen priority metrics of a game, accumulated tick by tick without a trajectory.

Team "a" is the first team of the game, "b" the second, whatever their spawn ends. Damage
and healing are in milli-HP (whole thousandths of a point), so sums are exact on every
backend. Useful healing is ability healing received minus what went above maximum health;
out-of-combat healing is not counted.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..core.state import TEAM_SIZE, State


class PriorityMetrics(NamedTuple):
    """The sixteen priority metrics of one game, each an int32 scalar (with leading axes for
    a batch of games). A pytree: `jit`, `vmap` and `scan` carry it as they carry arrays.

    Attributes:
        result: -1 open, 0 team a won, 1 team b won, 2 draw.
        points_a: Team a's score.
        points_b: Team b's score.
        kills_a: Deaths of team b's agents (a team's kills are the other team's deaths).
        kills_b: Deaths of team a's agents.
        deaths_a: Deaths of team a's agents.
        deaths_b: Deaths of team b's agents.
        damage_dealt_a: Damage team a's abilities dealt, milli-HP.
        damage_dealt_b: Damage team b's abilities dealt, milli-HP.
        useful_healing_a: Ability healing team a received minus the excess, milli-HP.
        useful_healing_b: The same for team b.
        ultimates_used_a: Accepted Ultimate actions of team a.
        ultimates_used_b: Accepted Ultimate actions of team b.
        red_zone_deaths_a: Deaths of team a's agents in their own Red Zone.
        red_zone_deaths_b: Deaths of team b's agents in their own Red Zone.
        ticks: Ticks played.
    """

    result: Any
    points_a: Any
    points_b: Any
    kills_a: Any
    kills_b: Any
    deaths_a: Any
    deaths_b: Any
    damage_dealt_a: Any
    damage_dealt_b: Any
    useful_healing_a: Any
    useful_healing_b: Any
    ultimates_used_a: Any
    ultimates_used_b: Any
    red_zone_deaths_a: Any
    red_zone_deaths_b: Any
    ticks: Any


# The metrics' names in order: the columns of tables and of the env's `metrics` vector.
PRIORITY_NAMES: tuple[str, ...] = PriorityMetrics._fields


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


def priority_vector(xp: Any, metrics: PriorityMetrics) -> Any:
    """The record as one int32 vector (..., 16) in `PRIORITY_NAMES` order (the env stores
    it so, beside the full accumulator)."""
    return xp.stack([xp.asarray(v) for v in metrics], axis=-1).astype(xp.int32)


def priority_record(vector: Any) -> PriorityMetrics:
    """The record of a vector (..., 16) in `PRIORITY_NAMES` order (`priority_vector`'s
    inverse)."""
    return PriorityMetrics(*(vector[..., i] for i in range(len(PRIORITY_NAMES))))


def priority_start(xp: Any, game: State) -> PriorityMetrics:
    """The metrics of a game before its first tick here: its result, score and tick (an
    authored position may start mid-game), everything else 0."""
    zero = xp.zeros((), xp.int32)
    return PriorityMetrics(
        result=game.result.astype(xp.int32),
        points_a=game.score[0].astype(xp.int32),
        points_b=game.score[1].astype(xp.int32),
        kills_a=zero, kills_b=zero, deaths_a=zero, deaths_b=zero,
        damage_dealt_a=zero, damage_dealt_b=zero, useful_healing_a=zero, useful_healing_b=zero,
        ultimates_used_a=zero, ultimates_used_b=zero, red_zone_deaths_a=zero,
        red_zone_deaths_b=zero,
        ticks=game.tick.astype(xp.int32),
    )  # fmt: skip


def priority_update(
    xp: Any, metrics: PriorityMetrics, info: Any, after: State, counted: Any
) -> PriorityMetrics:
    """Add one tick's record to the running metrics; `counted` is False for a tick played
    after the game had ended (it changes nothing)."""

    def per_team(values):
        return xp.stack([xp.sum(values[:TEAM_SIZE]), xp.sum(values[TEAM_SIZE:])])

    deaths = per_team(info.killed.astype(xp.int32))
    dealt = per_team(xp.sum(info.damage, axis=1))
    useful = per_team(xp.sum(info.healing, axis=0) - info.excess)
    ults = per_team((info.actions[:, 2] == 1).astype(xp.int32))
    red = per_team((info.points == 2).astype(xp.int32))
    m = metrics

    def now(old: Any, new: Any) -> Any:
        return xp.where(counted, new, old).astype(xp.int32)

    def plus(old: Any, add: Any) -> Any:  # int32 sums (wrapping alike on every backend)
        return now(old, old.astype(xp.int32) + add.astype(xp.int32))

    return PriorityMetrics(
        result=now(m.result, after.result),
        points_a=now(m.points_a, after.score[0]),
        points_b=now(m.points_b, after.score[1]),
        kills_a=plus(m.kills_a, deaths[1]),  # a team's kills are the other team's deaths
        kills_b=plus(m.kills_b, deaths[0]),
        deaths_a=plus(m.deaths_a, deaths[0]),
        deaths_b=plus(m.deaths_b, deaths[1]),
        damage_dealt_a=plus(m.damage_dealt_a, dealt[0]),
        damage_dealt_b=plus(m.damage_dealt_b, dealt[1]),
        useful_healing_a=plus(m.useful_healing_a, useful[0]),
        useful_healing_b=plus(m.useful_healing_b, useful[1]),
        ultimates_used_a=plus(m.ultimates_used_a, ults[0]),
        ultimates_used_b=plus(m.ultimates_used_b, ults[1]),
        red_zone_deaths_a=plus(m.red_zone_deaths_a, red[0]),
        red_zone_deaths_b=plus(m.red_zone_deaths_b, red[1]),
        ticks=now(m.ticks, after.tick),
    )
