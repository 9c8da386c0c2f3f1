"""Obstacles: parsing and checking one list (map files, positions, replays and `reset_to`
share `check_obstacles`), the standard spawn pads, and the layout comparisons that keep
held-out maps apart from training maps (shapes, mirror images, distances)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from ..core.checks import FieldTypeError, number
from ..core.geometry import body_overlap
from ..core.state import (
    ARENA_HEIGHT,
    ARENA_WIDTH,
    MAX_OBSTACLES,
    MAX_TURNED_WALLS,
    MILLI,
    PAD_X,
    PAD_Y,
    SPAWN_END_NAMES,
    map_arrays,
    to_milli,
)
from .format import MAX_THETA, MIRROR_X, PILLAR_KEYS, TOLERANCE, WALL_KEYS


def _parse_obstacle(ob: Any, at: str) -> dict:
    """One obstacle's keys and numbers, checked for type and range, as a clean dict."""
    if not isinstance(ob, dict):
        raise FieldTypeError(f"{at}: expected an object")
    kind = ob.get("kind")
    if kind == "pillar":
        allowed, required = PILLAR_KEYS, PILLAR_KEYS
    elif kind == "wall":
        allowed, required = WALL_KEYS, WALL_KEYS - {"theta"}
    else:
        raise ValueError(f"{at}.kind: must be 'pillar' or 'wall', got {kind!r}")
    unknown = set(ob) - allowed
    if unknown:
        raise ValueError(f"{at}: unknown key {sorted(unknown)[0]!r} for a {kind}")
    missing = required - set(ob)
    if missing:
        raise ValueError(f"{at}: missing {sorted(missing)[0]!r}")
    clean: dict[str, Any] = {"kind": kind}
    for key in sorted(allowed - {"kind"}):
        if key in ob:
            clean[key] = number(ob[key], f"{at}.{key}")
    if kind == "wall":
        clean.setdefault("theta", 0.0)
        if abs(clean["theta"]) > MAX_THETA:
            raise ValueError(
                f"{at}.theta: {clean['theta']!r} must lie in [-pi, pi] (a turn of more than "
                "half a circle is the same wall turned less)"
            )
    for key in ("radius", "width", "height"):
        if key in clean and clean[key] <= 0:
            raise ValueError(f"{at}.{key}: must be positive, got {clean[key]}")
    if not (0.0 <= clean["x"] <= ARENA_WIDTH and 0.0 <= clean["y"] <= ARENA_HEIGHT):
        raise ValueError(f"{at}: centre ({clean['x']}, {clean['y']}) lies outside the arena")
    return clean


def _inline_fault(where: str):
    def fail_at(i: int, ob: Any, reason: str):
        raise ValueError(f"{where}[{i}]: {reason}")

    return fail_at


def check_obstacles(raw: Any, where: str = "map.obstacles", fail_at=None) -> list[dict]:
    """The one obstacle validator: numbered map files, authored positions, replays and
    `reset_to` all pass their obstacles through it, so all share the same limits.

    Each obstacle must have the map-file keys, finite numbers on the 0.001 grid, a
    positive size, a wall's theta within [-pi, pi], and lie wholly inside the arena (which
    also keeps sizes small enough for the integer geometry); a list holds at most 32
    obstacles and 8 walls whose theta is not a multiple of pi/2, and no obstacle may cover
    a spawn pad (a body respawning there would start inside it). Mirror symmetry and
    reachability are asked of numbered map files only (`validate_map`).

    `fail_at(i, obstacle, reason)` raises the error for obstacle i; by default a ValueError
    naming `where[i]`, and type errors in a field keep their type (`FieldTypeError`).

    Args:
        raw: The obstacle list: `{"kind": "pillar", "x", "y", "radius"}` and
            `{"kind": "wall", "x", "y", "width", "height", "theta"}` dicts, map units.
        where: The field to name in errors.
        fail_at (Callable | None): `fail_at(i, obstacle, reason)` raising the error for
            obstacle i; None for a ValueError naming `where[i]`.

    Returns:
        The obstacles as clean dicts (numbers as floats, keys checked).

    Raises:
        FieldTypeError: `raw` is not a list, or a field of the wrong type.
        ValueError: Too many obstacles or turned walls, or an obstacle that breaks a
            limit above, naming it (`map.obstacles[3]: ...`).
    """
    inline = fail_at is None
    fail_at = _inline_fault(where) if inline else fail_at
    if not isinstance(raw, list):
        raise FieldTypeError(f"{where}: expected a list of obstacles")
    if len(raw) > MAX_OBSTACLES:
        raise ValueError(f"{where}: {len(raw)} obstacles, at most {MAX_OBSTACLES} allowed")
    obstacles = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        try:
            ob = _parse_obstacle(item, at)
        except ValueError as err:
            if inline:
                raise
            fail_at(i, item, str(err).removeprefix(at).lstrip(".:").strip())
        _check_extent(i, ob, fail_at)
        obstacles.append(ob)
    _check_turned(obstacles, fail_at)
    _check_pads(obstacles, fail_at)
    return obstacles


def standard_pads() -> dict[str, list[list[float]]]:
    """The spawn pads every map file lists: five per end, bottom to top.

    Returns:
        `{"left": [[x, y], ...], "right": [[x, y], ...]}` in map units.
    """
    return {
        end: [[x, int(y) if float(y).is_integer() else y] for y in PAD_Y]
        for end, x in zip(SPAWN_END_NAMES, PAD_X, strict=True)
    }


def is_turned(ob: dict) -> bool:
    """A wall whose theta is not a multiple of pi/2 (the engine keeps at most 8 per map).

    Args:
        ob: An obstacle dict.

    Returns:
        True for a wall turned by other than a multiple of pi/2; False for pillars.
    """
    if ob["kind"] != "wall":
        return False
    quarters = ob["theta"] / (math.pi / 2)
    return abs(quarters - round(quarters)) > TOLERANCE


def wall_corners(ob: dict) -> list[tuple[float, float]]:
    """A wall's four corners in map units, counter-clockwise (the engine rounds the same way).

    Args:
        ob: A wall dict (`x`, `y`, `width`, `height`, `theta`).

    Returns:
        Four `(x, y)` corners.
    """
    hx, hy = ob["width"] / 2.0, ob["height"] / 2.0
    c, s = math.cos(ob["theta"]), math.sin(ob["theta"])
    return [
        (ob["x"] + c * lx - s * ly, ob["y"] + s * lx + c * ly)
        for lx, ly in ((-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy))
    ]


def obstacle_bounds(ob: dict) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of an obstacle in map units.

    Args:
        ob: An obstacle dict.

    Returns:
        `(x0, y0, x1, y1)`, the lowest and highest x and y it covers.
    """
    if ob["kind"] == "pillar":
        r = ob["radius"]
        return ob["x"] - r, ob["y"] - r, ob["x"] + r, ob["y"] + r
    xs, ys = zip(*wall_corners(ob), strict=True)
    return min(xs), min(ys), max(xs), max(ys)


def shape_key(ob: dict) -> tuple:
    """The shape as the engine sees it, in whole milli-units (walls: their corner set)."""
    if ob["kind"] == "pillar":
        return ("pillar", to_milli(ob["x"]), to_milli(ob["y"]), to_milli(ob["radius"]))
    corners = tuple(sorted((to_milli(x), to_milli(y)) for x, y in wall_corners(ob)))
    return ("wall", to_milli(ob["x"]), to_milli(ob["y"]), corners)


def mirror_key(key: tuple) -> tuple:
    """The shape key of the mirror image about x = 10."""
    if key[0] == "pillar":
        return ("pillar", MIRROR_X - key[1], key[2], key[3])
    corners = tuple(sorted((MIRROR_X - x, y) for x, y in key[3]))
    return ("wall", MIRROR_X - key[1], key[2], corners)


def layout_units(obstacles: list[dict]) -> Counter:
    """An obstacle multiset that ignores mirroring: each shape and its mirror share a unit."""
    units: Counter = Counter()
    for ob in obstacles:
        key = shape_key(ob)
        units[min(key, mirror_key(key))] += 1
    return units


def layout_distance(a: list[dict], b: list[dict]) -> int:
    """Obstacles to add, remove or replace (a mirrored pair counts 2) to turn layout a into b.

    Args:
        a: One obstacle list.
        b: Another; mirror images count as the same layout.

    Returns:
        The distance; 0 for the same layout.
    """
    ua, ub = layout_units(a), layout_units(b)
    return max(sum((ua - ub).values()), sum((ub - ua).values()))


def _three_decimals(value: float) -> bool:
    scaled = value * MILLI
    return abs(scaled - round(scaled)) <= 1e-6 * max(1.0, abs(scaled))


def _check_extent(i: int, ob: dict, fail_at) -> None:
    for key in ("x", "y", "radius", "width", "height"):
        if key in ob and not _three_decimals(ob[key]):
            fail_at(i, ob, f"{key} {ob[key]!r} has more than three decimals (the grid is 0.001)")
    x0, y0, x1, y1 = obstacle_bounds(ob)
    if x0 < -TOLERANCE or y0 < -TOLERANCE:
        fail_at(i, ob, f"reaches outside the arena (down to x {x0:.4f}, y {y0:.4f})")
    if x1 > ARENA_WIDTH + TOLERANCE or y1 > ARENA_HEIGHT + TOLERANCE:
        fail_at(i, ob, f"reaches outside the arena (up to x {x1:.4f}, y {y1:.4f})")


def _check_pads(obstacles: list[dict], fail_at) -> None:
    if not obstacles:
        return
    pads = standard_pads()
    points = np.asarray(
        [[to_milli(x), to_milli(y)] for end in SPAWN_END_NAMES for x, y in pads[end]], np.int32
    )
    if not np.asarray(body_overlap(np, points, map_arrays(obstacles)).any).any():
        return  # one test for all obstacles; only a hit is traced to its obstacle
    names = [f"{end} spawn pad at ({x:g}, {y:g})" for end in SPAWN_END_NAMES for x, y in pads[end]]
    for i, ob in enumerate(obstacles):
        hit = np.asarray(body_overlap(np, points, map_arrays([ob])).any)
        if hit.any():
            fail_at(i, ob, f"blocks the {names[int(np.argmax(hit))]} (a body there overlaps it)")


def _check_turned(obstacles: list[dict], fail_at) -> None:
    turned = [i for i, ob in enumerate(obstacles) if is_turned(ob)]
    if len(turned) > MAX_TURNED_WALLS:
        i = turned[MAX_TURNED_WALLS]
        fail_at(
            i,
            obstacles[i],
            f"is wall number {MAX_TURNED_WALLS + 1} whose theta is not a multiple of pi/2 "
            f"(at most {MAX_TURNED_WALLS} per map, mirrored pairs count twice)",
        )
