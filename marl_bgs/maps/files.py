"""Where the map files are: `marl_bgs/_map_files/` in a wheel, the checkout's `maps/` in a
source tree; which are present; and the training maps' raw obstacles (read without full
validation, for the held-out layout check)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from .format import MAP_IDS, TRAINING_MAPS
from .obstacles import check_obstacles


def maps_dir() -> Path:
    """Folder holding the map files, packaged or in a checkout.

    Returns:
        `marl_bgs/_map_files/` in a wheel, else the checkout's `maps/`.

    Raises:
        FileNotFoundError: Neither folder exists.
    """
    here = Path(__file__).resolve().parent.parent  # marl_bgs/
    for candidate in (here / "_map_files", here.parent / "maps"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no map folder found (expected marl_bgs/_map_files or maps/)")


def map_path(map_id: int) -> Path:
    """Where a numbered map's file is (it may not exist).

    Args:
        map_id: A map id.

    Returns:
        `maps_dir() / "map_NN.json"`.
    """
    return maps_dir() / f"map_{map_id:02d}.json"


def available_maps() -> list[int]:
    """Ids of the map files present, in order.

    Returns:
        The ids (all of 0-51 in a full checkout or wheel).
    """
    return list(_present_maps(str(maps_dir())))


@cache
def _present_maps(folder: str) -> tuple[int, ...]:
    return tuple(i for i in MAP_IDS if (Path(folder) / f"map_{i:02d}.json").is_file())


@cache
def training_layouts() -> dict[int, list[dict]]:
    """Obstacles of the committed curriculum and training maps (for the held-out check),
    keyed by map id; a file that is missing or broken is left out here and reports its own
    error when it is loaded."""
    out = {}
    for map_id in TRAINING_MAPS:
        path = map_path(map_id)
        if not path.is_file():
            continue
        try:
            with open(path, encoding="utf-8") as f:
                out[map_id] = check_obstacles(json.load(f).get("obstacles"))
        except (ValueError, AttributeError, OSError):
            continue  # a broken training map reports its own error when it is loaded
    return out
