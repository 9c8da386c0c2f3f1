"""The map file format's names and limits, and the splits: which ids train, validate and test.

Map ids 47-51 are the test maps and 42-46 the validation maps; learners never train on them
(`TRAINING_MAPS` is every map a learner may use).
"""

from __future__ import annotations

import math

from ..core.state import (
    ARENA_WIDTH_MILLI,
)

MAP_FORMAT = "marl-bgs/map"
MAP_VERSION = 1
PILLAR_KEYS = {"kind", "x", "y", "radius"}
WALL_KEYS = {"kind", "x", "y", "width", "height", "theta"}
MAP_KEYS = {
    "format",
    "version",
    "id",
    "name",
    "split",
    "width",
    "height",
    "spawn_pads",
    "obstacles",
}
# Splits: curriculum maps are training maps too; validation and test maps are held out.
SPLITS: dict[str, tuple[int, ...]] = {
    "curriculum": tuple(range(0, 12)),
    "training": tuple(range(12, 42)),
    "validation": tuple(range(42, 47)),
    "test": tuple(range(47, 52)),
}
NUM_MAPS = 52
MAP_IDS = tuple(range(NUM_MAPS))
TRAINING_MAPS = SPLITS["curriculum"] + SPLITS["training"]  # every map a learner may train on
HELD_OUT_MAPS = SPLITS["validation"] + SPLITS["test"]
MAX_THETA = math.pi  # walls turn by at most half a circle either way
MAX_NAME_LENGTH = 40
MIRROR_X = ARENA_WIDTH_MILLI  # x -> MIRROR_X - x mirrors about x = 10 in milli-units
TOLERANCE = 1e-9


def split_of(map_id: int) -> str:
    """The split a numbered map belongs to.

    Args:
        map_id: A map id.

    Returns:
        `"curriculum"`, `"training"`, `"validation"` or `"test"`.

    Raises:
        ValueError: No map has this id.
    """
    for split, ids in SPLITS.items():
        if map_id in ids:
            return split
    raise ValueError(f"map: no map with id {map_id!r} (ids run 0-{NUM_MAPS - 1})")
