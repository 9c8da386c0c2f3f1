"""TDM-Gamma: a pressing scripted team, written once over an array namespace.

Style: Gamma attacks. It picks the enemy with the least health left in points (not share:
a Mage at 80 falls faster than a Warrior at 200), the nearer on ties, and presses it: nobody
stands still to shoot while the target is out of reach, and ranged agents close to two
thirds of their range. Approaching, the agents of slots 0-1 and 3-4 swing out to the two
flanks (a sideways pull while more than four units away), so the target is hit from several
sides. Combos: the Hunter opens with Freezing Trap on the target once two teammates are
within five units of it; the Mage holds Burst until the target is trapped or its own
reach holds two enemies, then Bursts and fires; the Warrior Charges and the Rogue Poisons the
target on sight; the Priest heals whoever is lowest and spends Salvation below a quarter.
Seeing nobody, it walks the advance field to the enemy's end (pathing: `pathing.py`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import classes
from ..core.state import TEAM_SIZE
from . import percept
from .base import System, TeamInputs
from .pathing import (
    Paths,
    paths_memory,
    update_paths,
    waypoints,
)
from .tactics import (
    basic_range,
    best_pair,
    is_ranged,
    legal_pairs,
    move_and_remember,
    pick_enemy,
    scripted_system,
)

F32 = np.float32
FLANK = np.asarray([1.0, 1.0, 0.0, -1.0, -1.0], F32)  # sideways pull by slot (own frame)


def gamma_memory(xp: Any = np) -> Paths:
    return paths_memory(xp)


def gamma_act(xp: Any, inputs: TeamInputs, memory: Paths, taken: Any = None) -> tuple[Any, Paths]:
    """One decision for the team's five slots: flat actions (own frame) and new memory."""
    p = percept.read(xp, inputs)
    cls = p.cls
    big = F32(1e3)
    hp_points = p.enemy_hp * xp.asarray(classes.MAX_HEALTH)[p.enemy_cls]
    to_team = xp.min(xp.where(p.alive[:, None], p.dist, big), axis=0)
    focus, focus_xy, has_target = pick_enemy(
        xp, p, -hp_points / 40.0 - 0.2 * to_team, memory.target
    )
    is_focus = xp.arange(5) == focus
    seen = xp.broadcast_to(p.enemy_seen[None, :], (TEAM_SIZE, 5))

    # ---- abilities ------------------------------------------------------------------------
    pair_ok = legal_pairs(inputs.avail)
    enemy_score = xp.where(seen, 1.0 + 4.0 * is_focus + (1.0 - p.enemy_hp), 0.0)
    ally_need = 1.0 - p.my_hp
    is_priest = (cls == classes.PRIEST)[:, None]
    heal = xp.broadcast_to(xp.where(ally_need > 0.05, 1.0 + 3.0 * ally_need, 0.0), (TEAM_SIZE, 5))
    basic_row = xp.where(
        is_priest, percept.own_codes(xp, heal), percept.enemy_codes(xp, enemy_score)
    )
    near_focus = xp.sum((p.dist[:, focus] < 5.0) & p.alive)
    trap_now = is_focus & p.enemy_seen & (near_focus >= 2) & ~p.enemy_trapped
    hunter = xp.where(trap_now, 6.0, 0.0)
    press = xp.where(is_focus & p.enemy_seen, 5.0, 0.0)
    ult_enemy = xp.where(
        (cls == classes.HUNTER)[:, None],
        hunter[None, :],
        xp.where(((cls == classes.WARRIOR) | (cls == classes.ROGUE))[:, None], press[None, :], 0.0),
    )
    salvation = xp.broadcast_to(
        xp.where((p.my_hp < 0.25) & p.alive, 8.0, 0.0)[None, :], (TEAM_SIZE, 5)
    )
    ult_row = xp.where(
        is_priest, percept.own_codes(xp, salvation), percept.enemy_codes(xp, ult_enemy)
    )
    reach = pair_ok[:, 6:, 0]  # (5, 5) enemies each agent may hit with its Basic
    combo = xp.any(reach & (is_focus & p.enemy_trapped)[None, :], axis=1)
    crowd = xp.sum(reach, axis=1) >= 2
    burst = xp.where((cls == classes.MAGE) & (combo | crowd), 6.0, 0.0)
    ult_row = xp.concatenate([burst[:, None], ult_row[:, 1:]], axis=1)
    pair = best_pair(xp, basic_row, ult_row, pair_ok)

    # ---- movement -------------------------------------------------------------------------
    grid, paths = update_paths(
        xp, percept.obstacles(xp, inputs.obs[0]), memory, inputs.new_game, focus_xy, has_target
    )
    use_target = xp.broadcast_to(has_target, (TEAM_SIZE,))
    way = waypoints(xp, grid, paths, p.my_xy, use_target)
    direction = way - p.my_xy
    norm = xp.sqrt(xp.sum(direction * direction, axis=-1, keepdims=True))
    direction = direction / xp.maximum(norm, F32(1e-6))
    focus_dist = p.dist[:, focus]
    swing = has_target & (focus_dist > 4.0)
    side = xp.stack([xp.zeros(TEAM_SIZE, F32), xp.asarray(FLANK)], axis=1)
    direction = xp.where(swing[:, None], direction + 0.6 * side, direction)
    ranged = is_ranged(cls)
    hold = ranged & (focus_dist <= basic_range(xp, cls) * (2.0 / 3.0)) & has_target
    hold = hold | (ranged & ~has_target & xp.any(reach, axis=1))
    still = xp.where(hold, 2.0, -0.5)
    return move_and_remember(xp, p, inputs.avail, direction, still, paths, pair, taken)


def tdm_gamma() -> System:
    """TDM-Gamma as a JAX System (compiled with the game)."""
    return scripted_system("tdm-gamma", gamma_act, gamma_memory)
