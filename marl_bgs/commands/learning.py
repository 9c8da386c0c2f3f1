"""`marl-bgs train`, `demos record`, `demos from-replays` and `plot`: learners, their
demonstrations and their learning curves."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _train(args: argparse.Namespace) -> int:
    from ..learn.config_files import load_config
    from ..learn.policy import saved_steps
    from ..outputs import check_folder

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
    from ..learn.trainer import train

    result = train(cfg, resume=args.resume, progress=not args.quiet)
    state = result.state
    print(f"{cfg.algo}: {int(state.update)} updates, {int(state.steps)} game steps in {out}")
    return 0


def _demo_maps(text: str) -> tuple[int, ...]:
    """`--maps` of `demos record`: "train" (the curriculum and training splits), a split
    name, or comma-separated ids."""
    from ..maps import SPLITS

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
    from ..learn.demos import DemoSettings, record_demos

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
    from ..learn.demos import demos_from_replays

    folder = demos_from_replays(args.replays, args.side, args.out, force=args.force)
    _print_demos(folder)
    return 0


def _print_demos(folder: Path) -> None:
    from ..learn.demos import read_demos

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
        from ..learn.plots import plot_run
    except ImportError as err:
        raise ValueError(f"plot: needs matplotlib ({err})") from None
    paths = plot_run(run, args.out)
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def add_commands(sub: Any) -> None:
    """Add `train`, `demos` (`record`, `from-replays`) and `plot` to `sub`, the `marl-bgs`
    subcommands (`add_subparsers`' action)."""
    from ..learn.registry import ALGORITHMS

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
