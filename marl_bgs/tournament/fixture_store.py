"""A season's saved fixtures: each fixture's games kept as they finish (Parquet plus a small
JSON record of what produced them), read back on a resume only when that record's key
matches the planned fixture exactly.

A fixture played again with the very same games and metadata leaves its saved files
untouched (their play time included), so rerunning a season changes no file.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.checks import number, strict_json
from ..distributed import is_writer
from ..outputs import write_atomic
from .entrants import Entrant, resolved_load
from .schedule import Fixture


def _load_identity(e: Entrant) -> dict:
    """An entrant's load spec, plus the SHA-256 of its weights file when it has one, so
    saved games of an older policy file are never reused for a new one."""
    if "weights" not in e.load:
        return e.load
    # the file build_system reads
    path = Path(resolved_load(e, "weights")["weights"]).expanduser()
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = None  # build_system reports the missing file
    return {**e.load, "sha256": digest}


def stored_key(fixture: Fixture, seed: int, a: Entrant, b: Entrant) -> dict:
    """What a saved fixture's games depend on: the fixture, the seed, both entrants' load
    specs (and weights' digests) and the rules and scripted play that produced them
    (`fingerprints`), so games of other rules are never reused."""
    from ..fingerprints import engine_identity

    return {"fixture": fixture.as_dict(), "seed": seed, "load_a": _load_identity(a),
            "load_b": _load_identity(b), "engine": engine_identity()}  # fmt: skip


class FixtureStore:
    """Per-fixture games files in a folder (none when the folder is None)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def _paths(self, fixture: Fixture, a: Entrant, b: Entrant) -> tuple[Path, Path]:
        stem = f"{fixture.index:03d}-{a.slug}-vs-{b.slug}"
        return self.folder / f"{stem}.parquet", self.folder / f"{stem}.json"

    def load(self, fixture, a, b, key) -> tuple[pd.DataFrame, dict, float | None] | None:
        """The saved games of this fixture, None when none are saved for this key; a saved
        file that cannot be read, or whose games are not this fixture's, is refused naming
        the file (a resume never mixes in games it cannot vouch for)."""
        if self.folder is None:
            return None
        games_path, meta_path = self._paths(fixture, a, b)
        if not (games_path.exists() and meta_path.exists()):
            return None
        stored = _read_record(meta_path)
        if stored["key"] != key:
            return None
        games = _read_games(games_path)
        _check_games(games, fixture, a, b, games_path)
        return games, stored["meta"], stored.get("seconds")

    def save(
        self, fixture, a, b, key, games: pd.DataFrame, meta: dict, seconds: float
    ) -> tuple[bool, float | None]:
        """The games first, then the record that vouches for them, each written whole.

        When the saved files already hold these very games and this key and metadata (a
        fixture played again), nothing is written, so the record keeps the play time of the
        run that first played them and the files stay byte-identical. Returns whether that
        was so, and the play time the record holds (the first run's, then)."""
        if self.folder is None or not is_writer():  # of joined processes, process 0 writes
            return False, seconds
        games_path, meta_path = self._paths(fixture, a, b)
        buffer = io.BytesIO()
        games.to_parquet(buffer, index=False)
        data = buffer.getvalue()
        if self._holds(games_path, meta_path, data, key, meta):
            return True, _read_record(meta_path).get("seconds")
        write_atomic(games_path, lambda t: t.write_bytes(data))
        record = {"key": key, "meta": meta, "seconds": round(seconds, 2)}
        text = _record_text(record)
        write_atomic(meta_path, lambda t: t.write_text(text))
        return False, seconds

    @staticmethod
    def _holds(games_path: Path, meta_path: Path, data: bytes, key: dict, meta: dict) -> bool:
        """Whether the saved pair of files is exactly what saving `data`, `key` and `meta`
        would write (with the saved play time); a missing or unreadable file is not."""
        if not (games_path.is_file() and meta_path.is_file()):
            return False
        try:
            stored = _read_record(meta_path)
        except ValueError:  # damaged: written afresh
            return False
        record = {"key": key, "meta": meta, "seconds": stored.get("seconds")}
        if "seconds" not in stored:
            del record["seconds"]
        text = _record_text(record)
        return meta_path.read_text() == text and games_path.read_bytes() == data


def json_ready(value: Any) -> Any:
    """`value` as strict JSON can hold it: NumPy scalars as Python numbers, and undefined
    numbers (NaN, a share of zero games, say; the decisive-win rate of a fixture with no
    decisive game) as null, as the published files write them."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _record_text(record: dict) -> str:
    """A saved fixture's record as strict JSON, the form `_read_record` accepts."""
    return json.dumps(json_ready(record), indent=2, sort_keys=True, allow_nan=False)


_DELETE = "delete it and its partner file to play the fixture again"


def _read_record(path: Path) -> dict:
    try:
        stored = strict_json(path.read_bytes(), str(path))
    except OSError as err:
        raise ValueError(f"{path}: cannot be read ({err.strerror})") from None
    if (
        not isinstance(stored, dict)
        or "key" not in stored
        or not isinstance(stored.get("meta"), dict)
    ):
        raise ValueError(f"{path}: not a saved fixture record (needs key and meta); {_DELETE}")
    seconds = stored.get("seconds")
    if seconds is not None:
        number(seconds, f"{path}: seconds", 0.0)
    return stored


def _read_games(path: Path) -> pd.DataFrame:
    import pyarrow as pa

    try:
        return pd.read_parquet(path)
    except (OSError, ValueError, pa.ArrowException) as err:
        reason = str(err).splitlines()[0][:120] if str(err) else type(err).__name__
        raise ValueError(f"{path}: not a readable Parquet file ({reason}); {_DELETE}") from None


def _check_games(games: pd.DataFrame, fixture: Fixture, a: Entrant, b: Entrant, path: Path) -> None:
    if len(games) != fixture.games:
        raise ValueError(
            f"{path}: holds {len(games)} games, fixture {fixture.index} has {fixture.games}; {_DELETE}"
        )
    want = {
        "stage": fixture.stage,
        "fixture": fixture.index,
        "entrant_a": a.name,
        "entrant_b": b.name,
    }
    for column, value in want.items():
        if column not in games.columns:
            raise ValueError(f"{path}: column {column!r} is missing; {_DELETE}")
        if not (games[column] == value).all():
            raise ValueError(f"{path}: column {column!r} is not {value!r} in every game; {_DELETE}")
