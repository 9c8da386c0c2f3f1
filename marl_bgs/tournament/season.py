"""Playing a season: the round robin, then challengers one at a time, every game kept.

A fixture's games are saved as they finish (`fixture_store`), so an interrupted season
resumes where it stopped: a saved fixture is reused only when its schedule entry, root seed
and both entrants' load specs match the planned one exactly, and rerunning a season changes
no file.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.checks import whole
from .entrants import Entrant, SeasonSpec, build_system
from .fixture_store import FixtureStore, json_ready, stored_key
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
    saved: FixtureStore,
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
    key = stored_key(fx, seed, a, b)
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

    from ..game_sharding import device_count

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
    saved = FixtureStore(Path(store))
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
    devices (0: all, of every process after `jax.distributed.initialize`), with the same
    games as one device (see `marl_bgs.evaluate`), so saved fixtures are reused whatever it
    was.
    """
    from tqdm.auto import tqdm

    from ..game_sharding import device_count

    whole(seed, "seed", 0, 2**31 - 1)
    device_count(devices)  # a bad value fails before any game, even when all are resumed
    evaluate_fn = evaluate_fn or _evaluate_default()
    maps = tuple(int(m) for m in maps)
    by_name = {e.name: e for e in list(spec.entrants) + list(spec.challengers)}
    systems = {name: build_system(e) for name, e in by_name.items()}  # fail before any game
    saved = FixtureStore(Path(store) if store is not None else None)
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
