"""Write every generated file the website reads, in order, from the code and the seeds.

    .venv/bin/python scripts/export_all.py           # rewrite exports/ and generated pages
    .venv/bin/python scripts/export_all.py --check   # exit 1 if any export is stale

Each step is its own script (run it alone to redo one part); this one runs them in the
order the site needs and stops at the first failure. The season step resumes from the
season's saved games, so a fresh machine only refits the ratings (pass --full-season to
replay every game).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

STEPS: tuple[tuple[str, list[str]], ...] = (
    ("observation layout page", ["scripts/write_obs_layout.py"]),
    ("map atlas", ["scripts/export_atlas.py"]),
    ("sight vectors for the Sight Lab", ["scripts/export_sight_vectors.py"]),
    ("replays", ["scripts/export_replays.py"]),
    ("clips for the rules, class and key pages", ["scripts/export_clips.py"]),
    # Line and variant replays on NumPy (seconds); the results table is played only by
    # `export_scenarios.py --results` and checked against the scenario files' hashes.
    ("endgame scenarios: lines, variants, index", ["scripts/export_scenarios.py"]),
    ("season 0 leaderboard", ["scripts/export_season.py", "--season", "season0", "--resume"]),
    # Reads the committed full_metrics.parquet (scripts/replay_season_full.py); plays nothing.
    (
        "season 0 full metrics: Metrics Explorer data and team measures",
        ["scripts/export_team_measures.py", "--season", "season0"],
    ),
    # Executes only notebooks whose cells changed since their export (all five with --check).
    ("tutorial notebooks", ["scripts/export_tutorials.py", "--resume"]),
    # Fetched into the ignored exports/browser/ (never committed); skipped without npm.
    (
        "browser engine (Pyodide, NumPy, engine wheel)",
        ["scripts/export_pyodide.py", "--skip-without-npm"],
    ),
    # Built into the ignored exports/source/ from git's tracked files (the Home page's download).
    ("source distribution", ["scripts/export_source.py", "--skip-without-git"]),
)


# Steps whose files are ignored by git and rebuilt by every export: a copy left from an
# earlier export is not "stale" in the sense --check means (committed files out of date).
BUILT_NOT_COMMITTED = ("scripts/export_source.py",)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that exports are fresh")
    parser.add_argument(
        "--full-season", action="store_true", help="replay every season game, not resume"
    )
    args = parser.parse_args(argv)
    for label, command in STEPS:
        script = ROOT / command[0]
        if not script.exists():
            print(f"[skip] {label}: {command[0]} is not in this checkout", flush=True)
            continue
        if args.check and command[0] in BUILT_NOT_COMMITTED:
            print(f"[skip] {label}: rebuilt by every export and never committed", flush=True)
            continue
        extra = list(command[1:])
        if args.full_season and command[0] == "scripts/export_season.py":
            extra.remove("--resume")  # the other steps keep theirs (tutorials: changed only)
        if args.check:
            extra = [a for a in extra if a != "--resume"] + ["--check"]
        start = time.perf_counter()
        print(f"[run ] {label}: {' '.join([command[0], *extra])}", flush=True)
        done = subprocess.run([sys.executable, str(script), *extra], cwd=ROOT)
        if done.returncode != 0:
            print(f"[fail] {label} (exit {done.returncode})", flush=True)
            return done.returncode
        print(f"[ok  ] {label} in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
