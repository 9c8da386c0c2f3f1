"""Playing a season: the round robin, then challengers one at a time, every game kept.

A fixture's games are saved as they finish (Parquet plus a small JSON of what produced them),
so an interrupted season resumes where it stopped: a saved fixture is reused only when its
schedule entry, root seed and both entrants' load specs match the planned one exactly. A
fixture played again with the very same games and metadata leaves its saved files untouched
(their play time included), so rerunning a season changes no file.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.checks import number, strict_json, whole
from ..outputs import write_atomic
from .entrants import Entrant, SeasonSpec, _resolved, build_system
from .ratings import fit_btd
from .schedule import (
    DEFAULT_GAMES_PER_MAP,
    Fixture,
    challenge,
    round_robin,
    seed_base_after,
)

EvaluateFn = Callable[..., Any]  # marl_bgs.evaluate's contract
DEFAULT_BATCH_SIZE = 128


@dataclass
class SeasonResult:
    """Every game of a season, the fixtures that produced them and who holds the seats."""

    spec: SeasonSpec
    maps: tuple[int, ...]
    games_per_map: int
    seed: int
    fixtures: list[Fixture]
    games: pd.DataFrame
    metas: dict[int, dict]  # fixture index -> evaluate's metadata
    field: list[str]  # the seats at the end, in seat order
    admissions: list[dict] = field(default_factory=list)
    seconds: dict[int, float] = field(default_factory=dict)  # play time per fixture, when known
    resumed: list[int] = field(default_factory=list)  # fixtures read back from saved games
    # fixtures played again whose games and metadata equal the saved ones byte for byte
    repeated: list[int] = field(default_factory=list)

    @property
    def entrants(self) -> list[Entrant]:
        return list(self.spec.entrants) + list(self.spec.challengers)


def _load_identity(e: Entrant) -> dict:
    """An entrant's load spec, plus the SHA-256 of its weights file when it has one, so
    saved games of an older policy file are never reused for a new one."""
    if "weights" not in e.load:
        return e.load
    path = Path(_resolved(e, "weights")["weights"]).expanduser()  # the file build_system reads
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = None  # build_system reports the missing file
    return {**e.load, "sha256": digest}


def _stored_key(fixture: Fixture, seed: int, a: Entrant, b: Entrant) -> dict:
    """What a saved fixture's games depend on: the fixture, the seed, both entrants' load
    specs (and weights' digests) and the rules and scripted play that produced them
    (`fingerprints`), so games of other rules are never reused."""
    from ..fingerprints import engine_identity

    return {"fixture": fixture.as_dict(), "seed": seed, "load_a": _load_identity(a),
            "load_b": _load_identity(b), "engine": engine_identity()}  # fmt: skip


class _Store:
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
        if self.folder is None:
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


def _evaluate_default() -> EvaluateFn:
    from .. import evaluate

    return evaluate


def play_fixture(
    fixture: Fixture,
    a: Entrant,
    b: Entrant,
    systems: tuple[Any, Any],
    seed: int,
    evaluate_fn: EvaluateFn,
    batch_size: int,
    progress: bool,
    devices: int = 1,
) -> tuple[pd.DataFrame, dict]:
    """One fixture's games, with the season's columns (stage, fixture, entrants) in front."""
    # `devices` reaches the evaluate function only when asked for, so stand-ins written to
    # evaluate's older contract (without it) keep working on one device.
    split = {} if devices == 1 else {"devices": devices}
    result = evaluate_fn(
        systems[0],
        systems[1],
        maps=list(fixture.maps),
        games=fixture.games,
        seed=seed,
        first_seed=fixture.first_seed,
        batch_size=batch_size,
        progress=progress,
        **split,
    )
    games = result.games.copy()
    if len(games) != fixture.games:
        raise RuntimeError(
            f"fixture {fixture.index}: expected {fixture.games} games, got {len(games)}"
        )
    lead = pd.DataFrame(
        {
            "stage": fixture.stage,
            "fixture": fixture.index,
            "entrant_a": a.name,
            "entrant_b": b.name,
        },
        index=games.index,
    )
    return pd.concat([lead, games], axis=1), dict(result.meta)


def _load_or_play(
    fx: Fixture,
    by_name: dict[str, Entrant],
    systems: dict[str, Any],
    saved: _Store,
    resume: bool,
    seed: int,
    evaluate_fn: EvaluateFn,
    batch_size: int,
    progress: bool,
    devices: int,
) -> tuple[pd.DataFrame, dict, float | None, str]:
    """One fixture's games, read back when `resume` finds them saved, else played and saved.

    Returns the games, evaluate's metadata, the play time (the saved one for a fixture read
    back or played again; None when its record has none) and how they were got: "resumed",
    "repeated" (played again, equal to the saved files byte for byte) or "played"."""
    a, b = by_name[fx.entrant_a], by_name[fx.entrant_b]
    key = _stored_key(fx, seed, a, b)
    found = saved.load(fx, a, b, key) if resume else None
    if found is not None:
        games, meta, seconds = found
        return games, meta, seconds, "resumed"
    started = time.perf_counter()
    pair = (systems[a.name], systems[b.name])
    games, meta = play_fixture(fx, a, b, pair, seed, evaluate_fn, batch_size, progress, devices)
    seconds = time.perf_counter() - started
    meta = json_ready(meta)  # as a resumed fixture reads it back
    repeated, seconds = saved.save(fx, a, b, key, games, meta, seconds)
    return games, meta, seconds, "repeated" if repeated else "played"


def parse_shard(text: str) -> tuple[int, int]:
    """'I/N' (share I of N, 0 <= I < N) as (I, N), for the scripts' --shard options."""
    i, slash, n = text.partition("/")
    try:
        shard, shards = int(i), int(n)
    except ValueError:
        shard = shards = -1
    if not slash or shards < 1 or not 0 <= shard < shards:
        raise ValueError(f"expected I/N with 0 <= I < N, like 0/2, got {text!r}")
    return shard, shards


def shard_argument(text: str) -> tuple[int, int]:
    """`parse_shard` for argparse's `type=`: a bad --shard is a usage error naming it."""
    import argparse

    try:
        return parse_shard(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def function_argument(text: str) -> Callable:
    """argparse's `type=` for a `module:function` option (the season scripts' `--evaluate`,
    which tests point at a stand-in for `marl_bgs.evaluate`): a malformed name, a module
    that does not import or a name it lacks is a usage error naming what was given."""
    import argparse
    import importlib

    module, _, name = text.partition(":")
    if not module or not name:
        raise argparse.ArgumentTypeError(f"expected 'module:function', got {text!r}")
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError as err:
        raise argparse.ArgumentTypeError(
            f"{text!r}: module {module!r} does not import ({err})"
        ) from None
    if not callable(found):
        raise argparse.ArgumentTypeError(f"{text!r}: {module!r} has no function {name!r}")
    return found


def planned_fixtures(
    spec: SeasonSpec, maps: Sequence[int], games_per_map: int = DEFAULT_GAMES_PER_MAP
) -> list[Fixture]:
    """Every fixture known before any game: the round robin and the first challenger's.

    The first challenger meets the seats in entrants-file order whatever the round robin's
    results; later challengers' opponents depend on who was admitted before them."""
    maps = tuple(int(m) for m in maps)
    fixtures = round_robin([e.name for e in spec.entrants], maps, games_per_map)
    if spec.challengers:
        seats = [e.name for e in spec.entrants]
        first = spec.challengers[0].name
        fixtures += challenge(
            first, seats, maps, games_per_map, len(fixtures), seed_base_after(fixtures)
        )
    return fixtures


def play_shard(
    spec: SeasonSpec,
    maps: Sequence[int],
    shard: int,
    shards: int,
    games_per_map: int = DEFAULT_GAMES_PER_MAP,
    seed: int = 0,
    store: str | Path = "",
    evaluate_fn: EvaluateFn | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = True,
    devices: int = 1,
) -> dict[int, str]:
    """Play one share of a season's planned fixtures into `store`, rating nothing.

    Shard `shard` of `shards` takes `planned_fixtures(...)[shard::shards]`, so several
    processes (or machines sharing the folder) fill one store side by side; a fixture already
    saved with the same key is skipped. `run_season(..., resume=True)` then reads them all,
    plays whatever is left (later challengers) and rates the season. Returns, per fixture
    index of this shard, "resumed", "played" or "repeated".
    """
    from tqdm.auto import tqdm

    from ..sharding import device_count

    whole(seed, "seed", 0, 2**31 - 1)
    whole(shards, "shards", 1, 10_000)
    whole(shard, "shard", 0, shards - 1)
    if not str(store):
        raise ValueError("store: a shard saves its fixtures, so it needs a folder")
    device_count(devices)
    evaluate_fn = evaluate_fn or _evaluate_default()
    mine = planned_fixtures(spec, maps, games_per_map)[shard::shards]
    by_name = {e.name: e for e in list(spec.entrants) + list(spec.challengers)}
    needed = {n for fx in mine for n in (fx.entrant_a, fx.entrant_b)}
    systems = {n: build_system(by_name[n]) for n in sorted(needed)}  # fail before any game
    saved = _Store(Path(store))
    done: dict[int, str] = {}
    bar = tqdm(total=sum(fx.games for fx in mine), disable=not progress, unit="game",
               desc=f"{spec.season} shard {shard}/{shards}")  # fmt: skip
    for fx in mine:
        games, _, _, how = _load_or_play(
            fx, by_name, systems, saved, True, seed, evaluate_fn, batch_size, progress, devices
        )
        done[fx.index] = how
        bar.update(len(games))
    bar.close()
    return done


def run_season(
    spec: SeasonSpec,
    maps: Sequence[int],
    games_per_map: int = DEFAULT_GAMES_PER_MAP,
    seed: int = 0,
    store: str | Path | None = None,
    resume: bool = False,
    evaluate_fn: EvaluateFn | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = True,
    devices: int = 1,
) -> SeasonResult:
    """Play (or read back) every fixture of a season: round robin, then each challenger.

    A challenger plays every seat; it takes the lowest member's seat when its Elo, in one
    joint fit of the field's and its own games, is higher than that member's, or an empty seat
    while the field has fewer than `spec.field_size` members. Every game is kept either way.

    `devices` goes to every `evaluate_fn` call: each fixture's games are split over that many
    local devices (0: all), with the same games as one device (see `marl_bgs.evaluate`), so
    saved fixtures are reused whatever it was.
    """
    from tqdm.auto import tqdm

    from ..sharding import device_count

    whole(seed, "seed", 0, 2**31 - 1)
    device_count(devices)  # a bad value fails before any game, even when all are resumed
    evaluate_fn = evaluate_fn or _evaluate_default()
    maps = tuple(int(m) for m in maps)
    by_name = {e.name: e for e in list(spec.entrants) + list(spec.challengers)}
    systems = {name: build_system(e) for name, e in by_name.items()}  # fail before any game
    saved = _Store(Path(store) if store is not None else None)
    fixtures = round_robin([e.name for e in spec.entrants], maps, games_per_map)
    seed_base = seed_base_after(fixtures)
    per_fixture = fixtures[0].games
    total = per_fixture * (len(fixtures) + len(spec.challengers) * spec.field_size)
    bar = tqdm(total=total, disable=not progress, desc=spec.season, unit="game")
    result = SeasonResult(spec, maps, games_per_map, seed, [], pd.DataFrame(), {}, [])
    frames: list[pd.DataFrame] = []

    def play(fx: Fixture) -> None:
        games, meta, seconds, how = _load_or_play(
            fx, by_name, systems, saved, resume, seed, evaluate_fn, batch_size, progress, devices
        )
        if how == "resumed":
            result.resumed.append(fx.index)
        elif how == "repeated":
            result.repeated.append(fx.index)
        if seconds is not None:  # a resumed fixture: how long it took when it was played
            result.seconds[fx.index] = seconds
        frames.append(games)
        result.fixtures.append(fx)
        result.metas[fx.index] = meta
        bar.update(len(games))

    for fx in fixtures:
        play(fx)
    seats = [e.name for e in spec.entrants]
    for challenger in spec.challengers:
        planned = challenge(
            challenger.name, seats, maps, games_per_map, len(result.fixtures), seed_base
        )
        for fx in planned:
            play(fx)
        result.admissions.append(_admit(challenger.name, seats, frames, spec.field_size))
    bar.close()
    result.games = pd.concat(frames, ignore_index=True)
    result.field = seats
    return result


def _admit(challenger: str, seats: list[str], frames: list[pd.DataFrame], size: int) -> dict:
    """Decide one challenger's entry from a joint fit of the field and the challenger."""
    games = pd.concat(frames, ignore_index=True)
    members = set(seats) | {challenger}
    keep = games["entrant_a"].isin(members) & games["entrant_b"].isin(members)
    games = games[keep]
    fit = fit_btd(games["entrant_a"], games["entrant_b"], games["result"])
    elo = fit.elo_of()
    lowest = min(seats, key=lambda s: (elo[s], s))
    # Decided on the fit's own floats; written to 0.1 Elo like the standings, so the file
    # does not change with the last bits a machine's BLAS leaves in the fit.
    record = {
        "challenger": challenger,
        "elo": round(elo[challenger], 1),
        "field_elo": {s: round(elo[s], 1) for s in seats},
        "lowest_member": lowest,
        "lowest_elo": round(elo[lowest], 1),
    }
    if len(seats) < size:
        seats.append(challenger)
        record.update(admitted=True, replaced=None, reason="an empty seat")
    elif elo[challenger] > elo[lowest]:
        seats[seats.index(lowest)] = challenger
        record.update(admitted=True, replaced=lowest, reason="Elo above the lowest member's")
    else:
        record.update(admitted=False, replaced=None, reason="Elo not above the lowest member's")
    return record
