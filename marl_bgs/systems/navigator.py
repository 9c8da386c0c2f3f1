"""Where TDM-Alpha's pathing would walk each agent, as inputs a policy can read.

Why: a policy that imitates the scripted teams learns their targeting almost perfectly but
their walking poorly (issue 43: agreement with TDM-Alpha 0.97 on targets, 0.69 on moves).
The scripted teams walk along distance fields grown over the obstacles in their observations
(`pathing.py`), a computation over the whole map that a small network does not learn from
the obstacle boxes. This module is that computation in one place: TDM-Alpha walks by it, and
`nav_inputs` hands each agent what it concludes (the way to its next waypoint and whether
the team has picked an enemy) as extra inputs for a learned policy.

It reads only the team's own inputs, as the scripted teams do, and keeps its fields in a
memory (`pathing.Paths`, reset at each new game). Written over `xp`: NumPy, JAX and the
browser's engine compute the same numbers (to float rounding).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.backend import clip
from . import percept
from .base import TeamInputs
from .pathing import Grid, Paths, paths_memory, update_paths, waypoints
from .percept import Percept
from .tactics import move_scores, pick_enemy, remember_moves, team_point

F32 = np.float32
NAV_WIDTH = 3  # per agent: the way to its waypoint (x, y; own frame), team has a target
NAV_NAMES = ("toward_x", "toward_y", "has_target")
REACH = 2.0  # offsets to the waypoint are clipped to this many units, then scaled to [-1, 1]


def nav_memory(xp: Any = np) -> Paths:
    """A fresh memory: nothing drawn, no field grown (the first decision of a game resets it
    anyway, from the new-game flag)."""
    return paths_memory(xp)


def alpha_heading(
    xp: Any, inputs: TeamInputs, p: Percept, memory: Paths
) -> tuple[Any, Any, Grid, Paths]:
    """TDM-Alpha's walking plan for one tick: the team's pick (the most wounded enemy it
    sees, the nearer to the team's centre on ties, kept while it stays near), the fields
    grown one tick, and each agent's next waypoint (on the target field once that field has
    reached the agent, else on the advance field toward the enemy's end).

    Returns the waypoints (5, 2), whether the team has a target (), the grid and the memory.
    """
    centre = team_point(xp, p)
    from_centre = xp.sqrt(xp.sum((p.enemy_xy - centre) ** 2, axis=-1))
    _, target_xy, has_target = pick_enemy(
        xp, p, 2.0 * (1.0 - p.enemy_hp) - 0.1 * from_centre, memory.target
    )
    grid, paths = update_paths(
        xp, percept.obstacles(xp, inputs.obs[0]), memory, inputs.new_game, target_xy, has_target
    )
    use_target = xp.broadcast_to(has_target, (p.my_xy.shape[0],))
    return waypoints(xp, grid, paths, p.my_xy, use_target), has_target, grid, paths


def nav_inputs(xp: Any, inputs: TeamInputs, memory: Paths) -> tuple[Any, Paths]:
    """Each agent's navigation inputs (5, NAV_WIDTH) float32 and the memory after this tick.

    `toward` is the offset from the agent to its waypoint in the agent's own frame (the frame
    of its observation), clipped to `REACH` units a side and divided by it: a waypoint is a
    cell or two away, so this is mostly a direction, and far goals (a field that has not
    reached the agent yet) saturate. NumPy and JAX agree to float rounding (the positions
    are read back from the observation's scaled numbers, which XLA may round apart).
    Empty slots and dead agents have rows of zeros.
    """
    p = percept.read(xp, inputs)
    way, has_target, _, paths = alpha_heading(xp, inputs, p, memory)
    toward = clip(xp, way - p.my_xy, F32(-REACH), F32(REACH)) / F32(REACH)
    flag = xp.broadcast_to(xp.asarray(has_target, F32), (p.my_xy.shape[0], 1))
    features = xp.concatenate([toward.astype(F32), flag], axis=-1)
    return xp.where(p.alive[:, None], features, F32(0.0)), paths


def nav_steering(xp: Any, inputs: TeamInputs, memory: Paths) -> tuple[Any, Paths]:
    """TDM-Alpha's score for each of the nine moves (5, 9) float32, before it chooses, and
    the memory to hand `nav_moved` once the move is chosen.

    A move scores its cosine to the way toward the waypoint (the opposite way while the
    agent gives way to a jammed teammate), 1.5 less if it steps into a teammate's body and
    3 less if it already failed where the agent stands; "stay" scores 0, or -2 after a
    failed move. Alpha takes the best legal one, except that its ranged agents with an
    enemy in reach stand still: that choice is the policy's. Illegal moves score -4, and
    dead agents and empty slots have rows of zeros.
    """
    p = percept.read(xp, inputs)
    way, _, _, paths = alpha_heading(xp, inputs, p, memory)
    still = xp.zeros(p.my_xy.shape[0], F32)
    scores, paths = move_scores(xp, p, inputs.avail, way - p.my_xy, still, paths)
    scores = clip(xp, scores / F32(1000.0), F32(-4.0), F32(1.0)).astype(F32)
    return xp.where(p.alive[:, None], scores, F32(0.0)), paths


def nav_moved(xp: Any, inputs: TeamInputs, memory: Paths, move: Any) -> Paths:
    """The memory after the agents took `move` (5,) (0 stay ... 8, own frame) from the tick
    `inputs` describe: which moves failed where each agent stands, and walls it learned by
    bumping into them, as TDM-Alpha keeps them (`tactics.remember_moves`)."""
    return remember_moves(xp, percept.read(xp, inputs), move, memory)


__all__ = [
    "NAV_NAMES",
    "NAV_WIDTH",
    "alpha_heading",
    "nav_inputs",
    "nav_memory",
    "nav_moved",
    "nav_steering",
]
