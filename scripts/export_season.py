"""Play (or resume) a season and publish it under exports/seasons/<season>/.

    .venv/bin/python scripts/export_season.py --season season0
    .venv/bin/python scripts/export_season.py --season season0 --games-per-map 2 --refits 200

    .venv/bin/python scripts/export_season.py --season season0 --resume   # refit saved games
    .venv/bin/python scripts/export_season.py --season season0 --check    # exit 1 if stale

    # the same season over two processes (or machines sharing the folder), then publish:
    .venv/bin/python scripts/export_season.py --season season0 --shard 0/2 &
    .venv/bin/python scripts/export_season.py --season season0 --shard 1/2
    .venv/bin/python scripts/export_season.py --season season0 --resume

    # or each fixture's games split over every device of 2 joined processes (jax.distributed;
    # process 0 writes every file):
    .venv/bin/marl-bgs launch -n 2 -- scripts/export_season.py --season season0 --devices 0

Reads the entrants file seasons/<season>.json, plays the round robin and any challengers
through `marl_bgs.evaluate` (saving each fixture's games under
exports/seasons/<season>/fixtures/, committed with the season, so `--resume` picks up where a
run stopped and a fresh checkout refits without replaying), then writes every game, the
ratings with intervals, tiers, W/D/L, matchups, per-map results and ratings, heterogeneity,
provenance and figures. Every file is byte-identical when the same season is run again: a
run whose games all equal the saved ones (every fixture resumed, or played again with the
very same games) keeps the saved fixtures and the timing.json of the run that first played
them, and only prints its own times. `--check` rebuilds every published file from the saved
fixtures, playing nothing, and compares bytes.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from marl_bgs.distributed import initialize_from_env, is_writer  # noqa: E402
from marl_bgs.outputs import check_folder  # noqa: E402
from marl_bgs.tournament.entrants import load_entrants  # noqa: E402
from marl_bgs.tournament.figures import draw_all  # noqa: E402
from marl_bgs.tournament.fixture_store import json_ready  # noqa: E402
from marl_bgs.tournament.intervals import DEFAULT_REFITS  # noqa: E402
from marl_bgs.tournament.leaderboard import build  # noqa: E402
from marl_bgs.tournament.schedule import DEFAULT_GAMES_PER_MAP  # noqa: E402
from marl_bgs.tournament.script_options import function_argument, shard_argument  # noqa: E402
from marl_bgs.tournament.season import (  # noqa: E402
    DEFAULT_BATCH_SIZE,
    planned_fixtures,
    play_shard,
    run_season,
)
from marl_bgs.tournament.season_reader import read_leaderboard, read_record  # noqa: E402
from marl_bgs.tournament.season_records import Leaderboard  # noqa: E402

RATINGS_FORMAT = "marl-bgs/season-ratings"
INDEX_FORMAT = "marl-bgs/season-index"
FORMAT_VERSION = 1
RATING_COLUMNS = (
    "rank",
    "name",
    "type",
    "status",
    "elo",
    "elo_low",
    "elo_high",
    "elo_sd",
    "elo_sd_model",
    "tier",
    "division",
    "tier_label",
    "win_chance",
    "prior_bound",
    "games",
    "wins",
    "draws",
    "losses",
    "score",
    "win_rate_decisive",
    "margin_mean",
    "points_for_mean",
    "points_against_mean",
    "kills_mean",
    "deaths_mean",
)


def _json(path: Path, data) -> None:
    text = json.dumps(json_ready(data), indent=2, ensure_ascii=False, allow_nan=False)
    path.write_text(text + "\n")


def _maps(text: str) -> list[int]:
    from marl_bgs.maps import SPLITS

    if text in SPLITS:
        return list(SPLITS[text])
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--maps: expected a split name or ids like 47,48, got {text!r}") from None


def _versions() -> dict:
    import matplotlib

    from marl_bgs import __version__

    return {
        "marl_bgs": __version__,
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "matplotlib": matplotlib.__version__,
        "python": sys.version.split()[0],
    }


def _statuses(result) -> dict[str, str]:
    out = {name: "member" for name in result.field}
    for rec in result.admissions:
        if not rec["admitted"]:
            out[rec["challenger"]] = "not admitted"
        if rec["replaced"]:
            out[rec["replaced"]] = "left the field"
    return out


def _index(root: Path) -> None:
    """exports/seasons/index.json: every published season, for the site's hook."""
    seasons = []
    for folder in sorted(p for p in root.iterdir() if (p / "leaderboard.json").exists()):
        board = read_leaderboard(folder / "leaderboard.json", f"{folder.name}/leaderboard.json")
        seasons.append(
            {
                "season": board.season,
                "folder": folder.name,
                "entrants": len(board.table),
                "games": board.season_facts.games,
                "leader": board.table[0].name,
            }
        )
    _json(root / "index.json", {"format": INDEX_FORMAT, "version": 1, "seasons": seasons})


def _refuse_to_play(*args, **kwargs):
    raise SystemExit("stale: a fixture has no saved games that match; run export_season.py")


def _check(args: argparse.Namespace) -> int:
    """Rebuild the season from its saved fixtures into a temporary folder and compare."""
    published = args.out / args.season
    with tempfile.TemporaryDirectory() as tmp:
        args.store = args.store or published / "fixtures"
        args.out, args.check, args.resume, args.refuse_to_play = Path(tmp), False, True, True
        args.no_progress = True
        _run(args)
        fresh = Path(tmp) / args.season
        stale = []
        for path in sorted(fresh.rglob("*")):
            rel = path.relative_to(fresh)
            if path.is_dir() or rel.name == "timing.json":
                continue
            if not (published / rel).is_file() or not filecmp.cmp(
                path, published / rel, shallow=False
            ):
                stale.append(str(rel))
    if stale:
        print(f"stale files in {published}: {', '.join(stale)}; run export_season.py --resume")
        return 1
    print(f"{published} is up to date")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--season", default="season0")
    p.add_argument("--entrants", type=Path, help="entrants file (default seasons/<season>.json)")
    p.add_argument("--games-per-map", type=int, default=DEFAULT_GAMES_PER_MAP)
    p.add_argument("--maps", default="test", help="a split name or comma-separated map ids")
    p.add_argument("--refits", type=int, default=DEFAULT_REFITS)
    p.add_argument("--seed", type=int, default=0, help="root seed of the games and the refits")
    p.add_argument("--resume", action="store_true", help="reuse saved fixtures that match")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    p.add_argument(
        "--devices",
        type=int,
        default=1,
        help="devices each batch of games is split over (0: all, of every process under "
        "marl-bgs launch; the same games as 1)",
    )
    p.add_argument("--out", type=Path, default=ROOT / "exports" / "seasons")
    p.add_argument(
        "--store", type=Path, help="saved fixtures (default exports/seasons/<s>/fixtures)"
    )
    p.add_argument("--check", action="store_true", help="fail if the published files are stale")
    p.add_argument(
        "--force", action="store_true", help="replace a season published from another entrants file"
    )
    p.add_argument(
        "--evaluate",
        type=function_argument,
        help="module:function standing in for marl_bgs.evaluate",
    )
    p.add_argument(
        "--shard",
        type=shard_argument,
        help="I/N: only play every N-th fixture known in advance (the round robin and the "
        "first challenger's), from the I-th, into the store; publish nothing",
    )
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    try:
        initialize_from_env()  # a process of `marl-bgs launch` (or of a cluster's job)
        if args.shard and args.check:
            raise ValueError("--shard: a shard plays games; --check plays none")
        if args.shard:
            return _play_shard(args)
        return _check(args) if args.check else _run(args)
    except ValueError as err:  # a bad entrants file, entrant or option: one line, exit 2
        print(f"export_season: error: {err}", file=sys.stderr)
        return 2


def _setup(args: argparse.Namespace) -> tuple:
    """(entrants, maps, fixtures store) of the season the arguments name, checked."""
    spec = load_entrants(args.entrants or ROOT / "seasons" / f"{args.season}.json")
    if spec.season != args.season:
        raise ValueError(f"--season: {args.season!r} but the entrants file says {spec.season!r}")
    maps = _maps(args.maps)
    for flag, path in (("--out", args.out), ("--store", args.store)):
        if path is not None:
            check_folder(path, flag)
    _refuse_other_season(args.out / spec.season, spec, args.force)
    return spec, maps, args.store or args.out / spec.season / "fixtures"


def _play_shard(args: argparse.Namespace) -> int:
    """Play this process's share of the season into the store; --resume publishes later."""
    spec, maps, store = _setup(args)
    shard, shards = args.shard
    started = time.perf_counter()
    done = play_shard(
        spec,
        maps,
        shard,
        shards,
        args.games_per_map,
        args.seed,
        store=store,
        evaluate_fn=args.evaluate,
        batch_size=args.batch_size,
        progress=not args.no_progress,
        devices=args.devices,
    )
    if not is_writer():  # process 0 of many says what the shard did
        return 0
    planned = len(planned_fixtures(spec, maps, args.games_per_map))
    counts = {how: sum(1 for v in done.values() if v == how) for how in sorted(set(done.values()))}
    print(
        f"{spec.season} shard {shard}/{shards}: fixtures {sorted(done)} of {planned} planned "
        f"({counts}) in {store}, wall {time.perf_counter() - started:.1f}s; publish with "
        f"scripts/export_season.py --season {spec.season} --resume"
    )
    return 0


def _timing_of(path: Path, result) -> bool:
    """Whether `path` is the timing of these very fixtures (the same play time per fixture),
    not of a season published before from other entrants or games."""
    try:
        saved = json.loads(path.read_text())["fixture_seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return saved == {str(k): round(v, 2) for k, v in sorted(result.seconds.items())}


def _write_timing(out: Path, wall: float, playing: float, rating: float, result, extra) -> None:
    """timing.json: how long this run took (written only by a run whose games are new)."""
    _json(
        out / "timing.json",
        {
            "wall_seconds": round(wall, 2),
            "playing_seconds": round(playing, 2),
            "rating_seconds": round(rating, 2),
            "fixture_seconds": {str(k): round(v, 2) for k, v in sorted(result.seconds.items())},
            "resumed_fixtures": result.resumed,
            "refits_per_second": round(extra["refits_per_second"], 1),
        },
    )


def _refuse_other_season(out: Path, spec, force: bool) -> None:
    """Before any game: a folder holding a season published from another entrants file (a
    different field, or the same season name reused) is never replaced without --force."""
    prov = out / "provenance.json"
    if force or not prov.is_file():
        return
    try:
        published = json.loads(prov.read_text()).get("entrants_file")
    except (OSError, ValueError, AttributeError) as err:
        raise ValueError(f"--out: cannot read {prov} ({err}); pass --force to replace it") from None
    if published != spec.as_dict():
        raise ValueError(
            f"--out: {out} holds season {spec.season!r} published from another entrants file; "
            "pass another --out, or --force to replace it"
        )


def _run(args: argparse.Namespace) -> int:
    """Play or resume the season described by the parsed arguments and publish it."""
    if args.refits < 2:
        raise ValueError(f"--refits: an interval needs at least 2 refits, got {args.refits}")
    started = time.perf_counter()
    spec, maps, store = _setup(args)
    evaluate_fn = args.evaluate
    if getattr(args, "refuse_to_play", False):
        evaluate_fn = _refuse_to_play
    result = run_season(
        spec,
        maps,
        args.games_per_map,
        args.seed,
        store=store,
        resume=args.resume,
        evaluate_fn=evaluate_fn,
        batch_size=args.batch_size,
        progress=not args.no_progress,
        devices=args.devices,
    )
    played = time.perf_counter()
    if not is_writer():  # joined processes: each played its devices' share; process 0 publishes
        return 0
    entrants = [
        e.as_dict()
        for e in result.entrants
        if e.name in set(result.games["entrant_a"]) | set(result.games["entrant_b"])
    ]
    board, extra = build(result.games, entrants, args.refits, args.seed, statuses=_statuses(result))
    rated = time.perf_counter()

    out = args.out / spec.season
    out.mkdir(parents=True, exist_ok=True)
    games = result.games
    games.to_csv(out / "games.csv", index=False, lineterminator="\n")
    games.to_parquet(out / "games.parquet", index=False)
    pd.DataFrame(board["table"], columns=list(RATING_COLUMNS)).to_csv(
        out / "ratings.csv", index=False, lineterminator="\n"
    )
    extra["per_map"].round(1).to_csv(out / "per_map_ratings.csv", index=False, lineterminator="\n")
    _json(
        out / "ratings.json",
        {
            "format": RATINGS_FORMAT,
            "version": FORMAT_VERSION,
            "season": spec.season,
            "rating": board["rating"],
            "table": board["table"],
        },
    )
    figures = draw_all(board, out)
    fixtures = [f.as_dict() for f in result.fixtures]
    facts = {
        "games": int(len(games)),
        "pairs": int(games.groupby(["fixture", "seed_number"]).ngroups),
        "seed_numbers": int(games["seed_number"].nunique()),
        "fixtures": len(fixtures),
        "maps": list(result.maps),
        "games_per_map": result.games_per_map,
        "games_per_pairing": result.games_per_map * len(result.maps),
        "root_seed": args.seed,
        "field_size": spec.field_size,
        "field": result.field,
    }
    board = {
        "format": board["format"],
        "version": board["version"],
        "season": spec.season,
        "description": spec.description,
        "season_facts": facts,
        **{k: v for k, v in board.items() if k not in ("format", "version")},
        "admissions": result.admissions,
        "files": {
            "games_csv": "games.csv",
            "games_parquet": "games.parquet",
            "ratings_json": "ratings.json",
            "ratings_csv": "ratings.csv",
            "per_map_ratings_csv": "per_map_ratings.csv",
            "provenance": "provenance.json",
            "timing": "timing.json",
            "figures": figures,
        },
    }
    read_record(Leaderboard, json_ready(board), "leaderboard.json")  # as the site reads it
    _json(out / "leaderboard.json", board)
    first_meta = result.metas[result.fixtures[0].index]
    _json(
        out / "provenance.json",
        {
            "format": "marl-bgs/season-provenance",
            "version": FORMAT_VERSION,
            "season": spec.season,
            "entrants_file": spec.as_dict(),
            "versions": {**_versions(), "evaluate": first_meta.get("versions", {})},
            "root_seed": args.seed,
            "refits": args.refits,
            "refit_seed": args.seed,
            "command": f"scripts/export_season.py --season {spec.season} "
            f"--games-per-map {args.games_per_map} --maps {args.maps} --refits {args.refits} "
            f"--seed {args.seed}",
            "schedule_rule": "round robin in entrants-file order (i before j, i plays team a); "
            "fixture k takes seed numbers k * pairs_per_pairing onwards; inside a fixture, pair "
            "p plays maps[p % len(maps)] with seed number first_seed + p and its two games "
            "swap spawn ends; challengers play every seat, seat s taking the block numbered "
            "after the round robin's s-th",
            "fixtures": fixtures,
            "counts": facts,
            # key-sorted, so a fixture read back from its saved file prints the same
            "evaluations": json.loads(
                json.dumps({str(k): v for k, v in sorted(result.metas.items())}, sort_keys=True)
            ),
        },
    )
    done = time.perf_counter()
    same_games = {f.index for f in result.fixtures} <= set(result.resumed) | set(result.repeated)
    if same_games and _timing_of(out / "timing.json", result):
        # Games equal to the saved ones keep the timing of the run that played them, so the
        # README's main command (and any rerun) leaves every tracked file as it was.
        print(f"{out / 'timing.json'} kept: every fixture's games equal its saved games")
    else:
        _write_timing(out, done - started, played - started, rated - played, result, extra)
    _index(args.out)
    top = board["table"]
    print(f"{spec.season}: {facts['games']} games, {len(top)} entrants -> {out}")
    for row in top:
        print(
            f"  {row['rank']}. {row['name']:<12} {row['elo']:7.1f} "
            f"[{row['elo_low']:.1f}, {row['elo_high']:.1f}] {row['tier_label']:<12} "
            f"{row['wins']}-{row['draws']}-{row['losses']}"
        )
    print(f"  wall {done - started:.1f}s, refits/s {extra['refits_per_second']:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
