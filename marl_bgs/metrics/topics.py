"""The 28 topics of the full metrics (six sections, as in Figure 4 of the paper): each a
function of one tick's facts (`Facts`) returning a small integer tensor, with the labels of
its axes and which cells are real columns (`TOPICS`). `full.py` sums them over a game.

Amounts of damage and healing are in milli-HP and distances in milli-units, so every sum is
an exact integer and the JAX and NumPy engines give the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.classes import (
    AURA_MAX_EMITTERS,
    AURA_RADIUS_SQ,
    BLESSING,
    BURST,
    DAMAGE_MILLI,
    EFFECT_NAMES,
    HEAL_MILLI,
    HEALING_CUT,
    MAGE,
    MAX_HEALTH_MILLI,
    PRIEST,
    REST_HEAL_MILLI,
    STUN,
    TRAP,
    WARRIOR,
)
from ..core.sight import TEAM
from ..core.state import ARENA_WIDTH_MILLI, LEFT, NUM_SLOTS
from .facts import (
    ABILITIES,
    ALLY,
    AT,
    BY,
    ENEMY,
    HARMFUL_NAMES,
    OF,
    ON,
    SLOT_NAMES,
    SLOWS,
    TEAMS,
    TO,
    Facts,
    Topic,
    all_cells,
    as_int,
    isqrt,
    labels,
    pairs_kept,
    per_team,
)
from .priority import PRIORITY_NAMES

# ---- the topics' functions -------------------------------------------------------------


def _episode_results(f: Facts) -> Any:  # filled from the priority metrics, see full_update
    return f.xp.zeros(len(PRIORITY_NAMES), f.xp.int32)


def _activations(f: Facts) -> Any:
    used = f.xp.stack([f.used_basic, f.used_ult], axis=1)  # (10, 2)
    return as_int(used[:, :, None] & f.target[:, None, :], f)


def _action_checks(f: Facts) -> Any:
    xp, acc, raw = f.xp, f.info.actions, f.raw
    cols = [
        raw[:, 0] != 0,
        raw[:, 0] != acc[:, 0],
        raw[:, 1] != 0,
        (raw[:, 1] != acc[:, 1]) | (raw[:, 2] != acc[:, 2]),
        raw[:, 2] == 1,
        (raw[:, 2] == 1) & (acc[:, 2] == 0),
        (acc[:, 0] == 0) & (acc[:, 1] == 0),
    ]
    return as_int(xp.stack(cols, axis=1) & f.living[:, None], f)


ACTION_CHECKS = (
    "move_sent", "move_refused", "target_sent", "target_refused", "ultimate_sent",
    "ultimate_refused", "idle",
)  # fmt: skip


def _by_ability(f: Facts, amounts: Any) -> Any:
    """(10, 10) amounts by source -> (10, 10, 2) split by the source's ability."""
    xp = f.xp
    return xp.stack([xp.where(f.used_ult[:, None], 0, amounts), xp.where(f.used_ult[:, None], amounts, 0)], axis=2)  # fmt: skip


def _damage_done(f: Facts) -> Any:
    return _by_ability(f, f.info.damage)


def _damage_received(f: Facts) -> Any:
    xp = f.xp
    taken = f.info.damage.sum(axis=0)
    over = xp.maximum(taken - f.before.health, 0) * f.living
    return xp.stack([taken, over], axis=1).astype(xp.int32)


def _under_harm(f: Facts, amounts: Any) -> Any:
    """(10, 10) amounts [source, recipient] -> (10, 10, 6) where the recipient had each
    harmful effect at the start of the tick."""
    return f.xp.where(f.harm[None, :, :], amounts[:, :, None], 0).astype(f.xp.int32)


def _damage_to_affected(f: Facts) -> Any:
    return _under_harm(f, f.info.damage)


def _healing_done(f: Facts) -> Any:
    return _by_ability(f, f.info.healing)


def _healing_received(f: Facts) -> Any:
    xp = f.xp
    return xp.stack([f.info.healing.sum(axis=0), f.info.rest_heal], axis=1).astype(xp.int32)


def _excess_healing(f: Facts) -> Any:
    """Excess above maximum health: by healer when one healer alone healed the recipient,
    else under `shared` (no fair split exists); the 11 rows sum to each recipient's excess."""
    xp = f.xp
    heals = f.info.healing > 0
    alone = heals.sum(axis=0) == 1
    mine = xp.where(heals & alone[None, :], f.info.excess[None, :], 0)
    shared = xp.where(alone, 0, f.info.excess)
    return xp.concatenate([mine, shared[None, :]], axis=0).astype(xp.int32)


def _healing_to_affected(f: Facts) -> Any:
    return _under_harm(f, f.info.healing)


def _healing_saves(f: Facts) -> Any:
    """Heals without which the recipient would have died this tick."""
    raw = f.before.health - f.info.damage.sum(axis=0) + f.info.healing.sum(axis=0)
    without = raw[None, :] - f.info.healing
    saved = (f.info.healing > 0) & (without <= 0) & (raw > 0)[None, :] & f.living[None, :]
    return as_int(saved, f)


def _kill_contributions(f: Facts) -> Any:
    return as_int(f.xp.stack([f.credit, f.earlier & ~f.credit & f.info.killed[None, :]], axis=2), f)


def _kills_of_affected(f: Facts) -> Any:
    return as_int(f.credit[:, :, None] & f.harm[None, :, :], f)


def _deaths(f: Facts) -> Any:
    xp = f.xp
    dead = f.before.present & ~f.before.alive
    return as_int(xp.stack([f.info.killed, dead, f.info.points == 2], axis=1), f)


def _respawning(f: Facts) -> Any:
    xp = f.xp
    shielded = f.living & (f.before.shield > 0)
    return as_int(xp.stack([f.info.respawned, shielded], axis=1), f)


def _in_own_red_zone(f: Facts) -> Any:
    xp = f.xp
    end = f.before.spawn_end[xp.asarray(TEAM)]
    x, depth = f.before.pos[:, 0], f.before.red_zone_depth
    return xp.where(end == LEFT, x <= depth, x >= ARENA_WIDTH_MILLI - depth) & f.living


def _red_zone(f: Facts) -> Any:
    xp = f.xp
    worth_two = (f.credit & (f.info.points == 2)[None, :]).sum(axis=1)
    return as_int(xp.stack([_in_own_red_zone(f), worth_two], axis=1), f)


def _coordination(f: Facts) -> Any:
    """Per team: ticks on which two or more of it damaged one enemy; kills of enemies that
    two or more of it had damaged in their life."""
    xp = f.xp
    attackers = per_team(f, as_int(f.info.damage > 0, f))  # (2, 10) per team, per enemy
    helped = per_team(f, as_int(f.credit | (f.earlier & f.info.killed[None, :]), f))
    focus = (attackers >= 2).any(axis=1)
    kills = ((helped >= 2) & f.info.killed[None, :]).sum(axis=1)
    return xp.stack([as_int(focus, f), as_int(kills, f)], axis=1)


def _formation(f: Facts) -> Any:
    """Per pair of living teammates: summed distance (milli-units) and ticks together."""
    xp = f.xp
    both = f.living[:, None] & f.living[None, :] & xp.asarray(ALLY)
    dist = xp.where(both, isqrt(xp, f.dist_sq), 0)
    return xp.stack([dist, as_int(both, f)], axis=2).astype(xp.int32)


def _aura_emitters(f: Facts) -> Any:
    """(recipient, emitter): inside a living, unshielded Mage's or Warrior's aura."""
    xp = f.xp
    emitter = f.living & (f.before.shield == 0)
    kind = (f.before.cls == MAGE) | (f.before.cls == WARRIOR)
    near = (f.dist_sq <= AURA_RADIUS_SQ) & xp.asarray(ALLY)
    return near & (emitter & kind)[None, :] & f.living[:, None]


def _aura_coverage(f: Facts) -> Any:
    xp = f.xp
    inside = _aura_emitters(f)
    mage = (inside & (f.before.cls == MAGE)[None, :]).any(axis=1)
    warrior = (inside & (f.before.cls == WARRIOR)[None, :]).any(axis=1)
    per = xp.stack([mage, warrior, f.living], axis=1)
    return xp.concatenate([as_int(inside, f), as_int(per, f)], axis=1)


def _aura_payoff(f: Facts) -> Any:
    """Per team: damage its Mage auras added to its attacks, and damage its Warrior auras
    kept off its agents (the tick's damage against the same damage with no such aura)."""
    xp, s = f.xp, f.before
    table = xp.asarray(DAMAGE_MILLI)
    inside = _aura_emitters(f)
    mages = xp.minimum((inside & (s.cls == MAGE)[None, :]).sum(axis=1), AURA_MAX_EMITTERS)
    warriors = xp.minimum((inside & (s.cls == WARRIOR)[None, :]).sum(axis=1), AURA_MAX_EMITTERS)
    u = as_int(f.used_ult, f)
    burst = as_int(s.effects[:, BURST] > 0, f)
    cls = s.cls

    def dealt(m, w):
        d = table[cls[:, None], u[:, None], m[:, None], burst[:, None], w[None, :]]
        return xp.where(f.info.damage > 0, d, 0)  # only hits that landed

    zero = xp.zeros_like(mages)
    added = (dealt(mages, warriors) - dealt(zero, warriors)).sum(axis=1)
    blocked = (dealt(mages, zero) - dealt(mages, warriors)).sum(axis=0)
    return xp.stack([per_team(f, added), per_team(f, blocked)], axis=1).astype(xp.int32)


def _status_applications(f: Facts) -> Any:
    return as_int(f.info.effects, f)


def _time_with_status(f: Facts) -> Any:
    return as_int((f.before.effects > 0) & f.living[:, None], f)


def _freedom(f: Facts) -> Any:
    xp, s = f.xp, f.before
    slowed = (s.effects[:, list(SLOWS)] > 0).any(axis=1) & f.living
    blessed = slowed & (s.effects[:, BLESSING] > 0)
    held = ((s.effects[:, STUN] > 0) | (s.effects[:, TRAP] > 0)) & f.living
    tried = held & (f.raw[:, 0] != 0)
    return as_int(xp.stack([slowed, blessed, held, tried], axis=1), f)


def _mage_burst(f: Facts) -> Any:
    xp, s = f.xp, f.before
    casts = f.used_ult & (s.cls == MAGE)
    bursting = (s.effects[:, BURST] > 0)[:, None]
    boosted = xp.where(bursting, f.info.damage, 0)
    return xp.concatenate([as_int(casts, f)[:, None], boosted], axis=1).astype(xp.int32)


def _warrior_charge(f: Facts) -> Any:
    xp, s = f.xp, f.before
    moved = f.info.charged_to - s.pos
    d = isqrt(xp, moved[:, 0] * moved[:, 0] + moved[:, 1] * moved[:, 1])
    charging = f.used_ult & (s.cls == WARRIOR)
    return xp.stack([as_int(charging, f), xp.where(charging, d, 0)], axis=1).astype(xp.int32)


def _hunter_trap(f: Facts) -> Any:
    xp = f.xp
    applied = f.info.effects[:, :, TRAP]
    broke = (f.info.damage > 0) & f.info.trap_broken[None, :]
    return as_int(xp.stack([applied, broke], axis=2), f)


def _rogue_poison(f: Facts) -> Any:
    """Per recipient: ability healing and resting healing the Healing cut took away."""
    xp, s = f.xp, f.before
    cut = s.effects[:, HEALING_CUT] > 0
    u = as_int(f.used_ult, f)
    full = xp.asarray(HEAL_MILLI)[s.cls[:, None], u[:, None], xp.zeros_like(s.cls)[None, :]]
    lost_ability = xp.where(f.aims & (f.info.healing > 0) & cut[None, :], full - f.info.healing, 0)
    # Resting healing is capped by the room left; with the cut it filled `rest_heal` of it.
    room = xp.asarray(MAX_HEALTH_MILLI)[s.cls] - (f.after.health - f.info.rest_heal)
    uncut = xp.minimum(xp.asarray(REST_HEAL_MILLI)[s.cls, 0], room)
    lost_rest = xp.where(cut & (f.info.rest_heal > 0), uncut - f.info.rest_heal, 0)
    return xp.stack([lost_ability.sum(axis=0), lost_rest], axis=1).astype(xp.int32)


def _priest_ultimate(f: Facts) -> Any:
    xp, s = f.xp, f.before
    casts = f.used_ult & (s.cls == PRIEST)
    saves = (_healing_saves(f) > 0) & casts[:, None]
    return xp.stack([as_int(casts, f), as_int(saves.any(axis=1), f)], axis=1)


# ---- the table ----------------------------------------------------------------------------

_TEAMMATES = ALLY & ~np.eye(NUM_SLOTS, dtype=bool)
_UPPER = np.triu(_TEAMMATES)  # each unordered pair of teammates once


def _topic(section, name, title, description, axes, compute, keep=None, pairs=False) -> Topic:
    keep = all_cells(*[len(a) for a in axes]) if keep is None else np.asarray(keep, bool)
    assert keep.shape == tuple(len(a) for a in axes), name
    return Topic(section, name, title, description, tuple(axes), compute, keep, pairs)


S1, S2, S3, S4, S5, S6 = (
    "Results and actions",
    "Damage and healing",
    "Kills, deaths and respawns",
    "Teamwork and positioning",
    "Status effects",
    "Ultimates",
)

TOPICS: tuple[Topic, ...] = (
    _topic(S1, "episode_results", "Episode results",
           "The sixteen priority metrics (the game's result, points, kills, deaths, damage, "
           "useful healing, Ultimates, Red Zone deaths and length), as `metrics=\"priority\"` "
           "records them.",
           [PRIORITY_NAMES], _episode_results),
    _topic(S1, "activations", "Ability activations",
           "Accepted Basic abilities and Ultimates by each agent, by the agent they were aimed "
           "at (`on_none`: an Ultimate with no target, the Mage's Burst).",
           [BY, ABILITIES, ON], _activations, pairs=True),
    _topic(S1, "actions", "Accepted and refused actions",
           "Per living agent: ticks it sent a move, a target or an Ultimate, ticks the rules "
           "refused one (an illegal move becomes stay, an illegal target none), and idle ticks "
           "(no move and no ability after the rules).",
           [AT, ACTION_CHECKS], _action_checks),
    _topic(S2, "damage_done", "Damage done",
           "Damage (milli-HP) each agent's Basic or Ultimate dealt to each enemy, including "
           "the part beyond the enemy's remaining health.",
           [BY, TO, ABILITIES], _damage_done, pairs_kept(ENEMY, 2), pairs=True),
    _topic(S2, "damage_received", "Damage received",
           "Damage (milli-HP) each agent took, and the part beyond its remaining health.",
           [AT, ("total", "beyond_health")], _damage_received),
    _topic(S2, "damage_to_affected", "Damage to enemies under a harmful effect",
           "Damage (milli-HP) each agent dealt to each enemy while that enemy was under each "
           "harmful effect (from the start of the tick).",
           [BY, TO, HARMFUL_NAMES], _damage_to_affected, pairs_kept(ENEMY, 6), pairs=True),
    _topic(S2, "healing_done", "Healing done",
           "Ability healing (milli-HP, after the Healing cut) each agent gave each ally, "
           "itself included, by Basic or Ultimate.",
           [BY, TO, ABILITIES], _healing_done, pairs_kept(ALLY, 2), pairs=True),
    _topic(S2, "healing_received", "Healing received",
           "Ability healing and out-of-combat (resting) healing each agent received, milli-HP.",
           [AT, ("ability", "resting")], _healing_received),
    _topic(S2, "excess_healing", "Excess healing",
           "Ability healing above maximum health (milli-HP), by healer when it alone healed "
           "that ally on the tick, else under `by_shared`.",
           [BY + ("by_shared",), TO], _excess_healing,
           np.concatenate([ALLY, np.ones((1, NUM_SLOTS), bool)]), pairs=True),
    _topic(S2, "healing_to_affected", "Healing to allies under a harmful effect",
           "Ability healing (milli-HP) each agent gave each ally while that ally was under "
           "each harmful effect.",
           [BY, TO, HARMFUL_NAMES], _healing_to_affected, pairs_kept(ALLY, 6), pairs=True),
    _topic(S2, "healing_saves", "Healing saves",
           "Ticks on which a heal kept an ally alive: without that healer's heal the ally's "
           "health would have reached 0.",
           [BY, TO], _healing_saves, ALLY, pairs=True),
    _topic(S3, "kill_contributions", "Kill contributions",
           "`kill`: the agent damaged the enemy on the tick it died (every such agent is "
           "credited); `assist`: it damaged the enemy earlier in that life but not then.",
           [BY, OF, ("kill", "assist")], _kill_contributions, pairs_kept(ENEMY, 2), pairs=True),
    _topic(S3, "kills_of_affected", "Kills of enemies under a harmful effect",
           "Kills (as in kill_contributions) of an enemy that was under each harmful effect.",
           [BY, OF, HARMFUL_NAMES], _kills_of_affected, pairs_kept(ENEMY, 6), pairs=True),
    _topic(S3, "deaths", "Deaths and time dead",
           "Per agent: deaths, ticks spent dead, and deaths in its own Red Zone.",
           [AT, ("deaths", "ticks_dead", "red_zone_deaths")], _deaths),
    _topic(S3, "respawning", "Respawning",
           "Per agent: returns in a respawn wave, and living ticks under the spawn shield.",
           [AT, ("respawns", "ticks_shielded")], _respawning),
    _topic(S3, "red_zone", "Red Zone",
           "Per agent: living ticks it began in its own Red Zone, and kills it was credited "
           "with that were worth two points (the victim in its own Red Zone).",
           [AT, ("ticks_in_own", "two_point_kills")], _red_zone),
    _topic(S4, "coordination", "Team coordination",
           "Per team: ticks on which two or more of its agents damaged the same enemy, and "
           "kills of enemies that two or more of its agents had damaged in their life.",
           [TEAMS, ("focus_ticks", "kills_with_helpers")], _coordination),
    _topic(S4, "formation", "Team formation",
           "Per pair of teammates, while both live: the summed distance between their centres "
           "(milli-units; divide by `ticks` for the mean) and the ticks they were both alive.",
           [AT, labels("and_", SLOT_NAMES), ("distance", "ticks")],
           _formation, pairs_kept(_UPPER, 2), pairs=True),
    _topic(S4, "aura_coverage", "Aura coverage",
           "Living ticks each agent stood inside a teammate's (or its own) aura, by emitter "
           "(only Mages and Warriors emit), then inside any Mage aura, any Warrior aura, and "
           "its living ticks.",
           [AT, labels("of_", SLOT_NAMES) + ("any_mage", "any_warrior", "alive")],
           _aura_coverage,
           np.concatenate([ALLY, np.ones((NUM_SLOTS, 3), bool)], axis=1), pairs=True),
    _topic(S4, "aura_payoff", "Aura damage added or blocked",
           "Per team: damage (milli-HP) its Mage auras added to its hits, and damage its "
           "Warrior auras kept off its agents.",
           [TEAMS, ("mage_added", "warrior_blocked")], _aura_payoff),
    _topic(S5, "status_applications", "Status applications",
           "Effects each agent applied to each agent (itself included), per effect, counted "
           "on the tick they were applied.",
           [BY, TO, EFFECT_NAMES], _status_applications, pairs=True),
    _topic(S5, "time_with_status", "Time with status effects",
           "Living ticks each agent began under each effect.",
           [AT, EFFECT_NAMES], _time_with_status),
    _topic(S5, "freedom", "Freedom against slows",
           "Per agent: living ticks slowed, slowed while Blessed (Blessing keeps 85% of "
           "speed), held (stunned or trapped), and held ticks on which it still sent a move.",
           [AT, ("slowed", "slowed_blessed", "held", "held_tried_to_move")], _freedom),
    _topic(S6, "mage_burst", "Mage Burst",
           "Per agent: Bursts cast, then damage (milli-HP) it dealt to each enemy while its "
           "Burst was active.",
           [AT, ("casts",) + labels("to_", SLOT_NAMES)], _mage_burst,
           np.concatenate([np.ones((NUM_SLOTS, 1), bool), ENEMY], axis=1), pairs=True),
    _topic(S6, "warrior_charge", "Warrior Charge",
           "Per agent: Charges cast and the distance they carried it (milli-units).",
           [AT, ("casts", "distance")], _warrior_charge),
    _topic(S6, "hunter_trap", "Hunter Trap",
           "Traps each agent set on each enemy, and hits that broke a Trap (by whom, on whom).",
           [BY, TO, ("set", "broken")], _hunter_trap,
           np.stack([ENEMY, ENEMY], axis=2), pairs=True),
    _topic(S6, "rogue_poison", "Rogue Poison",
           "Per agent: ability healing and resting healing (milli-HP) the Healing cut of "
           "Crippling Poison took from it.",
           [AT, ("ability_healing_lost", "resting_healing_lost")], _rogue_poison),
    _topic(S6, "priest_ultimate", "Priest Ultimate",
           "Per agent: Salvations cast, and those that kept an ally alive.",
           [AT, ("casts", "saves")], _priest_ultimate),
)  # fmt: skip

SECTIONS: tuple[str, ...] = (S1, S2, S3, S4, S5, S6)
