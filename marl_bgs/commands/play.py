"""`marl-bgs play`: one game between two random teams, its result and counts of events."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from ..core.position import starting_position
from ..game import Game
from ..random_play import play_random_game


def _play(args: argparse.Namespace) -> int:
    from ..core.checks import whole

    whole(args.seed, "--seed", 0, 2**63 - 1)  # NumPy's own message names no option
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


def add_commands(sub: Any) -> None:
    """Add `play` to `sub`, the `marl-bgs` subcommands (`add_subparsers`' action)."""
    play = sub.add_parser(
        "play",
        help="play one game between two random teams",
        description="The official 5 v 5 on one map, both teams choosing uniformly among "
        "their legal actions; prints the result, the score and counts of events.",
    )
    play.add_argument("--map", type=int, default=47, help="map id, 0-51")
    play.add_argument("--seed", type=int, default=0, help="seed of the random teams' choices")
    play.add_argument("--horizon", type=int, default=300, help="ticks before a draw")
    play.add_argument("--winning-score", type=int, default=20, help="points that win a game")
    play.add_argument(
        "--backend",
        choices=("numpy", "jax"),
        default="numpy",
        help="engine: numpy, or jax (compiled; the same game)",
    )
    play.add_argument("--json", action="store_true", help="print the result as JSON")
    play.set_defaults(run=_play)
