"""TDM-Alpha: a deterministic scripted team, written once over an array namespace.

Style: Alpha holds together and focus-fires. Every agent attacks the most wounded enemy it
may legally hit; Ultimates go where they pay (Burst with an enemy in reach, Charge and
Poison on the most wounded, Trap on a second enemy so the focus target's damage does not
break it, Salvation on an ally below a third of its health); the Priest heals the most
wounded ally in reach. Ranged agents with an enemy in reach stand and shoot; everyone else
walks, along the team's target field, to the enemy the team has picked (the most wounded
one it sees, the nearer on ties), or, seeing nobody, along the advance field to the enemy's
end, each agent abreast in the lane of its spawn pad.

Walking uses `navigator.alpha_heading` over `pathing.py`: distance fields over the observed obstacles, kept in memory and
grown a few cells a tick, followed downhill. It reads only its team's inputs (observations
and masks) and runs unchanged on NumPy and under JAX.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import classes
from ..core.state import TEAM_SIZE
from . import percept
from .base import System, TeamInputs
from .navigator import alpha_heading
from .pathing import (
    Paths,
    paths_memory,
)
from .tactics import (
    best_pair,
    is_ranged,
    legal_pairs,
    move_and_remember,
    scripted_system,
)

F32 = np.float32


def alpha_memory(xp: Any = np) -> Paths:
    return paths_memory(xp)


def alpha_act(xp: Any, inputs: TeamInputs, memory: Paths, taken: Any = None) -> tuple[Any, Paths]:
    """One decision for the team's five slots: flat actions (own frame) and new memory
    (`taken`: the moves its agents made instead, `tactics.move_and_remember`)."""
    p = percept.read(xp, inputs)
    cls = p.cls
    seen = xp.broadcast_to(p.enemy_seen[None, :], (TEAM_SIZE, 5))

    # ---- abilities: score every legal (target, ultimate) pair -----------------------------
    pair_ok = legal_pairs(inputs.avail)  # (5, 11, 2)
    wounded = xp.broadcast_to((1.0 - p.enemy_hp)[None, :], (TEAM_SIZE, 5))
    focus = xp.argmax(xp.where(seen, wounded + 1e-3 * (5 - xp.arange(5)), -1.0), axis=1)
    enemy_score = xp.where(seen, 1.0 + 2.0 * wounded, 0.0)
    ally_need = 1.0 - p.my_hp  # by own slot
    is_priest = (cls == classes.PRIEST)[:, None]
    heal = xp.broadcast_to(xp.where(ally_need > 0.05, 1.0 + 3.0 * ally_need, 0.0), (TEAM_SIZE, 5))
    basic_row = xp.where(
        is_priest, percept.own_codes(xp, heal), percept.enemy_codes(xp, enemy_score)
    )
    in_reach = xp.any(pair_ok[:, 6:, 0], axis=1)  # some enemy within Basic range
    second = xp.argmax(
        xp.where(seen & (xp.arange(5) != focus[:, None]), 5.0 - p.dist, -1e9), axis=1
    )
    enemy_idx = xp.arange(5)[None, :]
    ult_enemy = xp.where(
        (cls == classes.WARRIOR)[:, None] | (cls == classes.ROGUE)[:, None],
        3.0 + enemy_score,
        xp.where(
            (cls == classes.HUNTER)[:, None], xp.where(enemy_idx == second[:, None], 2.5, 0.5), 0.0
        ),
    )
    salvation = xp.broadcast_to(xp.where(p.my_hp < 0.34, 6.0, 0.0), (TEAM_SIZE, 5))
    ult_row = xp.where(
        is_priest, percept.own_codes(xp, salvation), percept.enemy_codes(xp, ult_enemy)
    )
    burst = xp.where((cls == classes.MAGE) & in_reach, 4.0, 0.0)
    ult_row = xp.concatenate([burst[:, None], ult_row[:, 1:]], axis=1)
    pair = best_pair(xp, basic_row, ult_row, pair_ok)

    # ---- movement: the team's pick, or the enemy's end ------------------------------------
    way, _, _, paths = alpha_heading(xp, inputs, p, memory)
    hold = is_ranged(cls) & in_reach  # ranged agents with a target in reach stand and shoot
    still = xp.where(hold, 2.0, 0.0)
    return move_and_remember(xp, p, inputs.avail, way - p.my_xy, still, paths, pair, taken)


def tdm_alpha() -> System:
    """TDM-Alpha as a JAX System (compiled with the game)."""
    return scripted_system("tdm-alpha", alpha_act, alpha_memory)
