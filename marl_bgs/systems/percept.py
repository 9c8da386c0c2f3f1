"""Reading a team's observations into named arrays, for the scripted opponents.

The scripted teams see exactly what `TeamInputs` holds: each agent's own-frame observation
(`core/observation.py` lays it out) and its exact masks. This module only slices those numbers by
name and scales them back to map units, once, so that the opponents read like tactics instead
of offsets. Written over an `xp` namespace: NumPy and jax.numpy alike.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core import classes
from ..core.movement import MOVE_DIRECTIONS
from ..core.observation import (
    BOX_SLICES,
    BOX_START,
    BOX_WIDTH,
    MAX_TURNED_WALLS,
    UNIT_SLICES,
    UNIT_WIDTH,
    WALL_SLICES,
    WALL_START,
    WALL_WIDTH,
)
from ..core.state import MAX_OBSTACLES, TEAM_SIZE
from .base import TeamInputs

F32 = np.float32
ARENA = np.asarray([20.0, 10.0], F32)  # map size; observations store x / 20 and y / 10
UNITS = 2 * TEAM_SIZE


def _field(values: Any, at: slice, start: int = 0) -> Any:
    """A field of a block (last axis) by its slice: one column as a vector, wider as is."""
    width = at.stop - at.start
    first = start + at.start
    return values[..., first : first + width] if width > 1 else values[..., first]


def unit_field(obs: Any, row: int, name: str) -> Any:
    """One field of unit row `row` (0 self, 1-4 allies, 5-9 enemies) for every agent."""
    return _field(obs, UNIT_SLICES[name], row * UNIT_WIDTH)


class Percept(NamedTuple):
    """A team's view in map units, own frame (own spawn end on the left)."""

    my_xy: Any  # (5, 2) each agent's position
    my_hp: Any  # (5,) health share
    my_ready: Any  # (5,) bool, Ultimate ready
    my_shielded: Any  # (5,) bool, still under the spawn shield
    my_held: Any  # (5,) bool, stunned or trapped (cannot move this tick)
    alive: Any  # (5,) bool, present and alive
    cls: Any  # (5,) int class ids
    enemy_xy: Any  # (5, 2) enemy slots' positions (zeros when unseen)
    enemy_seen: Any  # (5,) bool, known to the team and alive
    enemy_hp: Any  # (5,) health share
    enemy_cls: Any  # (5,) int class ids (0 when unseen)
    enemy_trapped: Any  # (5,) bool, held by a Freezing Trap
    enemy_ready: Any  # (5,) bool, the enemy's Ultimate is ready
    gap: Any  # (5 agents, 5 enemies, 2) enemy minus own position
    dist: Any  # (5, 5) distances agent -> enemy
    ally_gap: Any  # (5, 5, 2) own slot j minus own slot i
    ally_dist: Any  # (5, 5)


def read(xp: Any, inputs: TeamInputs) -> Percept:
    """Name and scale what the team sees; enemies are the same rows for every agent."""
    obs = inputs.obs
    scale = xp.asarray(ARENA)
    my_xy = unit_field(obs, 0, "position") * scale
    # The team shares sight, so agent 0's enemy rows hold what everyone knows (own sight
    # differs per agent, but the masks carry that).
    enemy = [obs[0, (5 + e) * UNIT_WIDTH : (6 + e) * UNIT_WIDTH] for e in range(TEAM_SIZE)]
    enemy = xp.stack(enemy, 0)  # (5, UNIT_WIDTH)

    def ef(name: str) -> Any:
        return _field(enemy, UNIT_SLICES[name])

    enemy_xy = ef("position") * scale
    enemy_seen = (ef("known") > 0) & (ef("alive") > 0)
    effects = ef("effects")
    gap = enemy_xy[None, :, :] - my_xy[:, None, :]
    ally_gap = my_xy[None, :, :] - my_xy[:, None, :]
    return Percept(
        my_xy=my_xy,
        my_hp=unit_field(obs, 0, "health_share"),
        my_ready=unit_field(obs, 0, "ultimate_ready") > 0,
        my_shielded=unit_field(obs, 0, "shield") > 0,
        my_held=(unit_field(obs, 0, "effects")[:, classes.STUN] > 0)
        | (unit_field(obs, 0, "effects")[:, classes.TRAP] > 0),
        alive=inputs.alive & inputs.present,
        cls=inputs.classes,
        enemy_xy=enemy_xy,
        enemy_seen=enemy_seen,
        enemy_hp=ef("health_share"),
        enemy_cls=xp.argmax(ef("class"), axis=-1),
        enemy_trapped=effects[:, classes.TRAP] > 0,
        enemy_ready=ef("ultimate_ready") > 0,
        gap=gap,
        dist=xp.sqrt(xp.sum(gap * gap, axis=-1)),
        ally_gap=ally_gap,
        ally_dist=xp.sqrt(xp.sum(ally_gap * ally_gap, axis=-1)),
    )


class Obstacles(NamedTuple):
    """The map's obstacles in map units and the team's frame, padded to fixed counts."""

    box_lo: Any  # (32, 2) lower-left corner, or a pillar's centre
    box_hi: Any  # (32, 2)
    box_radius: Any  # (32,) pillar radius, 0 for walls
    box_valid: Any  # (32,) bool
    wall_corners: Any  # (8, 4, 2) turned walls
    wall_valid: Any  # (8,) bool


def obstacles(xp: Any, obs_row: Any) -> Obstacles:
    """The obstacles as one agent sees them (every agent of a team shares the frame)."""
    scale = xp.asarray(ARENA)
    boxes = obs_row[BOX_START:WALL_START].reshape(MAX_OBSTACLES, BOX_WIDTH)
    walls = obs_row[WALL_START : WALL_START + MAX_TURNED_WALLS * WALL_WIDTH].reshape(
        MAX_TURNED_WALLS, WALL_WIDTH
    )
    return Obstacles(
        box_lo=_field(boxes, BOX_SLICES["low"]) * scale,
        box_hi=_field(boxes, BOX_SLICES["high"]) * scale,
        box_radius=_field(boxes, BOX_SLICES["radius"]) * F32(20.0),
        box_valid=_field(boxes, BOX_SLICES["valid"]) > 0,
        wall_corners=_field(walls, WALL_SLICES["corners"]).reshape(MAX_TURNED_WALLS, 4, 2) * scale,
        wall_valid=_field(walls, WALL_SLICES["valid"]) > 0,
    )


def own_codes(xp: Any, per_slot: Any) -> Any:
    """Scores per own slot (5, 5) laid out over the 11 target codes (codes 1-5)."""
    pad = xp.zeros((TEAM_SIZE, 1), F32)
    return xp.concatenate([pad, per_slot.astype(F32), xp.zeros((TEAM_SIZE, 5), F32)], axis=1)


def enemy_codes(xp: Any, per_enemy: Any) -> Any:
    """Scores per enemy slot (5, 5) laid out over the 11 target codes (codes 6-10)."""
    return xp.concatenate([xp.zeros((TEAM_SIZE, 6), F32), per_enemy.astype(F32)], axis=1)


# Unit steps of the moves (in the agent's own frame), float32 for the scripted teams' sums.
MOVE_STEPS = MOVE_DIRECTIONS.astype(F32)
