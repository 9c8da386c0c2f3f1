"""Map files: loading, validation, the splits, and a curriculum over the training maps.

The committed JSON files under `maps/` are the source of truth; a wheel carries them as
`marl_bgs/_map_files/`, a source checkout reads them from the repository root.

Every numbered map is checked when it is loaded (once per file and process): the file format,
its id, name and split, exact mirror symmetry about x = 10, obstacles wholly inside the arena,
clear spawn pads, and that a body can walk from every spawn pad to every other with no
standing room sealed off. Held-out maps (validation and test) must also differ in layout from
every curriculum and training map. Obstacles are judged by the engine's own geometry
(`body_overlap`) on the engine's milli-unit grid, using NumPy only.

Inline obstacle lists (positions, replays, `reset_to`) pass the same obstacle validator,
`check_obstacles`, with the same limits; only mirroring and connectedness are not asked.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .core.checks import FieldTypeError, number, strict_json, whole
from .core.geometry import body_overlap
from .core.state import (
    ARENA_HEIGHT,
    ARENA_WIDTH,
    ARENA_WIDTH_MILLI,
    MAX_OBSTACLES,
    MAX_TURNED_WALLS,
    MILLI,
    PAD_X,
    PAD_Y,
    SPAWN_END_NAMES,
    TEAM_SIZE,
    map_arrays,
    to_milli,
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
"""Split name -> map ids: curriculum 0-11 and training 12-41 (a learner may train on
both), validation 42-46 and test 47-51 (held out)."""
NUM_MAPS = 52
"""Numbered maps, ids 0 to 51."""
MAP_IDS = tuple(range(NUM_MAPS))
TRAINING_MAPS = SPLITS["curriculum"] + SPLITS["training"]  # every map a learner may train on
HELD_OUT_MAPS = SPLITS["validation"] + SPLITS["test"]

MAX_THETA = math.pi  # walls turn by at most half a circle either way
MAX_NAME_LENGTH = 40
MIRROR_X = ARENA_WIDTH_MILLI  # x -> MIRROR_X - x mirrors about x = 10 in milli-units
REACH_STEP = 50  # spacing of the body-centre grid used for reachability, milli-units
POCKET_MIN_POINTS = 8  # smaller unreachable specks lie below the reachability grid's resolution
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


def maps_dir() -> Path:
    """Folder holding the map files, packaged or in a checkout.

    Returns:
        `marl_bgs/_map_files/` in a wheel, else the checkout's `maps/`.

    Raises:
        FileNotFoundError: Neither folder exists.
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "_map_files", here.parent / "maps"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no map folder found (expected marl_bgs/_map_files or maps/)")


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


# ----------------------------------------------------------------------------------------
# Geometry helpers (host side, on obstacle dicts)


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


def _grid_axis(lo: float, hi: float, step: int) -> np.ndarray:
    lo_m, hi_m = to_milli(lo), to_milli(hi)
    return np.arange(lo_m, hi_m + 1, step, dtype=np.int32)


REACH_XS = _grid_axis(0.5, ARENA_WIDTH - 0.5, REACH_STEP)
REACH_YS = _grid_axis(0.5, ARENA_HEIGHT - 0.5, REACH_STEP)


def standing_room(obstacles: list[dict], step: int = REACH_STEP) -> np.ndarray:
    """Where a body fits on a grid of centres `step` milli-units apart: bool (rows y, cols x)."""
    xs = _grid_axis(0.5, ARENA_WIDTH - 0.5, step)
    ys = _grid_axis(0.5, ARENA_HEIGHT - 0.5, step)
    pts = np.stack(np.meshgrid(xs, ys, indexing="xy"), axis=-1).reshape(-1, 2)
    m = map_arrays(obstacles)
    free = np.empty(len(pts), bool)
    for start in range(0, len(pts), 8192):
        chunk = pts[start : start + 8192]
        free[start : start + 8192] = ~np.asarray(body_overlap(np, chunk, m).any)
    return free.reshape(len(ys), len(xs))


def label_regions(free: np.ndarray) -> np.ndarray:
    """4-connected components of a boolean grid (-1 where not free), by runs along rows."""
    rows, cols = free.shape
    padded = np.zeros((rows, cols + 2), np.int8)
    padded[:, 1:-1] = free
    edges = np.diff(padded, axis=1)
    start_r, start_c = np.nonzero(edges == 1)
    _, end_c = np.nonzero(edges == -1)  # exclusive ends, same row order as the starts
    parent = list(range(len(start_r)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_row: list[list[int]] = [[] for _ in range(rows)]
    for run, r in enumerate(start_r.tolist()):
        by_row[r].append(run)
    for r in range(rows - 1):
        below, above = by_row[r], by_row[r + 1]
        i = j = 0
        while i < len(below) and j < len(above):
            a, b = below[i], above[j]
            if start_c[a] < end_c[b] and start_c[b] < end_c[a]:
                parent[find(a)] = find(b)
            if end_c[a] < end_c[b]:
                i += 1
            else:
                j += 1
    labels = np.full((rows, cols), -1, np.int32)
    for run in range(len(start_r)):
        labels[start_r[run], start_c[run] : end_c[run]] = find(run)
    return labels


# ----------------------------------------------------------------------------------------
# Validation of numbered map files


def _fmt(v: Any) -> str:
    return repr(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else "?"


def _describe(i: int, ob: Any) -> str:
    if isinstance(ob, dict) and ob.get("kind") in ("pillar", "wall"):
        return f"obstacle {i} ({ob['kind']} at {_fmt(ob.get('x'))}, {_fmt(ob.get('y'))})"
    return f"obstacle {i}"


def _label(data: Any, source: str | None) -> str:
    map_id = data.get("id") if isinstance(data, dict) else None
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(map_id, int) and not isinstance(map_id, bool):
        label = f"map {map_id}"
    else:
        label = source or "map ?"
    if isinstance(name, str) and name.strip():
        label += f" ({name})"
    return label


def _three_decimals(value: float) -> bool:
    scaled = value * MILLI
    return abs(scaled - round(scaled)) <= 1e-6 * max(1.0, abs(scaled))


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


def reach_problem(obstacles: list[dict]) -> str | None:
    """Why bodies cannot walk between all spawn pads or reach all standing room, or None.

    Body centres are laid on a 0.05 grid over [0.5, 19.5] x [0.5, 9.5] (4-connected), so a
    gap passes when a body fits through it at a grid line (a 1.0-wide gap between walls on
    the 0.05 grid does). Unreachable specks under 8 grid points are below the grid's
    resolution and are ignored.

    Args:
        obstacles: A checked obstacle list (`check_obstacles`).

    Returns:
        None when every pad and every standing place connect; else the reason, naming a
            pad or a sealed pocket's place.
    """
    return _reach_report(json.dumps(obstacles, sort_keys=True))


@cache
def _reach_report(obstacles_json: str) -> str | None:
    obstacles = json.loads(obstacles_json)
    labels = label_regions(standing_room(obstacles))
    pads = standard_pads()
    first = None
    for end in SPAWN_END_NAMES:
        for x, y in pads[end]:
            r = int((to_milli(y) - REACH_YS[0]) // REACH_STEP)
            c = int((to_milli(x) - REACH_XS[0]) // REACH_STEP)
            here = (int(labels[r, c]), f"{end} spawn pad at ({x:g}, {y:g})")
            if first is None:
                first = here
            elif here[0] != first[0]:
                return (
                    f"a body cannot walk from the {first[1]} to the {here[1]} "
                    "(the obstacles seal it off)"
                )
    ids, sizes = np.unique(labels[(labels >= 0) & (labels != first[0])], return_counts=True)
    pockets = ids[sizes >= POCKET_MIN_POINTS]
    if len(pockets):
        r, c = np.argwhere(labels == pockets[0])[0]
        x, y = REACH_XS[c] / MILLI, REACH_YS[r] / MILLI
        size = int((labels == pockets[0]).sum())
        return (
            f"sealed pocket near ({x:.2f}, {y:.2f}): {size} standing points a body fits on "
            "but cannot reach from the spawn pads"
        )
    return None


@cache
def _training_layouts() -> dict[int, list[dict]]:
    """Obstacles of the committed curriculum and training maps (for the held-out check)."""
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


def held_out_clash(obstacles: list[dict], exclude: int | None = None) -> tuple[int, int] | None:
    """The first training map whose layout equals this one or differs by a single change.

    Mirror images count as the same layout.

    Args:
        obstacles: A checked obstacle list.
        exclude: A map id to skip (the map itself).

    Returns:
        `(map id, layout_distance)` of the first clash, or None.
    """
    for map_id, other in _training_layouts().items():
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
    label = _label(data, source)

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


@cache
def _load_file(path: str) -> dict:
    name = Path(path).name
    with open(path, "rb") as f:
        data = strict_json(f.read(), name)
    clean = validate_map(data, source=name)
    if name != f"map_{clean['id']:02d}.json":
        raise ValueError(f"{_label(data, name)}: the file {name} must hold map {name[4:6]}")
    return clean


def map_path(map_id: int) -> Path:
    """Where a numbered map's file is (it may not exist).

    Args:
        map_id: A map id.

    Returns:
        `maps_dir() / "map_NN.json"`.
    """
    return maps_dir() / f"map_{map_id:02d}.json"


def load_map(map_id: int) -> dict:
    """The map file with this id, validated; raises ValueError for an unknown id.

    ```python
    m = load_map(47)
    m["name"], m["split"], len(m["obstacles"])
    ```

    Args:
        map_id: A map id, 0-51.

    Returns:
        A private copy of the checked map: `format`, `version`, `id`, `name`, `split`,
            `width` (20), `height` (10), `spawn_pads`, `obstacles`.

    Raises:
        FieldTypeError: An id that is not a whole number.
        ValueError: No map file with this id, or a file that fails `validate_map`.
    """
    map_id = whole(map_id, "map")
    path = map_path(map_id)
    if not path.is_file():
        raise ValueError(f"map: no map with id {map_id}")
    data = _load_file(str(path))
    return json.loads(json.dumps(data))  # a private copy, so callers cannot edit the cache


def available_maps() -> list[int]:
    """Ids of the map files present, in order.

    Returns:
        The ids (all of 0-51 in a full checkout or wheel).
    """
    return list(_present_maps(str(maps_dir())))


@cache
def _present_maps(folder: str) -> tuple[int, ...]:
    return tuple(i for i in MAP_IDS if (Path(folder) / f"map_{i:02d}.json").is_file())


# ----------------------------------------------------------------------------------------
# Curriculum


@dataclass(frozen=True)
class Stage:
    """One stage of training: which maps, how many agents a side, and the score to win.

    `weight` is the stage's share of training progress relative to the other stages.

    Attributes:
        name: The stage's name.
        maps: Map ids played in the stage.
        team_size: Agents a side, 1-5.
        winning_score: Points that win a game.
        horizon: Ticks before a draw.
        weight: Its share of training progress, relative to the other stages.
    """

    name: str
    maps: tuple[int, ...]
    team_size: int
    winning_score: int
    horizon: int = 300
    weight: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "maps", tuple(self.maps))


CURRICULUM: tuple[Stage, ...] = (
    Stage("open duel", (0,), team_size=1, winning_score=5, horizon=150),
    Stage("pillars", (0, 1, 2), team_size=2, winning_score=8, horizon=200),
    Stage("pillar rows", (0, 1, 2, 3, 4), team_size=3, winning_score=10, horizon=200),
    Stage("walls", tuple(range(7)), team_size=3, winning_score=12, horizon=250),
    Stage("sight blockers", tuple(range(9)), team_size=4, winning_score=15, horizon=250),
    Stage("diagonals", tuple(range(11)), team_size=4, winning_score=18, horizon=300),
    Stage("mixtures", tuple(range(12)), team_size=5, winning_score=20, horizon=300),
    Stage("all training maps", TRAINING_MAPS, team_size=5, winning_score=20, horizon=300, weight=3),
)
"""The default curriculum: eight stages from a 1 v 1 duel on map 0 to 5 v 5 on all
42 training maps (the last stage takes 3 shares of progress, the others one each)."""


def validate_stages(stages: Sequence[Stage], allow_held_out: bool = False) -> tuple[Stage, ...]:
    """Check a user-defined curriculum and return it as a tuple.

    Each stage needs a name, at least one existing map (training maps only, unless
    `allow_held_out`), a team size of 1-5, a positive winning score, horizon and weight.

    Args:
        stages: A non-empty sequence of `Stage`.
        allow_held_out: Accept validation and test maps.

    Returns:
        The stages as a tuple.

    Raises:
        ValueError: The first bad stage, naming it and its field
            (`curriculum[2] ('walls').maps: map 47 is a held-out test map ...`).
        FieldTypeError: A `team_size`, `winning_score`, `horizon` or `weight` of the wrong
            type (a wrongly typed name, map id or stage raises `ValueError`).
    """
    from .core.position import MAX_HORIZON, MAX_WINNING_SCORE

    if isinstance(stages, Stage) or not isinstance(stages, Sequence) or not stages:
        raise ValueError("curriculum: expected a non-empty sequence of Stage")
    present = set(available_maps())
    for k, stage in enumerate(stages):
        at = f"curriculum[{k}]"
        if not isinstance(stage, Stage):
            raise ValueError(f"{at}: expected a Stage, got {type(stage).__name__}")
        at = f"{at} ({stage.name!r})" if isinstance(stage.name, str) else at
        if not isinstance(stage.name, str) or not stage.name.strip():
            raise ValueError(f"{at}.name: expected a non-empty string")
        if not stage.maps:
            raise ValueError(f"{at}.maps: expected at least one map id")
        for map_id in stage.maps:
            if isinstance(map_id, bool) or not isinstance(map_id, int) or map_id not in present:
                raise ValueError(f"{at}.maps: no map with id {map_id!r}")
            if not allow_held_out and map_id in HELD_OUT_MAPS:
                raise ValueError(
                    f"{at}.maps: map {map_id} is a held-out {split_of(map_id)} map "
                    "(pass allow_held_out=True to train on it anyway)"
                )
        checks = (
            ("team_size", stage.team_size, 1, TEAM_SIZE),
            ("winning_score", stage.winning_score, 1, MAX_WINNING_SCORE),
            ("horizon", stage.horizon, 1, MAX_HORIZON),
        )
        for key, value, lo, hi in checks:
            whole(value, f"{at}.{key}", lo, hi)
        if number(stage.weight, f"{at}.weight") <= 0:
            raise ValueError(f"{at}.weight: expected a positive number, got {stage.weight!r}")
    return tuple(stages)


def stage_bounds(stages: Sequence[Stage] = CURRICULUM) -> list[tuple[float, float]]:
    """The progress interval [start, end) each stage covers (the last one ends at 1).

    Args:
        stages: A curriculum; `CURRICULUM` by default. Held-out maps are accepted.

    Returns:
        One `(start, end)` per stage, in order, proportional to the weights.

    Raises:
        ValueError: A bad curriculum (see `validate_stages`).
    """
    stages = validate_stages(stages, allow_held_out=True)
    total = float(sum(s.weight for s in stages))
    out, start = [], 0.0
    for k, stage in enumerate(stages):
        end = 1.0 if k == len(stages) - 1 else start + stage.weight / total
        out.append((start, end))
        start = end
    return out


def stage_at(
    progress: float, stages: Sequence[Stage] = CURRICULUM, allow_held_out: bool = False
) -> Stage:
    """The stage for a training progress in [0, 1] (0 = start, 1 = end of training).

    Stages share the progress interval in proportion to their weights; progress 1 gives the
    last stage. Pass your own list of `Stage` to use another curriculum.

    Args:
        progress: Training progress, 0 to 1.
        stages: A curriculum; `CURRICULUM` by default.
        allow_held_out: Accept validation and test maps in `stages`.

    Returns:
        The `Stage` that covers `progress`.

    Raises:
        ValueError: Progress outside [0, 1], or a bad curriculum.
        FieldTypeError: Progress that is not a number.
    """
    progress = number(progress, "progress", 0.0, 1.0)
    stages = validate_stages(stages, allow_held_out=allow_held_out)
    for stage, (_, end) in zip(stages, stage_bounds(stages), strict=True):
        if progress < end:
            return stage
    return stages[-1]
