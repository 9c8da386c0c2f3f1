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
which gives processes 30 s to meet at a collective (it cannot be changed from JAX): one
process still compiling a program, or still finishing the previous one, while another already
runs it ends both with "Gloo context initialization failed ... Connect timeout". So every
program that spans other processes' devices is started through `run_together`: compiled
first, then the processes meet at a barrier of JAX's coordination service (no device
collective, waits up to `MEET_TIMEOUT_S`), then it runs. `to_host` and `barrier` go through
the same meeting.
"""

from __future__ import annotations

import os
import sys
import weakref
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

COORDINATOR = "MARL_BGS_COORDINATOR"
NUM_PROCESSES = "MARL_BGS_NUM_PROCESSES"
PROCESS_ID = "MARL_BGS_PROCESS_ID"
AUTO = "MARL_BGS_DISTRIBUTED"
HEARTBEAT = "MARL_BGS_HEARTBEAT_S"
DEFAULT_HEARTBEAT_S = 100
MEET_TIMEOUT_S = 3600  # how long a process waits for the others at a meeting point


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
    return _process_index() == 0


def _identity(x: Any) -> Any:
    return x


# Per jitted function: its compiled programs by argument signature (shapes, types, layouts).
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_GATHERS: dict[Any, Callable] = {}  # a jitted identity per replicated layout
_MEETINGS: Counter = Counter()  # how often this process reached each named meeting


def meet(name: str, timeout_s: float = MEET_TIMEOUT_S) -> None:
    """Wait until every process reaches the meeting `name` (nothing with one process).
    Held by JAX's coordination service, not by a device collective, so it waits as long as
    `timeout_s`, not gloo's 30 s; every process must reach the same meetings in one order."""
    if process_count() < 2:
        return
    from jax._src import distributed as jax_distributed

    _MEETINGS[name] += 1
    key = f"marl_bgs/{name}/{_MEETINGS[name]}"
    try:
        jax_distributed.global_state.client.wait_at_barrier(key, int(timeout_s * 1000))
    except Exception as err:  # the service's own error names neither the meeting nor why
        raise RuntimeError(
            f"process {_process_index()}: the other processes did not reach {name!r} within "
            f"{timeout_s:.0f} s (one died or hangs): {err}"
        ) from None


def _process_index() -> int:
    jax = sys.modules.get("jax")
    return 0 if jax is None else int(jax.process_index())


def _signature(leaves: list) -> tuple:
    return tuple(
        (type(x), getattr(x, "shape", None), str(getattr(x, "dtype", "")),
         getattr(x, "weak_type", None), getattr(x, "sharding", None))
        for x in leaves
    )  # fmt: skip


def run_together(jitted: Callable, *args: Any) -> Any:
    """`jitted(*args)`, started on every process at once where its arguments span other
    processes' devices: compiled ahead (once per argument signature), the arguments ready,
    then a meeting, then the run. Processes must call it together, with like arguments.
    Arguments within this process (one process, or a mesh of its own devices) run at once."""
    import jax

    leaves, tree = jax.tree.flatten(args)
    if process_count() < 2 or all(getattr(x, "is_fully_addressable", True) for x in leaves):
        return jitted(*args)
    programs = _COMPILED.setdefault(jitted, {})
    key = (tree, _signature(leaves))
    if key not in programs:
        programs[key] = jitted.lower(*args).compile()
    jax.block_until_ready(leaves)  # this process's earlier work is done, not only queued
    meet(f"run/{getattr(jitted, '__name__', 'program')}")
    return programs[key](*args)


def to_host(x: Any) -> np.ndarray:
    """`x` whole as a NumPy array on this process: an array split over many processes'
    devices is gathered from all of them (every process must call this together)."""
    if getattr(x, "is_fully_addressable", True):
        return np.asarray(x)
    if x.is_fully_replicated:  # every process holds it whole
        return np.asarray(x.addressable_data(0))
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    if isinstance(x.sharding, NamedSharding):
        whole = x.sharding.update(spec=PartitionSpec())
    else:  # any other layout: replicated over the same devices
        devices = sorted(x.sharding.device_set, key=lambda d: d.id)
        whole = NamedSharding(Mesh(np.array(devices), ("all",)), PartitionSpec())
    if whole not in _GATHERS:
        _GATHERS[whole] = jax.jit(_identity, out_shardings=whole)
    return np.asarray(run_together(_GATHERS[whole], x).addressable_data(0))


def barrier(name: str) -> None:
    """Wait until every process reaches the barrier `name` (nothing with one process): e.g.
    every process has read a file before process 0 rewrites it."""
    meet(f"barrier/{name}")
