"""Replay every game of a published season with full metrics and save them.

    .venv/bin/python scripts/replay_season_full.py --season season0

    # over two processes, then assemble (each fixture's part is kept, so a stop resumes):
    .venv/bin/python scripts/replay_season_full.py --season season0 --parts P --shard 0/2 &
    .venv/bin/python scripts/replay_season_full.py --season season0 --parts P --shard 1/2
    .venv/bin/python scripts/replay_season_full.py --season season0 --parts P

    # a season that grew (a challenger added): replay only its new fixtures, taking the
    # others' rows from the full metrics published before (each checked against the games)
    cp exports/seasons/season0/full_metrics.parquet /tmp/before.parquet
    .venv/bin/python scripts/export_season.py --season season0 --resume --force
    .venv/bin/python scripts/replay_season_full.py --season season0 --reuse /tmp/before.parquet

A season saves only each game's result and priority metrics. This replays all its fixtures
from the saved schedule and seeds through `marl_bgs.evaluate(metrics="full")`, refuses to
write anything unless every game repeats exactly (all columns of the saved games table), and
writes exports/seasons/<season>/full_metrics.parquet: one row per game, `fixture` and
`game` (as in games.parquet), then the 2,994 columns of `marl_bgs.metrics.full`, with the
provenance (command, versions) in its Parquet metadata-free sidecar
full_metrics.json. The derived tables and figure come from scripts/export_team_measures.py,
which reads this file and plays nothing.

Scripted entrants repeat exactly on any machine. A learned entrant's network runs in float32,
and another kind of CPU may sum its products in another order: on 2026-12-03 an AMD EPYC
machine replayed Season 0's scripted fixtures exactly but 1 of the 200 games of fixture 6
(Rec-IPPO CPU-0 against Random) differently. The record names the CPU that replayed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from marl_bgs.outputs import check_folder, write_atomic  # noqa: E402
from marl_bgs.tournament.entrants import build_system, load_entrants  # noqa: E402
from marl_bgs.tournament.schedule import Fixture  # noqa: E402
from marl_bgs.tournament.script_options import function_argument, shard_argument  # noqa: E402
from marl_bgs.tournament.season import DEFAULT_BATCH_SIZE, play_fixture  # noqa: E402

FORMAT = "marl-bgs/season-full-metrics"
VERSION = 1


def _provenance(published: Path) -> dict:
    path = published / "provenance.json"
    if not path.exists():
        raise SystemExit(f"{path}: missing; publish the season with scripts/export_season.py first")
    return json.loads(path.read_text())


def _fixtures(prov: dict) -> list[Fixture]:
    """The published schedule, in play order (challengers as they were admitted)."""
    return [Fixture(**{**f, "maps": tuple(f["maps"])}) for f in prov["fixtures"]]


def _parts_folder(parts: Path, saved_digest: str) -> None:
    """A parts folder belongs to one games table: refuse parts replayed for other games."""
    parts.mkdir(parents=True, exist_ok=True)
    key = parts / "games_sha256.txt"
    if key.exists() and key.read_text().strip() != saved_digest:
        raise SystemExit(
            f"--parts: {parts} holds parts replayed for another games.parquet; delete it or "
            "pass another folder"
        )
    key.write_text(saved_digest + "\n")


def _same_games(games: pd.DataFrame, saved: pd.DataFrame, fx: Fixture) -> None:
    """Refuse a replayed fixture whose games table differs from the saved one in any cell."""
    if games.shape != saved.shape or list(games.columns) != list(saved.columns):
        raise SystemExit(
            f"replay: fixture {fx.index}'s games table {games.shape} differs from the saved "
            f"{saved.shape}; nothing written"
        )
    for col in saved.columns:
        same = games[col].astype(str).to_numpy() == saved[col].astype(str).to_numpy()
        if not same.all():
            row = int((~same).argmax())
            raise SystemExit(
                f"replay: game {saved['game'][row]} of fixture {fx.index} differs in {col!r}: "
                f"saved {saved[col][row]!r}, replayed {games[col][row]!r}; nothing written"
            )


def _reusable(path: Path) -> pd.DataFrame:
    """An earlier full-metrics table, read whole (its rows are checked fixture by fixture)."""
    try:
        table = pd.read_parquet(path)
    except (OSError, ValueError) as err:
        raise SystemExit(f"--reuse: {path}: not a readable Parquet table ({err})") from None
    from marl_bgs.metrics.full import FULL_NAMES

    if list(table.columns) != ["fixture", "game", *FULL_NAMES]:
        raise SystemExit(
            f"--reuse: {path}: its columns are not today's full metrics (fixture, game and "
            f"the {len(FULL_NAMES):,} columns of marl_bgs.metrics.full); replay without it"
        )
    return table


def _reused_fixture(earlier: pd.DataFrame, expected: pd.DataFrame, fx: Fixture):
    """Fixture `fx`'s rows of `earlier` when they are its saved games (`expected`), else
    None (it is replayed)."""
    from marl_bgs.metrics.season import full_rows_differ

    rows = earlier[earlier["fixture"] == fx.index].reset_index(drop=True)
    if rows.empty:
        return None
    problem = full_rows_differ(rows, expected)
    if problem:
        print(f"--reuse: fixture {fx.index} replayed: {problem}", file=sys.stderr)
        return None
    return rows


def replay(
    season: str,
    out: Path,
    batch_size: int,
    progress: bool,
    shard: tuple[int, int] | None = None,
    parts: Path | None = None,
    evaluate_fn=None,
    entrants: Path | None = None,
    reuse: Path | None = None,
) -> dict | None:
    """Play the season's fixtures again with full metrics, one at a time, each checked
    against its saved games; write the table (or, for a shard, only its fixtures' parts).

    With `parts`, each fixture's full metrics are kept there as they finish, so a stopped
    replay resumes, and shards (`shard=(i, n)`: fixtures i, i + n, ...) fill one folder side
    by side; the run without a shard reads every part it finds and plays the rest.

    With `reuse` (a full-metrics table written before, such as the published one before
    the season grew), a fixture whose rows it holds is taken from it when every row is the
    saved game's (fixture, game number, result, points, kills, deaths, Ultimates, red-zone
    deaths, ticks) and the columns are today's; any other fixture is replayed."""
    from marl_bgs import evaluate
    from marl_bgs.provenance import cpu_model, versions
    from marl_bgs.runner import clear_runners

    evaluate_fn = evaluate_fn or evaluate
    published = out / season
    prov = _provenance(published)
    saved = pd.read_parquet(published / "games.parquet")
    spec = load_entrants(entrants or ROOT / "seasons" / f"{season}.json")
    by_name = {e.name: e for e in list(spec.entrants) + list(spec.challengers)}
    fixtures = _fixtures(prov)
    mine = fixtures[shard[0] :: shard[1]] if shard else fixtures
    if parts is not None:
        digest = hashlib.sha256((published / "games.parquet").read_bytes()).hexdigest()
        _parts_folder(parts, digest)
    systems: dict[str, object] = {}
    earlier = _reusable(reuse) if reuse is not None else None

    last: dict = {}  # the newest fixture's evaluation, whose `full` table play_fixture drops

    def keep_full(*args, **kwargs):
        last["run"] = evaluate_fn(*args, metrics="full", **kwargs)
        return last["run"]

    started, cpu0 = time.perf_counter(), time.process_time()
    frames, replayed, reused = [], 0, 0
    for fx in mine:
        part = parts / f"{fx.index:03d}.parquet" if parts is not None else None
        if part is not None and part.exists():
            frame = pd.read_parquet(part)
            if len(frame) != fx.games or set(frame["fixture"]) != {fx.index}:
                raise SystemExit(f"--parts: {part} is not fixture {fx.index}'s; delete it")
            frames.append(frame)
            continue
        expected = saved[saved["fixture"] == fx.index].reset_index(drop=True)
        if earlier is not None:
            frame = _reused_fixture(earlier, expected, fx)
            if frame is not None:
                if part is not None:
                    write_atomic(part, lambda t, f=frame: f.to_parquet(t, index=False))
                frames.append(frame)
                reused += 1
                continue
        a, b = by_name[fx.entrant_a], by_name[fx.entrant_b]
        for e in (a, b):
            if e.name not in systems:
                systems[e.name] = build_system(e)
        games, _ = play_fixture(
            fx, a, b, (systems[a.name], systems[b.name]), prov["root_seed"], keep_full,
            batch_size, progress,
        )  # fmt: skip
        clear_runners()  # no later fixture plays this pair; free its compiled code
        _same_games(games.reset_index(drop=True), expected, fx)
        frame = last["run"].full.copy()
        frame.insert(0, "fixture", fx.index)
        if part is not None:
            write_atomic(part, lambda t, f=frame: f.to_parquet(t, index=False))
        frames.append(frame)
        replayed += 1
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
    timing = {"fixtures_replayed": replayed, "fixtures_reused": reused,
              "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1)}  # fmt: skip
    if shard:
        print(json.dumps({"season": season, "shard": list(shard), "parts": str(parts),
                          "fixtures": [fx.index for fx in mine], "timing": timing}))  # fmt: skip
        return None
    table = pd.concat(frames, ignore_index=True)
    if len(table) != len(saved):
        raise SystemExit(f"replay: {len(table)} games replayed, {len(saved)} saved")
    path = published / "full_metrics.parquet"
    table.to_parquet(path, index=False, compression="zstd")
    record = {
        "format": FORMAT,
        "version": VERSION,
        "season": season,
        "command": f"scripts/replay_season_full.py --season {season}",
        "games": int(len(table)),
        "columns": int(table.shape[1] - 2),
        "every_game_repeated": True,
        "versions": versions(),
        "cpu": cpu_model(),
    }
    (published / "full_metrics.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps({**record, "timing": timing}, indent=2))
    return record


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--season", default="season0")
    p.add_argument("--out", type=Path, default=ROOT / "exports" / "seasons")
    p.add_argument("--entrants", type=Path, help="entrants file (default seasons/<season>.json)")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    p.add_argument(
        "--parts", type=Path, help="keep each fixture's full metrics here (resumable, shards)"
    )
    p.add_argument(
        "--shard", type=shard_argument, help="I/N: replay fixtures I, I + N, ... into --parts only"
    )
    p.add_argument(
        "--evaluate",
        type=function_argument,
        help="module:function standing in for marl_bgs.evaluate",
    )
    p.add_argument(
        "--reuse",
        type=Path,
        help="an earlier full_metrics.parquet: fixtures whose rows it holds for the saved "
        "games are taken from it, the rest replayed",
    )
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.shard and args.parts is None:
        p.error("--shard needs --parts, the folder the shards fill")
    if args.batch_size < 1:  # before any folder is written
        p.error(f"--batch-size: expected at least 1, got {args.batch_size}")
    try:
        for flag, path in (("--out", args.out), ("--parts", args.parts)):
            if path is not None:
                check_folder(path, flag)
        replay(args.season, args.out, args.batch_size, not args.no_progress, args.shard,
               args.parts, args.evaluate, args.entrants, args.reuse)  # fmt: skip
    except (ValueError, OSError) as err:  # a bad entrants file, season files or option
        print(f"replay_season_full: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
