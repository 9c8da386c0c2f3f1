"""The `marl-bgs` command line: the same functions as the Python API.

Play a game, evaluate and cross-play Systems, view replays, play in the browser, train and
plot baselines. `marl-bgs COMMAND --help` describes each command; the site's Command line
page is generated from this parser.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from .core.position import starting_position
from .game import Game
from .random_play import play_random_game


def _play(args: argparse.Namespace) -> int:
    from .core.checks import whole

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


def _common_eval_args(parser: argparse.ArgumentParser, games: int) -> None:
    parser.add_argument("--maps", default="test", help="split name, 'all', or ids like 47,48")
    parser.add_argument("--games", type=int, default=games, help="games per pairing (even)")
    parser.add_argument("--seed", type=int, default=0, help="root seed")
    parser.add_argument("--batch-size", type=int, default=64, help="games run at once")
    parser.add_argument(
        "--devices", type=int, default=1, help="local devices a batch is split over (0: all)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _maps_arg(text: str):
    """`test`, `all`, a split name, or comma-separated map ids."""
    if all(part.strip().isdigit() for part in text.split(",")):
        return [int(part) for part in text.split(",")]
    return text


def _eval(args: argparse.Namespace) -> int:
    from .evaluation import EVAL_FILES, FULL_FILES, LLM_FILES, evaluate
    from .llm.schema import FAILURE_KINDS
    from .outputs import check_new_files

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
    from .outputs import check_new_files
    from .scenarios.evaluate import RESULT_FILES, evaluate_scenarios

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
    from .evaluation import CROSSPLAY_FILES, crossplay, wdl_matrix
    from .outputs import check_new_files, write_atomic

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


def _view(args: argparse.Namespace) -> int:
    from .core.checks import choice, whole
    from .replay import load_replay
    from .replay.read import MAX_BYTES
    from .replay.view import VIEWS
    from .serve import start_server, viewer_url

    path = Path(args.replay)
    port = whole(args.port, "--port", 0, 65535)
    if args.view is not None:
        choice(args.view, "--view", ("oracle", *VIEWS))
    if not path.is_file():
        raise ValueError(f"replay: no file at {path}")
    with open(path, "rb") as f:  # read once: what is checked is what is served
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"replay: larger than the {MAX_BYTES:,}-byte limit")
    replay = load_replay(data)  # a bad file is refused here, with the reader's message
    if args.tick is not None:
        whole(args.tick, "--tick", 0, replay.ticks)
    try:
        server = start_server(path, port, data)
    except OSError as err:
        raise ValueError(f"--port: cannot listen on 127.0.0.1:{port} ({err.strerror})") from None
    url = viewer_url(server.server_address[1], path, args.tick, args.view)
    return _serve(server, f"serving the replay viewer at {url}  (Ctrl-C stops)", url, args)


def _serve(server, message: str, url: str, args: argparse.Namespace) -> int:
    """Say where, open a browser unless told not to, and serve until Ctrl-C."""
    import time
    import webbrowser

    print(message, flush=True)
    if not args.no_browser:
        webbrowser.open(url)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()
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


def _client(args: argparse.Namespace) -> int:
    from .client import PLAY_PAGE, default_spec, make_battles, resolve_spec, start_client
    from .core.checks import whole
    from .outputs import check_folder

    port = whole(args.port, "--port", 0, 65535)
    out_dir = check_folder(args.out, "--out")
    extra = {}
    vs, spec = resolve_spec(args.vs, "--vs")
    extra[vs] = spec
    mates = None
    if args.mates is not None:
        mates, spec = resolve_spec(args.mates, "--mates")
        extra[mates] = spec
    rosters = None
    if args.rosters is not None:
        rosters = [[c for c in side.split(",") if c] for side in args.rosters.split(":")]
    humans = [h for h in args.human.split(",") if h]
    defaults = default_spec(args.map, humans, vs, mates, args.winning_score, args.horizon, rosters)
    battles = make_battles(extra)
    battles.new(json.dumps(defaults))  # refuse bad settings here, with the engine's message
    battles.sessions.clear()
    try:
        server = start_client(battles, defaults, out_dir, port)
    except OSError as err:
        raise ValueError(f"--port: cannot listen on 127.0.0.1:{port} ({err.strerror})") from None
    url = f"http://127.0.0.1:{server.server_address[1]}{PLAY_PAGE}"
    where = f"replays go to {args.out}/; Ctrl-C stops"
    return _serve(server, f"serving the BattleClient at {url}  ({where})", url, args)


def _train(args: argparse.Namespace) -> int:
    from .learn.config import load_config
    from .learn.policy import saved_steps
    from .outputs import check_folder

    overrides = list(args.overrides)
    for text in overrides:
        if "=" not in text:
            raise ValueError(f"override {text!r}: expected key=value (e.g. num_envs=64)")
    if args.out is not None:
        overrides.append(f"out={json.dumps(args.out)}")
    cfg = load_config(args.config, overrides, algo=args.algo)
    out = check_folder(cfg.out, "--out")
    saved = (out / "checkpoints").is_dir() and bool(saved_steps(out))
    if args.resume and not saved:
        raise ValueError(f"--resume: no checkpoints in {out} to resume from")
    if saved and not args.resume:  # before the learner is built and compiled
        raise ValueError(f"--out: {out} already holds checkpoints (pass --resume to continue)")
    from .learn.trainer import train

    result = train(cfg, resume=args.resume, progress=not args.quiet)
    state = result.state
    print(f"{cfg.algo}: {int(state.update)} updates, {int(state.steps)} game steps in {out}")
    return 0


def _demo_maps(text: str) -> tuple[int, ...]:
    """`--maps` of `demos record`: "train" (the curriculum and training splits), a split
    name, or comma-separated ids."""
    from .maps import SPLITS

    if text == "train":
        return SPLITS["curriculum"] + SPLITS["training"]
    if text in SPLITS:
        return SPLITS[text]
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(
            f"--maps: expected train, a split name or ids like 12,13, got {text!r}"
        ) from None


def _demos_record(args: argparse.Namespace) -> int:
    from .learn.demos import DemoSettings, record_demos

    roster = tuple(args.roster.split(",")) if args.roster else None
    fields = dict(
        teacher=args.teacher,
        opponents=tuple(o.strip() for o in args.vs.split(",") if o.strip()),
        maps=_demo_maps(args.maps),
        winning_score=args.winning_score,
        horizon=args.horizon,
        num_envs=args.num_envs,
        chunk_ticks=args.chunk_ticks,
        steps=args.steps,
        shard_steps=args.shard_steps,
        seed=args.seed,
    )
    if roster is not None:
        fields["roster"] = roster
    try:
        settings = DemoSettings(**fields)
    except ValueError as err:  # the setting's option named as on the command line
        field, _, why = str(err).partition(":")
        name, bracket, index = field.partition("[")
        option = {"opponents": "vs"}.get(name, name).replace("_", "-")
        raise ValueError(f"--{option}{bracket}{index}:{why}") from None
    folder = record_demos(settings, args.out, force=args.force, progress=not args.quiet)
    _print_demos(folder)
    return 0


def _demos_from_replays(args: argparse.Namespace) -> int:
    from .learn.demos import demos_from_replays

    folder = demos_from_replays(args.replays, args.side, args.out, force=args.force)
    _print_demos(folder)
    return 0


def _print_demos(folder: Path) -> None:
    from .learn.demos import read_demos

    m = read_demos(folder).manifest
    r = m["results"]
    print(f"{m['steps']} game steps in {len(m['shards'])} shards in {folder} "
          f"({m['seconds']:.0f} s); games finished {m['games_finished']}: teacher won "
          f"{r['teacher_won']}, lost {r['teacher_lost']}, drew {r['draws']}; illegal choices "
          f"{m['teacher_illegal_choices']}")  # fmt: skip


def _plot(args: argparse.Namespace) -> int:
    run = Path(args.run_dir)
    if not run.is_dir():
        raise ValueError(f"run: no run folder at {run}")
    try:
        from .learn.plots import plot_run
    except ImportError as err:
        raise ValueError(f"plot: needs matplotlib ({err})") from None
    paths = plot_run(run, args.out)
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The `marl-bgs` parser with all its subcommands, as `main` uses it.

    Each subcommand's parser sets `run`, the function that carries it out.

    Returns:
        The parser (`prog="marl-bgs"`).
    """
    parser = argparse.ArgumentParser(prog="marl-bgs", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
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
    view = sub.add_parser("view", help="serve the replay viewer on 127.0.0.1 and open a replay")
    view.add_argument("replay", help="a replay file (.json or .json.gz)")
    view.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free)")
    view.add_argument("--tick", type=int, help="open at this tick")
    view.add_argument("--view", help="oracle, a, b, or one agent such as a2")
    view.add_argument("--no-browser", action="store_true", help="print the address only")
    view.set_defaults(run=_view)

    cl = sub.add_parser(
        "client",
        help="play a game in the browser beside or against Systems (the BattleClient)",
        description="Serves the BattleClient page on 127.0.0.1, backed by the Python engine: "
        "the page's settings start from these, and any System can play the other slots.",
    )
    cl.add_argument("--map", type=int, default=47, help="map id, 0-51")
    cl.add_argument("--human", default="a0", help="human slots, e.g. a0,a1 (any of a0..b4)")
    cl.add_argument(
        "--vs",
        default="tdm-alpha",
        help="who plays the other slots: a registered name, a run folder or a policy .npz",
    )
    cl.add_argument("--mates", help="who plays the humans' AI teammates (default: --vs)")
    cl.add_argument("--rosters", help="classes, e.g. mage,priest:rogue,hunter (default 5 v 5)")
    cl.add_argument("--winning-score", type=int, default=5, help="points that win a game")
    cl.add_argument("--horizon", type=int, default=200, help="ticks before a draw")
    cl.add_argument("--out", default="battles", help="folder for the finished games' replays")
    cl.add_argument("--port", type=int, default=8766, help="port on 127.0.0.1 (0: any free)")
    cl.add_argument("--no-browser", action="store_true", help="print the address only")
    cl.set_defaults(run=_client)

    from .learn.registry import ALGORITHMS

    tr = sub.add_parser(
        "train",
        help="train a learner (PPO, QMIX, PQN-VDN, behaviour cloning, kickstarted PPO) "
        "into a run folder",
        description="Settings: the algorithm's defaults, then --config (TOML, YAML or JSON), "
        "then key=value overrides (field names of marl_bgs.learn.PPOConfig, KickstartConfig, "
        "QMIXConfig or PQNVDNConfig), then --out.",
    )
    algos = "; ".join(f"{a.name}: {a.summary}" for a in ALGORITHMS.values())
    tr.add_argument("--algo", choices=tuple(ALGORITHMS), help=algos)
    tr.add_argument("--config", help="a .toml, .yaml/.yml or .json file of settings")
    tr.add_argument("--out", help="run folder (the config's `out`)")
    tr.add_argument("--resume", action="store_true", help="continue from the newest checkpoint")
    tr.add_argument("--quiet", action="store_true", help="no progress bar")
    tr.add_argument("overrides", nargs="*", metavar="key=value", help="setting overrides")
    tr.set_defaults(run=_train)
    dm = sub.add_parser(
        "demos",
        help="record a teacher's play (or replayed games) as demonstrations for imitation",
        description="Demonstrations: what Team A saw (observations, exact masks) and chose, "
        "tick by tick, in compressed shards with a checked manifest (marl_bgs.learn.demos).",
    )
    dsub = dm.add_subparsers(dest="demos_command", required=True)
    rec = dsub.add_parser(
        "record",
        help="play the teacher against opponents in compiled batches and record its side",
        description="Env i plays opponent i mod the number of opponents; held-out maps "
        "(42-51) are refused.",
    )
    rec.add_argument("--teacher", default="tdm-alpha", help="a System name, run folder or .npz")
    rec.add_argument(
        "--vs", default="tdm-alpha,tdm-beta,tdm-gamma", help="comma-separated opponents"
    )
    rec.add_argument("--maps", default="train", help="train (maps 0-41), a split name, or ids")
    rec.add_argument("--roster", help="both teams' classes, e.g. mage,priest (default 5 v 5)")
    rec.add_argument("--winning-score", type=int, default=20, help="points that win a game")
    rec.add_argument("--horizon", type=int, default=300, help="ticks before a draw")
    rec.add_argument("--steps", type=int, default=2_000_000, help="game steps to record")
    rec.add_argument("--num-envs", type=int, default=256, help="games played at once")
    rec.add_argument("--chunk-ticks", type=int, default=32, help="ticks per compiled scan")
    rec.add_argument("--shard-steps", type=int, default=65_536, help="game steps per shard")
    rec.add_argument("--seed", type=int, default=0, help="root seed")
    rec.add_argument("--out", required=True, help="folder for demos.json and the shards")
    rec.add_argument("--force", action="store_true", help="replace demonstrations in --out")
    rec.add_argument("--quiet", action="store_true", help="no progress bar")
    rec.set_defaults(run=_demos_record)
    frm = dsub.add_parser(
        "from-replays",
        help="replay recorded games on the engine and record one side's choices",
    )
    frm.add_argument("replays", nargs="+", help="replay files (.json or .json.gz)")
    frm.add_argument("--side", required=True, choices=("a", "b"), help="the side to imitate")
    frm.add_argument("--out", required=True, help="folder for demos.json and the shards")
    frm.add_argument("--force", action="store_true", help="replace demonstrations in --out")
    frm.set_defaults(run=_demos_from_replays)
    pl = sub.add_parser("plot", help="draw a run folder's learning curves to PNG")
    pl.add_argument("run_dir", metavar="RUN", help="a run folder written by `marl-bgs train`")
    pl.add_argument("--out", help="folder for the PNGs (default RUN/plots)")
    pl.set_defaults(run=_plot)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the `marl-bgs` command line.

    Args:
        argv: The arguments after the program name; None reads `sys.argv`.

    Returns:
        The exit status: 0 on success, 2 for a refused input (its message on stderr,
            `marl-bgs: error: ...`, as argparse prints its own).
    """
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # `train`'s key=value settings may come after an option (`--resume hidden=16`).
        if args.command == "train" and all("=" in e and not e.startswith("-") for e in extra):
            args.overrides = [*args.overrides, *extra]
        else:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.run(args)
    except ValueError as err:
        print(f"marl-bgs: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
