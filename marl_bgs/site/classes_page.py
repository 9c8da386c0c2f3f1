"""One page per class: numbers from the class table, abilities played on the engine, and the
qualitative notes (strengths, weaknesses, who it counters and helps) written for people.

Only the prose below is typed by hand; every number is read from `core/classes.py` and every
ability picture is a tick played on the engine at build time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
        "counters": "Priests: its Basic damage outpaces their healing.",
        "helps": "Everyone within its aura, above all Rogues and Hunters that fight beside it.",
    },
    "warrior": {
        "summary": "The front line: at least twice anyone else's health and the longest gap-closer.",
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


# ----------------------------------------------------------------------------------------
# Who counters and who helps whom (the paper's Figure 2), derived from the class table.
#
# The class table holds numbers and effects, not relations, so each arrow comes from one
# rule below applied to every ordered pair of classes (A, B), A != B. The rules are written
# here once and printed on the Classes page; their numbers are read from core/classes.py.

HOLDS = (C.STUN, C.TRAP)  # effects that stop a target moving or acting


def _slows(row) -> bool:
    return any(bool(row[e]) for e in C.SLOW_FACTORS)


def _holds(row) -> bool:
    return any(bool(row[e]) for e in HOLDS)


def _heals(s: C.ClassSpec) -> bool:
    return s.basic_heal > 0 or s.ultimate_heal > 0


def _biggest_hit(s: C.ClassSpec) -> float:
    return max(s.basic_damage, s.ultimate_damage)


def _enemy_basic(s: C.ClassSpec) -> bool:
    return s.basic_target == "enemy"


@dataclass(frozen=True)
class Rule:
    code: str
    kind: str  # "counters" or "helps"
    name: str
    text: str  # the rule, in words


RULES: tuple[Rule, ...] = (
    Rule("K1", "counters", "kites", "A's Basic slows an enemy and reaches at least twice as far "
         "as B's Basic on enemies, so B cannot close the distance."),
    Rule("K2", "counters", "catches", "A's Ultimate stuns or traps an enemy farther away than "
         "B's Basic reaches, while A's own Basic is shorter than B's: A closes the gap B keeps."),
    Rule("K3", "counters", "cuts healing", "A's ability cuts the healing its target receives, "
         "and B heals."),
    Rule("K4", "counters", "out-damages healing", "A's Basic damage is larger than B's Basic "
         "heal, so B's steady healing cannot keep up with A's steady damage."),
    Rule("K5", "counters", "bursts the fragile", "A has the biggest single hit of any class "
         "and B the least maximum health."),
    Rule("H1", "helps", "heals", "A heals allies; the arrow points to the class with the most "
         "maximum health, which has the most to restore."),
    Rule("H2", "helps", "shields", "A's aura cuts the damage allies take; the arrow points to "
         "the class with the least maximum health."),
    Rule("H3", "helps", "empowers", "A's aura raises allies' damage; the arrow points to the "
         "class with the biggest single hit."),
    Rule("H4", "helps", "holds targets for", "A's Ultimate stuns or traps an enemy from at "
         "least twice as far as B's Basic reaches, and B deals damage: a held target cannot "
         "run from B."),
)  # fmt: skip


@dataclass(frozen=True)
class Relation:
    a: int
    b: int
    rule: Rule
    why: str  # the numbers behind it


def relations() -> list[Relation]:
    """Every (A, B, rule) that holds for the class table, counters first."""
    S = C.CLASSES
    rule = {r.code: r for r in RULES}
    most_health = max(range(len(S)), key=lambda i: S[i].max_health)
    least_health = min(range(len(S)), key=lambda i: S[i].max_health)
    biggest = max(range(len(S)), key=lambda i: _biggest_hit(S[i]))
    out: list[Relation] = []
    for a, A in enumerate(S):
        for b, B in enumerate(S):
            if a == b:
                continue
            found: list[tuple[str, str]] = []
            if (
                _enemy_basic(A)
                and _slows(C.BASIC_EFFECTS[a])
                and _enemy_basic(B)
                and A.basic_range >= 2 * B.basic_range
            ):
                found.append(("K1", f"Basic range {_g(A.basic_range)} vs {_g(B.basic_range)}"))
            if (
                A.ultimate_target == "enemy"
                and _holds(C.ULTIMATE_EFFECTS[a])
                and A.ultimate_range > B.basic_range > A.basic_range
            ):
                found.append(
                    (
                        "K2",
                        f"{A.ultimate_name} reaches {_g(A.ultimate_range)}; Basic ranges "
                        f"{_g(A.basic_range)} vs {_g(B.basic_range)}",
                    )
                )
            cuts = C.BASIC_EFFECTS[a][C.HEALING_CUT] or C.ULTIMATE_EFFECTS[a][C.HEALING_CUT]
            if cuts and _heals(B):
                found.append(("K3", f"healing received ×{_g(C.POISON_HEALING_FACTOR)}"))
            if B.basic_heal > 0 and A.basic_damage > B.basic_heal:
                found.append(
                    ("K4", f"{_g(A.basic_damage)} damage vs {_g(B.basic_heal)} healing per tick")
                )
            if a == biggest and b == least_health:
                found.append(
                    ("K5", f"a {_g(_biggest_hit(A))}-damage hit vs {_g(B.max_health)} health")
                )
            if _heals(A) and b == most_health:
                found.append(("H1", f"{_g(B.max_health)} maximum health"))
            if A.name == "warrior" and C.WARRIOR_AURA_FACTOR < 1 and b == least_health:
                found.append(
                    (
                        "H2",
                        f"damage taken ×{_g(C.WARRIOR_AURA_FACTOR)}; "
                        f"{_g(B.max_health)} maximum health",
                    )
                )
            if A.name == "mage" and C.MAGE_AURA_FACTOR > 1 and b == biggest:
                found.append(
                    (
                        "H3",
                        f"damage ×{_g(C.MAGE_AURA_FACTOR)} on a {_g(_biggest_hit(B))}-damage hit",
                    )
                )
            if (
                A.ultimate_target == "enemy"
                and _holds(C.ULTIMATE_EFFECTS[a])
                and _enemy_basic(B)
                and B.basic_damage > 0
                and A.ultimate_range >= 2 * B.basic_range
            ):
                found.append(
                    (
                        "H4",
                        f"{A.ultimate_name} from {_g(A.ultimate_range)}; "
                        f"Basic range {_g(B.basic_range)}",
                    )
                )
            out += [Relation(a, b, rule[code], why) for code, why in found]
    return sorted(out, key=lambda r: (r.rule.kind != "counters", r.rule.code, r.a, r.b))


def relation_svg(rels: list[Relation]) -> str:
    """The classes on a circle; red arrows: A counters B, green dashed: A helps B."""
    from .draw import DAMAGE_COLOUR, HEAL_COLOUR

    colour = {"counters": DAMAGE_COLOUR, "helps": HEAL_COLOUR}
    n = len(C.CLASSES)
    cx, cy, ring, node = 300.0, 235.0, 170.0, 40.0
    at = [
        (cx + ring * math.sin(2 * math.pi * i / n), cy - ring * math.cos(2 * math.pi * i / n))
        for i in range(n)
    ]
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" class="bgs-relations" width="600" height="470" '
        'viewBox="0 0 600 470" '
        'role="img" aria-labelledby="bgs-rel-title" font-family="sans-serif">',
        '<title id="bgs-rel-title">Who counters and who helps whom: red arrows from a class '
        "to the classes it counters, green dashed arrows to the allies it helps</title>",
        "<defs>",
    ]
    for kind, c in colour.items():
        out.append(
            f'<marker id="bgs-arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" '
            f'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            f'<path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
        )
    out.append("</defs>")
    pairs: dict[tuple[int, int, str], list[str]] = {}
    for r in rels:
        pairs.setdefault((r.a, r.b, r.rule.kind), []).append(r.rule.code)
    for (a, b, kind), codes in pairs.items():
        (x0, y0), (x1, y1) = at[a], at[b]
        dx, dy = x1 - x0, y1 - y0
        d = math.hypot(dx, dy)
        ux, uy = dx / d, dy / d
        px, py = -uy, ux  # the left of the arrow's direction
        bend = 22.0 if kind == "counters" else 58.0
        sx, sy = x0 + ux * node, y0 + uy * node
        ex, ey = x1 - ux * (node + 2), y1 - uy * (node + 2)
        qx, qy = (x0 + x1) / 2 + px * bend, (y0 + y1) / 2 + py * bend
        dash = ' stroke-dasharray="7 4"' if kind == "helps" else ""
        out.append(
            f'<path class="rel rel-{kind}" data-from="{C.CLASSES[a].name}" '
            f'data-to="{C.CLASSES[b].name}" data-rules="{" ".join(codes)}" '
            f'd="M{sx:.1f},{sy:.1f} Q{qx:.1f},{qy:.1f} {ex:.1f},{ey:.1f}" fill="none" '
            f'stroke="{colour[kind]}" stroke-width="2.2"{dash} '
            f'marker-end="url(#bgs-arrow-{kind})"/>'
        )
        mx = 0.25 * sx + 0.5 * qx + 0.25 * ex  # the curve's midpoint
        my = 0.25 * sy + 0.5 * qy + 0.25 * ey
        out.append(
            f'<text x="{mx:.1f}" y="{my + 5:.1f}" font-size="14" text-anchor="middle" '
            f'fill="{colour[kind]}" stroke="#fff" stroke-width="3" paint-order="stroke">'
            f"{' '.join(codes)}</text>"
        )
    for i, s in enumerate(C.CLASSES):
        x, y = at[i]
        out.append(
            f'<g class="rel-node" data-class="{s.name}"><circle cx="{x:.1f}" cy="{y:.1f}" '
            f'r="{node:.0f}" fill="#f8f9fa" stroke="#343a40" stroke-width="2"/>'
            f'<text x="{x:.1f}" y="{y + 6:.1f}" font-size="18" font-weight="bold" '
            f'text-anchor="middle" fill="#212529">{s.title}</text></g>'
        )
    for k, (kind, words) in enumerate((("counters", "counters"), ("helps", "helps (ally)"))):
        x = 20 + 190 * k
        dash = ' stroke-dasharray="7 4"' if kind == "helps" else ""
        out.append(
            f'<g class="rel-legend"><path d="M{x},452 L{x + 44},452" stroke="{colour[kind]}" '
            f'stroke-width="2.2"{dash} marker-end="url(#bgs-arrow-{kind})"/>'
            f'<text x="{x + 54}" y="457" font-size="15" fill="#212529">A {words} B</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out)


def relations_section() -> str:
    rels = relations()
    by_class = []
    for c, s in enumerate(C.CLASSES):
        cells = []
        for kind in ("counters", "helps"):
            items = [
                f"{C.CLASSES[r.b].title} ({r.rule.code} {r.rule.name}: {r.why})"
                for r in rels
                if r.a == c and r.rule.kind == kind
            ]
            cells.append("; ".join(items) or "none by these rules")
        by_class.append(f"| [{s.title}]({s.name}.md) | {cells[0]} | {cells[1]} |")
    rules = "\n".join(f"- **{r.code} {r.name}** ({r.kind}): {r.text}" for r in RULES)
    return f"""## Who counters and who helps whom

The class table holds numbers, not relations, so the arrows are derived from it by the rules
below (A is where an arrow starts, B where it ends). A red arrow means A **counters** B in a
fight; a green dashed arrow means A **helps** B as a teammate. Each label names the rules that
drew it; the table under the diagram gives the numbers behind each arrow, and each class
page discusses its counters and helpers in words.

<figure class="bgs-relations-figure">
{relation_svg(rels)}
</figure>

{rules}

<div class="bgs-fit" markdown>

| class | counters | helps |
|---|---|---|
{chr(10).join(by_class)}

</div>
"""


def classes_index() -> str:
    stats = [
        "| Class | Role | Health | Speed | Sight |",
        "|---|---|---:|---:|---:|",
    ] + [
        f"| [{s.title}]({s.name}.md) | {s.role} | {_g(s.max_health)} | {_g(s.speed)} | "
        f"{_g(s.sight)} |"
        for s in C.CLASSES
    ]
    abilities = [
        "| Class | Basic | Ultimate | Passive |",
        "|---|---|---|---|",
    ] + [
        f"| [{s.title}]({s.name}.md) | {s.basic_name} | {s.ultimate_name} | {s.passive_name} |"
        for s in C.CLASSES
    ]
    passives = "\n".join(f"- **{s.title}: {s.passive_name}.** {passive_text(s)}" for s in C.CLASSES)
    return f"""# Classes

<!-- Written at build time by marl_bgs/site/classes_page.py. -->

Every team of up to {TEAM_SIZE} agents mixes five classes. Each has a Basic ability it can
use every tick, an Ultimate with a cooldown of {C.ULTIMATE_COOLDOWN} ticks, and a passive.
The numbers come straight from the engine's class table: health in hit points, speed in
map units per tick, sight radius in map units.

<div class="bgs-fit" markdown>

{chr(10).join(stats)}

{chr(10).join(abilities)}

</div>

## Passives

{passives}

{relations_section()}"""
