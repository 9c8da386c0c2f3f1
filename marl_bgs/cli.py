"""The `marl-bgs` command line: the same functions as the Python API."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from .core.position import starting_position
from .game import Game
from .random_play import play_random_game


def _play(args: argparse.Namespace) -> int:
    position = starting_position(args.map, horizon=args.horizon, winning_score=args.winning_score)
    game = Game(position, backend=args.backend)
    log = play_random_game(game, args.seed)
    kinds = Counter(e["kind"] for tick in log for e in tick)
    summary = {
        "map": args.map,
        "seed": args.seed,
        "backend": args.backend,
        "teams": "random vs random, official 5v5 (a on the left)",
        "result": game.result,
        "score": [int(s) for s in game.state.score],
        "ticks": int(game.state.tick),
        "deaths": kinds["death"],
        "damage_events": kinds["damage"],
        "heals": kinds["heal"],
        "respawns": kinds["respawn"],
    }
    print(json.dumps(summary, indent=2) if args.json else _text(summary))
    return 0


def _text(s: dict) -> str:
    winner = {"a": "team a wins", "b": "team b wins", "draw": "draw"}[s["result"]]
    return (
        f"map {s['map']}, seed {s['seed']} ({s['backend']}): {winner}, "
        f"score {s['score'][0]}-{s['score'][1]} after {s['ticks']} ticks; "
        f"{s['deaths']} deaths, {s['damage_events']} hits, {s['heals']} heals, "
        f"{s['respawns']} respawns"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="marl-bgs", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play one game between two random teams")
    play.add_argument("--map", type=int, default=47)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--horizon", type=int, default=300)
    play.add_argument("--winning-score", type=int, default=20)
    play.add_argument("--backend", choices=("numpy", "jax"), default="numpy")
    play.add_argument("--json", action="store_true", help="print the result as JSON")
    play.set_defaults(run=_play)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ValueError as err:
        print(f"marl-bgs: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
