"""The rules of Team Deathmatch, written once over an array namespace (NumPy or jax.numpy).

Nothing here imports JAX: the NumPy engine runs these functions eagerly in float32, and the
JAX engine runs the very same functions under `jit`.
"""

from . import classes
from .position import Position, parse_position, position_dict
from .sight import Masks, Sight, compute_sight, head_masks, joint_mask, legal_masks
from .state import MapArrays, State, map_arrays
from .tick import TickInfo, step

__all__ = [
    "classes",
    "Masks",
    "Sight",
    "compute_sight",
    "head_masks",
    "joint_mask",
    "legal_masks",
    "Position",
    "parse_position",
    "position_dict",
    "MapArrays",
    "State",
    "map_arrays",
    "TickInfo",
    "step",
]
