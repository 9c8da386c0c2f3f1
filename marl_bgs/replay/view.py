"""Point of view: the part of a replay that one team or one agent could see.

Visibility follows the observation rules (RULES.md, Observation): a team always knows its own
agents and sees an enemy while any of its living agents sees it and the enemy carries no spawn
shield; a single agent sees its teammates and the enemies in its own sight. Everything about
tick t (its accepted actions and events) is judged by who was visible at the start of tick t,
as the rules judge combat. Hidden agents' cells hold fixed placeholders, their actions are
-1, and an event that names any hidden agent is dropped whole. Metrics keep only the public
ones (result, points, ticks). The recorded sight bitmasks are used; nothing is recomputed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..core.state import NUM_SLOTS, TEAM_SIZE
from .fields import (
    AGENT_KEYS_OF_EVENT,
    AGENT_NAMES,
    HIDDEN_ACTION,
    HIDDEN_VALUE,
    PUBLIC_METRICS,
    VIEWS,
    ReplayError,
)

if TYPE_CHECKING:  # schema.py calls this module for `Replay.as_seen_by`
    from .schema import Replay

BITS = 1 << np.arange(NUM_SLOTS, dtype=np.int64)


def viewers(who: str) -> tuple[int, list[int]]:
    """The viewing team and the slots whose own sight counts."""
    if who not in VIEWS:
        raise ReplayError(f"view: expected one of {', '.join(VIEWS)}, got {who!r}")
    if who in ("a", "b"):
        team = "ab".index(who)
        return team, list(range(team * TEAM_SIZE, (team + 1) * TEAM_SIZE))
    slot = AGENT_NAMES.index(who)
    return slot // TEAM_SIZE, [slot]


def visible_masks(frames: dict, sight: np.ndarray, who: str) -> np.ndarray:
    """(T + 1, 10) bool: the agents `who` knows about at the start of each tick."""
    team, eyes = viewers(who)
    present = np.asarray(frames["present"]).astype(bool)
    shielded = np.asarray(frames["shield"]) > 0
    seen_bits = np.bitwise_or.reduce(np.asarray(sight)[:, eyes], axis=1)  # own sight: both alive
    seen = (seen_bits[:, None] & BITS[None, :]) != 0
    own = np.zeros(NUM_SLOTS, bool)
    own[team * TEAM_SIZE : (team + 1) * TEAM_SIZE] = True
    return np.where(own[None, :], present, seen & ~shielded & present)


def _event_agents(event: dict) -> list[str]:
    names = []
    for key in AGENT_KEYS_OF_EVENT:
        value = event.get(key)
        if isinstance(value, str):
            names.append(value)
        elif isinstance(value, list):
            names.extend(value)
    return names


def point_of_view(replay: Replay, who: str) -> Replay:
    """The replay as `who` saw it; see the module docstring for what is kept."""
    if replay.view is not None:
        raise ReplayError(f"view: this replay is already seen by {replay.view!r}")
    _, eyes = viewers(who)
    vis = visible_masks(replay.frames, replay.sight, who)  # (T + 1, 10)
    frames = {}
    for name, values in replay.frames.items():
        if name in HIDDEN_VALUE:
            mask = vis.reshape(vis.shape + (1,) * (values.ndim - 2))
            frames[name] = np.where(mask, values, HIDDEN_VALUE[name])
        else:
            frames[name] = values.copy()
    ticks = replay.ticks
    acts = np.where(vis[:ticks, :, None], replay.actions, HIDDEN_ACTION)
    eye_mask = np.zeros(NUM_SLOTS, bool)
    eye_mask[eyes] = True
    vis_bits = (vis.astype(np.int64) * BITS[None, :]).sum(axis=1)
    sight = np.where(eye_mask[None, :], replay.sight & vis_bits[:, None], 0)
    events = []
    for t, tick_events in enumerate(replay.events):
        shown = {AGENT_NAMES[s] for s in np.flatnonzero(vis[t])}
        events.append([e for e in tick_events if set(_event_agents(e)) <= shown])
    return replace(
        replay,
        frames=frames,
        actions=acts,
        events=events,
        sight=sight,
        start=None,  # the opening position shows every agent; frame 0 holds what was seen
        metrics={k: replay.metrics[k] for k in PUBLIC_METRICS},
        view=who,
        visible=vis_bits,
    )
