"""Replaying a recorded game's actions through an engine and checking every tick matches."""

from __future__ import annotations

import numpy as np

from ..core.events import tick_events
from ..core.state import State
from ..game import Backend, Game
from .fields import ReplayError
from .schema import Replay


def replay_game(replay: Replay, backend: Backend = "numpy") -> int:
    """Play the recorded actions on `backend` from the recorded first frame; raise
    `ReplayError` naming the first tick and field that differ. Returns the ticks checked.

    Args:
        replay: A whole-game replay (not a point of view).
        backend: `"numpy"` or `"jax"`.

    Returns:
        The number of ticks replayed and found identical (every frame and every event).

    Raises:
        ReplayError: A point-of-view replay, or the first tick where the engine differs,
            naming the field (`frames.health[13]: the numpy engine differs`).
    """
    if replay.view is not None:
        raise ReplayError(f"view: a point-of-view replay ({replay.view!r}) cannot be replayed")
    # The exact first frame, empty slots included.
    game = Game.from_state(replay.state_at(0), {"obstacles": replay.map["obstacles"]}, backend)
    for t in range(replay.ticks):
        before = game.state
        info = game.step_slots(replay.actions[t].astype(np.int32))
        if not np.array_equal(np.asarray(info.actions), replay.actions[t]):
            raise ReplayError(f"actions[{t}]: the engine did not accept these actions as given")
        want = replay.state_at(t + 1)
        for name in State._fields:
            if not np.array_equal(np.asarray(getattr(game.state, name)), getattr(want, name)):
                raise ReplayError(f"frames.{name}[{t + 1}]: the {backend} engine differs")
        if tick_events(before, info, game.state) != replay.events[t]:
            raise ReplayError(f"events[{t}]: the {backend} engine's events differ")
    return replay.ticks
