"""Data parallelism over devices with `jax.sharding`: games split along one mesh axis.

The learner state's live games (everything under the state's `live`, each leaf with a
leading games axis) are split across the devices of a one-axis mesh named "games"; the
parameters, optimizer state, pool and counters are replicated. The compiled update is the
same program: XLA partitions it from the shardings of its inputs (GSPMD), adding the
gradient all-reduce itself, so 1 device and many give the same update up to float
rounding. No `pmap` (in maintenance mode in current JAX).

The mesh and placement helpers live in `marl_bgs.game_sharding` (evaluate and seasons use the
same ones, without the `train` extra); this module adds the learner state's layout.

Many hosts: call `jax.distributed.initialize()` on every host before anything else;
`jax.devices()` then lists every host's devices and `game_mesh()` spans them all.
"""

from __future__ import annotations

from typing import Any

from .. import game_sharding
from ..game_sharding import AXIS, game_mesh, replicate, split_games

__all__ = ["AXIS", "game_mesh", "check_divides", "shard_state"]


def check_divides(num_envs: int, mesh: Any) -> None:
    game_sharding.check_divides(num_envs, mesh, "config.num_envs")


def shard_state(state: Any, mesh: Any, num_envs: int) -> Any:
    """The learner state placed on `mesh`: the live games' per-game leaves (leading axis
    of `num_envs`) split, everything else replicated."""
    check_divides(num_envs, mesh)
    placed = replicate(state._replace(live=None), mesh)
    return placed._replace(live=split_games(state.live, mesh, num_envs))
