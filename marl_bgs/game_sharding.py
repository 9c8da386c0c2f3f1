"""Games split over devices with `jax.sharding`: one mesh axis named "games".

A batch of games is a tree whose leaves all lead with the games axis. Its leaves are placed
with `NamedSharding(mesh, PartitionSpec("games"))`, everything else (parameters, root keys)
replicated, and the compiled program is the same one a single device runs: XLA partitions
it from the shardings of its inputs (GSPMD). No `pmap` (in maintenance mode in current JAX).

Used by the trainer (`marl_bgs.learn.learner_sharding`, `devices=` in the config) and by
`marl_bgs.evaluate` / seasons (`devices=`). This module needs only JAX (imported on first
use, like the rest of the package), not the `train` extra.

Many processes (`marl_bgs.distributed`: `jax.distributed.initialize()` on every process
before anything else): `jax.devices()` then lists every process's devices and `game_mesh()`
spans them all, `devices=N` taking N / processes from each; `local=True` keeps to this
process's own (as games with a System that runs on the host do: it reads every input back).
"""

from __future__ import annotations

from typing import Any

from .core.checks import whole

AXIS = "games"


def device_count(devices: Any, field: str = "devices") -> int:
    """`devices` checked without touching JAX: a whole number, 0 meaning every device."""
    return whole(devices, f"{field} (0: all devices)", 0)


def game_mesh(devices: int = 0, *, field: str = "devices", local: bool = False):
    """A one-axis mesh over the first `devices` devices (0: all of them); with `local`,
    this process's devices only. Over many processes, N devices are the first N / P of each
    of the P processes (N must split evenly), so that every process holds games."""
    import jax
    from jax.sharding import Mesh

    count = device_count(devices, field)
    available = jax.local_devices() if local else jax.devices()
    if count > len(available):
        raise ValueError(f"{field}: {count} asked for, {len(available)} present")
    processes = 1 if local else jax.process_count()
    if processes > 1 and count:
        if count % processes:
            raise ValueError(
                f"{field}: {count} devices do not split evenly over {processes} processes "
                "(0 takes every device of every process)"
            )
        by_process = [[d for d in available if d.process_index == p] for p in range(processes)]
        return Mesh([d for mine in by_process for d in mine[: count // processes]], (AXIS,))
    return Mesh(available[: count or len(available)], (AXIS,))


def mesh_size(mesh) -> int:
    return int(mesh.devices.size)


def check_divides(count: int, mesh, field: str) -> None:
    """Refuse a games count that does not split evenly over the mesh, naming `field`."""
    n = mesh_size(mesh)
    if count % n:
        raise ValueError(f"{field}: {count} games do not split evenly over {n} devices")


def round_up(count: int, mesh) -> int:
    """The smallest multiple of the mesh's device count that holds `count` games."""
    n = mesh_size(mesh)
    return -(-count // n) * n


def games_sharding(mesh, axis: int = 0):
    """The sharding that splits dimension `axis` (the games) over the mesh."""
    from jax.sharding import NamedSharding, PartitionSpec

    return NamedSharding(mesh, PartitionSpec(*([None] * axis), AXIS))


def place(x: Any, sharding) -> Any:
    """`x` (the same value on every process) laid out by `sharding`. Within one process that
    is `jax.device_put`; a sharding over other processes' devices is filled from this
    process's copy, its own devices' parts only (PRNG keys by their key data)."""
    import jax
    import numpy as np

    if sharding.is_fully_addressable:
        return jax.device_put(x, sharding)
    if jax.dtypes.issubdtype(getattr(x, "dtype", None), jax.dtypes.prng_key):
        data = place(jax.random.key_data(x), sharding)
        return jax.random.wrap_key_data(data, impl=jax.random.key_impl(x))
    host = np.asarray(x)
    return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])


def replicate(tree: Any, mesh) -> Any:
    """`tree` with every leaf copied to every device of the mesh."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    whole = NamedSharding(mesh, PartitionSpec())
    return jax.tree.map(lambda x: place(x, whole), tree)


def split_games(tree: Any, mesh, count: int) -> Any:
    """`tree` on the mesh: leaves whose leading axis holds the `count` games are split
    along it, any other leaf replicated."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    games = games_sharding(mesh)
    replicated = NamedSharding(mesh, PartitionSpec())

    def put(x: Any) -> Any:
        split = getattr(x, "ndim", 0) >= 1 and x.shape[0] == count
        return place(x, games if split else replicated)

    return jax.tree.map(put, tree)


def batch_mesh(devices: Any, *, host: bool = False):
    """The games mesh of a batch runner for `devices` (1 = one device, 0 = all, N = the first
    N), or None where it holds one device (evaluation and the validation panel then run
    unsharded). Over many processes it spans them all, unless a System of the games runs on
    the host (`host`): such games keep to this process's devices, every process playing
    them all (the same games; the host System reads every input back)."""
    if device_count(devices) == 1:
        return None
    mesh = game_mesh(devices, local=host)
    return mesh if mesh.devices.size > 1 else None
