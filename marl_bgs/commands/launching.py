"""`marl-bgs launch`: one command as N processes joined by `jax.distributed`
(`marl_bgs.launcher`; a cluster starts its own processes, see `marl_bgs.distributed`)."""

from __future__ import annotations

import argparse


def _launch(args: argparse.Namespace) -> int:
    from ..launcher import launch

    command = list(args.launched)
    if command[:1] == ["--"]:
        command = command[1:]
    known = sorted(set(args.commands) - {"launch"})
    if command and not command[0].endswith(".py") and command[0] not in known:
        raise ValueError(
            f"command: {command[0]!r} is neither a marl-bgs command nor a .py script "
            f"(one of {', '.join(known)}, or path/to/script.py)"
        )
    return launch(
        command,
        args.processes,
        cpu_devices=args.cpu_devices,
        gpus_per_process=args.gpus_per_process,
        port=args.port,
    )


def add_commands(sub) -> None:
    """Add `launch` (after every other command: it names them)."""
    p = sub.add_parser(
        "launch",
        help="run a command as N processes joined by jax.distributed, on this machine",
        description=(
            "Run COMMAND (a marl-bgs command, or a .py script) as N processes joined by "
            "jax.distributed: devices=0 (--devices 0) then means every device of every "
            "process, each process gets the same results and only process 0 writes files. "
            "Example: marl-bgs launch -n 2 --cpu-devices 2 -- train algo=ff-ippo devices=0"
        ),
    )
    p.add_argument("-n", "--processes", type=int, required=True, help="how many processes")
    p.add_argument(
        "--cpu-devices", type=int, default=None, help="forced CPU devices per process (testing)"
    )
    p.add_argument(
        "--gpus-per-process",
        type=int,
        default=None,
        help="GPUs each process sees (CUDA_VISIBLE_DEVICES split in order)",
    )
    p.add_argument("--port", type=int, default=None, help="coordinator port (default: a free one)")
    p.add_argument("launched", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    p.set_defaults(run=_launch, commands=tuple(sub.choices))
