"""Replay every game of a published season with full metrics and save them.

    .venv/bin/python scripts/replay_season_full.py --season season0

A season saves only each game's result and priority metrics. This replays all its fixtures
from the saved schedule and seeds through `marl_bgs.evaluate(metrics="full")`, refuses to
write anything unless every game repeats exactly (all columns of the saved games table), and
writes exports/seasons/<season>/full_metrics.parquet: one row per game, `fixture` and
`game` (as in games.parquet), then the 2,994 columns of `marl_bgs.metrics.full`, with the
provenance (command, versions, seconds) in its Parquet metadata-free sidecar
full_metrics.json. The derived tables and figure come from scripts/export_team_measures.py,
which reads this file and plays nothing.

Scripted entrants repeat exactly on any machine. A learned entrant's network runs in float32,
and another kind of CPU may sum its products in another order: on 2026-12-03 an AMD EPYC
machine replayed Season 0's scripted fixtures exactly but 1 of the 200 games of fixture 6
(Rec-IPPO CPU-0 against Random) differently. The record names the CPU that replayed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from marl_bgs.tournament.entrants import load_entrants  # noqa: E402
from marl_bgs.tournament.season import DEFAULT_BATCH_SIZE, run_season  # noqa: E402

FORMAT = "marl-bgs/season-full-metrics"
VERSION = 1


def _provenance(published: Path) -> dict:
    path = published / "provenance.json"
    if not path.exists():
        raise SystemExit(f"{path}: missing; publish the season with scripts/export_season.py first")
    return json.loads(path.read_text())


def replay(season: str, out: Path, batch_size: int, progress: bool) -> dict:
    """Play the season again with full metrics; returns what was written."""
    from marl_bgs import evaluate
    from marl_bgs.evaluation import _versions, cpu_model

    published = out / season
    prov = _provenance(published)
    counts = prov["counts"]
    saved = pd.read_parquet(published / "games.parquet")
    spec = load_entrants(ROOT / "seasons" / f"{season}.json")
    full_frames: list[pd.DataFrame] = []

    def evaluate_full(*args, **kwargs):
        result = evaluate(*args, metrics="full", **kwargs)
        full_frames.append(result.full)
        return result

    started, cpu0 = time.perf_counter(), time.process_time()
    result = run_season(
        spec,
        counts["maps"],
        counts["games_per_map"],
        prov["root_seed"],
        store=None,
        evaluate_fn=evaluate_full,
        batch_size=batch_size,
        progress=progress,
    )
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
    games = result.games.reset_index(drop=True)
    if games.shape != saved.shape or list(games.columns) != list(saved.columns):
        raise SystemExit(f"replay: games table {games.shape} differs from the saved {saved.shape}")
    for col in saved.columns:
        same = games[col].astype(str).to_numpy() == saved[col].astype(str).to_numpy()
        if not same.all():
            first = int((~same).argmax())
            raise SystemExit(
                f"replay: game {first} (fixture {saved['fixture'][first]}) differs in {col!r}: "
                f"saved {saved[col][first]!r}, replayed {games[col][first]!r}; nothing written"
            )
    frames = []
    for fx, full in zip(result.fixtures, full_frames, strict=True):
        frame = full.copy()
        frame.insert(0, "fixture", fx.index)
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
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
        "versions": _versions(),
        "cpu": cpu_model(),
    }
    (published / "full_metrics.json").write_text(json.dumps(record, indent=2) + "\n")
    timing = {"wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1)}
    print(json.dumps({**record, "timing": timing}, indent=2))
    return record


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--season", default="season0")
    p.add_argument("--out", type=Path, default=ROOT / "exports" / "seasons")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    replay(args.season, args.out, args.batch_size, not args.no_progress)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
