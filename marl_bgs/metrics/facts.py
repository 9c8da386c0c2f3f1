"""What the full metrics' topics read: one tick's `Facts`, the `Topic` record, the labels of
their axes (slots, teams, abilities, harmful effects) and the small exact-integer helpers the
topics share. `topics.py` holds the 28 topics themselves and their table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..core.classes import (
    EFFECT_NAMES,
    HEALING_CUT,
    SLOW_CHARGE,
    SLOW_HUNTER,
    SLOW_POISON,
    STUN,
    TRAP,
)
from ..core.sight import TEAM
from ..core.state import NUM_SLOTS, TEAM_SIZE, State

SLOT_NAMES = tuple(f"{'ab'[s // TEAM_SIZE]}{s % TEAM_SIZE}" for s in range(NUM_SLOTS))
TEAMS = ("a", "b")
ABILITIES = ("basic", "ultimate")
HARMFUL = (STUN, TRAP, SLOW_HUNTER, SLOW_CHARGE, SLOW_POISON, HEALING_CUT)
HARMFUL_NAMES = tuple(EFFECT_NAMES[e] for e in HARMFUL)
SLOWS = (SLOW_HUNTER, SLOW_CHARGE, SLOW_POISON)

ENEMY = TEAM[:, None] != TEAM[None, :]  # (source, recipient) on different teams
ALLY = ~ENEMY  # the same team, an agent itself included
I32 = np.int32


class Facts(NamedTuple):
    """One tick as the topics read it (arrays over global slots)."""

    before: State
    raw: Any  # (10, 3) actions as sent, compass frame
    info: Any  # core.tick.TickInfo
    after: State
    dist_sq: Any  # (10, 10) start-of-tick squared distances
    living: Any  # (10,) present and alive at the start of the tick
    aims: Any  # (10, 10) source aimed its accepted ability at recipient
    used_basic: Any  # (10,)
    used_ult: Any  # (10,)
    target: Any  # (10, 11) one-hot accepted target slot, last column: none
    harm: Any  # (10, 6) recipient under each harmful effect at the start of the tick
    credit: Any  # (10, 10) source's damage this tick to a recipient that died this tick
    earlier: Any  # (10, 10) source damaged recipient earlier in the recipient's life
    xp: Any


@dataclass(frozen=True)
class Topic:
    """One topic: `compute(facts)` gives an integer tensor shaped by `axes`; `keep` marks
    the cells that are columns; `pairs` says the topic records who did what to whom."""

    section: str
    name: str
    title: str
    description: str
    axes: tuple[tuple[str, ...], ...]
    compute: Callable[[Facts], Any]
    keep: np.ndarray
    pairs: bool

    @property
    def columns(self) -> list[str]:
        grid = np.stack(np.meshgrid(*[np.arange(len(a)) for a in self.axes], indexing="ij"), -1)
        cells = grid.reshape(-1, len(self.axes))[self.keep.reshape(-1)]
        return [
            ".".join([self.name, *(self.axes[k][i] for k, i in enumerate(cell))]) for cell in cells
        ]

    @property
    def size(self) -> int:
        return int(self.keep.sum())


def labels(prefix: str, names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{prefix}{n}" for n in names)


BY = labels("by_", SLOT_NAMES)
TO = labels("to_", SLOT_NAMES)
OF = labels("of_", SLOT_NAMES)
AT = labels("", SLOT_NAMES)
ON = labels("on_", SLOT_NAMES) + ("on_none",)


def all_cells(*sizes: int) -> np.ndarray:
    return np.ones(sizes, bool)


def pairs_kept(pairs: np.ndarray, *rest: int) -> np.ndarray:
    return np.broadcast_to(pairs.reshape(pairs.shape + (1,) * len(rest)), pairs.shape + rest)


def as_int(x: Any, f: Facts) -> Any:
    return x.astype(f.xp.int32)


def per_team(f: Facts, values: Any) -> Any:
    """(10, ...) -> (2, ...) summed over each team's slots."""
    xp = f.xp
    return xp.stack([values[:TEAM_SIZE].sum(axis=0), values[TEAM_SIZE:].sum(axis=0)])


def isqrt(xp: Any, d: Any) -> Any:
    """floor(sqrt(d)) of whole numbers up to 2^30 (squared distances in the arena stay
    below 10^9), exactly (the float estimate is mended by
    one integer step each way), so both engines agree."""
    r = xp.floor(xp.sqrt(d.astype(xp.float32))).astype(xp.int32)
    r = xp.where((r + 1) * (r + 1) <= d, r + 1, r)
    return xp.where(r * r > d, r - 1, r)
