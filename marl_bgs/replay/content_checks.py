"""The checks of a replay's recorded game: the frames and the relations between them, the
point of view, the actions, the events and the metrics they must agree with. Each error is a
`ReplayError` whose message starts with the field, e.g. `frames.health[12][3]: ...`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import classes
from ..core.state import NUM_SLOTS, RESULT_OPEN
from ..metrics import PRIORITY_NAMES
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
    PUBLIC_METRICS,
    VIEWS,
    ReplayError,
)
from .metrics import metrics_from_content
from .value_checks import int_array, json_list, json_object, number, show, whole

MAX_TICKS = 100_000
MAX_EVENTS_PER_TICK = 2000
GLOBAL_CONSTANT = ("horizon", "winning_score", "red_zone_depth", "spawn_end", "present", "cls")


def check_frames(raw: Any, ticks: int) -> dict[str, np.ndarray]:
    """`frames`: every field's `ticks + 1` frames, each value in its range, as int64."""
    json_object(raw, "frames", tuple(FRAME_FIELDS))
    frames = {}
    for name, (shape, lo, hi) in FRAME_FIELDS.items():
        frames[name] = int_array(raw[name], f"frames.{name}", (ticks + 1, *shape), lo, hi)
    return frames


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _at(name: str, index: tuple[int, ...]) -> str:
    return f"frames.{name}" + "".join(f"[{i}]" for i in index)


def check_frame_logic(frames: dict, ticks: int, visible: np.ndarray | None) -> None:
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
    max_hp = classes.MAX_HEALTH_MILLI[frames["cls"]]
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


def check_actions(raw: Any, ticks: int, visible: np.ndarray | None) -> np.ndarray:
    """`actions`: each tick's three heads per slot, within their limits; in a point-of-view
    replay (`visible`), hidden exactly where the view cannot see."""
    lo = HIDDEN_ACTION if visible is not None else 0
    acts = int_array(raw, "actions", (ticks, NUM_SLOTS, 3), lo, max(ACTION_LIMITS))
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


def check_view(raw: Any, ticks: int) -> tuple[str | None, np.ndarray | None]:
    """`view`: whose point of view and the visible slots' bits per frame; (None, None) for
    the full replay."""
    if raw is None:
        return None, None
    view = json_object(raw, "view", ("of", "visible"))
    if view["of"] not in VIEWS:
        raise ReplayError(f"view.of: expected one of {', '.join(VIEWS)}, got {show(view['of'])}")
    bits = int_array(view["visible"], "view.visible", (ticks + 1,), 0, 2**NUM_SLOTS - 1)
    return view["of"], bits


def _check_event_value(kind: str, value: Any, where: str) -> None:
    if kind == "agent":
        if value not in AGENT_NAMES:
            raise ReplayError(f"{where}: expected an agent name (a0-b4), got {show(value)}")
    elif kind == "agents":
        for i, name in enumerate(json_list(value, where, most=NUM_SLOTS)):
            _check_event_value("agent", name, f"{where}[{i}]")
    elif kind == "ability":
        if value not in ABILITIES:
            raise ReplayError(f"{where}: unknown ability {show(value)}")
    elif kind == "effect":
        if value not in classes.EFFECT_NAMES:
            raise ReplayError(f"{where}: unknown effect {show(value)}")
    elif kind == "amount":
        number(value, where, 0, 1e6)
    elif kind == "ticks":
        whole(value, where, 0, max(classes.EFFECT_DURATION))
    elif kind == "points":
        whole(value, where, 0, 2)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ReplayError(f"{where}: expected true or false, got {show(value)}")
    elif kind == "point":
        json_list(value, where, 2)
        number(value[0], f"{where}[0]", 0, ARENA_X / 1000)
        number(value[1], f"{where}[1]", 0, ARENA_Y / 1000)
    elif kind == "result":
        if value not in ("a", "b", "draw"):
            raise ReplayError(f"{where}: expected 'a', 'b' or 'draw', got {show(value)}")
    elif kind == "score":
        json_list(value, where, 2)
        for i, v in enumerate(value):
            whole(v, f"{where}[{i}]", 0, FRAME_FIELDS["score"][2])
    elif kind == "tick":
        whole(value, where, 0, MAX_TICKS)


def check_events(raw: Any, ticks: int) -> list:
    """`events`: each tick's list of known kinds, every field of the right sort."""
    json_list(raw, "events", ticks)
    for t, tick_events in enumerate(raw):
        json_list(tick_events, f"events[{t}]", most=MAX_EVENTS_PER_TICK)
        for k, event in enumerate(tick_events):
            where = f"events[{t}][{k}]"
            if not isinstance(event, dict) or event.get("kind") not in EVENT_FIELDS:
                kind = event.get("kind") if isinstance(event, dict) else event
                raise ReplayError(f"{where}.kind: unknown event kind {show(kind)}")
            fields = EVENT_FIELDS[event["kind"]]
            json_object(event, where, ("kind", *fields))
            for key, kind in fields.items():
                _check_event_value(kind, event[key], f"{where}.{key}")
    return raw


def check_metrics(raw: Any, frames: dict, actions: np.ndarray, events: list, view) -> dict:
    """`metrics`: each one equal to what the frames, actions and events give."""
    names = PUBLIC_METRICS if view is not None else PRIORITY_NAMES
    metrics = json_object(raw, "metrics", tuple(names))
    for name in names:
        whole(metrics[name], f"metrics.{name}", -1, 2**62)
    expected = metrics_from_content(frames, actions, events)
    for name in names:
        if metrics[name] != expected[name]:
            raise ReplayError(
                f"metrics.{name}: {metrics[name]} disagrees with the recorded game "
                f"({expected[name]})"
            )
    return metrics
