"""Many processes as one JAX program (`jax.distributed`), set up from the environment.

After `jax.distributed.initialize(...)`, `jax.devices()` lists the devices of every process
and a jitted program over a mesh of them runs on all processes at once, each holding its
own devices' share of the games. `devices=0` in `evaluate`, `crossplay`, seasons and
training configs then means every device of every process; every process gets the same
return value (`to_host` gathers the games), and only process 0 writes files (`is_writer`).

`marl-bgs launch -n N -- COMMAND ...` starts N such processes on one machine. Each process,
the `marl-bgs` command line and `scripts/export_season.py` alike, calls
`initialize_from_env()` first, which reads:

- `MARL_BGS_COORDINATOR` (`host:port` of process 0), `MARL_BGS_NUM_PROCESSES` and
  `MARL_BGS_PROCESS_ID`: the three arguments of `jax.distributed.initialize`;
- or `MARL_BGS_DISTRIBUTED=auto`: JAX finds them itself from the cluster's scheduler
  (SLURM, Open MPI, Kubernetes, Cloud TPU), one process per task;
- `MARL_BGS_HEARTBEAT_S` (default 100): how long the others wait for a process that stopped
  answering before they exit with an error, instead of hanging.

On CPU devices the processes talk through gloo (`jax_cpu_collectives_implementation`),
whose connections time out after 30 s: processes that reach a collective further apart than
that (one still compiling it on a crowded CPU) end with "Gloo context initialization
failed". Give each process cores of its own; a rerun finds the programs in JAX's persistent
compilation cache and starts together.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

COORDINATOR = "MARL_BGS_COORDINATOR"
NUM_PROCESSES = "MARL_BGS_NUM_PROCESSES"
PROCESS_ID = "MARL_BGS_PROCESS_ID"
AUTO = "MARL_BGS_DISTRIBUTED"
HEARTBEAT = "MARL_BGS_HEARTBEAT_S"
DEFAULT_HEARTBEAT_S = 100


def _whole(environ: Mapping[str, str], name: str, low: int) -> int:
    text = environ.get(name, "")
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a whole number") from None
    if value < low:
        raise ValueError(f"{name}: {value} is below {low}")
    return value


def settings_from_env(environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The keyword arguments for `jax.distributed.initialize` that the environment asks
    for, checked (a bad value is refused naming its variable); None when it asks for none."""
    env = os.environ if environ is None else environ
    heartbeat = _whole(env, HEARTBEAT, 1) if env.get(HEARTBEAT) else DEFAULT_HEARTBEAT_S
    auto = env.get(AUTO, "")
    named = [k for k in (COORDINATOR, NUM_PROCESSES, PROCESS_ID) if env.get(k)]
    if auto not in ("", "auto"):
        raise ValueError(f"{AUTO}: {auto!r}; the one value it takes is 'auto'")
    if auto and named:
        raise ValueError(f"{AUTO}=auto lets JAX find the processes; unset {', '.join(named)}")
    if auto:
        return {"heartbeat_timeout_seconds": heartbeat}
    if not named:
        return None
    missing = [k for k in (COORDINATOR, NUM_PROCESSES, PROCESS_ID) if k not in named]
    if missing:
        raise ValueError(f"{', '.join(missing)}: not set, but {', '.join(named)} is")
    count = _whole(env, NUM_PROCESSES, 1)
    index = _whole(env, PROCESS_ID, 0)
    if index >= count:
        raise ValueError(f"{PROCESS_ID}: {index} with {NUM_PROCESSES}={count} (0..{count - 1})")
    address = env[COORDINATOR]
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"{COORDINATOR}: {address!r} is not host:port")
    return {
        "coordinator_address": address,
        "num_processes": count,
        "process_id": index,
        "heartbeat_timeout_seconds": heartbeat,
    }


def initialize_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """Join the processes the environment names (see the module's docstring) before anything
    else touches JAX; returns whether it did (False: one process, nothing changed)."""
    settings = settings_from_env(environ)
    if settings is None:
        return False
    import jax

    # CPU devices of different processes talk through gloo (GPUs through NCCL, TPUs their own).
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(**settings)
    return True


def process_count() -> int:
    """How many processes this program runs on (1 when JAX was never started)."""
    jax = sys.modules.get("jax")
    return 1 if jax is None else int(jax.process_count())


def is_writer() -> bool:
    """Whether this process writes the run's files: process 0 only, so that N processes
    sharing a folder write each file once."""
    jax = sys.modules.get("jax")
    return jax is None or jax.process_index() == 0


def to_host(x: Any) -> np.ndarray:
    """`x` whole as a NumPy array on this process: an array split over many processes'
    devices is gathered from all of them (every process must call this together)."""
    if getattr(x, "is_fully_addressable", True):
        return np.asarray(x)
    if x.is_fully_replicated:  # every process holds it whole
        return np.asarray(x.addressable_data(0))
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(x, tiled=True))


def barrier(name: str) -> None:
    """Wait until every process reaches the barrier `name` (nothing with one process): e.g.
    every process has read a file before process 0 rewrites it."""
    if process_count() > 1:
        from jax.experimental import multihost_utils

        multihost_utils.sync_global_devices(name)
