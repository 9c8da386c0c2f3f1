"""Evaluation: two Systems (any mix per slot) over a fixed schedule of spawn-swapped pairs.

`evaluate` checks its settings, resolves the Systems (`systems/resolve.py`), takes a compiled
runner from the cache (`runner.py`) and plays the schedule (`schedule.py`: every key folded
from the root seed, so a game does not depend on its batch); `crossplay` plays every pair of
a list. Results are `EvalResult`s (`eval_result.py`).

    result = marl_bgs.evaluate("tdm-alpha", "random", maps="test", games=200, seed=0)
    result.games          # pandas DataFrame, one row per game
    result.save("results/")  # games.csv, games.parquet, meta.json
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
import pandas as pd

from .core.checks import FieldTypeError, choice, sequence, whole
from .core.classes import CLASS_NAMES
from .core.position import OFFICIAL_ROSTER
from .core.state import TEAM_SIZE
from .eval_result import (
    CROSSPLAY_FILES,
    EVAL_FILES,
    EVAL_FORMAT,
    EVAL_VERSION,
    FULL_FILES,
    LLM_FILES,
    EvalResult,
    game_rows,
    summarize,
)
from .game_sharding import batch_mesh, round_up
from .maps import NUM_MAPS, SPLITS
from .metrics import PRIORITY_NAMES, priority_record
from .metrics.columns import GAME_COLUMNS
from .provenance import versions
from .runner import BatchRunner, get_runner, refuse_invalid
from .schedule import Schedule, starting_positions
from .systems.base import System
from .systems.resolve import resolve_system

MAX_GAMES = 1_000_000
# Names that callers read from here: the result type, its files and the summary.
__all__ = [
    "CROSSPLAY_FILES",
    "EVAL_FILES",
    "FULL_FILES",
    "GAME_COLUMNS",
    "LLM_FILES",
    "EvalResult",
    "crossplay",
    "evaluate",
    "play_schedule",
    "resolve_maps",
    "summarize",
    "wdl_matrix",
]


def resolve_maps(maps: Any) -> tuple[int, ...]:
    """Map ids from a split name ("test", "validation", ...), "all", an id, or a list of ids.

    Args:
        maps: `"curriculum"`, `"training"`, `"validation"`, `"test"`, `"all"`, one map id
            (0-51) or a non-empty list of ids.

    Returns:
        The map ids, in the order given (a split's in increasing order).

    Raises:
        ValueError: An unknown split name, an empty list, or an id out of range.
        FieldTypeError: An id that is not a whole number.
    """
    if isinstance(maps, str):
        if maps == "all":
            return tuple(range(NUM_MAPS))
        if maps in SPLITS:
            return SPLITS[maps]
        raise ValueError(f"maps: unknown split {maps!r}; use one of {', '.join(SPLITS)} or 'all'")
    ids = [maps] if isinstance(maps, (int, np.integer)) else maps
    if not isinstance(ids, (list, tuple)) or not ids:
        raise ValueError(f"maps: expected a split name, a map id or a list of ids, got {maps!r}")
    out = []
    for i, m in enumerate(ids):
        out.append(whole(m, f"maps[{i}]", 0, NUM_MAPS - 1))
    return tuple(out)


def evaluate(
    team_a: Any,
    team_b: Any,
    maps: Any = "test",
    games: int = 200,
    seed: int = 0,
    *,
    first_seed: int = 0,
    rosters: tuple[Sequence[str], Sequence[str]] | None = None,
    winning_score: int = 20,
    horizon: int = 300,
    batch_size: int = 64,
    record: Sequence[int] = (),
    progress: bool = True,
    devices: int = 1,
    metrics: str = "priority",
) -> EvalResult:
    """Play `games` games (an even number: spawn-swapped pairs) of team a against team b.

    `team_a`/`team_b` are Systems, registered names, or five of either (one per slot); host
    and JAX Systems mix freely (a host System makes the loop run tick by tick on the host).
    `record` lists games whose accepted actions are kept, for replays. The games' results
    do not depend on `batch_size`.

    `devices` splits each batch of games over devices with `jax.sharding`
    (`marl_bgs.game_sharding`): 1 (the default) runs on one, 0 on all, N on the first N.
    After `jax.distributed.initialize` (`marl_bgs.distributed`, `marl-bgs launch`) these are
    the devices of every process: each plays its devices' share and every process returns
    the whole result (games with a System on the host keep to each process's own devices).
    Every result (the games table, recorded actions, metadata) is identical to one
    device's. A batch that does not split evenly is padded up to the next multiple of the
    device count with copies of its last game, whose results are dropped, as evaluate
    already does for a short last batch (so `batch_size` 6 on 4 devices plays 8 at once).

    `metrics="full"` also records the full metrics of every game (`result.full`: 2,994
    who-did-what-to-whom columns, see `marl_bgs.metrics.full`); the games are the same.

    ```python
    result = marl_bgs.evaluate("tdm-alpha", "random", maps="test", games=20, seed=0)
    result.summary()["wins"]      # team a's (tdm-alpha's) wins
    result.save("results/")       # games.csv, games.parquet, meta.json
    ```

    Args:
        team_a: Team a's System: a `System`, a registered name (`"random"`,
            `"tdm-alpha"`, `"tdm-beta"`, `"tdm-gamma"`), `"llm:MODEL@URL"`,
            `{"checkpoint": run folder}`, `{"weights": "policy.npz"}`, or a list of five
            of these, one per slot.
        team_b: Team b's System, in the same forms.
        maps: A split name (`"test"`, `"validation"`, `"training"`, `"curriculum"`),
            `"all"`, one map id or a list of ids; pairs cycle over them.
        games: How many games, even (2 to 1,000,000): `games // 2` spawn-swapped pairs.
        seed: The root seed (0 to 2**31 - 1) every random key is folded from.
        first_seed: The seed number of the first pair; later pairs count up from it.
        rosters: Class names per team, `(["mage", ...], [...])` of 1-5 each; None for
            the official five a side.
        winning_score: Points that win a game.
        horizon: Ticks before a game ends as a draw.
        batch_size: Games run at once (1-65,536); it changes speed and memory, never
            results.
        record: Game numbers whose accepted actions are kept, for `EvalResult.replay`.
        progress: Show a progress bar.
        devices: Devices a batch is split over: 1, 0 for all, or N (after
            `jax.distributed.initialize`, those of every process: `marl_bgs.distributed`).
        metrics: `"priority"` (the games table) or `"full"` (also `result.full`).

    Returns:
        The `EvalResult`: `games` (one row per game), `meta`, recorded `actions`, and
            `llm` and `full` tables where they apply.

    Raises:
        ValueError: A setting out of range or unknown, naming it (`games: 7 is odd;
            games come in spawn-swapped pairs`, `team_b: system: unknown name ...`,
            `rosters[1][0]: unknown class ...`), a settings combination no position can
            hold, or a System that played an out-of-range action (naming it, the game and
            the agent).
        FieldTypeError: A setting of the wrong type, naming it.
    """
    sys_a = resolve_system(team_a, "team_a")
    sys_b = resolve_system(team_b, "team_b")
    map_ids = resolve_maps(maps)
    games = whole(games, "games", 2, MAX_GAMES)
    if games % 2:
        raise ValueError(f"games: {games} is odd; games come in spawn-swapped pairs")
    seed = whole(seed, "seed", 0, 2**31 - 1)
    first_seed = whole(first_seed, "first_seed", 0, 2**31 - 1 - games // 2)
    batch_size = whole(batch_size, "batch_size", 1, 65_536)
    metrics_level = choice(metrics, "metrics", ("priority", "full"))
    mesh = batch_mesh(devices, host=sys_a.on_host or sys_b.on_host)
    rosters = (OFFICIAL_ROSTER, OFFICIAL_ROSTER) if rosters is None else rosters
    teams = sequence(rosters, "rosters", 2, 2)  # two lists of class names, one per team
    rosters = tuple(
        tuple(choice(c, f"rosters[{t}][{k}]", CLASS_NAMES, "class") for k, c in enumerate(
            sequence(team, f"rosters[{t}]", 1, TEAM_SIZE)))
        for t, team in enumerate(teams)
    )  # fmt: skip
    if isinstance(record, (range, np.ndarray)):
        record = list(record)
    record = sorted(
        {whole(g, f"record[{i}]", 0, games - 1) for i, g in enumerate(sequence(record, "record"))}
    )
    schedule = Schedule(map_ids, games, first_seed)
    from .maps.positions import parse_position

    parse_position(
        starting_positions(schedule, [0], rosters, horizon, winning_score)[0]
    )  # fail early

    per_batch = min(batch_size, games)
    runner = get_runner(
        (sys_a, sys_b),
        tuple(dict.fromkeys(map_ids)),
        per_batch if mesh is None else round_up(per_batch, mesh),
        rosters,
        winning_score,
        horizon,
        mesh,
        metrics_level,
    )
    return play_schedule(runner, schedule, rosters, seed=seed, winning_score=winning_score,
                         horizon=horizon, record=record, progress=progress,
                         metrics=metrics_level)  # fmt: skip


def play_schedule(runner: BatchRunner, schedule: Schedule, rosters: tuple, *, seed: int,
                  winning_score: int, horizon: int, record: Sequence[int] = (),
                  progress: bool = False, metrics: str = "priority") -> EvalResult:  # fmt: skip
    """Every game of `schedule` on `runner` (whose batch size it fills, padding the last
    batch with copies that are dropped), as `evaluate` returns them.

    `evaluate` checks its arguments and picks a cached runner first; the training run's
    validation panel calls this directly with its own runner (the actor's parameters are an
    argument of that runner's compiled loop). `record` must be sorted game numbers.
    """
    sys_a, sys_b = runner.systems
    games = schedule.games
    metrics_level = metrics
    record = sorted(record)
    env = runner.env
    root = jax.random.key(seed)
    all_metrics: list[np.ndarray] = []
    kept: dict[int, np.ndarray] = {}
    llm_rows: list[dict] = []
    bar = _progress(games, progress, f"{sys_a.name} vs {sys_b.name}")
    for start in range(0, games, env.num_envs):
        batch = list(range(start, min(start + env.num_envs, games)))
        padded = batch + [batch[-1]] * (env.num_envs - len(batch))
        seeds = np.asarray([schedule.game(g)[1] for g in padded])
        positions = starting_positions(schedule, padded, rosters, horizon, winning_score)
        vectors, trail, bad = runner.run(root, seeds, positions, len(batch))
        refuse_invalid(bad[: len(batch)], batch, (sys_a, sys_b))
        all_metrics.append(vectors[: len(batch)])
        for team, (system, report) in enumerate(
            zip((sys_a, sys_b), runner.last_reports, strict=True)
        ):
            for i, g in enumerate(batch if report is not None else ()):
                for row in report[i]:  # padded copies (past len(batch)) are dropped
                    llm_rows.append({"game": g, "side": "ab"[team], "system": system.name, **row})
        for i, g in enumerate(batch):
            if g in record:
                ticks = int(priority_record(vectors[i]).ticks)
                kept[g] = trail[:ticks, i].copy()
        bar.update(len(batch))
    bar.close()
    rows = game_rows(
        schedule, np.concatenate(all_metrics), range(games), (sys_a.name, sys_b.name), rosters
    )
    frame = pd.DataFrame(rows, columns=list(GAME_COLUMNS))
    full = pd.DataFrame()
    if metrics_level == "full":
        from .metrics.full import FULL_NAMES, full_values

        values = full_values(np.concatenate(all_metrics)[:, len(PRIORITY_NAMES) :])
        full = pd.DataFrame(values, columns=list(FULL_NAMES))
        full.insert(0, "game", np.arange(games))
    meta = {
        "format": EVAL_FORMAT,
        "version": EVAL_VERSION,
        "versions": versions(),
        "root_seed": seed,
        "schedule": schedule.as_dict(),
        "systems": {"a": sys_a.name, "b": sys_b.name},
        "rosters": {"a": list(rosters[0]), "b": list(rosters[1])},
        "winning_score": winning_score,
        "horizon": horizon,
        "key_folding": "fold_in(root, use) -> seed number -> tick -> team (0 = team a's "
        "System, 1 = team b's), use 0 = memory start (no tick), 1 = actions",
        "counts": summarize(frame),
        "recorded_games": record,
        "metrics": metrics_level,
    }
    llm = pd.DataFrame(llm_rows)
    if len(llm):
        from .llm.stats import side_totals

        meta["llm"] = side_totals(llm)
    return EvalResult(frame, meta, kept, llm, full)


def _progress(total: int, enabled: bool, label: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not enabled, desc=label, unit="game", leave=False)


def crossplay(
    systems: Sequence[Any],
    maps: Any = "test",
    games: int = 40,
    seed: int = 0,
    *,
    include_self: bool = False,
    batch_size: int = 64,
    progress: bool = True,
    devices: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every unordered pair of Systems: returns (all games, matrix of mean margins).

    Each pairing is one `evaluate` call with the same seed, so every pairing sees the same
    schedule (common random numbers). The matrix holds the row System's mean points margin
    against the column System; `wdl_matrix(all_games)` gives the W-D-L counts.

    Args:
        systems: Two or more Systems in any form `evaluate` takes, with distinct names.
        maps: As in `evaluate`.
        games: Games per pairing (even).
        seed: The root seed, the same for every pairing.
        include_self: Also play each System against itself (the diagonal).
        batch_size: As in `evaluate`.
        progress: Show a progress bar per pairing.
        devices: As in `evaluate`.

    Returns:
        all_games: Every pairing's games table, concatenated (`system_a` is the earlier
            System in `systems`).
        margins: Square table, index and columns the System names: the row System's
            mean points margin against the column System (NaN where not played).

    Raises:
        FieldTypeError: `systems` is not a list.
        ValueError: Fewer than two Systems (one with `include_self`), two with the same
            name, or a setting `evaluate` refuses.
    """
    if isinstance(systems, (str, System)) or not isinstance(systems, (list, tuple)):
        raise FieldTypeError(f"systems: expected a list of Systems or names, got {systems!r}")
    if len(systems) < (1 if include_self else 2):
        raise ValueError(
            f"systems: cross-play needs at least two Systems (or include_self=True), got "
            f"{len(systems)}"
        )
    resolved = [resolve_system(s, f"systems[{i}]") for i, s in enumerate(systems)]
    names = [s.name for s in resolved]
    if len(set(names)) != len(names):
        raise ValueError(f"systems: names must differ, got {names}")
    frames = []
    n = len(resolved)
    margin = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i if include_self else i + 1, n):
            res = evaluate(
                resolved[i],
                resolved[j],
                maps=maps,
                games=games,
                seed=seed,
                batch_size=batch_size,
                progress=progress,
                devices=devices,
            )
            frames.append(res.games)
            s = res.summary()
            margin[i, j] = s["margin_mean"]
            margin[j, i] = -s["margin_mean"]
    all_games = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return all_games, pd.DataFrame(margin, index=names, columns=names)


def wdl_matrix(all_games: pd.DataFrame) -> pd.DataFrame:
    """W-D-L of each row System against each column System, from crossplay's games.

    Args:
        all_games: The games table `crossplay` returns (or several `evaluate` tables).

    Returns:
        Square table of `"W-D-L"` strings, index and columns the System names in
            sorted order; empty where two Systems did not meet.

    Raises:
        KeyError: A table without the `system_a`, `system_b` or `result` column (an
            empty crossplay's table has none).
    """
    names = sorted(set(all_games["system_a"]) | set(all_games["system_b"]))
    out = pd.DataFrame("", index=names, columns=names)
    for (a, b), grp in all_games.groupby(["system_a", "system_b"]):
        w = int((grp["result"] == "a").sum())
        d = int((grp["result"] == "draw").sum())
        losses = int((grp["result"] == "b").sum())
        out.loc[a, b] = f"{w}-{d}-{losses}"
        out.loc[b, a] = f"{losses}-{d}-{w}"
    return out
