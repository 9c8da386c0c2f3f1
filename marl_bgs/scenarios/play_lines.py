"""Scenarios played on the NumPy engine: Team A's fixed line (or a System) against the
controller, tick by tick, from the scenario's position.

The controller is one of the scripted opponents, which draw no random numbers, so a line
(Team A's actions, one entry per tick) always meets the same replies: that is what makes a
line "verified" and what lets the solver search Team A's choices alone.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.events import tick_events
from ..core.state import TEAM_SIZE
from ..game import Game
from ..systems.numpy_play import NumpySystem, decide, numpy_system

Action = tuple[int, int, int]  # (move, target, ultimate), compass frame
TickActions = list[Action]  # one per agent of Team A, in the position's team order


@dataclass
class Table:
    """A game in progress against the controller: the game, the controller and its memory."""

    game: Game
    controller: NumpySystem
    memory: object
    events: list[list[dict]] = field(default_factory=list)

    @classmethod
    def start(cls, position: dict, controller: str) -> Table:
        system = numpy_system(controller)
        return cls(Game(position), system, system.init())

    def fork(self) -> Table:
        """An independent copy (the game's arrays are replaced, never written, by a tick)."""
        return Table(copy.copy(self.game), self.controller, copy.deepcopy(self.memory),
                     list(self.events))  # fmt: skip

    def replies(self) -> np.ndarray:
        """The controller's flat own-frame actions for Team B at this state (and its memory
        after deciding, kept by `play`)."""
        flat, self._next_memory = decide(
            self.game, 1, self.controller, self.memory, np.random.default_rng(0)
        )
        return flat

    def play(self, team_a: TickActions, replies: np.ndarray | None = None) -> list[dict]:
        """One tick: Team A's actions (compass frame, one per agent) against the replies."""
        flat_b = self.replies() if replies is None else replies
        self.memory = self._next_memory
        sizes = self.game.sizes
        slots = self.game.encode_actions([list(team_a), [(0, 0, 0)] * sizes[1]])
        slots[TEAM_SIZE : TEAM_SIZE + sizes[1]] = self.game.slots_from_flat(
            np.zeros(TEAM_SIZE, np.int32), flat_b
        )[TEAM_SIZE : TEAM_SIZE + sizes[1]]
        before = self.game.state
        info = self.game.step_slots(slots)
        events = tick_events(before, info, self.game.state)
        self.events.append(events)
        return events


def play_line(position: dict, controller: str, line: Sequence[TickActions]) -> Table:
    """Play a line to its end (or until the game ends); the finished table."""
    table = Table.start(position, controller)
    for tick_actions in line:
        if table.game.done:
            break
        table.play(tick_actions)
    return table


def play_system(position: dict, controller: str, system: str, seed: int) -> Table:
    """Team A played by a System on NumPy until the game ends."""
    table = Table.start(position, controller)
    own = numpy_system(system)
    memory = own.init()
    rng = np.random.default_rng(seed)
    while not table.game.done:
        flat_a, memory = decide(table.game, 0, own, memory, rng)
        slots = table.game.slots_from_flat(flat_a, np.zeros(TEAM_SIZE, np.int32))
        table.play([tuple(int(v) for v in slots[k]) for k in range(table.game.sizes[0])])
    return table
