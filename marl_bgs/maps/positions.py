"""Authored positions on the game's maps: `marl_bgs.core.position` with the `map` field read.

The rules layer (`marl_bgs.core`) reads no map files and never imports `marl_bgs.maps`, so
its parser takes the map lookup as an argument. This module supplies it: a map id is loaded
from the numbered map files, and an inline `{"obstacles": [...]}` passes the same obstacle
validator as the map files. Everything else about the format lives in
`marl_bgs.core.position` (`position_dict`, `starting_position`, `POSITION_FORMAT`).
"""

from __future__ import annotations

from typing import Any

from ..core import position as core_position
from ..core.checks import fields
from ..core.position import Position
from .load import load_map
from .obstacles import check_obstacles

__all__ = ["parse_position", "resolve_map"]


def resolve_map(raw: Any) -> tuple[Any, list]:
    """A position's `map` field as `(map_ref, obstacles)`.

    Args:
        raw: A numbered map's id, or `{"obstacles": [...]}` for an inline map.

    Returns:
        The map as a position writes it back (the id, or `{"obstacles": checked}`) and
            its obstacle list.

    Raises:
        FieldTypeError: An inline obstacle list, or a field in it, of the wrong type.
        ValueError: Neither an id nor `{"obstacles": [...]}`, an unknown id, or an inline
            obstacle that breaks `check_obstacles`' limits.
    """
    if isinstance(raw, dict):
        fields(raw, "map", ["obstacles"])
        obstacles = check_obstacles(raw["obstacles"], "map.obstacles")
        return {"obstacles": obstacles}, obstacles
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ValueError(f"map: expected a map id or {{'obstacles': [...]}}, got {raw!r}")
    return raw, load_map(raw)["obstacles"]


def parse_position(data: Any) -> Position:
    """Validate a position dict and build the state it describes, its map resolved.

    Args:
        data: A `marl-bgs/position` dict (version 1), as `starting_position` writes one.

    Returns:
        The `Position`: state, map arrays, the map as written back, and its obstacles.

    Raises:
        FieldTypeError: A field of the wrong type (also a ValueError).
        ValueError: Any field missing, unknown or out of range, naming it (`teams[0].
            agents[2].x: ...`), or bodies overlapping an obstacle or each other.
    """
    return core_position.parse_position(data, resolve_map)
