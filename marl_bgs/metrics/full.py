"""Full metrics: who did what to whom, every tick, summed over a game without a trajectory.

Each of the 28 topics (six sections, as in Figure 4 of the paper) is one row of `TOPICS`
(`topics.py`): a
function of one tick's facts that returns a small integer tensor, the labels of its axes,
and which cells are real columns (an enemy-only topic keeps the 50 enemy pairs of its 100
slot pairs). Column names, descriptions, the site page and the tests are all generated from
that table, so they cannot drift apart.

A column is named `topic.label.label...`, each label saying what one axis holds:
`by_a2` (the agent in team a's slot 2 did it), `to_b0` (team b's slot 0 received it),
`basic`/`ultimate`, an effect name, or a measure (`ticks`, `deaths`...). Slots are the
game's own teams a and b, whatever their spawn ends; `system_metrics` reads a game from one
side. Amounts of damage and healing are in milli-HP and distances in milli-units, so every
sum is an exact integer and the JAX and NumPy engines give the same numbers.

`full_update(xp, acc, before, raw_actions, info, after, sight, counted)` adds one tick to a
running int32 vector: the columns, then a scratch part (who has damaged whom since the
victim last spawned, for assists) that `full_values` drops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.sight import CODE_TO_SLOT
from ..core.state import NUM_SLOTS, State
from .facts import HARMFUL, Facts
from .priority import METRIC_DESCRIPTIONS, PRIORITY_NAMES, priority_vector
from .topics import TOPICS

FULL_NAMES: tuple[str, ...] = tuple(c for t in TOPICS for c in t.columns)
FULL_SIZE = len(FULL_NAMES)
SCRATCH_SIZE = NUM_SLOTS * NUM_SLOTS  # who has damaged whom since the victim last spawned
FULL_WIDTH = FULL_SIZE + SCRATCH_SIZE
_KEEP = [np.flatnonzero(t.keep.reshape(-1)) for t in TOPICS]


def column_description(name: str) -> str:
    """What a column counts, from its topic's description and its labels."""
    topic = next(t for t in TOPICS if name.startswith(t.name + "."))
    if topic.name == "episode_results":
        return METRIC_DESCRIPTIONS[name.split(".", 1)[1]]
    return f"{topic.title}: {topic.description} Labels: {name.split('.', 1)[1]}."


def pair_share() -> float:
    """The share of columns that record who did what to whom."""
    return sum(t.size for t in TOPICS if t.pairs) / FULL_SIZE


def facts(
    xp: Any, before: State, raw: Any, info: Any, after: State, dist_sq: Any, earlier: Any
) -> Facts:
    """The tick's facts the topics read (`earlier`: the scratch part, as (10, 10) bool)."""
    acc = info.actions
    used_ult = acc[:, 2] == 1
    used_basic = (acc[:, 1] > 0) & ~used_ult
    tslot = xp.asarray(CODE_TO_SLOT)[np.arange(NUM_SLOTS), acc[:, 1]]
    aims = tslot[:, None] == xp.arange(NUM_SLOTS)[None, :]
    target = xp.concatenate([aims, (tslot < 0)[:, None]], axis=1)
    credit = (info.damage > 0) & info.killed[None, :]
    harm = before.effects[:, list(HARMFUL)] > 0
    living = before.present & before.alive
    return Facts(
        before, raw, info, after, dist_sq, living, aims, used_basic, used_ult, target, harm,
        credit, earlier, xp,
    )  # fmt: skip


def full_start(xp: Any, priority: Any) -> Any:
    """The accumulator before a game's first tick here (`priority`: `priority_start`'s
    `PriorityMetrics`)."""
    rest = xp.zeros(FULL_WIDTH - len(PRIORITY_NAMES), xp.int32)
    return xp.concatenate([priority_vector(xp, priority), rest])


def full_update(
    xp: Any,
    acc: Any,
    priority: Any,
    before: State,
    raw: Any,
    info: Any,
    after: State,
    dist_sq: Any,
    counted: Any,
) -> Any:
    """Add one tick to the running full metrics (FULL_WIDTH,); `priority` is the game's
    `PriorityMetrics` after this tick (the first topic copies them); a tick played after
    the game ended (`counted` False) changes nothing."""
    earlier = acc[FULL_SIZE:].reshape(NUM_SLOTS, NUM_SLOTS) > 0
    f = facts(xp, before, raw, info, after, dist_sq, earlier)
    parts = [priority_vector(xp, priority) - acc[: len(PRIORITY_NAMES)]]
    for topic, keep in zip(TOPICS[1:], _KEEP[1:], strict=True):
        parts.append(topic.compute(f).reshape(-1)[keep].astype(xp.int32))
    # Scratch: a victim's attackers are forgotten when it dies or returns.
    hit = earlier | (info.damage > 0)
    fresh = info.killed | info.respawned
    scratch = (hit & ~fresh[None, :]).astype(xp.int32).reshape(-1)
    step = xp.concatenate(parts)
    summed = xp.concatenate([acc[:FULL_SIZE] + step, scratch])
    return xp.where(counted, summed, acc).astype(xp.int32)


def full_values(acc: Any) -> Any:
    """The columns of an accumulator (the scratch part dropped), last axis FULL_SIZE."""
    return acc[..., :FULL_SIZE]


__all__ = [
    "FULL_NAMES", "FULL_SIZE", "FULL_WIDTH", "column_description", "facts", "full_start",
    "full_update", "full_values", "pair_share",
]  # fmt: skip
