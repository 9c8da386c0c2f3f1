"""The `marl-bgs` command line: the same functions as the Python API.

Play a game, evaluate and cross-play Systems, view replays, play in the browser, train and
plot baselines. `marl-bgs COMMAND --help` describes each command; the site's Command line
page is generated from this parser.
"""

from __future__ import annotations

import argparse
import sys

from .commands import evaluation, launching, learning, play, serving


def build_parser() -> argparse.ArgumentParser:
    """The `marl-bgs` parser with all its subcommands, as `main` uses it.

    Each subcommand's parser sets `run`, the function that carries it out.

    Returns:
        The parser (`prog="marl-bgs"`).
    """
    parser = argparse.ArgumentParser(prog="marl-bgs", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    play.add_commands(sub)  # play
    evaluation.add_commands(sub)  # eval, crossplay, scenarios
    serving.add_commands(sub)  # view, client
    learning.add_commands(sub)  # train, demos, plot
    launching.add_commands(sub)  # launch
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
        if args.command != "launch":  # a process that `marl-bgs launch` (or a cluster) started
            from .distributed import initialize_from_env

            initialize_from_env()
        return args.run(args)
    except ValueError as err:
        print(f"marl-bgs: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
