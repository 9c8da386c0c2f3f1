"""Map files: loading, obstacle validation, and where the packaged maps live.

The committed JSON files under `maps/` are the source of truth; a wheel carries them as
`marl_bgs/_map_files/`, a source checkout reads them from the repository root.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from .core.checks import number
from .core.state import ARENA_HEIGHT, ARENA_WIDTH, MAX_OBSTACLES

MAP_FORMAT = "marl-bgs/map"
MAP_VERSION = 1
PILLAR_KEYS = {"kind", "x", "y", "radius"}
WALL_KEYS = {"kind", "x", "y", "width", "height", "theta"}


def maps_dir() -> Path:
    """Folder holding the map files, packaged or in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_map_files", here.parent / "maps"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no map folder found (expected marl_bgs/_map_files or maps/)")


def parse_obstacles(raw: Any, where: str = "map.obstacles") -> list[dict]:
    """Check obstacles in the map-file format and return them as clean dicts."""
    if not isinstance(raw, list):
        raise ValueError(f"{where}: expected a list of obstacles")
    if len(raw) > MAX_OBSTACLES:
        raise ValueError(f"{where}: {len(raw)} obstacles, at most {MAX_OBSTACLES} allowed")
    out = []
    for i, ob in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(ob, dict):
            raise ValueError(f"{at}: expected an object")
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
        for key in ("radius", "width", "height"):
            if key in clean and clean[key] <= 0:
                raise ValueError(f"{at}.{key}: must be positive, got {clean[key]}")
        if not (0.0 <= clean["x"] <= ARENA_WIDTH and 0.0 <= clean["y"] <= ARENA_HEIGHT):
            raise ValueError(f"{at}: centre ({clean['x']}, {clean['y']}) lies outside the arena")
        out.append(clean)
    return out


@cache
def _load_file(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    name = Path(path).name
    if not isinstance(data, dict) or data.get("format") != MAP_FORMAT:
        raise ValueError(f"{name}: not a {MAP_FORMAT} file")
    if data.get("version") != MAP_VERSION:
        raise ValueError(f"{name}: unsupported version {data.get('version')!r}")
    data["obstacles"] = parse_obstacles(data.get("obstacles"), f"map {data.get('id')}.obstacles")
    return data


def map_path(map_id: int) -> Path:
    return maps_dir() / f"map_{map_id:02d}.json"


def load_map(map_id: int) -> dict:
    """The map file with this id, validated; raises ValueError for an unknown id."""
    if isinstance(map_id, bool) or not isinstance(map_id, int):
        raise ValueError(f"map: expected a map id (integer), got {map_id!r}")
    path = map_path(map_id)
    if not path.is_file():
        raise ValueError(f"map: no map with id {map_id}")
    data = _load_file(str(path))
    return json.loads(json.dumps(data))  # a private copy, so callers cannot edit the cache
