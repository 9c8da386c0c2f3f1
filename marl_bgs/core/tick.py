"""One tick of Team Deathmatch, in the order of the rules (RULES.md, "Tick order").

`step(xp, state, actions, m)` is a pure function of the state, the raw actions (10, 3) and the
map; it returns the next state and a `TickInfo` of everything that happened, from which
events, metrics and replays are read. All arithmetic is on integers (milli-units, milli-HP),
so NumPy and XLA agree bit for bit.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import classes as C
from .movement import charge_landing, move_bodies, planned_strides
from .ops import stack
from .shield_exit import clear_of_bodies
from .sight import CODE_TO_SLOT, SAME_TEAM, TEAM, Sight, compute_sight, legal_masks
from .state import (
    ARENA_WIDTH_MILLI,
    LEFT,
    NUM_SLOTS,
    RESULT_A,
    RESULT_B,
    RESULT_DRAW,
    RESULT_OPEN,
    MapArrays,
    State,
    pad_positions,
)
from .types import Array, Namespace

_SELF = np.eye(NUM_SLOTS, dtype=bool)  # (source, recipient): an agent's effects on itself
_TRAP = np.arange(C.NUM_EFFECTS) == C.TRAP
_SLOTS = np.arange(NUM_SLOTS)  # made once: NumPy pays per call
_DURATION = np.asarray(C.EFFECT_DURATION, np.int32)
# Integer constants of `where` as 0-d int32 arrays: NumPy converts a Python scalar argument
# of `where` on every call (about 1 us); the same values and dtypes on both engines.
_I0, _I1, _I2, _I_NONE = (np.asarray(v, np.int32) for v in (0, 1, 2, -1))


class TickInfo(NamedTuple):
    """What happened in one tick; arrays indexed by global slot."""

    actions: Array  # (10, 3) accepted actions
    damage: Array  # (10, 10) damage dealt in milli-HP [source, recipient]
    healing: Array  # (10, 10) ability healing given [source, recipient], after Poison's cut
    excess: Array  # (10,) ability healing above max health, per recipient
    effects: Array  # (10, 10, 8) effects applied [source, recipient, effect]
    trap_broken: Array  # (10,) a Trap from an earlier tick broken by damage
    killed: Array  # (10,) died this tick
    points: Array  # (10,) points the death gave the other team (0 if no death)
    charged_to: Array  # (10, 2) where each Warrior's Charge landed (its start if none)
    respawned: Array  # (10,) returned in this tick's wave
    rest_heal: Array  # (10,) out-of-combat healing received
    shield_cleared: Array  # (10,) moved off a body as its shield ended


def legalise(xp: Namespace, actions: Array, state: State, sight, masks: Any = None) -> Array:
    """Illegal moves become stay; illegal (target, Ultimate) pairs become none. `masks`
    may pass `legal_masks` of this state and sight if the caller already has them."""
    masks = legal_masks(xp, state, sight) if masks is None else masks
    move, target, ult = actions[:, 0], actions[:, 1], actions[:, 2]
    rows = _SLOTS
    move_ok = masks.move[rows, move]
    pair_ok = masks.pair[rows, target, ult]
    zero = xp.zeros_like(move)
    return stack(
        xp,
        [
            xp.where(move_ok, move, zero),
            xp.where(pair_ok, target, zero),
            xp.where(pair_ok, ult, zero),
        ],
        axis=1,
    ).astype(np.int32)


def step(
    xp: Namespace,
    state: State,
    actions: Array,
    m: MapArrays,
    sight: Sight | None = None,
    masks: Any = None,
) -> tuple[State, TickInfo]:
    """One tick. `sight` may pass the start-of-tick sight, and `masks` the legal masks of
    this state and sight, if the caller already has them."""
    cls = state.cls
    max_hp = xp.asarray(C.MAX_HEALTH_MILLI)[cls]
    team = xp.asarray(TEAM)
    same_team = xp.asarray(SAME_TEAM)  # team[:, None] == team[None, :]
    living = state.present & state.alive
    unshielded = state.shield == 0

    # 1. Legalise, from start-of-tick sight.
    sight = compute_sight(xp, state, m) if sight is None else sight
    acts = legalise(xp, xp.asarray(actions, dtype=np.int32), state, sight, masks)
    move, tcode, ult = acts[:, 0], acts[:, 1], acts[:, 2]
    used_ult = ult == 1
    used_basic = (tcode > 0) & ~used_ult
    tslot = xp.asarray(CODE_TO_SLOT)[_SLOTS, tcode]
    aims = tslot[:, None] == xp.arange(NUM_SLOTS)[None, :]  # (source, recipient)

    # 2. Combat from start-of-tick positions and statuses, looked up in integer tables.
    emitter = living & unshielded
    near = (sight.dist_sq <= C.AURA_RADIUS_SQ) & same_team
    mages = (near & (emitter & (cls == C.MAGE))[None, :]).sum(axis=1)
    warriors = (near & (emitter & (cls == C.WARRIOR))[None, :]).sum(axis=1)
    mages = xp.minimum(mages, C.AURA_MAX_EMITTERS).astype(np.int32)
    warriors = xp.minimum(warriors, C.AURA_MAX_EMITTERS).astype(np.int32)
    burst = (state.effects[:, C.BURST] > 0).astype(np.int32)
    u = used_ult.astype(np.int32)
    table = xp.asarray(C.DAMAGE_MILLI)
    dealt = table[cls[:, None], u[:, None], mages[:, None], burst[:, None], warriors[None, :]]
    damage = xp.where(aims, dealt, _I0).astype(np.int32)
    cut = (state.effects[:, C.HEALING_CUT] > 0).astype(np.int32)
    given = xp.asarray(C.HEAL_MILLI)[cls[:, None], u[:, None], cut[None, :]]
    healing = xp.where(aims, given, _I0).astype(np.int32)
    taken = damage.sum(axis=0)
    healed = healing.sum(axis=0)
    raw = state.health - taken + healed
    excess = xp.minimum(healed, xp.maximum(raw - max_hp, 0))
    health = xp.minimum(max_hp, raw)
    killed = living & (health <= 0)
    health = xp.where(killed | ~living, _I0, health)
    alive = state.alive & ~killed
    survivors = state.present & alive

    deals = (damage > 0).any(axis=1)
    takes = taken > 0
    fighting = deals | takes
    delay = xp.asarray(C.OUT_OF_COMBAT_DELAY)[cls]
    hot = fighting | (state.out_of_combat < delay)
    heals = healing > 0
    in_combat = fighting | (heals.any(axis=0) & hot) | (heals & hot[None, :]).any(axis=1)

    # 3. Charge relocation, with start-of-tick bodies of everyone who survived combat.
    charging = used_ult & (cls == C.WARRIOR) & survivors
    goal = xp.where(aims[:, :, None], state.pos[None, :, :], _I0).sum(axis=1)
    bodies = survivors & unshielded
    after_charge = charge_landing(xp, state.pos, goal, charging, bodies, m)

    # 4. Ordinary movement with start-of-tick statuses: each agent's planned stride (speeds
    # from an integer table; stunned agents plan none), and none for those combat killed.
    stride = xp.where(survivors[:, None], planned_strides(xp, state, move), _I0)
    end_of_slot = state.spawn_end[team]
    pos = move_bodies(xp, after_charge, stride, bodies, m, end_of_slot)
    pos = xp.where(survivors[:, None], pos, state.pos)

    # 5. Statuses: break Traps hit on a later tick, age, then apply this tick's effects.
    source_cls_effects = xp.where(
        used_ult[:, None], xp.asarray(C.ULTIMATE_EFFECTS)[cls], xp.asarray(C.BASIC_EFFECTS)[cls]
    )
    source_cls_effects = source_cls_effects & (used_ult | used_basic)[:, None]
    effect_from = aims[:, :, None] & source_cls_effects[:, None, :]
    self_effects = xp.asarray(C.SELF_EFFECTS_ON_ULTIMATE)[cls] & used_ult[:, None]
    effect_from = effect_from | (xp.asarray(_SELF)[:, :, None] & self_effects[:, None, :])
    applied = effect_from.any(axis=0)
    trap_broken = (state.effects[:, C.TRAP] > 0) & takes
    effects = xp.where(xp.asarray(_TRAP)[None, :] & trap_broken[:, None], _I0, state.effects)
    effects = xp.maximum(effects - 1, 0)
    duration = xp.asarray(_DURATION)
    effects = xp.where(applied, xp.maximum(effects, duration[None, :]), effects)
    effects = xp.where(alive[:, None], effects, _I0).astype(np.int32)
    shield = xp.where(alive, xp.maximum(state.shield - 1, 0), _I0).astype(np.int32)
    leaving = survivors & (state.shield == 1)
    settled = survivors & (state.shield == 0)
    cleared_pos = clear_of_bodies(xp, pos, leaving, settled, end_of_slot, m)
    shield_cleared = (cleared_pos != pos).any(axis=1)
    pos = cleared_pos
    cooldown = xp.where(
        used_ult, np.int32(C.ULTIMATE_COOLDOWN - 1), xp.maximum(state.ultimate_cooldown - 1, 0)
    ).astype(np.int32)

    # 6. Deaths and points; the Red Zone is judged from start-of-tick positions.
    x = state.pos[:, 0]
    depth = state.red_zone_depth
    in_red = xp.where(end_of_slot == LEFT, x <= depth, x >= ARENA_WIDTH_MILLI - depth)
    points = xp.where(killed, xp.where(in_red, _I2, _I1), _I0).astype(np.int32)
    gained = stack(
        xp, [xp.where(team == 1, points, _I0).sum(), xp.where(team == 0, points, _I0).sum()]
    )
    score = (state.score + gained).astype(np.int32)
    tick = state.tick + 1

    # 7. Respawn waves.
    clock = state.wave_clock - 1
    fires = clock <= 0
    wave_clock = xp.where(fires, C.RESPAWN_PERIOD, clock).astype(np.int32)
    respawned = state.present & ~state.alive & fires[team]
    pads = pad_positions(state.spawn_end, xp)
    pos = xp.where(respawned[:, None], pads, pos).astype(np.int32)
    health = xp.where(respawned, max_hp, health)
    alive = alive | respawned
    shield = xp.where(respawned, C.SHIELD_TICKS, shield).astype(np.int32)

    # 8. Out-of-combat healing for survivors that took no part in combat.
    rests = survivors & ~in_combat & (state.out_of_combat >= delay)
    rest_heal = xp.asarray(C.REST_HEAL_MILLI)[cls, cut]
    rest_heal = xp.where(rests, xp.minimum(rest_heal, max_hp - health), _I0).astype(np.int32)
    health = (health + rest_heal).astype(np.int32)
    ooc = xp.where(survivors & ~in_combat, state.out_of_combat + 1, _I0).astype(np.int32)

    # Result: the ending tick is completed in full before the game is marked done.
    win = state.winning_score
    top = xp.maximum(score[0], score[1])
    decided = top >= win
    result = xp.where(
        decided,
        xp.where(
            score[0] > score[1], RESULT_A, xp.where(score[1] > score[0], RESULT_B, RESULT_DRAW)
        ),
        xp.where(tick >= state.horizon, RESULT_DRAW, RESULT_OPEN),
    ).astype(np.int32)
    last_action = xp.where(state.present[:, None], acts, _I_NONE).astype(np.int32)

    new_state = State(
        tick=xp.asarray(tick, dtype=np.int32),
        horizon=state.horizon,
        winning_score=state.winning_score,
        red_zone_depth=state.red_zone_depth,
        score=score,
        spawn_end=state.spawn_end,
        wave_clock=wave_clock,
        result=result,
        present=state.present,
        alive=alive,
        cls=state.cls,
        pos=pos,
        health=health,
        ultimate_cooldown=cooldown,
        shield=shield,
        out_of_combat=ooc,
        effects=effects,
        last_action=last_action,
    )
    info = TickInfo(
        actions=acts,
        damage=damage,
        healing=healing,
        excess=excess,
        effects=effect_from,
        trap_broken=trap_broken,
        killed=killed,
        points=points,
        charged_to=after_charge,
        respawned=respawned,
        rest_heal=rest_heal,
        shield_cleared=shield_cleared,
    )
    return new_state, info


__all__ = ["TickInfo", "step", "legalise"]
