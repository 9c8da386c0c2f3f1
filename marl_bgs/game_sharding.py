"""Games split over devices with `jax.sharding`: one mesh axis named "games".

A batch of games is a tree whose leaves all lead with the games axis. Its leaves are placed
with `NamedSharding(mesh, PartitionSpec("games"))`, everything else (parameters, root keys)
replicated, and the compiled program is the same one a single device runs: XLA partitions
it from the shardings of its inputs (GSPMD). No `pmap` (in maintenance mode in current JAX).

Used by the trainer (`marl_bgs.learn.learner_sharding`, `devices=` in the config) and by
`marl_bgs.evaluate` / seasons (`devices=`). This module needs only JAX (imported on first
use, like the rest of the package), not the `train` extra.

Many hosts: call `jax.distributed.initialize()` on every host before anything else;
`jax.devices()` then lists every host's devices and `game_mesh()` spans them all
(`local=True` keeps to this host's, as evaluation does: it reads every game back).
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
    this process's devices only."""
    import jax
    from jax.sharding import Mesh

    count = device_count(devices, field)
    available = jax.local_devices() if local else jax.devices()
    if count > len(available):
        raise ValueError(f"{field}: {count} asked for, {len(available)} present")
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


def replicate(tree: Any, mesh) -> Any:
    """`tree` with every leaf copied to every device of the mesh."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    return jax.device_put(tree, NamedSharding(mesh, PartitionSpec()))


def split_games(tree: Any, mesh, count: int) -> Any:
    """`tree` on the mesh: leaves whose leading axis holds the `count` games are split
    along it, any other leaf replicated."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    games = games_sharding(mesh)
    replicated = NamedSharding(mesh, PartitionSpec())

    def place(x: Any) -> Any:
        split = getattr(x, "ndim", 0) >= 1 and x.shape[0] == count
        return jax.device_put(x, games if split else replicated)

    return jax.tree.map(place, tree)


def local_games_mesh(devices: Any):
    """The games mesh over this process's devices for `devices` (1 = one device, 0 = all
    local ones, N = the first N), or None where it holds one device (evaluation and the
    validation panel then run unsharded)."""
    if device_count(devices) == 1:
        return None
    mesh = game_mesh(devices, local=True)
    return mesh if mesh.devices.size > 1 else None
