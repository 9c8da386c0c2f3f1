"""TDM-Alpha: a deterministic scripted team, written once over an array namespace.

Style: Alpha holds together and focus-fires. Every agent attacks the most wounded enemy it
may legally hit; Ultimates go where they pay (Burst with an enemy in reach, Charge and
Poison on the most wounded, Trap on a second enemy so the focus target's damage does not
break it, Salvation on an ally below a third of its health); the Priest heals the most
wounded ally in reach. Agents without a target close on the nearest enemy the team sees,
or else advance toward the enemy's end, each in its own lane; an agent blocked for a tick
steps sideways along the obstacle for a few ticks, trying the other side next time.

Known gap: this sidestepping does not find its way around every obstacle; on some maps an
agent in the middle lane stays behind a central wall (see tests/test_scripted.py). Pathing on
a distance field computed from the map is the planned fix.

It reads only its team's inputs (observations and masks) and runs unchanged on NumPy and
under JAX. Memory per agent: last position, ticks left of sidestepping, and which way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import classes as C
from ..core.views import UNIT_FIELDS, UNIT_WIDTH
from .base import TEAM_SLOTS, System, TeamInputs

F32 = np.float32
_OFFSET = {}
_at = 0
for _name, _width in UNIT_FIELDS:
    _OFFSET[_name] = _at
    _at += _width

# Compass moves in the agent's own frame: 0 stay, 1 N, 2 S, 3 E, 4 W, 5 NE, 6 NW, 7 SE, 8 SW.
_D = np.sqrt(0.5)
MOVES = np.asarray(
    [[0, 0], [0, 1], [0, -1], [1, 0], [-1, 0], [_D, _D], [-_D, _D], [_D, -_D], [-_D, -_D]], F32
)
SIDESTEP_TICKS = 4
MEMORY_WIDTH = 4  # last x, last y, sidestep ticks left, sidestep side (+1 left, -1 right)


def _field(obs: Any, row: Any, name: str, width: int = 1) -> Any:
    start = row * UNIT_WIDTH + _OFFSET[name]
    return obs[..., start : start + width] if width > 1 else obs[..., start]


def _own_codes(xp: Any, per_slot: Any) -> Any:
    """Scores per own slot (5, 5) laid out over the 11 target codes (codes 1-5)."""
    pad = xp.zeros((TEAM_SLOTS, 1), F32)
    return xp.concatenate([pad, per_slot.astype(F32), xp.zeros((TEAM_SLOTS, 5), F32)], axis=1)


def _enemy_codes(xp: Any, per_enemy: Any) -> Any:
    """Scores per enemy slot (5, 5) laid out over the 11 target codes (codes 6-10)."""
    return xp.concatenate([xp.zeros((TEAM_SLOTS, 6), F32), per_enemy.astype(F32)], axis=1)


def alpha_memory(xp: Any = np) -> Any:
    return xp.zeros((TEAM_SLOTS, MEMORY_WIDTH), F32)


def alpha_act(xp: Any, inputs: TeamInputs, memory: Any) -> tuple[Any, Any]:
    """One decision for the team's five slots: flat actions (own frame) and new memory."""
    obs, avail = inputs.obs, inputs.avail  # (5, D), (5, 198)
    cls = inputs.classes
    # Enemy rows 5..9 are enemy slots 0..4 for every agent; the team shares its sight.
    enemy_known = xp.stack([_field(obs, 5 + e, "known") for e in range(5)], -1) > 0  # (5, 5)
    enemy_alive = xp.stack([_field(obs, 5 + e, "alive") for e in range(5)], -1) > 0
    enemy_hp = xp.stack([_field(obs, 5 + e, "health_share") for e in range(5)], -1)
    enemy_xy = xp.stack([_field(obs, 5 + e, "position", 2) for e in range(5)], -2)  # (5,5,2)
    seen = enemy_known & enemy_alive
    my_xy = _field(obs, 0, "position", 2)  # (5, 2) normalised (x / 20, y / 10)
    my_hp = _field(obs, 0, "health_share")  # (5,) own health share per slot
    scale = xp.asarray(np.asarray([20.0, 10.0], F32))
    gap = (enemy_xy - my_xy[:, None, :]) * scale  # map units
    dist = xp.sqrt(xp.sum(gap * gap, axis=-1))

    # ---- abilities: score every legal (target, ultimate) pair -----------------------------
    pair_ok = avail.reshape(TEAM_SLOTS, 9, 11, 2).any(axis=1)  # (5, 11, 2)
    wounded = 1.0 - enemy_hp  # (5 agents, 5 enemies)
    focus = xp.argmax(xp.where(seen, wounded + 1e-3 * (5 - xp.arange(5)), -1.0), axis=1)
    enemy_score = xp.where(seen, 1.0 + 2.0 * wounded, 0.0)
    ally_need = 1.0 - my_hp  # by own slot
    is_priest = (cls == C.PRIEST)[:, None]
    heal = xp.broadcast_to(xp.where(ally_need > 0.05, 1.0 + 3.0 * ally_need, 0.0), (TEAM_SLOTS, 5))
    basic_row = xp.where(is_priest, _own_codes(xp, heal), _enemy_codes(xp, enemy_score))
    in_reach = xp.any(pair_ok[:, 6:, 0], axis=1)  # some enemy within Basic range
    second = xp.argmax(xp.where(seen & (xp.arange(5) != focus[:, None]), 5.0 - dist, -1e9), axis=1)
    enemy_idx = xp.arange(5)[None, :]
    ult_enemy = xp.where(
        (cls == C.WARRIOR)[:, None] | (cls == C.ROGUE)[:, None],
        3.0 + enemy_score,
        xp.where((cls == C.HUNTER)[:, None], xp.where(enemy_idx == second[:, None], 2.5, 0.5), 0.0),
    )
    salvation = xp.broadcast_to(xp.where(my_hp < 0.34, 6.0, 0.0), (TEAM_SLOTS, 5))
    ult_row = xp.where(is_priest, _own_codes(xp, salvation), _enemy_codes(xp, ult_enemy))
    burst = xp.where((cls == C.MAGE) & in_reach, 4.0, 0.0)
    ult_row = xp.concatenate([burst[:, None], ult_row[:, 1:]], axis=1)
    score = xp.stack([basic_row, ult_row], axis=-1)
    score = xp.where(pair_ok, score, -1.0)
    score = xp.where((xp.arange(11) == 0)[None, :, None] & (xp.arange(2) == 0), 0.0, score)
    best_pair = xp.argmax(score.reshape(TEAM_SLOTS, 22), axis=1)

    # ---- movement -------------------------------------------------------------------------
    near = xp.argmin(xp.where(seen, dist, 1e9), axis=1)
    sees_any = xp.any(seen, axis=1)
    target_xy = xp.take_along_axis(enemy_xy, near[:, None, None], axis=1)[:, 0, :]
    to_enemy = (target_xy - my_xy) * scale
    # With nobody in sight: head for the enemy's end, fanning out by slot across the height.
    lane = (xp.arange(TEAM_SLOTS).astype(F32) * 2.0 + 1.0) / 10.0
    advance = xp.stack(
        [xp.full((TEAM_SLOTS,), 1.0, F32), (lane - my_xy[:, 1]) * 10.0 * 0.3], axis=1
    )
    goal = xp.where(sees_any[:, None], to_enemy, advance)
    ranged = (cls == C.MAGE) | (cls == C.HUNTER) | (cls == C.PRIEST)
    hold = ranged & in_reach  # ranged agents with a target in reach stand and shoot
    # Sidestep along an obstacle when last tick's move went nowhere.
    last_xy, steps_left, side = memory[:, 0:2], memory[:, 2], memory[:, 3]
    stuck = (xp.sum(xp.abs(last_xy - my_xy), axis=1) < 1e-3) & (steps_left <= 0) & ~hold
    first_side = xp.where(xp.arange(TEAM_SLOTS) % 2 == 0, 1.0, -1.0)
    side = xp.where(side == 0, first_side, side)
    side = xp.where(stuck, -side, side)
    steps_left = xp.where(stuck, float(SIDESTEP_TICKS), xp.maximum(steps_left - 1.0, 0.0))
    perp = xp.stack([-goal[:, 1], goal[:, 0]], axis=1) * side[:, None]
    direction = xp.where((steps_left > 0)[:, None], perp + 0.3 * goal, goal)
    moves = xp.asarray(MOVES)
    move_score = xp.sum(direction[:, None, :] * moves[None, :, :], axis=-1)
    move_ok = avail.reshape(TEAM_SLOTS, 9, 22).any(axis=2)
    move_score = xp.where(move_ok, move_score, -1e9)
    move_score = xp.where(
        (xp.arange(9) == 0)[None, :], xp.where(hold, 1e6, -0.05)[:, None], move_score
    )
    move = xp.argmax(move_score, axis=1)
    # The chosen pair must be legal with the chosen move (it is: masks are a product).
    flat = (move * 22 + best_pair).astype(xp.int32)
    new_memory = xp.concatenate([my_xy, steps_left[:, None], side[:, None]], axis=1).astype(F32)
    return flat, new_memory


def tdm_alpha() -> System:
    """TDM-Alpha as a JAX System (compiled with the game)."""
    import jax.numpy as jnp

    def act(key, inputs, memory):
        del key  # deterministic
        return alpha_act(jnp, inputs, memory)

    return System("tdm-alpha", act, lambda key: alpha_memory(jnp))
