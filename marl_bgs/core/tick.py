"""One tick of Team Deathmatch, in the order of the rules (RULES.md, "Tick order").

`step(xp, state, actions, m)` is a pure function of the state, the raw actions (10, 3) and the
map; it returns the next state and a `TickInfo` of everything that happened, from which
events, metrics and replays are read. All arithmetic is on integers (milli-units, milli-HP),
so NumPy and XLA agree bit for bit.

`step` reads like the rule list: one function per phase (`legal_orders`, `resolve_combat`,
`charge_relocation`, `ordinary_movement`, `update_statuses`, `deaths_and_points`,
`respawn_wave`, `rest_healing`, then `game_result`), each returning a small record of what
the later phases read. `start_of_tick` gathers the per-slot facts several phases share.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import classes
from .array_ops import stack
from .backend import is_numpy
from .movement import charge_landing, move_bodies, planned_strides
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
_TRAP = np.arange(classes.NUM_EFFECTS) == classes.TRAP
_SLOTS = np.arange(NUM_SLOTS)  # made once: NumPy pays per call
_DURATION = np.asarray(classes.EFFECT_DURATION, np.int32)
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


class StartOfTick(NamedTuple):
    """Per-slot facts of the start of the tick that several phases read."""

    cls: Array  # (10,) class ids
    max_hp: Array  # (10,) milli-HP
    team: Array  # (10,) 0 or 1
    living: Array  # (10,) present and alive
    unshielded: Array  # (10,) no spawn shield
    end_of_slot: Array  # (10,) the spawn end of each slot's team


class Orders(NamedTuple):
    """Rule 1: the accepted actions."""

    acts: Array  # (10, 3) legal (move, target code, Ultimate)
    move: Array  # (10,) compass move
    used_ult: Array  # (10,) uses its Ultimate
    used_basic: Array  # (10,) uses its Basic
    aims: Array  # (10, 10) [source, recipient]: the ability's target


class Combat(NamedTuple):
    """Rule 2: what combat dealt, who survived it, and who is in combat."""

    damage: Array  # (10, 10) milli-HP [source, recipient]
    healing: Array  # (10, 10) milli-HP [source, recipient], after Poison's cut
    excess: Array  # (10,) healing above max health, per recipient
    health: Array  # (10,) after combat (0 for the dead and the absent)
    killed: Array  # (10,) died this tick
    alive: Array  # (10,) alive after combat
    survivors: Array  # (10,) present and alive after combat
    takes: Array  # (10,) took damage
    in_combat: Array  # (10,) dealt or took damage, or healed or was healed in combat
    cut: Array  # (10,) int32 1 under Poison's healing cut
    delay: Array  # (10,) ticks out of combat before resting heals


class Statuses(NamedTuple):
    """Rule 5: effects, shields and cooldowns for the next decision."""

    effects: Array  # (10, 8) ticks left of each effect
    effect_from: Array  # (10, 10, 8) effects applied [source, recipient, effect]
    trap_broken: Array  # (10,) a Trap from an earlier tick broken by damage
    shield: Array  # (10,) shield ticks left
    cooldown: Array  # (10,) Ultimate cooldown left
    pos: Array  # (10, 2) after agents whose shield ended moved clear of bodies
    shield_cleared: Array  # (10,) moved off a body as its shield ended


class Points(NamedTuple):
    """Rule 6: the points of this tick's deaths."""

    points: Array  # (10,) points each death gave the other team
    score: Array  # (2,) both teams' scores after this tick


class Wave(NamedTuple):
    """Rule 7: who returned in this tick's wave, and the state that changes with it."""

    wave_clock: Array  # (2,) ticks to each team's next wave
    respawned: Array  # (10,) returned in this tick's wave
    pos: Array  # (10, 2)
    health: Array  # (10,)
    alive: Array  # (10,)
    shield: Array  # (10,)


class Rest(NamedTuple):
    """Rule 8: out-of-combat healing."""

    rest_heal: Array  # (10,) healing received
    health: Array  # (10,)
    out_of_combat: Array  # (10,) ticks out of combat


def start_of_tick(xp: Namespace, state: State) -> StartOfTick:
    """The start-of-tick facts that several phases read (computed once)."""
    cls = state.cls
    team = xp.asarray(TEAM)
    return StartOfTick(
        cls=cls,
        max_hp=xp.asarray(classes.MAX_HEALTH_MILLI)[cls],
        team=team,
        living=state.present & state.alive,
        unshielded=state.shield == 0,
        end_of_slot=state.spawn_end[team],
    )


def legal_orders(
    xp: Namespace, state: State, actions: Array, sight: Sight, masks: Any = None
) -> Orders:
    """Rule 1, legalise actions from start-of-tick sight: an illegal move becomes stay, an
    illegal (target, Ultimate) pair becomes no target and no Ultimate (`legalise`)."""
    acts = legalise(xp, xp.asarray(actions, dtype=np.int32), state, sight, masks)
    move, tcode, ult = acts[:, 0], acts[:, 1], acts[:, 2]
    used_ult = ult == 1
    tslot = xp.asarray(CODE_TO_SLOT)[_SLOTS, tcode]
    return Orders(
        acts=acts,
        move=move,
        used_ult=used_ult,
        used_basic=(tcode > 0) & ~used_ult,
        aims=tslot[:, None] == xp.arange(NUM_SLOTS)[None, :],  # (source, recipient)
    )


def _per_pair(xp: Namespace, table: np.ndarray, source: tuple, recipient: Array) -> Array:
    """(10, 10) `table[*source_indices[i], recipient_index[j]]` for each (source, recipient),
    indices in range.

    Why: the lookup by five broadcast indices is, under XLA on the CPU, a gather over every
    pair with a five-part index built per element (0.4 ms a tick at 1,024 games). Here each
    source's row of the table is looked up once (its indices folded into one), and the
    recipient's column chosen among the few. NumPy indexes as written (one call).
    """
    table = np.asarray(table)
    if is_numpy(xp):
        return table[tuple(index[:, None] for index in source) + (recipient[None, :],)]
    flat = source[0]
    for index, size in zip(source[1:], table.shape[1:-1], strict=True):
        flat = flat * size + index
    rows = xp.asarray(table.reshape(-1, table.shape[-1]))[flat]  # (10, columns)
    out = rows[:, -1:]
    for column in range(table.shape[-1] - 2, -1, -1):
        out = xp.where(recipient[None, :] == column, rows[:, column : column + 1], out)
    return out


def resolve_combat(
    xp: Namespace, state: State, start: StartOfTick, sight: Sight, orders: Orders
) -> Combat:
    """Rule 2, combat from start-of-tick positions, sight and statuses, looked up in integer
    tables: damage = base x attacker's Mage auras x attacker's Burst x target's Warrior
    auras, healing = base x target's Poison cut; new health is capped at max health (the
    rest is excess) and an agent dies at 0 or less. Also who is in combat (rule 8's test)."""
    cls, same_team = start.cls, xp.asarray(SAME_TEAM)  # team[:, None] == team[None, :]
    emitter = start.living & start.unshielded
    near = (sight.dist_sq <= classes.AURA_RADIUS_SQ) & same_team
    mages = (near & (emitter & (cls == classes.MAGE))[None, :]).sum(axis=1)
    warriors = (near & (emitter & (cls == classes.WARRIOR))[None, :]).sum(axis=1)
    mages = xp.minimum(mages, classes.AURA_MAX_EMITTERS).astype(np.int32)
    warriors = xp.minimum(warriors, classes.AURA_MAX_EMITTERS).astype(np.int32)
    burst = (state.effects[:, classes.BURST] > 0).astype(np.int32)
    u = orders.used_ult.astype(np.int32)
    dealt = _per_pair(xp, classes.DAMAGE_MILLI, (cls, u, mages, burst), warriors)
    damage = xp.where(orders.aims, dealt, _I0).astype(np.int32)
    cut = (state.effects[:, classes.HEALING_CUT] > 0).astype(np.int32)
    given = _per_pair(xp, classes.HEAL_MILLI, (cls, u), cut)
    healing = xp.where(orders.aims, given, _I0).astype(np.int32)
    taken = damage.sum(axis=0)
    healed = healing.sum(axis=0)
    raw = state.health - taken + healed
    excess = xp.minimum(healed, xp.maximum(raw - start.max_hp, 0))
    health = xp.minimum(start.max_hp, raw)
    killed = start.living & (health <= 0)
    health = xp.where(killed | ~start.living, _I0, health)
    alive = state.alive & ~killed

    deals = (damage > 0).any(axis=1)
    takes = taken > 0
    fighting = deals | takes
    delay = xp.asarray(classes.OUT_OF_COMBAT_DELAY)[cls]
    hot = fighting | (state.out_of_combat < delay)
    heals = healing > 0
    in_combat = fighting | (heals.any(axis=0) & hot) | (heals & hot[None, :]).any(axis=1)
    return Combat(
        damage=damage,
        healing=healing,
        excess=excess,
        health=health,
        killed=killed,
        alive=alive,
        survivors=state.present & alive,
        takes=takes,
        in_combat=in_combat,
        cut=cut,
        delay=delay,
    )


def charge_relocation(
    xp: Namespace, state: State, start: StartOfTick, orders: Orders, fight: Combat, m: MapArrays
) -> tuple[Array, Array]:
    """Rule 3, Charge relocation: each surviving Warrior that used its Ultimate moves toward
    its target and stops touching it, among start-of-tick bodies of everyone who survived
    combat (`charge_landing`). Returns where each agent stands after it, and those bodies."""
    charging = orders.used_ult & (start.cls == classes.WARRIOR) & fight.survivors
    goal = xp.where(orders.aims[:, :, None], state.pos[None, :, :], _I0).sum(axis=1)
    bodies = fight.survivors & start.unshielded
    return charge_landing(xp, state.pos, goal, charging, bodies, m), bodies


def ordinary_movement(
    xp: Namespace,
    state: State,
    start: StartOfTick,
    orders: Orders,
    fight: Combat,
    after_charge: Array,
    bodies: Array,
    m: MapArrays,
) -> Array:
    """Rule 4, ordinary movement with start-of-tick statuses: each agent's planned stride
    (speeds from an integer table; stunned agents plan none, and those combat killed none),
    blocked by bodies and obstacles (`move_bodies`). Returns (10, 2) positions."""
    stride = xp.where(fight.survivors[:, None], planned_strides(xp, state, orders.move), _I0)
    pos = move_bodies(xp, after_charge, stride, bodies, m, start.end_of_slot)
    return xp.where(fight.survivors[:, None], pos, state.pos)


def update_statuses(
    xp: Namespace,
    state: State,
    start: StartOfTick,
    orders: Orders,
    fight: Combat,
    pos: Array,
    m: MapArrays,
) -> Statuses:
    """Rule 5, statuses: break Traps hit on a later tick, age every effect, then apply this
    tick's (re-application refreshes the duration); shields run down, and an agent whose
    shield ends moves clear of every body (`clear_of_bodies`); Ultimate cooldowns."""
    cls, used_ult = start.cls, orders.used_ult
    source_cls_effects = xp.where(
        used_ult[:, None],
        xp.asarray(classes.ULTIMATE_EFFECTS)[cls],
        xp.asarray(classes.BASIC_EFFECTS)[cls],
    )
    source_cls_effects = source_cls_effects & (used_ult | orders.used_basic)[:, None]
    effect_from = orders.aims[:, :, None] & source_cls_effects[:, None, :]
    self_effects = xp.asarray(classes.SELF_EFFECTS_ON_ULTIMATE)[cls] & used_ult[:, None]
    effect_from = effect_from | (xp.asarray(_SELF)[:, :, None] & self_effects[:, None, :])
    applied = effect_from.any(axis=0)
    trap_broken = (state.effects[:, classes.TRAP] > 0) & fight.takes
    effects = xp.where(xp.asarray(_TRAP)[None, :] & trap_broken[:, None], _I0, state.effects)
    effects = xp.maximum(effects - 1, 0)
    duration = xp.asarray(_DURATION)
    effects = xp.where(applied, xp.maximum(effects, duration[None, :]), effects)
    effects = xp.where(fight.alive[:, None], effects, _I0).astype(np.int32)
    shield = xp.where(fight.alive, xp.maximum(state.shield - 1, 0), _I0).astype(np.int32)
    leaving = fight.survivors & (state.shield == 1)
    settled = fight.survivors & (state.shield == 0)
    cleared_pos = clear_of_bodies(xp, pos, leaving, settled, start.end_of_slot, m)
    cooldown = xp.where(
        used_ult,
        np.int32(classes.ULTIMATE_COOLDOWN - 1),
        xp.maximum(state.ultimate_cooldown - 1, 0),
    ).astype(np.int32)
    return Statuses(
        effects=effects,
        effect_from=effect_from,
        trap_broken=trap_broken,
        shield=shield,
        cooldown=cooldown,
        pos=cleared_pos,
        shield_cleared=(cleared_pos != pos).any(axis=1),
    )


def deaths_and_points(xp: Namespace, state: State, start: StartOfTick, fight: Combat) -> Points:
    """Rule 6, deaths and points: each death gives the other team 1 point, 2 if the victim
    started the tick in its own Red Zone (judged from start-of-tick positions)."""
    x = state.pos[:, 0]
    depth = state.red_zone_depth
    in_red = xp.where(start.end_of_slot == LEFT, x <= depth, x >= ARENA_WIDTH_MILLI - depth)
    points = xp.where(fight.killed, xp.where(in_red, _I2, _I1), _I0).astype(np.int32)
    team = start.team
    gained = stack(
        xp, [xp.where(team == 1, points, _I0).sum(), xp.where(team == 0, points, _I0).sum()]
    )
    return Points(points=points, score=(state.score + gained).astype(np.int32))


def respawn_wave(
    xp: Namespace, state: State, start: StartOfTick, fight: Combat, status: Statuses
) -> Wave:
    """Rule 7, respawn waves: each team's wave clock counts down (period 5); at a wave its
    dead agents return to their spawn pads at full health with a spawn shield."""
    clock = state.wave_clock - 1
    fires = clock <= 0
    respawned = state.present & ~state.alive & fires[start.team]
    pads = pad_positions(state.spawn_end, xp)
    return Wave(
        wave_clock=xp.where(fires, classes.RESPAWN_PERIOD, clock).astype(np.int32),
        respawned=respawned,
        pos=xp.where(respawned[:, None], pads, status.pos).astype(np.int32),
        health=xp.where(respawned, start.max_hp, fight.health),
        alive=fight.alive | respawned,
        shield=xp.where(respawned, classes.SHIELD_TICKS, status.shield).astype(np.int32),
    )


def rest_healing(
    xp: Namespace, state: State, start: StartOfTick, fight: Combat, health: Array
) -> Rest:
    """Rule 8, out-of-combat healing: a survivor that took no part in combat and has been
    out of combat for its class's delay heals (up to max health); the others' clocks reset."""
    resting = fight.survivors & ~fight.in_combat
    rests = resting & (state.out_of_combat >= fight.delay)
    rest_heal = xp.asarray(classes.REST_HEAL_MILLI)[start.cls, fight.cut]
    rest_heal = xp.where(rests, xp.minimum(rest_heal, start.max_hp - health), _I0).astype(np.int32)
    return Rest(
        rest_heal=rest_heal,
        health=(health + rest_heal).astype(np.int32),
        out_of_combat=xp.where(resting, state.out_of_combat + 1, _I0).astype(np.int32),
    )


def game_result(xp: Namespace, state: State, score: Array, tick: Array) -> Array:
    """The game's result after this tick (rule 6): a team wins on reaching the winning score
    with more points than the other, equal at or above it is a draw, and so is reaching the
    horizon. The ending tick is completed in full before the game is marked done."""
    top = xp.maximum(score[0], score[1])
    decided = top >= state.winning_score
    return xp.where(
        decided,
        xp.where(
            score[0] > score[1], RESULT_A, xp.where(score[1] > score[0], RESULT_B, RESULT_DRAW)
        ),
        xp.where(tick >= state.horizon, RESULT_DRAW, RESULT_OPEN),
    ).astype(np.int32)


def step(
    xp: Namespace,
    state: State,
    actions: Array,
    m: MapArrays,
    sight: Sight | None = None,
    masks: Any = None,
) -> tuple[State, TickInfo]:
    """One tick, phase by phase in the order of the rules. `sight` may pass the
    start-of-tick sight, and `masks` the legal masks of this state and sight, if the caller
    already has them."""
    start = start_of_tick(xp, state)
    sight = compute_sight(xp, state, m) if sight is None else sight
    orders = legal_orders(xp, state, actions, sight, masks)  # 1
    fight = resolve_combat(xp, state, start, sight, orders)  # 2
    charged_to, bodies = charge_relocation(xp, state, start, orders, fight, m)  # 3
    moved = ordinary_movement(xp, state, start, orders, fight, charged_to, bodies, m)  # 4
    status = update_statuses(xp, state, start, orders, fight, moved, m)  # 5
    scored = deaths_and_points(xp, state, start, fight)  # 6
    tick = state.tick + 1
    wave = respawn_wave(xp, state, start, fight, status)  # 7
    rested = rest_healing(xp, state, start, fight, wave.health)  # 8
    new_state = State(
        tick=xp.asarray(tick, dtype=np.int32),
        horizon=state.horizon,
        winning_score=state.winning_score,
        red_zone_depth=state.red_zone_depth,
        score=scored.score,
        spawn_end=state.spawn_end,
        wave_clock=wave.wave_clock,
        result=game_result(xp, state, scored.score, tick),
        present=state.present,
        alive=wave.alive,
        cls=state.cls,
        pos=wave.pos,
        health=rested.health,
        ultimate_cooldown=status.cooldown,
        shield=wave.shield,
        out_of_combat=rested.out_of_combat,
        effects=status.effects,
        last_action=xp.where(state.present[:, None], orders.acts, _I_NONE).astype(np.int32),
    )
    info = TickInfo(
        actions=orders.acts,
        damage=fight.damage,
        healing=fight.healing,
        excess=fight.excess,
        effects=status.effect_from,
        trap_broken=status.trap_broken,
        killed=fight.killed,
        points=scored.points,
        charged_to=charged_to,
        respawned=wave.respawned,
        rest_heal=rested.rest_heal,
        shield_cleared=status.shield_cleared,
    )
    return new_state, info


__all__ = ["TickInfo", "step", "legalise"]
