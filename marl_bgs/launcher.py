"""Start N processes of one command on this machine, joined by `jax.distributed`.

`marl-bgs launch -n 2 -- train algo=ff-ippo devices=0` runs `marl-bgs train ...` twice, with
the environment `marl_bgs.distributed.initialize_from_env` reads (process 0 on a free local
port as the coordinator); `-- scripts/export_season.py ...` runs a script instead. Each
line a process prints comes out prefixed with its number. When one process fails, the
others are stopped at once and the launch exits with that process's status and a line
saying which failed, rather than leaving them waiting for it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence

from . import distributed

GRACE_S = 10.0  # how long a stopped process may take to exit before it is killed


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the coordinator binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def command_line(command: Sequence[str]) -> list[str]:
    """The argv one process runs: a `.py` script with this Python, else `marl-bgs ...`."""
    if not command:
        raise ValueError("command: nothing to launch (marl-bgs launch -n 2 -- train ...)")
    if command[0].endswith(".py"):
        return [sys.executable, *command]
    return [sys.executable, "-m", "marl_bgs.cli", *command]


def process_env(
    base: Mapping[str, str],
    index: int,
    processes: int,
    port: int,
    cpu_devices: int | None = None,
    gpus_per_process: int | None = None,
) -> dict[str, str]:
    """Process `index`'s environment: the coordinator, the count and its number; with
    `cpu_devices`, that many forced CPU devices; with `gpus_per_process`, its own GPUs
    (CUDA_VISIBLE_DEVICES: index * k .. index * k + k - 1)."""
    env = dict(base)
    env[distributed.COORDINATOR] = f"127.0.0.1:{port}"
    env[distributed.NUM_PROCESSES] = str(processes)
    env[distributed.PROCESS_ID] = str(index)
    if cpu_devices:
        flag = f"--xla_force_host_platform_device_count={cpu_devices}"
        env["XLA_FLAGS"] = " ".join(f for f in (env.get("XLA_FLAGS", ""), flag) if f)
    if gpus_per_process:
        first = index * gpus_per_process
        env["CUDA_VISIBLE_DEVICES"] = ",".join(str(first + k) for k in range(gpus_per_process))
    return env


def _forward(stream, index: int, out) -> None:
    for line in stream:
        out.write(f"[{index}] {line}")
        out.flush()


def _stop(children: list[subprocess.Popen]) -> None:
    """SIGTERM to every process still running, then SIGKILL after GRACE_S."""
    for p in children:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    for p in children:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def launch(
    command: Sequence[str],
    processes: int,
    *,
    cpu_devices: int | None = None,
    gpus_per_process: int | None = None,
    port: int | None = None,
    out=None,
) -> int:
    """Run `command` as `processes` joined processes; 0 when all succeed, else the status of
    the first that failed (the others stopped)."""
    if processes < 1:
        raise ValueError(f"-n: {processes} processes; at least 1")
    for name, value in (("--cpu-devices", cpu_devices), ("--gpus-per-process", gpus_per_process)):
        if value is not None and value < 1:
            raise ValueError(f"{name}: {value}; at least 1")
    argv = command_line(command)
    out = sys.stdout if out is None else out
    port = port or free_port()
    children, threads = [], []
    for i in range(processes):
        env = process_env(os.environ, i, processes, port, cpu_devices, gpus_per_process)
        child = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        )
        children.append(child)
        threads.append(threading.Thread(target=_forward, args=(child.stdout, i, out), daemon=True))
        threads[-1].start()
    status = 0
    try:
        while True:
            codes = [p.poll() for p in children]  # every one polled (no short cut)
            failed = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if failed or all(c == 0 for c in codes):
                break
            time.sleep(0.2)
        if failed:
            index, code = failed[0]
            _stop(children)
            how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
            out.write(
                f"marl-bgs launch: process {index} of {processes} {how}; stopped the others\n"
            )
            status = 128 - code if code < 0 else code
    except KeyboardInterrupt:
        _stop(children)
        status = 130
    for t in threads:
        t.join(timeout=5)
    return status
