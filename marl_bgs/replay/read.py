"""Safe reading of replay files: every field is checked before anything uses it.

A replay may come from anywhere (a download, a pasted link), so the reader bounds the size
while decompressing (a gzip bomb stops at `MAX_BYTES`), refuses NaN, infinities, duplicate
keys and unknown fields, checks every array's shape, type and range, and checks that the
parts agree (lengths, the start position against the first frame, the metrics against the
events). Each error is a `ReplayError` whose message starts with the field, e.g.
`frames.health[12][3]: ...`.

This module reads the bytes and the document's own parts (map, start, systems, seed,
versions, llm) and puts the `Replay` together; the recorded game's checks (frames, view,
actions, events, metrics) are `content_checks`, the small typed checks `value_checks`.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ..core import classes
from ..core.checks import strict_json
from ..core.state import NUM_SLOTS, SPAWN_END_NAMES, State
from ..maps import MAP_FORMAT, MAP_KEYS, MAP_VERSION, check_obstacles, standard_pads
from ..maps.positions import parse_position
from .content_checks import (
    MAX_TICKS,
    check_actions,
    check_events,
    check_frame_logic,
    check_frames,
    check_metrics,
    check_view,
)
from .fields import (
    MAX_BYTES,
    PER_AGENT_FIELDS,
    REPLAY_FORMAT,
    REPLAY_VERSION,
    ReplayError,
    rules_table,
)
from .schema import Replay
from .value_checks import int_array, json_list, json_object, number, show, text, whole

TOP_KEYS = (
    "format", "version", "title", "ticks", "rules", "map", "start", "systems", "seed", "versions",
    "view", "metrics", "frames", "actions", "sight", "events",
)  # fmt: skip
OPTIONAL_KEYS = ("llm",)
MAX_SEED = 2**64 - 1


# ---- bytes to JSON -------------------------------------------------------------------------


def _read_source(source: Any) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        if not isinstance(name, str):
            raise ReplayError(f"file: expected a text path, got {type(name).__name__}")
        path = Path(name)
        if not path.is_file():
            raise ReplayError(f"file: {path} does not exist")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ReplayError(f"file: larger than the {MAX_BYTES:,}-byte limit")
        return data
    raise ReplayError(f"file: expected a path or bytes, got {type(source).__name__}")


def _gunzip(data: bytes) -> bytes:
    """Decompress at most MAX_BYTES (so a small hostile file cannot fill memory)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, MAX_BYTES + 1)
    except zlib.error as err:
        raise ReplayError(f"file: damaged gzip data ({err})") from None
    if len(out) > MAX_BYTES or inflater.unconsumed_tail:
        raise ReplayError(f"file: decompresses to more than the {MAX_BYTES:,}-byte limit")
    if not inflater.eof:
        raise ReplayError("file: the gzip stream is truncated")
    if inflater.unused_data:
        raise ReplayError(
            "file: bytes after the end of the gzip stream (a second member or trailing data)"
        )
    return out


def parse_json(data: bytes) -> Any:
    """Bytes (plain or gzipped JSON) to a Python document, within the size limit.

    Args:
        data: The file's bytes.

    Returns:
        The parsed document (strict JSON: no NaN, no duplicate keys).

    Raises:
        ReplayError: Too large, not UTF-8, or not valid JSON.
    """
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data)
    if len(data) > MAX_BYTES:
        raise ReplayError(f"file: larger than the {MAX_BYTES:,}-byte limit")
    return strict_json(data, "file", ReplayError)


# ---- the document's own parts -------------------------------------------------------------


def _check_map(raw: Any) -> dict:
    data = json_object(raw, "map", ("format", "version", "obstacles"), tuple(MAP_KEYS))
    if data["format"] != MAP_FORMAT or data["version"] != MAP_VERSION:
        raise ReplayError(f"map.format: expected {MAP_FORMAT!r} version {MAP_VERSION}")
    if data.get("id") is not None:
        whole(data["id"], "map.id", 0, 10_000)
    if "name" in data:
        text(data["name"], "map.name")
    if "split" in data:
        text(data["split"], "map.split", 20)
    for key, want in (("width", 20), ("height", 10)):
        if key in data and (type(data[key]) not in (int, float) or data[key] != want):
            raise ReplayError(f"map.{key}: the arena is 20 x 10, got {show(data[key])}")
    if "spawn_pads" in data and data["spawn_pads"] != standard_pads():
        raise ReplayError("map.spawn_pads: must be the standard pads")
    try:
        obstacles = check_obstacles(data["obstacles"], "map.obstacles")
    except ValueError as err:
        raise ReplayError(str(err)) from None
    return {**data, "obstacles": obstacles}


def _check_start(raw: Any, replay_map: dict, frames: dict) -> dict:
    if not isinstance(raw, dict):
        raise ReplayError(f"start: expected a position object, got {show(raw)}")
    if raw.get("map") != {"obstacles": replay_map["obstacles"]}:
        raise ReplayError("start.map: must hold the replay's own obstacles inline")
    try:
        state = parse_position(raw).state
    except ValueError as err:
        raise ReplayError(f"start: {err}") from None
    present = np.asarray(state.present)
    for name in State._fields:
        want, got = np.asarray(getattr(state, name)), frames[name][0]
        if name in PER_AGENT_FIELDS:
            want, got = want[present], got[present]
        if not np.array_equal(want.astype(np.int64), got):
            raise ReplayError(f"start: differs from frames.{name}[0]")
    return raw


def _check_systems(raw: Any, present: np.ndarray) -> list:
    json_list(raw, "systems", NUM_SLOTS)
    for s, name in enumerate(raw):
        where = f"systems[{s}]"
        if not present[s]:
            if name is not None:
                raise ReplayError(f"{where}: an empty slot has no system (null)")
            continue
        text(name, where)
    return raw


def _check_seed(raw: Any, spawn_end: np.ndarray) -> dict:
    seed = json_object(raw, "seed", ("root", "game", "spawn_ends"))
    for key in ("root", "game"):
        if seed[key] is not None:
            whole(seed[key], f"seed.{key}", 0, MAX_SEED)
    ends = [SPAWN_END_NAMES[int(e)] for e in spawn_end]
    if seed["spawn_ends"] != ends:
        raise ReplayError(f"seed.spawn_ends: expected {ends} (from frames.spawn_end[0])")
    return seed


def _check_versions(raw: Any) -> dict:
    if not isinstance(raw, dict) or len(raw) > 20:
        raise ReplayError("versions: expected an object of at most 20 package versions")
    for key, value in raw.items():
        text(key, "versions")
        if value is not None:
            text(value, f"versions.{key}", 100)
    return raw


def _check_llm(raw: Any) -> dict:
    """The optional `llm` part: per side ("a", "b") its System, ticks, tick time and five or
    fewer agents' counts (the fields of `marl_bgs.llm.stats`)."""
    from ..llm.stats import COUNT_FIELDS, TIME_FIELDS

    if not isinstance(raw, dict) or not raw:
        raise ReplayError(f"llm: expected an object of sides, got {show(raw)}")
    for side, part in raw.items():
        where = f"llm.{side}"
        if side not in ("a", "b"):
            raise ReplayError(f"{where}: unknown side (expected a or b)")
        json_object(part, where, ("system", "ticks", "tick_seconds", "agents"))
        text(part["system"], f"{where}.system")
        whole(part["ticks"], f"{where}.ticks", 0, MAX_TICKS)
        number(part["tick_seconds"], f"{where}.tick_seconds", 0, 1e9)
        agents = json_list(part["agents"], f"{where}.agents", most=NUM_SLOTS // 2)
        for i, agent in enumerate(agents):
            at = f"{where}.agents[{i}]"
            json_object(agent, at, ("agent", "class", *COUNT_FIELDS, *TIME_FIELDS))
            whole(agent["agent"], f"{at}.agent", 0, NUM_SLOTS // 2 - 1)
            whole(agent["class"], f"{at}.class", -1, len(classes.CLASSES) - 1)
            for name in COUNT_FIELDS:
                whole(agent[name], f"{at}.{name}", 0, 2**53)
            for name in TIME_FIELDS:
                number(agent[name], f"{at}.{name}", 0, 1e9)
    return raw


# ---- the whole document --------------------------------------------------------------------


def replay_from_document(doc: Any) -> Replay:
    """Validate a parsed JSON document and build the `Replay`.

    Args:
        doc: The parsed JSON (a dict).

    Returns:
        The checked `Replay`.

    Raises:
        ReplayError: The first problem found, naming its field.
    """
    if not isinstance(doc, dict):
        raise ReplayError("file: expected a JSON object at the top")
    if doc.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"format: expected {REPLAY_FORMAT!r}, got {show(doc.get('format'))}")
    if doc.get("version") != REPLAY_VERSION or type(doc.get("version")) is not int:
        raise ReplayError(
            f"version: unsupported version {show(doc.get('version'))} "
            f"(this reader knows {REPLAY_VERSION})"
        )
    json_object(doc, "replay", TOP_KEYS, OPTIONAL_KEYS)
    ticks = whole(doc["ticks"], "ticks", 0, MAX_TICKS)
    title = text(doc["title"], "title")
    if doc["rules"] != rules_table():
        raise ReplayError("rules: the class table differs from this version's (a newer engine?)")
    replay_map = _check_map(doc["map"])
    view, visible_bits = check_view(doc["view"], ticks)
    visible = None
    if visible_bits is not None:
        visible = (visible_bits[:, None] >> np.arange(NUM_SLOTS)) & 1 == 1
    frames = check_frames(doc["frames"], ticks)
    check_frame_logic(frames, ticks, visible)
    present = frames["present"][0].astype(bool)
    if view is None:
        start = _check_start(doc["start"], replay_map, frames)
    elif doc["start"] is not None:
        raise ReplayError("start: a point-of-view replay holds no starting position (null)")
    else:
        start = None
    actions = check_actions(doc["actions"], ticks, visible)
    sight = int_array(doc["sight"], "sight", (ticks + 1, NUM_SLOTS), 0, 2**NUM_SLOTS - 1)
    events = check_events(doc["events"], ticks)
    return Replay(
        map=replay_map,
        start=start,
        systems=_check_systems(doc["systems"], present),
        seed=_check_seed(doc["seed"], frames["spawn_end"][0]),
        versions=_check_versions(doc["versions"]),
        frames=frames,
        actions=actions,
        events=events,
        sight=sight,
        metrics=check_metrics(doc["metrics"], frames, actions, events, view),
        title=title,
        view=view,
        visible=visible_bits,
        llm=_check_llm(doc["llm"]) if "llm" in doc else None,
    )


def load_replay(source: Any) -> Replay:
    """Read a replay from a path or bytes (plain or gzipped JSON), checking everything.

    Safe on files from anywhere: the size is bounded while decompressing, and every field's
    type, shape and range and the agreement between parts are checked before use.

    ```python
    replay = load_replay("exports/replays/alpha-vs-random-map47.json")
    replay.ticks, replay.state_at(0).score
    ```

    Args:
        source (str | os.PathLike | bytes): A file path, or the file's bytes.

    Returns:
        The checked `Replay`.

    Raises:
        ReplayError: Anything wrong with the file, the message starting with the field
            (`frames.health[12][3]: ...`); `ReplayTypeError` (also a `TypeError`) for a
            field of the wrong type.
    """
    return replay_from_document(parse_json(_read_source(source)))


__all__ = ["load_replay", "parse_json", "replay_from_document", "ReplayError"]
