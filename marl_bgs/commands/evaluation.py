"""`marl-bgs eval`, `crossplay` and `scenarios`: Systems' games, played and summed up."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..distributed import is_writer


def _common_eval_args(parser: argparse.ArgumentParser, games: int) -> None:
    parser.add_argument("--maps", default="test", help="split name, 'all', or ids like 47,48")
    parser.add_argument("--games", type=int, default=games, help="games per pairing (even)")
    parser.add_argument("--seed", type=int, default=0, help="root seed")
    parser.add_argument("--batch-size", type=int, default=64, help="games run at once")
    parser.add_argument(
        "--devices",
        type=int,
        default=1,
        help="devices a batch is split over (0: all, of every process under marl-bgs launch)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _maps_arg(text: str):
    """`test`, `all`, a split name, or comma-separated map ids."""
    if all(part.strip().isdigit() for part in text.split(",")):
        return [int(part) for part in text.split(",")]
    return text


def _eval(args: argparse.Namespace) -> int:
    from ..evaluation import EVAL_FILES, FULL_FILES, LLM_FILES, evaluate
    from ..llm.schema import FAILURE_KINDS
    from ..outputs import check_new_files

    if args.out:  # before any game is played, so that no result is lost at the end
        check_new_files(args.out, EVAL_FILES + LLM_FILES + FULL_FILES, args.force, "--out")
    result = evaluate(
        args.a,
        args.b,
        maps=_maps_arg(args.maps),
        games=args.games,
        seed=args.seed,
        first_seed=args.first_seed,
        winning_score=args.winning_score,
        horizon=args.horizon,
        batch_size=args.batch_size,
        progress=not args.quiet,
        devices=args.devices,
        metrics=args.metrics,
    )
    if not is_writer():  # of joined processes (marl-bgs launch), process 0 reports and writes
        return 0
    s = result.summary()
    lo, hi = s["margin_ci95"]
    print(f"{result.meta['systems']['a']} (a) vs {result.meta['systems']['b']} (b)")
    print(f"maps {','.join(map(str, result.meta['schedule']['maps']))}, {s['games']} games")
    print(f"{'W':>5} {'D':>5} {'L':>5}  {'win rate (decisive)':>20}  margin [95% interval]")
    print(
        f"{s['wins']:>5} {s['draws']:>5} {s['losses']:>5}  {s['win_rate_decisive']:>20.3f}"
        f"  {s['margin_mean']:+.2f} [{lo:+.2f}, {hi:+.2f}]"
    )
    for side, t in result.meta.get("llm", {}).items():
        failed = ", ".join(f"{k} {t[k]}" for k in FAILURE_KINDS if t[k]) or "none"
        per_tick = t["seconds_per_tick"] or 0.0
        print(
            f"{side}: {t['system']}: {t['legal']} of {t['requests']} replies legal "
            f"(failed: {failed}), {t['prompt_tokens']} prompt and {t['completion_tokens']} "
            f"reply tokens, {per_tick:.3f} s per tick"
        )
    if args.out:
        paths = result.save(args.out, force=args.force)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def _scenarios(args: argparse.Namespace) -> int:
    from ..outputs import check_new_files
    from ..scenarios.evaluate import RESULT_FILES, evaluate_scenarios

    if args.out:  # before any game is played
        check_new_files(args.out, RESULT_FILES, args.force, "--out")
    ids = None if args.only is None else _scenario_ids(args.only)
    result = evaluate_scenarios(
        args.system,
        games=args.games,
        seed=args.seed,
        scenarios=ids,
        batch_size=args.batch_size,
        reference=not args.no_reference,
        progress=not args.quiet,
    )
    table = result.table
    print(f"{result.meta['system']} as Team A, {args.games} games per scenario, seed {args.seed}")
    head = f"{'id':>2}  {'scenario':<26} {'W':>5} {'D':>5} {'L':>5}"
    print(head + ("  Random W  Fisher p" if "fisher_p" in table else ""))
    for row in table.itertuples():
        line = f"{row.scenario:>2}  {row.name:<26} {row.wins:>5} {row.draws:>5} {row.losses:>5}"
        if "fisher_p" in table:
            line += f"  {row.reference_wins:>8}  {row.fisher_p:>8.3f}"
        print(line)
    if args.out:
        paths = result.save(args.out, force=args.force)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def _crossplay(args: argparse.Namespace) -> int:
    from ..evaluation import CROSSPLAY_FILES, crossplay, wdl_matrix
    from ..outputs import check_new_files, write_atomic

    systems = [name.strip() for name in args.systems.split(",")]
    if "" in systems:  # "random,,tdm-alpha": a slip, not a System
        raise ValueError(f"--systems: an empty name in {args.systems!r}")
    if len(systems) < 2:
        raise ValueError(f"--systems: cross-play needs at least two Systems, got {args.systems!r}")
    if args.out:  # before any game is played
        check_new_files(args.out, CROSSPLAY_FILES, args.force, "--out")
    games, margins = crossplay(
        systems,
        maps=_maps_arg(args.maps),
        games=args.games,
        seed=args.seed,
        batch_size=args.batch_size,
        progress=not args.quiet,
        devices=args.devices,
    )
    if not is_writer():  # of joined processes (marl-bgs launch), process 0 reports and writes
        return 0
    print("W-D-L of the row system against the column system:")
    print(wdl_matrix(games).to_string())
    print("\nmean points margin of the row system:")
    print(margins.round(2).to_string())
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_atomic(out / "games.csv", lambda t: games.to_csv(t, index=False, lineterminator="\n"))
        write_atomic(out / "games.parquet", lambda t: games.to_parquet(t, index=False))
        write_atomic(out / "margins.csv", lambda t: margins.to_csv(t, lineterminator="\n"))
        print(f"wrote {out}/games.csv, games.parquet, margins.csv")
    return 0


def _scenario_ids(text: str) -> list[int]:
    """`--only`'s comma-separated scenario ids: whole numbers, each once, at least one."""
    parts = [p.strip() for p in text.split(",")]
    if not any(parts):
        raise ValueError(f"--only: expected scenario ids such as 1,3, got {text!r}")
    ids = []
    for part in parts:
        if not part.isdigit():
            raise ValueError(f"--only: {part!r} is not a scenario id (expected ids such as 1,3)")
        if int(part) in ids:
            raise ValueError(f"--only: scenario {int(part)} is listed twice")
        ids.append(int(part))
    return ids


def add_commands(sub: Any) -> None:
    """Add `eval`, `crossplay` and `scenarios` to `sub`, the `marl-bgs` subcommands
    (`add_subparsers`' action)."""
    ev = sub.add_parser("eval", help="evaluate two systems over spawn-swapped pairs of games")
    ev.add_argument(
        "--a",
        required=True,
        help="team a's system: random, tdm-alpha, ..., or llm:MODEL@http://host:port/v1 "
        "(an OpenAI-compatible server; API key from $MARL_BGS_LLM_API_KEY)",
    )
    ev.add_argument("--b", required=True, help="team b's system")
    _common_eval_args(ev, games=200)
    ev.add_argument("--first-seed", type=int, default=0, help="seed number of the first pair")
    ev.add_argument("--winning-score", type=int, default=20, help="points that win a game")
    ev.add_argument("--horizon", type=int, default=300, help="ticks before a draw")
    ev.add_argument(
        "--out", help="folder for games.csv, games.parquet and meta.json (and llm.csv, llm.parquet)"
    )
    ev.add_argument("--force", action="store_true", help="replace those files if --out has them")
    ev.add_argument(
        "--metrics",
        choices=("priority", "full"),
        default="priority",
        help="full: also the 2,994 who-did-what-to-whom columns per game (full.parquet)",
    )
    ev.set_defaults(run=_eval)

    cp = sub.add_parser("crossplay", help="every pair of systems, as W-D-L and margin matrices")
    cp.add_argument("--systems", required=True, help="comma-separated system names")
    _common_eval_args(cp, games=40)
    cp.add_argument("--out", help="folder for games.csv, games.parquet and margins.csv")
    cp.add_argument("--force", action="store_true", help="replace those files if --out has them")
    cp.set_defaults(run=_crossplay)
    sc = sub.add_parser(
        "scenarios", help="play a system as Team A in the endgame scenarios (W-D-L, Fisher p)"
    )
    sc.add_argument("--system", required=True, help="Team A's system: random, tdm-alpha, ...")
    sc.add_argument("--games", type=int, default=256, help="games per scenario")
    sc.add_argument("--seed", type=int, default=0, help="root seed")
    sc.add_argument("--batch-size", type=int, default=128, help="games at once (never results)")
    sc.add_argument("--only", help="comma-separated scenario ids (default: all)")
    sc.add_argument(
        "--no-reference", action="store_true", help="skip Random's games and the Fisher test"
    )
    sc.add_argument("--out", help="folder for games.csv, games.parquet, table.csv, meta.json")
    sc.add_argument("--force", action="store_true", help="replace those files if --out has them")
    sc.add_argument("--quiet", action="store_true", help="no progress lines")
    sc.set_defaults(run=_scenarios)
