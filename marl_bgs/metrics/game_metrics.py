"""Full metrics of games played on the NumPy engine: a `Game` tick by tick, or a replay.

The compiled loop accumulates the same numbers (`env.make(..., metrics="full")`); tests
check that both agree. A replay holds the accepted actions only, so the columns that need
the actions as sent (`NEEDS_SENT`: refusals, and held agents that tried to move) come out
as if every action had been legal; all other columns equal the compiled ones.
"""

from __future__ import annotations

import numpy as np

from ..game import Game
from .full import FULL_NAMES, full_start, full_update, full_values
from .priority import priority_start, priority_update

NEEDS_SENT = tuple(
    n for n in FULL_NAMES if n.startswith("actions.") or n.endswith("held_tried_to_move")
)


class FullRecorder:
    """Accumulates full metrics while a NumPy `Game` is stepped through `step_slots`."""

    def __init__(self, game: Game) -> None:
        if game.backend != "numpy":
            raise ValueError("game: full metrics are recorded on the NumPy engine")
        self.game = game
        self.priority = priority_start(np, game.state)
        self.acc = full_start(np, self.priority)

    def step_slots(self, slots: np.ndarray):
        """Play one tick (as `Game.step_slots`) and add it; returns the tick's info."""
        before, dist_sq = self.game.state, self.game._sight().dist_sq
        info = self.game.step_slots(slots)
        after = self.game.state
        self.priority = priority_update(np, self.priority, info, after, True)
        self.acc = full_update(
            np, self.acc, self.priority, before, np.asarray(slots, np.int32), info, after,
            dist_sq, True,
        )  # fmt: skip
        return info

    @property
    def values(self) -> dict[str, int]:
        return dict(zip(FULL_NAMES, full_values(self.acc).tolist(), strict=True))


def replay_full_metrics(replay) -> dict[str, int]:
    """Full metrics of a recorded game, from its start and accepted actions (oracle
    replays only: a point-of-view replay has no start position)."""
    if replay.start is None:
        raise ValueError("replay: a point-of-view replay has no start position to replay")
    recorder = FullRecorder(Game(replay.start, backend="numpy"))
    for t in range(replay.ticks):
        recorder.step_slots(np.asarray(replay.actions[t], np.int32))
    return recorder.values
