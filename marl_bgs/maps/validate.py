"""Checking a numbered map: header, obstacles, mirror symmetry about x = 10, reachability,
and (held-out maps) a layout at least 3 obstacles away from every training map. Messages
name the map and the obstacle (`map 12 (Name): obstacle 3 (wall at 4.0, 5.0): ...`)."""

from __future__ import annotations

import json
from typing import Any

from ..core.state import (
    ARENA_HEIGHT,
    ARENA_WIDTH,
    MAX_OBSTACLES,
)
from .files import training_layouts
from .format import (
    MAP_FORMAT,
    MAP_IDS,
    MAP_KEYS,
    MAP_VERSION,
    MAX_NAME_LENGTH,
    MIRROR_X,
    NUM_MAPS,
    SPLITS,
    split_of,
)
from .obstacles import check_obstacles, layout_distance, mirror_key, shape_key, standard_pads
from .reach import reach_problem


def _fmt(v: Any) -> str:
    return repr(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else "?"


def _describe(i: int, ob: Any) -> str:
    if isinstance(ob, dict) and ob.get("kind") in ("pillar", "wall"):
        return f"obstacle {i} ({ob['kind']} at {_fmt(ob.get('x'))}, {_fmt(ob.get('y'))})"
    return f"obstacle {i}"


def map_label(data: Any, source: str | None) -> str:
    """How messages name a map: `map 12 (Name)`, or the file name when the id is unusable."""
    map_id = data.get("id") if isinstance(data, dict) else None
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(map_id, int) and not isinstance(map_id, bool):
        label = f"map {map_id}"
    else:
        label = source or "map ?"
    if isinstance(name, str) and name.strip():
        label += f" ({name})"
    return label


def _check_header(data: Any, fail) -> None:
    if not isinstance(data, dict):
        fail("expected a JSON object")
    if data.get("format") != MAP_FORMAT:
        fail(f"format: expected {MAP_FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != MAP_VERSION:
        fail(f"version: unsupported version {data.get('version')!r} (expected {MAP_VERSION})")
    unknown = sorted(set(data) - MAP_KEYS)
    if unknown:
        fail(f"{unknown[0]}: unknown key")
    missing = sorted(MAP_KEYS - set(data))
    if missing:
        fail(f"{missing[0]}: required")
    map_id = data["id"]
    if isinstance(map_id, bool) or not isinstance(map_id, int) or map_id not in MAP_IDS:
        fail(f"id: expected a whole number 0-{NUM_MAPS - 1}, got {map_id!r}")
    name = data["name"]
    if not isinstance(name, str) or not name.strip():
        fail(f"name: expected a non-empty string, got {name!r}")
    if name != name.strip() or not name.isprintable() or len(name) > MAX_NAME_LENGTH:
        fail(f"name: {name!r} must be printable, trimmed and at most {MAX_NAME_LENGTH} characters")
    split = data["split"]
    if split not in SPLITS:
        fail(f"split: must be one of {', '.join(SPLITS)}, got {split!r}")
    if map_id not in SPLITS[split]:
        fail(f"split: map {map_id} belongs to the {split_of(map_id)!r} split, not {split!r}")
    for key, want in (("width", ARENA_WIDTH), ("height", ARENA_HEIGHT)):
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != want:
            fail(f"{key}: the arena is {ARENA_WIDTH:g} x {ARENA_HEIGHT:g}, got {key} {value!r}")
    if data["spawn_pads"] != standard_pads():
        fail(f"spawn_pads: must be exactly {json.dumps(standard_pads())}")
    if not isinstance(data["obstacles"], list):
        fail("obstacles: expected a list")
    if len(data["obstacles"]) > MAX_OBSTACLES:
        fail(f"{len(data['obstacles'])} obstacles, at most {MAX_OBSTACLES} allowed")


def _check_symmetry(obstacles: list[dict], fail_at) -> None:
    keys = [shape_key(ob) for ob in obstacles]
    seen: dict[tuple, int] = {}
    for i, key in enumerate(keys):
        if key in seen:
            fail_at(i, obstacles[i], f"duplicates obstacle {seen[key]}")
        seen[key] = i
    for i, (ob, key) in enumerate(zip(obstacles, keys, strict=True)):
        if mirror_key(key) in seen:
            continue
        if key[1] == MIRROR_X // 2:
            fail_at(i, ob, "lies on the mirror line x = 10 but is not symmetric about it")
        want = f"{ob['kind']} at ({ARENA_WIDTH - ob['x']:.3f}, {ob['y']:.3f})"
        if ob["kind"] == "wall":
            want += f" with theta {-ob['theta']!r} and the same width and height"
        else:
            want += f" with radius {ob['radius']!r}"
        fail_at(i, ob, f"has no mirror image about x = 10 (expected a {want})")


def held_out_clash(obstacles: list[dict], exclude: int | None = None) -> tuple[int, int] | None:
    """The first training map whose layout equals this one or differs by a single change.

    Mirror images count as the same layout.

    Args:
        obstacles: A checked obstacle list.
        exclude: A map id to skip (the map itself).

    Returns:
        `(map id, layout_distance)` of the first clash, or None.
    """
    for map_id, other in training_layouts().items():
        if map_id == exclude:
            continue
        distance = layout_distance(obstacles, other)
        if distance <= 2:  # equal, or one obstacle (or mirrored pair) added, removed, replaced
            return map_id, distance
    return None


def validate_map(data: Any, source: str | None = None, check_layouts: bool = True) -> dict:
    """Check a numbered map and return a clean copy; raises ValueError naming what is wrong.

    Messages read `map 12 (Name): obstacle 3 (wall at 4.0, 5.0): <reason>` for an obstacle,
    `map 12 (Name): <reason>` for the map as a whole. `source` (a file name) labels maps
    whose id is unusable. `check_layouts` compares held-out maps with the training maps.

    Args:
        data: A parsed map file (`"marl-bgs/map"`, version 1).
        source: A file name to label the map by when its id is unusable.
        check_layouts: Require a held-out (validation or test) map to differ from every
            training map by at least 3 obstacles.

    Returns:
        A clean copy: the header fields, the standard `spawn_pads` and checked obstacles.

    Raises:
        ValueError: The first problem: header, an obstacle, mirror symmetry about x = 10,
            reachability, or a held-out layout too close to a training map.
    """
    label = map_label(data, source)

    def fail(reason: str):
        raise ValueError(f"{label}: {reason}")

    def fail_at(i: int, ob: Any, reason: str):
        raise ValueError(f"{label}: {_describe(i, ob)}: {reason}")

    _check_header(data, fail)
    obstacles = check_obstacles(data["obstacles"], "obstacles", fail_at)
    _check_symmetry(obstacles, fail_at)
    reason = reach_problem(obstacles)
    if reason:
        fail(reason)
    if check_layouts and data["split"] in ("validation", "test"):
        clash = held_out_clash(obstacles)
        if clash is not None:
            other, distance = clash
            how = "the same layout as" if distance == 0 else "nearly the same layout as"
            fail(
                f"a held-out ({data['split']}) map has {how} training map {other} "
                f"({distance} obstacles differ; at least 3 must)"
            )
    clean = {key: data[key] for key in data if key != "obstacles"}
    clean["spawn_pads"] = standard_pads()
    clean["obstacles"] = obstacles
    return clean
