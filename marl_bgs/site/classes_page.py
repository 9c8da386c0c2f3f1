"""One page per class: numbers from the class table, abilities played on the engine, and the
qualitative notes (strengths, weaknesses, who it counters and helps) written for people.

The words are templates: `site_src/_templates/classes/<class>.md.j2` (one class's notes and
passive), `class.md.j2` and `numbers.md.j2` (a class page), `index.md.j2` (the overview) and
`rules.md.j2` (the counter/helper rules). Every number is read from `core/classes.py` and
every ability picture is a tick played on the engine at build time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core import classes
from ..core.state import TEAM_SIZE
from . import templates
from .clips import show
from .draw import DAMAGE_COLOUR, HEAL_COLOUR
from .formatting import g as _g
from .scenes import STAY, Scene, agent, ally, enemy, position

PIECES = ("summary", "passive", "strengths", "weaknesses", "counters", "helps")


def prose(spec: classes.ClassSpec) -> dict[str, str]:
    """A class's words (classes/<class>.md.j2), filled with the class table's numbers; a
    piece that only one class has (the Mage's `aura_note`) is "" for the others."""
    module = templates.module(f"classes/{spec.name}.md.j2", spec=spec, C=classes)
    out = {key: templates.words(getattr(module, key)).strip() for key in PIECES}
    out["aura_note"] = templates.words(getattr(module, "aura_note", "")).strip()
    return out


def passive_text(spec: classes.ClassSpec) -> str:
    """The passive in words, with the table's numbers."""
    return prose(spec)["passive"]


def applied_effects(row) -> list[dict]:
    """What an ability applies, for the numbers table: each effect's name, duration in ticks
    and slow factor (None for an effect that is not a slow)."""
    return [
        {
            "name": classes.EFFECT_NAMES[e],
            "ticks": classes.EFFECT_DURATION[e],
            "slow": classes.SLOW_FACTORS.get(e),
        }
        for e, on in enumerate(row)
        if on
    ]


def ability_scene(c: int, ultimate: bool) -> Scene:
    """A one- or two-tick game showing one ability at its full range."""
    spec = classes.CLASSES[c]
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
        wounded = classes.CLASSES[classes.WARRIOR]
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
    spec = classes.CLASSES[c]
    _, basic = show(ability_scene(c, ultimate=False), f"{spec.title}: {spec.basic_name} (Basic)")
    _, ult = show(ability_scene(c, ultimate=True), f"{spec.title}: {spec.ultimate_name} (Ultimate)")
    effects = {
        "basic": applied_effects(classes.BASIC_EFFECTS[c]),
        "ultimate": applied_effects(
            classes.ULTIMATE_EFFECTS[c] | classes.SELF_EFFECTS_ON_ULTIMATE[c]
        ),
    }
    return templates.render(
        "classes/class.md.j2",
        spec=spec, C=classes, prose=prose(spec), effects=effects, basic=basic, ultimate=ult,
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# Who counters and who helps whom (the paper's Figure 2), derived from the class table.
#
# The class table holds numbers and effects, not relations, so each arrow comes from one
# rule below applied to every ordered pair of classes (A, B), A != B. The rules are written
# here once and printed on the Classes page; their numbers are read from core/classes.py.

HOLDS = (classes.STUN, classes.TRAP)  # effects that stop a target moving or acting


def _slows(row) -> bool:
    return any(bool(row[e]) for e in classes.SLOW_FACTORS)


def _holds(row) -> bool:
    return any(bool(row[e]) for e in HOLDS)


def _heals(s: classes.ClassSpec) -> bool:
    return s.basic_heal > 0 or s.ultimate_heal > 0


def _biggest_hit(s: classes.ClassSpec) -> float:
    return max(s.basic_damage, s.ultimate_damage)


def _enemy_basic(s: classes.ClassSpec) -> bool:
    return s.basic_target == "enemy"


@dataclass(frozen=True)
class Rule:
    code: str
    kind: str  # "counters" or "helps"
    name: str

    @property
    def text(self) -> str:
        """The rule in words (site_src/_templates/classes/rules.md.j2)."""
        return templates.words(getattr(templates.macros("classes/rules.md.j2"), self.code)).strip()


RULES: tuple[Rule, ...] = (
    Rule("K1", "counters", "kites"),
    Rule("K2", "counters", "catches"),
    Rule("K3", "counters", "cuts healing"),
    Rule("K4", "counters", "out-damages healing"),
    Rule("K5", "counters", "bursts the fragile"),
    Rule("H1", "helps", "heals"),
    Rule("H2", "helps", "shields"),
    Rule("H3", "helps", "empowers"),
    Rule("H4", "helps", "holds targets for"),
)


@dataclass(frozen=True)
class Relation:
    a: int
    b: int
    rule: Rule
    why: str  # the numbers behind it


def relations() -> list[Relation]:
    """Every (A, B, rule) that holds for the class table, counters first."""
    S = classes.CLASSES
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
                and _slows(classes.BASIC_EFFECTS[a])
                and _enemy_basic(B)
                and A.basic_range >= 2 * B.basic_range
            ):
                found.append(("K1", f"Basic range {_g(A.basic_range)} vs {_g(B.basic_range)}"))
            if (
                A.ultimate_target == "enemy"
                and _holds(classes.ULTIMATE_EFFECTS[a])
                and A.ultimate_range > B.basic_range > A.basic_range
            ):
                found.append(
                    (
                        "K2",
                        f"{A.ultimate_name} reaches {_g(A.ultimate_range)}; Basic ranges "
                        f"{_g(A.basic_range)} vs {_g(B.basic_range)}",
                    )
                )
            cuts = (
                classes.BASIC_EFFECTS[a][classes.HEALING_CUT]
                or classes.ULTIMATE_EFFECTS[a][classes.HEALING_CUT]
            )
            if cuts and _heals(B):
                found.append(("K3", f"healing received ×{_g(classes.POISON_HEALING_FACTOR)}"))
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
            if A.name == "warrior" and classes.WARRIOR_AURA_FACTOR < 1 and b == least_health:
                found.append(
                    (
                        "H2",
                        f"damage taken ×{_g(classes.WARRIOR_AURA_FACTOR)}; "
                        f"{_g(B.max_health)} maximum health",
                    )
                )
            if A.name == "mage" and classes.MAGE_AURA_FACTOR > 1 and b == biggest:
                found.append(
                    (
                        "H3",
                        f"damage ×{_g(classes.MAGE_AURA_FACTOR)} on a {_g(_biggest_hit(B))}-damage hit",
                    )
                )
            if (
                A.ultimate_target == "enemy"
                and _holds(classes.ULTIMATE_EFFECTS[a])
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
    colour = {"counters": DAMAGE_COLOUR, "helps": HEAL_COLOUR}
    n = len(classes.CLASSES)
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
            f'<path class="rel rel-{kind}" data-from="{classes.CLASSES[a].name}" '
            f'data-to="{classes.CLASSES[b].name}" data-rules="{" ".join(codes)}" '
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
    for i, s in enumerate(classes.CLASSES):
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


def classes_index() -> str:
    """The overview: the table's numbers, every passive, and who counters and helps whom."""
    rels = relations()
    by_class = [
        {
            "spec": s,
            "counters": [r for r in rels if r.a == c and r.rule.kind == "counters"],
            "helps": [r for r in rels if r.a == c and r.rule.kind == "helps"],
        }
        for c, s in enumerate(classes.CLASSES)
    ]
    return templates.render(
        "classes/index.md.j2",
        C=classes,
        TEAM_SIZE=TEAM_SIZE,
        passives={s.name: passive_text(s) for s in classes.CLASSES},
        diagram=relation_svg(rels),
        rules=RULES,
        by_class=by_class,
    )
