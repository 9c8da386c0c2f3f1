"""Publish a season's full metrics for the site: the Metrics Explorer's data and the team
measures against Elo, from files already on disk (nothing is played).

    .venv/bin/python scripts/export_team_measures.py --season season0
    .venv/bin/python scripts/export_team_measures.py --season season0 --check   # exit 1 if stale

Reads exports/seasons/<season>/games.parquet, ratings.json and full_metrics.parquet (written
by scripts/replay_season_full.py, which replays the season and refuses to write unless every
game repeats exactly), checks that the full metrics are this season's games, and writes
exports/seasons/<season>/metrics/: explorer.json (every entrant's 2,996 rates with 95%
pair-resampled intervals), team_measures.json/.csv, team_tests.csv (Spearman's rho against
Elo, exact p, Holm) and team_measures.svg/.png. Same inputs, same bytes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from marl_bgs.metrics.season import FOLDER, REFITS, SEED, build_files  # noqa: E402
from marl_bgs.site.publish import publish, stale_files  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--season", default="season0")
    p.add_argument("--out", type=Path, default=ROOT / "exports" / "seasons")
    p.add_argument("--refits", type=int, default=REFITS)
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--check", action="store_true", help="fail if the published files are stale")
    args = p.parse_args(argv)
    season = args.out / args.season
    try:
        files = build_files(season, args.refits, args.seed)
    except (OSError, ValueError) as err:
        print(f"export_team_measures: {err}", file=sys.stderr)
        return 2
    folder = season / FOLDER
    label = f"{season.name}/{FOLDER}"
    if args.check:
        stale = stale_files(folder, files, pattern="*")
        for name in stale:
            print(f"stale: {label}/{name} (run scripts/export_team_measures.py)")
        return 1 if stale else 0
    publish(folder, files, label, pattern="*")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
