"""One page per class: numbers from the class table, abilities played on the engine, and the
qualitative notes (strengths, weaknesses, who it counters and helps) written for people.

Only the prose below is typed by hand; every number is read from `core/classes.py` and every
ability picture is a tick played on the engine at build time.
"""

from __future__ import annotations

from ..core import classes as C
from ..core.state import TEAM_SIZE
from .clips import show
from .scenes import STAY, Scene, agent, ally, enemy, position


def _g(v: float) -> str:
    return f"{v:g}"


def passive_text(spec: C.ClassSpec) -> str:
    """The passive in words, with the table's numbers."""
    name = spec.name
    if name == "mage":
        return (
            f"An aura: living, unshielded allies within {_g(C.AURA_RADIUS)} units (the Mage too) "
            f"deal {_g(round((C.MAGE_AURA_FACTOR - 1) * 100, 6))}% more damage; two Mages "
            f"stack by multiplying, at most {C.AURA_MAX_EMITTERS} count."
        )
    if name == "warrior":
        return (
            f"An aura: living, unshielded allies within {_g(C.AURA_RADIUS)} units (the Warrior "
            f"too) take {_g(round((1 - C.WARRIOR_AURA_FACTOR) * 100, 6))}% less damage; two "
            f"Warriors stack by multiplying, at most {C.AURA_MAX_EMITTERS} count."
        )
    if name == "hunter":
        base = max(c.sight for c in C.CLASSES if c.name != "hunter")
        return f"Sight radius {_g(spec.sight)} instead of {_g(base)}: it sees first."
    if name == "rogue":
        return (
            f"Speed {_g(spec.speed)} per tick, and out-of-combat healing after only "
            f"{spec.out_of_combat_delay} quiet ticks."
        )
    return (
        f"For {C.EFFECT_DURATION[C.BLESSING]} tick after one of its Basic heals, the healed "
        f"agent's slows cannot push its speed below {_g(C.BLESSING_SPEED_FLOOR * 100)}% of base."
    )


PROSE: dict[str, dict[str, str]] = {
    "mage": {
        "summary": "The hardest hitter per tick, from a safe distance, and the most fragile body.",
        "strengths": "Highest Basic damage at medium range; its aura makes every nearby ally "
        "hit harder, itself included; Burst turns a few ticks into a burst of damage that "
        "can finish a Warrior.",
        "weaknesses": "The lowest health in the game, no escape and no crowd control. Anything "
        "that reaches it in melee (a Rogue's Poison, a Warrior's Charge) threatens it.",
        "counters": "Warriors and Priests that stand still: it out-damages healing and armour.",
        "helps": "Everyone within its aura, above all Rogues and Hunters that fight beside it.",
    },
    "warrior": {
        "summary": "The front line: twice everyone else's health and the longest gap-closer.",
        "strengths": "Huge health pool, an aura that shrinks the damage its neighbours take, and "
        "a Charge that crosses most of the field, stuns and slows.",
        "weaknesses": "Weak Basic damage at melee range; kited by Hunters and Mages once its "
        "Charge is spent.",
        "counters": "Mages and Hunters that stray from cover: Charge reaches them and the "
        "slow keeps them in reach.",
        "helps": "Fragile allies standing inside its aura, and Priests, who keep it standing.",
    },
    "hunter": {
        "summary": "The scout: it sees farthest and controls who gets to move.",
        "strengths": "The longest Basic range, a slow on every arrow, and a Trap that takes a "
        "target out of the fight for several ticks.",
        "weaknesses": "Low damage per hit. Its Trap is broken by any later damage, so allies must "
        "hold fire to keep a target frozen.",
        "counters": "Rogues and Warriors, whose game is closing distance: slows and Traps deny it.",
        "helps": "Its team's sight: enemies it spots first are shared with every teammate.",
    },
    "rogue": {
        "summary": "The assassin: fast, with the strongest single blow in the game.",
        "strengths": "The fastest mover, a strong melee Basic, and Crippling Poison: heavy "
        "damage, a stun, a long slow and a cut to the victim's healing. It also recovers "
        "health out of combat sooner than anyone.",
        "weaknesses": "Melee range only; it must cross open ground, where slows and Charges "
        "punish it.",
        "counters": "Priests and Mages: Poison halves the healing a target receives and a "
        "Mage cannot survive a Rogue that arrives.",
        "helps": "Teams that need to pressure the enemy's back line and flank around cover.",
    },
    "priest": {
        "summary": "The healer: it keeps allies standing through fights they would lose.",
        "strengths": "A steady heal with Blessing of Freedom against slows, and Salvation, one "
        "huge heal at long range that can undo a whole burst of damage in the same tick.",
        "weaknesses": "No damage at all: alone it cannot win a fight, and Poison halves its "
        "healing on the victim.",
        "counters": "Slow trades: damage spread over time is healed as fast as it comes.",
        "helps": "Warriors above all (the most health to restore), and anyone under a slow.",
    },
}


def _effects_of(row) -> str:
    out = []
    for e, on in enumerate(row):
        if not on:
            continue
        name = C.EFFECT_NAMES[e]
        ticks = C.EFFECT_DURATION[e]
        word = {
            "stun": "stun",
            "trap": "Freezing Trap (no moving or acting; broken by damage on a later tick)",
            "slow_hunter": "slow",
            "slow_charge": "slow",
            "slow_poison": "slow",
            "healing_cut": f"healing received ×{_g(C.POISON_HEALING_FACTOR)}",
            "burst": f"own damage ×{_g(C.BURST_FACTOR)}",
            "blessing": "Blessing of Freedom",
        }[name]
        if e in C.SLOW_FACTORS:
            word += f" ×{_g(C.SLOW_FACTORS[e])}"
        out.append(f"{word} for {ticks} tick{'s' if ticks != 1 else ''}")
    return "; ".join(out) or "none"


def numbers_table(c: int) -> str:
    spec = C.CLASSES[c]
    who = {"enemy": "an enemy", "ally": "an ally or itself", "self": "itself"}
    rows = [
        ("Role", spec.role),
        ("Maximum health", _g(spec.max_health)),
        ("Speed per tick", _g(spec.speed)),
        ("Sight radius", _g(spec.sight)),
        ("Body radius", _g(C.BODY_RADIUS)),
        (
            f"Basic: {spec.basic_name}",
            f"{who[spec.basic_target]}, range {_g(spec.basic_range)}"
            + (f", {_g(spec.basic_damage)} damage" if spec.basic_damage else "")
            + (f", {_g(spec.basic_heal)} healing" if spec.basic_heal else "")
            + f"; effects: {_effects_of(C.BASIC_EFFECTS[c])}",
        ),
        (
            f"Ultimate: {spec.ultimate_name}",
            f"{who[spec.ultimate_target]}"
            + (f", range {_g(spec.ultimate_range)}" if spec.ultimate_target != "self" else "")
            + (f", {_g(spec.ultimate_damage)} damage" if spec.ultimate_damage else "")
            + (f", {_g(spec.ultimate_heal)} healing" if spec.ultimate_heal else "")
            + "; effects: "
            + _effects_of(C.ULTIMATE_EFFECTS[c] | C.SELF_EFFECTS_ON_ULTIMATE[c])
            + f"; ready again after {C.ULTIMATE_COOLDOWN} ticks",
        ),
        (f"Passive: {spec.passive_name}", passive_text(spec)),
        (
            "Out-of-combat healing",
            f"{_g(C.OUT_OF_COMBAT_HEAL_SHARE * spec.max_health)} per tick after "
            f"{spec.out_of_combat_delay} quiet ticks",
        ),
    ]
    lines = [f"| {spec.title} | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(lines)


def ability_scene(c: int, ultimate: bool) -> Scene:
    """A one- or two-tick game showing one ability at its full range."""
    spec = C.CLASSES[c]
    target = spec.ultimate_target if ultimate else spec.basic_target
    reach = spec.ultimate_range if ultimate else spec.basic_range
    name = spec.ultimate_name if ultimate else spec.basic_name
    x0 = 4.0
    key = f"{spec.name}-{'ultimate' if ultimate else 'basic'}"
    if target == "self":  # Burst: use it, then show the boosted Basic next tick
        pos = position([agent(spec.name, x0, 5)], [agent("rogue", x0 + spec.basic_range, 5)])
        ticks = [{0: (STAY, 0, 1)}, {0: (STAY, enemy(0), 0)}]
        return Scene(key, pos, ticks, view=(x0 - 2, 2.5, x0 + spec.basic_range + 2, 7.5))
    if target == "ally":
        wounded = C.CLASSES[C.WARRIOR]
        health = wounded.max_health - (spec.basic_heal if not ultimate else 50)
        pos = position(
            [agent(spec.name, x0, 5), agent("warrior", x0 + reach, 5, health=health)],
            [agent("rogue", 18, 5)],
        )
        ticks = [{0: (STAY, ally(1), int(ultimate))}]
    else:
        pos = position([agent(spec.name, x0, 5)], [agent("rogue", x0 + reach, 5)])
        ticks = [{0: (STAY, enemy(0), int(ultimate))}]
    ranges = [(0, reach, f"{name} range")]
    return Scene(key, pos, ticks, view=(x0 - 2, 2.5, x0 + reach + 2, 7.5), ranges=ranges)


def class_page(c: int) -> str:
    spec = C.CLASSES[c]
    prose = PROSE[spec.name]
    _, basic = show(ability_scene(c, ultimate=False), f"{spec.title}: {spec.basic_name} (Basic)")
    _, ult = show(ability_scene(c, ultimate=True), f"{spec.title}: {spec.ultimate_name} (Ultimate)")
    aura_note = ""
    if spec.name == "mage":
        aura_note = (
            "\nIts own aura counts for itself, so a lone Mage's hits are already "
            f"×{_g(C.MAGE_AURA_FACTOR)} (the events below show the exact amounts).\n"
        )
    return f"""# {spec.title}

<!-- Written at build time by marl_bgs/site/classes_page.py; edit that file. -->

*{spec.role}.* {prose["summary"]}

{numbers_table(c)}
{aura_note}
## {spec.basic_name} (Basic)

{basic}

## {spec.ultimate_name} (Ultimate)

{ult}

## Strengths

{prose["strengths"]}

## Weaknesses

{prose["weaknesses"]}

## Counters

{prose["counters"]}

## Helps

{prose["helps"]}
"""


def classes_index() -> str:
    head = "| Class | Role | Health | Speed | Sight | Basic | Ultimate |\n|---|---|---:|---:|---:|---|---|"
    rows = [
        f"| [{s.title}]({s.name}.md) | {s.role} | {_g(s.max_health)} | {_g(s.speed)} | "
        f"{_g(s.sight)} | {s.basic_name} | {s.ultimate_name} |"
        for s in C.CLASSES
    ]
    return (
        "# Classes\n\n<!-- Written at build time by marl_bgs/site/classes_page.py. -->\n\n"
        f"Every team of up to {TEAM_SIZE} agents mixes five classes. Each has a Basic "
        "ability it can use every tick, an Ultimate with a cooldown, and a passive. The "
        "numbers come straight from the engine's class table.\n\n"
        + head
        + "\n"
        + "\n".join(rows)
        + "\n"
    )
