"""The replay format ("marl-bgs/replay", version 1): field tables and the `Replay` record.

A replay stores arrays per tick, not one object per agent per tick: `frames[field][t]` is the
State field at the start of tick t (t = 0..T), as the exact integers the engine holds
(positions in milli-units, health in milli-HP, booleans as 0/1). Tick t turns frame t into
frame t + 1 with `actions[t]` (the accepted actions) and produces `events[t]`.
`sight[t][i]` is a 10-bit mask of the agents agent i sees at the start of tick t (its own
sight: radius and clear line, both alive), so readers never recompute sight.
"""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.state import (
    State,
)
from .fields import (
    BOOL_FIELDS,
    FRAME_FIELDS,
    REPLAY_FORMAT,
    REPLAY_VERSION,
    rules_table,
)


@dataclass(frozen=True)
class Replay:
    """One recorded game (or what one side saw of it, when `view` is set).

    Make one with `record_game` or `replay_from_arrays`, read one with `load_replay`,
    write one with `save`; the format is on the Replay format page.

    Attributes:
        map: The map file (format `"marl-bgs/map"`), inline obstacles included.
        start: The starting position (`"marl-bgs/position"`), None in a point of view.
        systems: The System name per slot (10, None for an empty slot).
        seed: `{"root": int | None, "game": int | None, "spawn_ends": [str, str]}`.
        versions: The package versions that produced the game.
        frames: State field name -> int64 array with leading axis T + 1: frame t is the
            state at the start of tick t (`"pos"` is `(T + 1, 10, 2)` milli-units).
        actions: int64 `(T, 10, 3)`, the accepted (move, target, Ultimate) per slot.
        events: T lists of event dicts (`{"kind": "damage", "source": "a0", ...}`).
        sight: int64 `(T + 1, 10)`, per agent a 10-bit mask of the agents it sees.
        metrics: The 16 priority metrics (only the public four in a point of view).
        title: A line of text for viewers.
        view: None for the whole game; `"a"`, `"b"` or an agent (`"a2"`) for what that
            side saw.
        visible: With a view, `(T + 1,)` bitmasks of the agents it shows.
        llm: Optional, an LLM side's request counts (`marl_bgs.llm.stats`).
    """

    map: dict  # the map file (format "marl-bgs/map")
    start: dict | None  # the starting position ("marl-bgs/position"), map inline; no view
    systems: list  # system name per slot (None for an empty slot)
    seed: dict  # {"root": int | None, "game": int | None, "spawn_ends": [str, str]}
    versions: dict  # package versions that produced the game
    frames: dict[str, np.ndarray]  # State fields, leading axis T + 1
    actions: np.ndarray  # (T, 10, 3) accepted actions
    events: list  # T lists of event dicts
    sight: np.ndarray  # (T + 1, 10) int bitmasks of own sight
    metrics: dict  # priority metrics (all 16; only PUBLIC_METRICS in a view)
    title: str = ""
    view: str | None = None  # None: the oracle; "a", "b" or an agent name
    visible: np.ndarray | None = None  # (T + 1,) bitmask of agents shown, with a view
    llm: dict | None = None  # optional: an LLM side's request counts (marl_bgs.llm.stats)

    @property
    def ticks(self) -> int:
        """T, the number of ticks played (there are T + 1 frames)."""
        return int(self.actions.shape[0])

    def state_at(self, t: int) -> State:
        """The exact engine State at the start of tick t (an oracle replay only).

        Args:
            t: The tick, 0..T (T: the state after the last tick); negative counts from
                the end, as in NumPy.

        Returns:
            The engine's `State` as NumPy arrays (int32, booleans as bool), which a `Game`
                can continue from.

        Raises:
            IndexError: A tick outside -(T + 1)..T.
        """
        values = []
        for name in State._fields:
            arr = self.frames[name][t]
            values.append(arr.astype(bool) if name in BOOL_FIELDS else arr.astype(np.int32))
        return State(*values)

    def as_seen_by(self, who: str) -> Replay:
        """Only what team `who` ("a", "b") or agent `who` ("a2") could see at each tick.

        Hidden agents' cells hold fixed placeholders and their actions -1, an event that
        names a hidden agent is dropped, and only the public metrics (result, points,
        ticks) are kept; the result cannot be re-run (`replay_game` refuses it).

        Args:
            who: `"a"`, `"b"`, or an agent name `"a0"`..`"b4"`.

        Returns:
            A new `Replay` with `view` set to `who`.

        Raises:
            ReplayError: An unknown `who`, or a replay that is already a point of view.
        """
        from .view import point_of_view

        return point_of_view(self, who)

    def to_dict(self) -> dict:
        """The JSON document (plain lists and numbers).

        Returns:
            The replay as a JSON-ready dict: `format`, `version`, `title`, `ticks`,
                `rules`, `map`, `start`, `systems`, `seed`, `versions`, `view`,
                `metrics`, `frames`, `actions`, `sight`, `events` (and `llm` if any).
        """
        out: dict[str, Any] = {
            "format": REPLAY_FORMAT,
            "version": REPLAY_VERSION,
            "title": self.title,
            "ticks": self.ticks,
            "rules": rules_table(),
            "map": self.map,
            "start": self.start,
            "systems": list(self.systems),
            "seed": self.seed,
            "versions": self.versions,
            "view": None
            if self.view is None
            else {"of": self.view, "visible": self.visible.tolist()},
            "metrics": self.metrics,
            "frames": {name: self.frames[name].tolist() for name in FRAME_FIELDS},
            "actions": self.actions.tolist(),
            "sight": self.sight.tolist(),
            "events": self.events,
        }
        if self.llm is not None:  # optional, so replays without an LLM side are unchanged
            out["llm"] = self.llm
        return out

    def to_bytes(self, compress: bool = False) -> bytes:
        """Compact JSON (one line per top-level part), gzipped with a fixed header if asked.

        Args:
            compress: Gzip it (with no time stamp or name, so the bytes are reproducible).

        Returns:
            UTF-8 JSON bytes, gzipped if asked; `load_replay` reads either.
        """
        doc = self.to_dict()
        lines = [f"{json.dumps(k)}:{_dumps(v)}" for k, v in doc.items()]
        raw = ("{" + ",\n".join(lines) + "}\n").encode("utf-8")
        if not compress:
            return raw
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as gz:
            gz.write(raw)
        return buf.getvalue()

    def save(self, path: Any) -> None:
        """Write to `path`; a name ending in .gz is gzipped.

        Args:
            path (str | os.PathLike): The file to write (replaced if it exists).

        Raises:
            OSError: The file cannot be written.
        """
        data = self.to_bytes(compress=str(path).endswith(".gz"))
        with open(path, "wb") as f:
            f.write(data)

    def with_versions(self, versions: dict) -> Replay:
        """A copy whose `versions` are these (to pin committed examples).

        Args:
            versions: Package name -> version.

        Returns:
            A new `Replay`.
        """
        return replace(self, versions=versions)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
