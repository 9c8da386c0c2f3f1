"""Replays: record games, read them safely, replay them exactly, and filter a point of view.

The format is described in site_src/reference/replay-format.md; `schema.py` holds its tables.
"""

from .fields import REPLAY_FORMAT, REPLAY_VERSION, ReplayError
from .read import load_replay
from .record import package_versions, record_game, replay_from_arrays
from .rerun import replay_game
from .schema import Replay

__all__ = [
    "REPLAY_FORMAT",
    "REPLAY_VERSION",
    "Replay",
    "ReplayError",
    "load_replay",
    "package_versions",
    "record_game",
    "replay_from_arrays",
    "replay_game",
]
