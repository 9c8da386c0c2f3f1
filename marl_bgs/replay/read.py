"""Safe reading of replay files: every field is checked before anything uses it.

A replay may come from anywhere (a download, a pasted link), so the reader bounds the size
while decompressing (a gzip bomb stops at `MAX_BYTES`), refuses NaN, infinities, duplicate
keys and unknown fields, checks every array's shape, type and range, and checks that the
parts agree (lengths, the start position against the first frame, the metrics against the
events). Each error is a `ReplayError` whose message starts with the field, e.g.
`frames.health[12][3]: ...`.
"""

from __future__ import annotations

import functools
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..core import checks
from ..core import classes as C
from ..core.checks import FieldTypeError, strict_json
from ..core.state import NUM_SLOTS, RESULT_OPEN, SPAWN_END_NAMES, State
from ..maps import MAP_FORMAT, MAP_KEYS, MAP_VERSION, check_obstacles, standard_pads
from ..metrics import PRIORITY_NAMES
from ..positions import parse_position
from .fields import (
    ABILITIES,
    ACTION_LIMITS,
    AGENT_NAMES,
    ARENA_X,
    ARENA_Y,
    EVENT_FIELDS,
    FRAME_FIELDS,
    HIDDEN_ACTION,
    HIDDEN_VALUE,
    MAX_BYTES,
    MAX_TEXT,
    PER_AGENT_FIELDS,
    PUBLIC_METRICS,
    REPLAY_FORMAT,
    REPLAY_VERSION,
    VIEWS,
    ReplayError,
    ReplayTypeError,
    rules_table,
)
from .metrics import metrics_from_content
from .schema import Replay

TOP_KEYS = (
    "format", "version", "title", "ticks", "rules", "map", "start", "systems", "seed", "versions",
    "view", "metrics", "frames", "actions", "sight", "events",
)  # fmt: skip
OPTIONAL_KEYS = ("llm",)
MAX_TICKS = 100_000
MAX_EVENTS_PER_TICK = 2000
MAX_SEED = 2**64 - 1
GLOBAL_CONSTANT = ("horizon", "winning_score", "red_zone_depth", "spawn_end", "present", "cls")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


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


# ---- small typed checks: the project's one checker, raising ReplayError -------------------


def _replay_errors(check: Callable) -> Callable:
    """A `core.checks` check whose refusals are ReplayErrors (a wrong type is a
    `ReplayTypeError`, still a TypeError), with the same messages as everywhere else."""

    @functools.wraps(check)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return check(*args, **kwargs)
        except FieldTypeError as err:
            raise ReplayTypeError(str(err)) from None
        except ValueError as err:
            raise ReplayError(str(err)) from None

    return run


_whole = _replay_errors(checks.whole)
_number = _replay_errors(checks.number)
_string = _replay_errors(checks.string)
_fields = _replay_errors(checks.fields)
_sequence = _replay_errors(checks.sequence)


def _text(value: Any, where: str, limit: int = MAX_TEXT) -> str:
    return _string(value, where, limit)


def _object(value: Any, where: str, required: tuple, optional: tuple = ()) -> dict:
    return _fields(value, where, required, optional, word="field")


def _list(value: Any, where: str, length: int | None = None, most: int | None = None) -> list:
    if length is not None:
        return _sequence(value, where, length, length)
    return _sequence(value, where, 0, most)


def _int_array(value: Any, where: str, shape: tuple[int, ...], lo: int, hi: int) -> np.ndarray:
    """Nested lists of whole numbers of exactly `shape`, each in [lo, hi], as int64."""

    def fast(v: Any, depth: int) -> bool:
        if not isinstance(v, list) or len(v) != shape[depth]:
            return False
        if depth == len(shape) - 1:
            return all(type(x) is int and lo <= x <= hi for x in v)
        return all(fast(x, depth + 1) for x in v)

    def slow(v: Any, path: str, depth: int) -> None:
        if depth == len(shape):
            _whole(v, path, lo, hi)
            return
        _list(v, path, shape[depth])
        for i, x in enumerate(v):
            slow(x, f"{path}[{i}]", depth + 1)

    if not shape:
        return np.asarray(_whole(value, where, lo, hi), np.int64)
    if not fast(value, 0):
        slow(value, where, 0)
    return np.asarray(value, np.int64).reshape(shape)


# ---- parts ---------------------------------------------------------------------------------


def _check_map(raw: Any) -> dict:
    data = _object(raw, "map", ("format", "version", "obstacles"), tuple(MAP_KEYS))
    if data["format"] != MAP_FORMAT or data["version"] != MAP_VERSION:
        raise ReplayError(f"map.format: expected {MAP_FORMAT!r} version {MAP_VERSION}")
    if data.get("id") is not None:
        _whole(data["id"], "map.id", 0, 10_000)
    if "name" in data:
        _text(data["name"], "map.name")
    if "split" in data:
        _text(data["split"], "map.split", 20)
    for key, want in (("width", 20), ("height", 10)):
        if key in data and (type(data[key]) not in (int, float) or data[key] != want):
            raise ReplayError(f"map.{key}: the arena is 20 x 10, got {_show(data[key])}")
    if "spawn_pads" in data and data["spawn_pads"] != standard_pads():
        raise ReplayError("map.spawn_pads: must be the standard pads")
    try:
        obstacles = check_obstacles(data["obstacles"], "map.obstacles")
    except ValueError as err:
        raise ReplayError(str(err)) from None
    return {**data, "obstacles": obstacles}


def _check_frames(raw: Any, ticks: int) -> dict[str, np.ndarray]:
    _object(raw, "frames", tuple(FRAME_FIELDS))
    frames = {}
    for name, (shape, lo, hi) in FRAME_FIELDS.items():
        frames[name] = _int_array(raw[name], f"frames.{name}", (ticks + 1, *shape), lo, hi)
    return frames


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _at(name: str, index: tuple[int, ...]) -> str:
    return f"frames.{name}" + "".join(f"[{i}]" for i in index)


def _check_frame_logic(frames: dict, ticks: int, visible: np.ndarray | None) -> None:
    """Relations between fields that any recorded game satisfies."""
    for name in GLOBAL_CONSTANT:
        if name in HIDDEN_VALUE and visible is not None:
            continue  # hidden cells hold placeholders
        values = frames[name]
        changed = values != values[:1]
        if changed.any():
            raise ReplayError(f"{_at(name, _first(changed))}: changes during the game")
    steps = frames["tick"] - frames["tick"][0]
    if not np.array_equal(steps, np.arange(ticks + 1)):
        t = int(np.flatnonzero(steps != np.arange(ticks + 1))[0])
        raise ReplayError(f"frames.tick[{t}]: ticks must count up by one")
    if (frames["result"][:-1] != RESULT_OPEN).any():
        t = int(np.flatnonzero(frames["result"][:-1] != RESULT_OPEN)[0])
        raise ReplayError(f"frames.result[{t}]: the game ended before its last frame")
    if (frames["spawn_end"][:, 0] == frames["spawn_end"][:, 1]).any():
        raise ReplayError("frames.spawn_end: the two teams must start at different ends")
    if (frames["pos"][..., 1] > ARENA_Y).any():
        raise ReplayError(f"{_at('pos', _first(frames['pos'][..., 1] > ARENA_Y))}: above the arena")
    max_hp = C.MAX_HEALTH_MILLI[frames["cls"]]
    over = frames["health"] > max_hp
    if over.any():
        raise ReplayError(f"{_at('health', _first(over))}: above the class's maximum health")
    present = frames["present"].astype(bool)
    ghost = frames["alive"].astype(bool) & ~present
    if ghost.any():
        raise ReplayError(f"{_at('alive', _first(ghost))}: an empty slot cannot be alive")
    alive = frames["alive"].astype(bool)
    unhurt_dead = ~alive & (frames["health"] != 0)  # hidden agents also read dead, health 0
    if unhurt_dead.any():
        raise ReplayError(f"{_at('health', _first(unhurt_dead))}: a dead agent has no health")
    lifeless = alive & (frames["health"] <= 0)
    if lifeless.any():
        raise ReplayError(f"{_at('health', _first(lifeless))}: a living agent has health above 0")
    falling = np.diff(frames["score"], axis=0) < 0
    if falling.any():
        t, team = _first(falling)
        raise ReplayError(f"frames.score[{t + 1}][{team}]: a score never goes down")
    if visible is None:
        return
    for name in HIDDEN_VALUE:
        values = frames[name]
        mask = ~visible.reshape(visible.shape + (1,) * (values.ndim - 2))
        bad = mask & (values != HIDDEN_VALUE[name])
        if bad.any():
            raise ReplayError(f"{_at(name, _first(bad))}: a hidden agent's value must be hidden")


def _check_event_value(kind: str, value: Any, where: str) -> None:
    if kind == "agent":
        if value not in AGENT_NAMES:
            raise ReplayError(f"{where}: expected an agent name (a0-b4), got {_show(value)}")
    elif kind == "agents":
        for i, name in enumerate(_list(value, where, most=NUM_SLOTS)):
            _check_event_value("agent", name, f"{where}[{i}]")
    elif kind == "ability":
        if value not in ABILITIES:
            raise ReplayError(f"{where}: unknown ability {_show(value)}")
    elif kind == "effect":
        if value not in C.EFFECT_NAMES:
            raise ReplayError(f"{where}: unknown effect {_show(value)}")
    elif kind == "amount":
        _number(value, where, 0, 1e6)
    elif kind == "ticks":
        _whole(value, where, 0, max(C.EFFECT_DURATION))
    elif kind == "points":
        _whole(value, where, 0, 2)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ReplayError(f"{where}: expected true or false, got {_show(value)}")
    elif kind == "point":
        _list(value, where, 2)
        _number(value[0], f"{where}[0]", 0, ARENA_X / 1000)
        _number(value[1], f"{where}[1]", 0, ARENA_Y / 1000)
    elif kind == "result":
        if value not in ("a", "b", "draw"):
            raise ReplayError(f"{where}: expected 'a', 'b' or 'draw', got {_show(value)}")
    elif kind == "score":
        _list(value, where, 2)
        for i, v in enumerate(value):
            _whole(v, f"{where}[{i}]", 0, FRAME_FIELDS["score"][2])
    elif kind == "tick":
        _whole(value, where, 0, MAX_TICKS)


def _check_events(raw: Any, ticks: int) -> list:
    _list(raw, "events", ticks)
    for t, tick_events in enumerate(raw):
        _list(tick_events, f"events[{t}]", most=MAX_EVENTS_PER_TICK)
        for k, event in enumerate(tick_events):
            where = f"events[{t}][{k}]"
            if not isinstance(event, dict) or event.get("kind") not in EVENT_FIELDS:
                kind = event.get("kind") if isinstance(event, dict) else event
                raise ReplayError(f"{where}.kind: unknown event kind {_show(kind)}")
            fields = EVENT_FIELDS[event["kind"]]
            _object(event, where, ("kind", *fields))
            for key, kind in fields.items():
                _check_event_value(kind, event[key], f"{where}.{key}")
    return raw


def _check_start(raw: Any, replay_map: dict, frames: dict) -> dict:
    if not isinstance(raw, dict):
        raise ReplayError(f"start: expected a position object, got {_show(raw)}")
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
    _list(raw, "systems", NUM_SLOTS)
    for s, name in enumerate(raw):
        where = f"systems[{s}]"
        if not present[s]:
            if name is not None:
                raise ReplayError(f"{where}: an empty slot has no system (null)")
            continue
        _text(name, where)
    return raw


def _check_seed(raw: Any, spawn_end: np.ndarray) -> dict:
    seed = _object(raw, "seed", ("root", "game", "spawn_ends"))
    for key in ("root", "game"):
        if seed[key] is not None:
            _whole(seed[key], f"seed.{key}", 0, MAX_SEED)
    ends = [SPAWN_END_NAMES[int(e)] for e in spawn_end]
    if seed["spawn_ends"] != ends:
        raise ReplayError(f"seed.spawn_ends: expected {ends} (from frames.spawn_end[0])")
    return seed


def _check_versions(raw: Any) -> dict:
    if not isinstance(raw, dict) or len(raw) > 20:
        raise ReplayError("versions: expected an object of at most 20 package versions")
    for key, value in raw.items():
        _text(key, "versions")
        if value is not None:
            _text(value, f"versions.{key}", 100)
    return raw


def _check_llm(raw: Any) -> dict:
    """The optional `llm` part: per side ("a", "b") its System, ticks, tick time and five or
    fewer agents' counts (the fields of `marl_bgs.llm.stats`)."""
    from ..llm.stats import COUNT_FIELDS, TIME_FIELDS

    if not isinstance(raw, dict) or not raw:
        raise ReplayError(f"llm: expected an object of sides, got {_show(raw)}")
    for side, part in raw.items():
        where = f"llm.{side}"
        if side not in ("a", "b"):
            raise ReplayError(f"{where}: unknown side (expected a or b)")
        _object(part, where, ("system", "ticks", "tick_seconds", "agents"))
        _text(part["system"], f"{where}.system")
        _whole(part["ticks"], f"{where}.ticks", 0, MAX_TICKS)
        _number(part["tick_seconds"], f"{where}.tick_seconds", 0, 1e9)
        agents = _list(part["agents"], f"{where}.agents", most=NUM_SLOTS // 2)
        for i, agent in enumerate(agents):
            at = f"{where}.agents[{i}]"
            _object(agent, at, ("agent", "class", *COUNT_FIELDS, *TIME_FIELDS))
            _whole(agent["agent"], f"{at}.agent", 0, NUM_SLOTS // 2 - 1)
            _whole(agent["class"], f"{at}.class", -1, len(C.CLASSES) - 1)
            for name in COUNT_FIELDS:
                _whole(agent[name], f"{at}.{name}", 0, 2**53)
            for name in TIME_FIELDS:
                _number(agent[name], f"{at}.{name}", 0, 1e9)
    return raw


def _check_metrics(raw: Any, frames: dict, actions: np.ndarray, events: list, view) -> dict:
    names = PUBLIC_METRICS if view is not None else PRIORITY_NAMES
    metrics = _object(raw, "metrics", tuple(names))
    for name in names:
        _whole(metrics[name], f"metrics.{name}", -1, 2**62)
    expected = metrics_from_content(frames, actions, events)
    for name in names:
        if metrics[name] != expected[name]:
            raise ReplayError(
                f"metrics.{name}: {metrics[name]} disagrees with the recorded game "
                f"({expected[name]})"
            )
    return metrics


def _check_actions(raw: Any, ticks: int, visible: np.ndarray | None) -> np.ndarray:
    lo = HIDDEN_ACTION if visible is not None else 0
    acts = _int_array(raw, "actions", (ticks, NUM_SLOTS, 3), lo, max(ACTION_LIMITS))
    for h, limit in enumerate(ACTION_LIMITS):
        over = acts[..., h] > limit
        if over.any():
            t, s = _first(over)
            raise ReplayError(f"actions[{t}][{s}][{h}]: {acts[t, s, h]} is above {limit}")
    if visible is not None:
        shown = visible[:ticks, :, None]
        bad = (shown & (acts < 0)) | (~shown & (acts != HIDDEN_ACTION))
        if bad.any():
            t, s, h = _first(bad)
            raise ReplayError(f"actions[{t}][{s}][{h}]: does not match the view's visibility")
    return acts


def _check_view(raw: Any, ticks: int) -> tuple[str | None, np.ndarray | None]:
    if raw is None:
        return None, None
    view = _object(raw, "view", ("of", "visible"))
    if view["of"] not in VIEWS:
        raise ReplayError(f"view.of: expected one of {', '.join(VIEWS)}, got {_show(view['of'])}")
    bits = _int_array(view["visible"], "view.visible", (ticks + 1,), 0, 2**NUM_SLOTS - 1)
    return view["of"], bits


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
        raise ReplayError(f"format: expected {REPLAY_FORMAT!r}, got {_show(doc.get('format'))}")
    if doc.get("version") != REPLAY_VERSION or type(doc.get("version")) is not int:
        raise ReplayError(
            f"version: unsupported version {_show(doc.get('version'))} "
            f"(this reader knows {REPLAY_VERSION})"
        )
    _object(doc, "replay", TOP_KEYS, OPTIONAL_KEYS)
    ticks = _whole(doc["ticks"], "ticks", 0, MAX_TICKS)
    title = _text(doc["title"], "title")
    if doc["rules"] != rules_table():
        raise ReplayError("rules: the class table differs from this version's (a newer engine?)")
    replay_map = _check_map(doc["map"])
    view, visible_bits = _check_view(doc["view"], ticks)
    visible = None
    if visible_bits is not None:
        visible = (visible_bits[:, None] >> np.arange(NUM_SLOTS)) & 1 == 1
    frames = _check_frames(doc["frames"], ticks)
    _check_frame_logic(frames, ticks, visible)
    present = frames["present"][0].astype(bool)
    if view is None:
        start = _check_start(doc["start"], replay_map, frames)
    elif doc["start"] is not None:
        raise ReplayError("start: a point-of-view replay holds no starting position (null)")
    else:
        start = None
    actions = _check_actions(doc["actions"], ticks, visible)
    sight = _int_array(doc["sight"], "sight", (ticks + 1, NUM_SLOTS), 0, 2**NUM_SLOTS - 1)
    events = _check_events(doc["events"], ticks)
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
        metrics=_check_metrics(doc["metrics"], frames, actions, events, view),
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
