"""Data parallelism over devices with `jax.sharding`: games split along one mesh axis.

The learner state's live games (everything under `TrainState.live`, each leaf with a
leading games axis) are split across the devices of a one-axis mesh named "games"; the
parameters, optimizer state, pool and counters are replicated. The compiled update is the
same program: XLA partitions it from the shardings of its inputs (GSPMD), adding the
gradient all-reduce itself, so 1 device and many give the same update up to float
rounding. No `pmap` (in maintenance mode in current JAX).

Many hosts: call `jax.distributed.initialize()` on every host before anything else;
`jax.devices()` then lists every host's devices and `game_mesh()` spans them all.
"""

from __future__ import annotations

from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "games"


def game_mesh(devices: int = 0) -> Mesh:
    """A one-axis mesh over the first `devices` devices (0: all of them)."""
    available = jax.devices()
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 0:
        raise ValueError(f"devices: expected a whole number >= 0, got {devices!r}")
    if devices > len(available):
        raise ValueError(f"devices: {devices} asked for, {len(available)} present")
    chosen = available[: devices or len(available)]
    return Mesh(chosen, (AXIS,))


def check_divides(num_envs: int, mesh: Mesh) -> None:
    n = mesh.devices.size
    if num_envs % n:
        raise ValueError(f"config.num_envs: {num_envs} games do not split evenly over {n} devices")


def shard_state(state: Any, mesh: Mesh, num_envs: int) -> Any:
    """The learner state placed on `mesh`: the live games' per-game leaves (leading axis
    of `num_envs`) split, everything else replicated."""
    check_divides(num_envs, mesh)
    games = NamedSharding(mesh, PartitionSpec(AXIS))
    replicated = NamedSharding(mesh, PartitionSpec())

    def per_game(x: Any) -> Any:
        split = getattr(x, "ndim", 0) >= 1 and x.shape[0] == num_envs
        return jax.device_put(x, games if split else replicated)

    placed = jax.device_put(state._replace(live=None), replicated)
    return placed._replace(live=jax.tree.map(per_game, state.live))
