"""SVG pictures of a game state: the arena, obstacles, agents and what happened in a tick.

Drawn in map units with y flipped by hand (text stays upright), cropped to a view box so that
small scenes are large enough to read. The Visual Key page is written from `SYMBOLS`, the
same table the drawing code uses, so the key cannot drift from the pictures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Any

import numpy as np

from ..core import classes as C
from ..core.state import ARENA_HEIGHT, ARENA_WIDTH, MILLI, PAD_X, PAD_Y, TEAM_SIZE, State

TEAM_COLOURS = ("#1c7ed6", "#e8590c")
TEAM_LABELS = ("team a", "team b")
DAMAGE_COLOUR = "#c92a2a"
HEAL_COLOUR = "#2b8a3e"
CHARGE_COLOUR = "#862e9c"
OBSTACLE_COLOUR = "#495057"
FLOOR_COLOUR = "#f3efe6"
RED_ZONE_COLOUR = "#e03131"
HIDDEN_COLOUR = "#343a40"
SIGHT_COLOUR = "#fab005"
EFFECT_GLYPHS = {
    "stun": "stunned",
    "trap": "trapped",
    "slow_hunter": "slowed",
    "slow_charge": "slowed",
    "slow_poison": "slowed",
    "healing_cut": "healing cut",
    "burst": "Burst",
    "blessing": "Blessing",
}

# Every symbol the pictures use: (key, what it means). The Visual Key page lists these.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("agent", "a circle of the body's true radius, coloured by team, with the class initial"),
    ("health", "the bar above an agent: its share of maximum health"),
    ("dead", "a grey cross where an agent died; it waits for its team's respawn wave"),
    ("shield", "a dashed ring: the spawn shield after a respawn"),
    ("status", "a small label under an agent: its active effects (stunned, slowed, ...)"),
    ("damage", "a red arrow from attacker to target, labelled with the damage dealt"),
    ("heal", "a green arrow from healer to target, labelled with the healing given"),
    ("charge", "a purple dashed line: the path of a Warrior's Charge"),
    ("move", "a thin grey line with dots: where each agent moved, tick by tick"),
    ("range", "a thin circle around an agent: the reach of an ability"),
    ("sight", "a yellow circle: an agent's sight radius; dark cells inside it are hidden by cover"),
    ("red_zone", "the tinted strips at both ends: the Red Zones where deaths count double"),
    ("pad", "small squares at both ends: the spawn pads"),
    ("obstacle", "dark grey pillars and walls: they block movement, sight and attacks"),
)


@dataclass
class Marks:
    """Overlays for one picture: arrows for combat, trails for moves, circles for ranges."""

    damage: list[tuple[int, int, float]] = field(default_factory=list)
    heal: list[tuple[int, int, float]] = field(default_factory=list)
    charge: list[tuple[tuple[float, float], tuple[float, float]]] = field(default_factory=list)
    trails: dict[int, list[tuple[float, float]]] = field(default_factory=dict)
    ranges: list[tuple[int, float, str]] = field(default_factory=list)
    sight: int | None = None
    hidden_cells: list[tuple[float, float]] = field(default_factory=list)
    cell: float = 0.1


def _n(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def _y(y: float) -> float:
    return ARENA_HEIGHT - y


def agent_label(state: State, slot: int) -> str:
    """'a0 Mage': the event name of a slot and its class."""
    return f"{'ab'[slot // TEAM_SIZE]}{slot % TEAM_SIZE} {C.CLASSES[int(state.cls[slot])].title}"


def _arrow(x0, y0, x1, y1, colour: str, label: str, shorten: float = 0.55) -> str:
    dx, dy = x1 - x0, y1 - y0
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    sx, sy = x0 + ux * shorten, y0 + uy * shorten
    ex, ey = x1 - ux * shorten, y1 - uy * shorten
    hx, hy = ex - ux * 0.25, ey - uy * 0.25
    px, py = -uy * 0.12, ux * 0.12
    head = f"{_n(ex)},{_n(_y(ey))} {_n(hx + px)},{_n(_y(hy + py))} {_n(hx - px)},{_n(_y(hy - py))}"
    mx, my = (sx + ex) / 2 + px * 1.6, (sy + ey) / 2 + py * 1.6
    return (
        f'<line x1="{_n(sx)}" y1="{_n(_y(sy))}" x2="{_n(ex)}" y2="{_n(_y(ey))}" '
        f'stroke="{colour}" stroke-width="0.07"/>'
        f'<polygon points="{head}" fill="{colour}"/>'
        f'<text x="{_n(mx)}" y="{_n(_y(my))}" font-size="0.34" fill="{colour}" '
        f'text-anchor="middle" font-weight="bold">{escape(label)}</text>'
    )


def _obstacle(ob: dict) -> str:
    if ob["kind"] == "pillar":
        return (
            f'<circle cx="{_n(ob["x"])}" cy="{_n(_y(ob["y"]))}" r="{_n(ob["radius"])}" '
            f'fill="{OBSTACLE_COLOUR}"/>'
        )
    w, h = float(ob["width"]), float(ob["height"])
    deg = -math.degrees(float(ob.get("theta", 0.0)))
    x, y = float(ob["x"]), _y(float(ob["y"]))
    return (
        f'<rect x="{_n(x - w / 2)}" y="{_n(y - h / 2)}" width="{_n(max(w, 0.03))}" '
        f'height="{_n(max(h, 0.03))}" fill="{OBSTACLE_COLOUR}" '
        f'transform="rotate({_n(deg)} {_n(x)} {_n(y)})"/>'
    )


def _agent(state: State, i: int) -> str:
    x, y = state.pos[i, 0] / MILLI, _y(state.pos[i, 1] / MILLI)
    team = i // TEAM_SIZE
    colour = TEAM_COLOURS[team]
    spec = C.CLASSES[int(state.cls[i])]
    name = f"{'ab'[team]}{i % TEAM_SIZE}"
    if not state.alive[i]:
        k = 0.3
        return (
            f'<g class="dead"><title>{name} {spec.title}: dead</title>'
            f'<path d="M{_n(x - k)} {_n(y - k)}L{_n(x + k)} {_n(y + k)}M{_n(x - k)} {_n(y + k)}'
            f'L{_n(x + k)} {_n(y - k)}" stroke="#868e96" stroke-width="0.1"/></g>'
        )
    share = float(state.health[i]) / float(C.MAX_HEALTH_MILLI[int(state.cls[i])])
    parts = [
        f'<g class="agent"><title>{name} {spec.title}: {_n(state.health[i] / MILLI)} HP</title>'
    ]
    if state.shield[i] > 0:
        parts.append(
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="0.68" fill="none" stroke="{colour}" '
            'stroke-width="0.06" stroke-dasharray="0.12 0.08"/>'
        )
    parts.append(
        f'<circle cx="{_n(x)}" cy="{_n(y)}" r="0.5" fill="{colour}" fill-opacity="0.9" '
        'stroke="#fff" stroke-width="0.05"/>'
        f'<text x="{_n(x)}" y="{_n(y + 0.15)}" font-size="0.45" fill="#fff" '
        f'text-anchor="middle" font-weight="bold">{spec.title[0]}</text>'
        f'<rect x="{_n(x - 0.5)}" y="{_n(y - 0.78)}" width="1" height="0.14" fill="#dee2e6"/>'
        f'<rect x="{_n(x - 0.5)}" y="{_n(y - 0.78)}" width="{_n(max(share, 0.0))}" '
        'height="0.14" fill="#37b24d"/>'
        f'<text x="{_n(x)}" y="{_n(y - 0.86)}" font-size="0.24" fill="{colour}" '
        f'text-anchor="middle">{name}</text>'
    )
    active = sorted(
        {EFFECT_GLYPHS[n] for e, n in enumerate(C.EFFECT_NAMES) if state.effects[i, e] > 0}
    )
    if active:
        parts.append(
            f'<text x="{_n(x)}" y="{_n(y + 0.82)}" font-size="0.24" fill="#212529" '
            f'text-anchor="middle">{escape(", ".join(active))}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def draw(
    state: State,
    obstacles: list[dict],
    view: tuple[float, float, float, float] = (0.0, 0.0, ARENA_WIDTH, ARENA_HEIGHT),
    marks: Marks | None = None,
    title: str = "",
    width_px: int = 360,
) -> str:
    """One picture of `state` cropped to `view` = (x0, y0, x1, y1) in map units."""
    marks = marks or Marks()
    state = State(*(np.asarray(v) for v in state))
    x0, y0, x1, y1 = view
    vb = f"{_n(x0)} {_n(_y(y1))} {_n(x1 - x0)} {_n(y1 - y0)}"
    height_px = round(width_px * (y1 - y0) / (x1 - x0))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{vb}" width="{width_px}" '
        f'height="{height_px}" role="img" class="bgs-pic" font-family="sans-serif">',
        f"<title>{escape(title)}</title>" if title else "",
        f'<rect x="0" y="0" width="{_n(ARENA_WIDTH)}" height="{_n(ARENA_HEIGHT)}" '
        f'fill="{FLOOR_COLOUR}"/>',
    ]
    depth = float(state.red_zone_depth) / MILLI
    if depth > 0:
        for left in (0.0, ARENA_WIDTH - depth):
            out.append(
                f'<rect x="{_n(left)}" y="0" width="{_n(depth)}" height="{_n(ARENA_HEIGHT)}" '
                f'fill="{RED_ZONE_COLOUR}" fill-opacity="0.1"/>'
            )
    for px in PAD_X:
        for py in PAD_Y:
            out.append(
                f'<rect x="{_n(px - 0.2)}" y="{_n(_y(py) - 0.2)}" width="0.4" height="0.4" '
                'fill="none" stroke="#adb5bd" stroke-width="0.04"/>'
            )
    if marks.hidden_cells:
        h = marks.cell
        cells = "".join(
            f"M{_n(cx - h / 2)} {_n(_y(cy) - h / 2)}h{_n(h)}v{_n(h)}h{_n(-h)}z"
            for cx, cy in marks.hidden_cells
        )
        out.append(f'<path d="{cells}" fill="{HIDDEN_COLOUR}" fill-opacity="0.35"/>')
    for ob in obstacles:
        out.append(_obstacle(ob))
    if marks.sight is not None:
        i = marks.sight
        r = float(C.SIGHT[int(state.cls[i])])
        out.append(
            f'<circle cx="{_n(state.pos[i, 0] / MILLI)}" cy="{_n(_y(state.pos[i, 1] / MILLI))}" '
            f'r="{_n(r)}" fill="none" stroke="{SIGHT_COLOUR}" stroke-width="0.06"/>'
        )
    for i, r, label in marks.ranges:
        x, y = state.pos[i, 0] / MILLI, _y(state.pos[i, 1] / MILLI)
        out.append(
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="none" stroke="#868e96" '
            'stroke-width="0.03" stroke-dasharray="0.1 0.08"/>'
            f'<text x="{_n(x)}" y="{_n(y - r - 0.08)}" font-size="0.26" fill="#495057" '
            f'text-anchor="middle">{escape(label)}</text>'
        )
    for points in marks.trails.values():
        pts = " ".join(f"{_n(x)},{_n(_y(y))}" for x, y in points)
        out.append(
            f'<polyline points="{pts}" fill="none" stroke="#868e96" stroke-width="0.05"/>'
            + "".join(
                f'<circle cx="{_n(x)}" cy="{_n(_y(y))}" r="0.07" fill="#868e96"/>'
                for x, y in points[:-1]
            )
        )
    for (ax, ay), (bx, by) in marks.charge:
        out.append(
            f'<line x1="{_n(ax)}" y1="{_n(_y(ay))}" x2="{_n(bx)}" y2="{_n(_y(by))}" '
            f'stroke="{CHARGE_COLOUR}" stroke-width="0.08" stroke-dasharray="0.2 0.1"/>'
        )
    for i in range(len(state.cls)):
        if state.present[i]:
            out.append(_agent(state, i))

    def centre(i: int) -> tuple[float, float]:
        return state.pos[i, 0] / MILLI, state.pos[i, 1] / MILLI

    for kind, colour in (("damage", DAMAGE_COLOUR), ("heal", HEAL_COLOUR)):
        for src, dst, amount in getattr(marks, kind):
            if src == dst:
                x, y = centre(src)
                out.append(
                    f'<text x="{_n(x + 0.6)}" y="{_n(_y(y) - 0.3)}" font-size="0.34" '
                    f'fill="{colour}" font-weight="bold">+{_n(amount)}</text>'
                )
                continue
            out.append(_arrow(*centre(src), *centre(dst), colour, _n(amount)))
    out.append("</svg>")
    return "".join(out)


def agent_positions(state: Any) -> np.ndarray:
    """Centres in map units, (10, 2) floats."""
    return np.asarray(state.pos, dtype=np.float64) / MILLI
