"""TDM-Beta: a reactive scripted team, written once over an array namespace.

Style: Beta answers what the enemy does. Its target is the threat: the enemy standing
nearest its Priest when one comes within 4 units of her (peeling), else the enemy nearest
its ranged agents. Everyone's Basic prefers the threat, then the wounded. Ultimates are
timed on threats: the Warrior Charges and the Rogue Poisons the threat, the Hunter Traps an
enemy melee that has come within 2.5 of a ranged ally (never the enemy being focused), the
Mage Bursts only when the threat is in its reach, and the Priest saves Salvation for an ally
below 40% health with an enemy close. Ranged agents kite: an enemy Warrior or Rogue within
2.5 makes them step away, and otherwise they keep at the edge of their range rather than
close in. Melee agents walk the target field to the threat; seeing nobody, the team walks the
advance field to the enemy's end (pathing: `pathing.py`).
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
PEEL_RADIUS = 4.0
KITE_RADIUS = 2.5


def beta_memory(xp: Any = np) -> Paths:
    return paths_memory(xp)


def beta_act(xp: Any, inputs: TeamInputs, memory: Paths, taken: Any = None) -> tuple[Any, Paths]:
    """One decision for the team's five slots: flat actions (own frame) and new memory."""
    p = percept.read(xp, inputs)
    cls = p.cls
    ranged = is_ranged(cls) & p.alive
    priest = (cls == classes.PRIEST) & p.alive
    big = F32(1e3)
    # Enemy distance to the nearest living Priest and to the nearest living ranged agent.
    to_priest = xp.min(xp.where(priest[:, None], p.dist, big), axis=0)  # (5 enemies,)
    to_ranged = xp.min(xp.where(ranged[:, None], p.dist, big), axis=0)
    to_team = xp.min(xp.where(p.alive[:, None], p.dist, big), axis=0)
    peel = p.enemy_seen & (to_priest < PEEL_RADIUS)
    threat_score = xp.where(
        xp.any(peel), 10.0 - to_priest, 5.0 - xp.minimum(to_ranged, to_team)
    ) + 0.5 * (1.0 - p.enemy_hp)
    threat, threat_xy, has_target = pick_enemy(xp, p, threat_score, memory.target)
    is_threat = xp.arange(5) == threat  # (5 enemies,)
    melee_enemy = (p.enemy_cls == classes.WARRIOR) | (p.enemy_cls == classes.ROGUE)
    seen = xp.broadcast_to(p.enemy_seen[None, :], (TEAM_SIZE, 5))

    # ---- abilities ------------------------------------------------------------------------
    pair_ok = legal_pairs(inputs.avail)
    wounded = 1.0 - p.enemy_hp
    enemy_score = xp.where(seen, 1.0 + 3.0 * is_threat + wounded, 0.0)
    ally_need = 1.0 - p.my_hp
    is_priest = (cls == classes.PRIEST)[:, None]
    heal = xp.broadcast_to(xp.where(ally_need > 0.05, 1.0 + 3.0 * ally_need, 0.0), (TEAM_SIZE, 5))
    basic_row = xp.where(
        is_priest, percept.own_codes(xp, heal), percept.enemy_codes(xp, enemy_score)
    )
    # Trap: an enemy melee close to one of our ranged agents, not the one we are hitting.
    diving = p.enemy_seen & melee_enemy & (to_ranged < KITE_RADIUS) & ~is_threat
    trap = xp.where(diving, 5.0, 0.0)
    on_threat = xp.where(is_threat & p.enemy_seen, 5.0, 0.0)
    ult_enemy = xp.where(
        (cls == classes.HUNTER)[:, None],
        trap[None, :],
        xp.where(
            ((cls == classes.WARRIOR) | (cls == classes.ROGUE))[:, None], on_threat[None, :], 0.0
        ),
    )
    enemy_near_ally = xp.min(xp.where(seen, p.dist, big), axis=1) < 3.0  # by own slot
    save = xp.where((p.my_hp < 0.4) & enemy_near_ally & p.alive, 8.0, 0.0)
    salvation = xp.broadcast_to(save[None, :], (TEAM_SIZE, 5))
    ult_row = xp.where(
        is_priest, percept.own_codes(xp, salvation), percept.enemy_codes(xp, ult_enemy)
    )
    threat_in_reach = xp.any(pair_ok[:, 6:, 0] & is_threat[None, :], axis=1)
    burst = xp.where((cls == classes.MAGE) & threat_in_reach, 6.0, 0.0)
    ult_row = xp.concatenate([burst[:, None], ult_row[:, 1:]], axis=1)
    pair = best_pair(xp, basic_row, ult_row, pair_ok)

    # ---- movement -------------------------------------------------------------------------
    grid, paths = update_paths(
        xp, percept.obstacles(xp, inputs.obs[0]), memory, inputs.new_game, threat_xy, has_target
    )
    use_target = xp.broadcast_to(has_target, (TEAM_SIZE,))
    way = waypoints(xp, grid, paths, p.my_xy, use_target)
    direction = way - p.my_xy
    # Ranged agents: away from an enemy melee inside KITE_RADIUS; else hold at range edge.
    melee_dist = xp.where(seen & melee_enemy[None, :], p.dist, big)
    chaser = xp.argmin(melee_dist, axis=1)
    chased = ranged & (xp.min(melee_dist, axis=1) < KITE_RADIUS)
    away = -xp.take_along_axis(p.gap, chaser[:, None, None], axis=1)[:, 0, :]
    nearest = xp.min(xp.where(seen, p.dist, big), axis=1)
    edge = basic_range(xp, cls)
    too_close = ranged & (nearest < edge - 1.0)
    nearest_gap = xp.take_along_axis(
        p.gap, xp.argmin(xp.where(seen, p.dist, big), axis=1)[:, None, None], axis=1
    )[:, 0, :]
    direction = xp.where(too_close[:, None], -nearest_gap, direction)
    direction = xp.where(chased[:, None], away, direction)
    in_reach = xp.any(pair_ok[:, 6:, 0], axis=1)
    hold = ranged & (in_reach | (nearest < edge + 0.5)) & ~chased & ~too_close
    # The Priest stays with the team: if her allies are far, she walks to the nearest one.
    mates = p.alive[None, :] & ~xp.asarray(np.eye(TEAM_SIZE, dtype=bool))
    mate = xp.argmin(xp.where(mates, p.ally_dist, big), axis=1)
    mate_gap = xp.take_along_axis(p.ally_gap, mate[:, None, None], axis=1)[:, 0, :]
    lonely = (cls == classes.PRIEST) & (xp.min(xp.where(mates, p.ally_dist, big), axis=1) > 3.0)
    lonely = lonely & xp.any(p.enemy_seen) & ~chased
    direction = xp.where(lonely[:, None], mate_gap, direction)
    hold = hold & ~lonely
    still = xp.where(hold, 2.0, 0.0)
    return move_and_remember(xp, p, inputs.avail, direction, still, paths, pair, taken)


def tdm_beta() -> System:
    """TDM-Beta as a JAX System (compiled with the game)."""
    return scripted_system("tdm-beta", beta_act, beta_memory)
