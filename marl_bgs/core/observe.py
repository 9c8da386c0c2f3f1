"""The old name of `core.sight` (who sees whom, and the action masks), kept only while
engine modules (tick, movement, body_contacts) still import from here; new code imports
`core.sight`, and this file goes once they do."""

from .actions import HEAD_LIMITS, HEAD_NAMES, NUM_JOINT, NUM_MOVES, NUM_TARGETS, NUM_ULTIMATE
from .sight import (
    CODE_TO_SLOT,
    PAIR_I,
    PAIR_INDEX,
    PAIR_J,
    SAME_TEAM,
    TEAM,
    Masks,
    Sight,
    compute_sight,
    head_masks,
    joint_mask,
    legal_masks,
    sight_lines,
    stunned,
)

__all__ = [
    "HEAD_LIMITS", "HEAD_NAMES", "NUM_JOINT", "NUM_MOVES", "NUM_TARGETS", "NUM_ULTIMATE",
    "CODE_TO_SLOT", "PAIR_I", "PAIR_INDEX", "PAIR_J", "SAME_TEAM", "TEAM", "Masks", "Sight",
    "compute_sight", "head_masks", "joint_mask", "legal_masks", "sight_lines", "stunned",
]  # fmt: skip
