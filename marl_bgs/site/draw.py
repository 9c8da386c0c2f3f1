"""SVG pictures of a game state: the arena, obstacles, agents and what happened in a tick.

Drawn in map units with y flipped by hand (text stays upright), cropped to a view box so that
small scenes are large enough to read. The Visual Key page is written from `SYMBOLS`, the
same table the drawing code uses, so the key cannot drift from the pictures.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from ..core import classes
from ..core.state import ARENA_HEIGHT, ARENA_WIDTH, MILLI, PAD_X, PAD_Y, TEAM_SIZE, State

PALETTE_FILE = Path(__file__).resolve().parents[2] / "web_demo" / "assets" / "palette.json"


def load_palette(path: Path = PALETTE_FILE) -> dict[str, Any]:
    """The site's one palette and symbol table, shared with the replay viewer's JavaScript."""
    return json.loads(path.read_text(encoding="utf-8"))


PALETTE = load_palette()
TEAM_COLOURS = tuple(PALETTE["team"])
TEAM_LIGHT = tuple(PALETTE["team_light"])
TEAM_LABELS = tuple(PALETTE["team_names"])
DAMAGE_COLOUR = PALETTE["damage"]
HEAL_COLOUR = PALETTE["heal"]
CHARGE_COLOUR = PALETTE["charge"]
MOVE_COLOUR = PALETTE["move"]
OBSTACLE_COLOUR = PALETTE["obstacle"]
FLOOR_COLOUR = PALETTE["floor"]
RED_ZONE_COLOUR = PALETTE["red_zone"]
RED_ZONE_FILL = PALETTE["red_zone_fill"]
HIDDEN_COLOUR = PALETTE["hidden_cell"]
SIGHT_COLOUR = PALETTE["sight"]
TEXT_COLOUR = PALETTE["text"]
HALO = PALETTE["label_halo"]
THIN_WALL = float(PALETTE["thin_wall"])
THIN_WALL_MIN = 0.06  # map units: a thin wall is never drawn thinner than this
EFFECT_GLYPHS = {name: e["word"] for name, e in PALETTE["effects"].items()}

# Every symbol the pictures use: (key, what it means). The Visual Key page lists these.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("agent", "a circle of the body's true radius, coloured by team, with the class initial"),
    ("health", "the bar above an agent: its share of maximum health"),
    (
        "fallen",
        "a grey body with a dark cross where an agent died; it waits for its team's respawn wave",
    ),
    ("shield", "a dashed ring: the spawn shield after a respawn"),
    ("status", "a small label under an agent: its active effects (stunned, slowed, ...)"),
    ("damage", "a red arrow from attacker to target, labelled with the damage dealt"),
    ("heal", "a green arrow from healer to target, labelled with the healing given"),
    ("charge", "a purple dashed line: the path of a Warrior's Charge"),
    ("move", "a thin grey line with dots: where each agent moved during the tick"),
    ("range", "a thin circle around an agent: the reach of an ability"),
    ("sight", "a yellow circle: an agent's sight radius; dark cells inside it are hidden by cover"),
    ("red_zone", "the red strips at both ends, dashed at their inner edge: deaths count double"),
    ("pad", "square outlines at both ends in the owning team's colour: the spawn pads"),
    ("obstacle", "dark grey pillars and walls: they block movement, sight and attacks"),
    (
        "thin_wall",
        f"a wall thinner than {THIN_WALL:g} units, drawn as a dark grey line at least "
        f"{THIN_WALL_MIN:g} units thick so it stays visible; it blocks like any wall",
    ),
)

CHAR_W = 0.62  # a sans-serif character's width, in font sizes (digits and bold letters)


def text_box(
    x: float, y: float, size: float, text: str, anchor: str = "middle"
) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of an SVG text at baseline (x, y): the box the labels must not share."""
    w = size * CHAR_W * len(text)
    x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
    return (x0, y - 0.78 * size, x0 + w, y + 0.22 * size)


def boxes_overlap(a, b, pad: float = 0.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


@dataclass
class _Layout:
    """Labels placed one by one; each takes the first candidate spot whose box is free: off
    every placed label, every body with the room above it (a health bar, or a fallen agent's
    name) and every combat arrow."""

    placed: list[tuple[float, float, float, float]] = field(default_factory=list)
    bodies: dict[int, tuple[float, float, float, float]] = field(default_factory=dict)
    segments: list[tuple[float, float, float, float]] = field(default_factory=list)
    out: list[str] = field(default_factory=list)

    def fixed(self, x: float, y: float, size: float, text: str, attrs: str) -> None:
        self.placed.append(text_box(x, y, size, text))
        self.out.append(self._text(x, y, size, text, attrs))

    def place(
        self,
        spots: list[tuple[float, float]],
        size: float,
        text: str,
        attrs: str,
        own: int | None = None,
    ) -> None:
        """`own`: the slot of a fallen agent whose name this is; it may use the room above
        that body, not the body."""
        bodies = [(b[0], b[3] - 1.0, b[2], b[3]) if k == own else b for k, b in self.bodies.items()]
        step = size * 1.1
        x0, y0 = spots[0]
        more = [(x0, y0 + k * step * sgn) for k in range(1, 14) for sgn in (1, -1)]
        more += [(x0 + dx, y0 + dy) for dy in (0, step, -step) for dx in (1.2, -1.2, 2.0, -2.0)]
        for x, y in [*spots, *more]:
            box = text_box(x, y, size, text)
            if any(boxes_overlap(box, b, 0.02) for b in self.placed):
                continue
            if any(boxes_overlap(box, b) for b in bodies):
                continue
            if any(segment_hits_box(g, box) for g in self.segments):
                continue
            break
        else:
            x, y = spots[0]
            box = text_box(x, y, size, text)
        self.placed.append(box)
        self.out.append(self._text(x, y, size, text, attrs))

    @staticmethod
    def _text(x: float, y: float, size: float, text: str, attrs: str) -> str:
        return (
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="middle" '
            f"{attrs}>{escape(text)}</text>"
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
    # Where combat was judged from (start-of-tick centres, map units, (10, 2)); None: the state.
    origin: Any = None
    # Healing above maximum health per target (map HP), shown beside the useful part.
    excess: dict[int, float] = field(default_factory=dict)


def _n(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def _y(y: float) -> float:
    return ARENA_HEIGHT - y


def agent_label(state: State, slot: int) -> str:
    """'a0 Mage': the event name of a slot and its class."""
    return (
        f"{'ab'[slot // TEAM_SIZE]}{slot % TEAM_SIZE} {classes.CLASSES[int(state.cls[slot])].title}"
    )


def _arrow(x0, y0, x1, y1, colour: str) -> tuple[str, tuple, list[tuple[float, float]]]:
    """An arrow between two bodies (map units): its SVG, its segment in SVG coordinates, and
    candidate spots for its label, nearest first."""
    dx, dy = x1 - x0, y1 - y0
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    shorten = min(0.55, max(d / 2 - 0.2, 0.05))  # touching bodies still get a visible arrow
    sx, sy = x0 + ux * shorten, y0 + uy * shorten
    ex, ey = x1 - ux * shorten, y1 - uy * shorten
    hx, hy = ex - ux * 0.25, ey - uy * 0.25
    px, py = -uy * 0.12, ux * 0.12
    # Shift off the centre line, so two agents hitting each other get two arrows side by side.
    sx, sy, ex, ey = sx + px * 0.6, sy + py * 0.6, ex + px * 0.6, ey + py * 0.6
    hx, hy = hx + px * 0.6, hy + py * 0.6
    head = f"{_n(ex)},{_n(_y(ey))} {_n(hx + px)},{_n(_y(hy + py))} {_n(hx - px)},{_n(_y(hy - py))}"
    spots = []
    for along in (0.5, 0.35, 0.65):
        for side in (2.2, -2.2, 3.5, -3.5, 5.0, -5.0):
            mx = sx + (ex - sx) * along + px * side
            my = sy + (ey - sy) * along + py * side
            spots.append((mx, _y(my) + 0.12))
    svg = (
        f'<line x1="{_n(sx)}" y1="{_n(_y(sy))}" x2="{_n(ex)}" y2="{_n(_y(ey))}" '
        f'stroke="{colour}" stroke-width="0.07"/>'
        f'<polygon points="{head}" fill="{colour}"/>'
    )
    return svg, (sx, _y(sy), ex, _y(ey)), spots


def segment_hits_box(seg: tuple, box: tuple, pad: float = 0.03) -> bool:
    """Whether the segment (x0, y0, x1, y1) passes through the box, sampled finely."""
    x0, y0, x1, y1 = seg
    steps = max(int(math.hypot(x1 - x0, y1 - y0) / 0.02), 1)
    for k in range(steps + 1):
        x, y = x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps
        if box[0] - pad <= x <= box[2] + pad and box[1] - pad <= y <= box[3] + pad:
            return True
    return False


_HALO = f'paint-order="stroke" stroke="{HALO}" stroke-width="0.07" stroke-linejoin="round"'


def _obstacle(ob: dict) -> str:
    if ob["kind"] == "pillar":
        return (
            f'<circle cx="{_n(ob["x"])}" cy="{_n(_y(ob["y"]))}" r="{_n(ob["radius"])}" '
            f'fill="{OBSTACLE_COLOUR}"/>'
        )
    w, h = float(ob["width"]), float(ob["height"])
    thin = min(w, h) < THIN_WALL
    if thin:  # a thin wall: a line of at least THIN_WALL_MIN, as the viewer and atlas draw it
        w, h = (w, max(h, THIN_WALL_MIN)) if w >= h else (max(w, THIN_WALL_MIN), h)
    deg = -math.degrees(float(ob.get("theta", 0.0)))
    x, y = float(ob["x"]), _y(float(ob["y"]))
    return (
        f'<rect class="{"thin-wall" if thin else "wall"}" x="{_n(x - w / 2)}" '
        f'y="{_n(y - h / 2)}" width="{_n(w)}" height="{_n(h)}" fill="{OBSTACLE_COLOUR}" '
        f'transform="rotate({_n(deg)} {_n(x)} {_n(y)})"/>'
    )


def _agent(state: State, i: int, layout: _Layout) -> str:
    x, y = state.pos[i, 0] / MILLI, _y(state.pos[i, 1] / MILLI)
    team = i // TEAM_SIZE
    colour = TEAM_COLOURS[team]
    spec = classes.CLASSES[int(state.cls[i])]
    name = f"{'ab'[team]}{i % TEAM_SIZE}"
    if not state.alive[i]:
        k = 0.3
        layout.place([(x, y - 0.62), (x - 0.7, y - 0.62), (x + 0.7, y - 0.62)], 0.24, name,
                     f'fill="{colour}"', own=i)  # fmt: skip
        return (
            f'<g class="dead"><title>{name} {spec.title}: fallen</title>'
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="0.5" fill="{PALETTE["fallen"]}" '
            f'fill-opacity="0.6" stroke="{colour}" stroke-width="0.05"/>'
            f'<path d="M{_n(x - k)} {_n(y - k)}L{_n(x + k)} {_n(y + k)}M{_n(x - k)} {_n(y + k)}'
            f'L{_n(x + k)} {_n(y - k)}" stroke="{PALETTE["death"]}" stroke-width="0.1"/></g>'
        )
    share = float(state.health[i]) / float(classes.MAX_HEALTH_MILLI[int(state.cls[i])])
    bar = PALETTE["health_good"] if share > PALETTE["health_low_share"] else PALETTE["health_low"]
    parts = [
        f'<g class="agent"><title>{name} {spec.title}: {_n(state.health[i] / MILLI)} HP</title>'
    ]
    if state.shield[i] > 0:
        parts.append(
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="0.68" fill="none" stroke="{PALETTE["shield"]}" '
            'stroke-width="0.06" stroke-dasharray="0.12 0.08"/>'
        )
    parts.append(
        f'<circle cx="{_n(x)}" cy="{_n(y)}" r="0.5" fill="{colour}" fill-opacity="0.9" '
        f'stroke="{HALO}" stroke-width="0.05"/>'
        f'<rect x="{_n(x - 0.5)}" y="{_n(y - 0.78)}" width="1" height="0.14" '
        f'fill="{PALETTE["health_track"]}" fill-opacity="0.25"/>'
        f'<rect x="{_n(x - 0.5)}" y="{_n(y - 0.78)}" width="{_n(max(share, 0.0))}" '
        f'height="0.14" fill="{bar}"/>'
    )
    layout.fixed(x, y + 0.15, 0.45, spec.title[0], f'fill="{HALO}" font-weight="bold"')
    layout.place([(x, y - 0.86), (x - 0.7, y - 0.86), (x + 0.7, y - 0.86)], 0.24, name,
                 f'fill="{colour}"')  # fmt: skip
    active = sorted(
        {EFFECT_GLYPHS[n] for e, n in enumerate(classes.EFFECT_NAMES) if state.effects[i, e] > 0}
    )
    if active:
        layout.place(
            [(x, y + 0.82), (x, y + 1.1)], 0.24, ", ".join(active), f'fill="{TEXT_COLOUR}" {_HALO}'
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
            edge = left + depth if left == 0.0 else left
            out.append(
                f'<rect x="{_n(left)}" y="0" width="{_n(depth)}" height="{_n(ARENA_HEIGHT)}" '
                f'fill="{RED_ZONE_FILL}"/>'
                f'<line x1="{_n(edge)}" y1="0" x2="{_n(edge)}" y2="{_n(ARENA_HEIGHT)}" '
                f'stroke="{RED_ZONE_COLOUR}" stroke-width="0.03" stroke-dasharray="0.15 0.1"/>'
            )
    for end, px in enumerate(PAD_X):
        team = int(np.flatnonzero(np.asarray(state.spawn_end) == end)[0])
        for py in PAD_Y:
            out.append(
                f'<rect class="pad" x="{_n(px - 0.45)}" y="{_n(_y(py) - 0.45)}" width="0.9" '
                f'height="0.9" fill="none" stroke="{TEAM_LIGHT[team]}" stroke-width="0.05"/>'
            )
    if marks.hidden_cells:
        h = marks.cell
        cells = "".join(
            f"M{_n(cx - h / 2)} {_n(_y(cy) - h / 2)}h{_n(h)}v{_n(h)}h{_n(-h)}z"
            for cx, cy in marks.hidden_cells
        )
        out.append(f'<path d="{cells}" fill="{HIDDEN_COLOUR}"/>')
    for ob in obstacles:
        out.append(_obstacle(ob))
    layout = _Layout()
    for i in range(len(state.cls)):
        if state.present[i]:
            # Names too keep off the bodies: a name above its agent's bar moves aside rather
            # than cover the body of an agent standing just above.
            x, y = state.pos[i, 0] / MILLI, _y(state.pos[i, 1] / MILLI)
            layout.bodies[i] = (x - 0.5, y - 0.8, x + 0.5, y + 0.5)
    if marks.sight is not None:
        i = marks.sight
        r = float(classes.SIGHT[int(state.cls[i])])
        out.append(
            f'<circle cx="{_n(state.pos[i, 0] / MILLI)}" cy="{_n(_y(state.pos[i, 1] / MILLI))}" '
            f'r="{_n(r)}" fill="none" stroke="{SIGHT_COLOUR}" stroke-width="0.06"/>'
        )
    ranges = []
    for i, r, label in marks.ranges:
        x, y = state.pos[i, 0] / MILLI, _y(state.pos[i, 1] / MILLI)
        out.append(
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="none" stroke="{MOVE_COLOUR}" '
            'stroke-width="0.03" stroke-dasharray="0.1 0.08"/>'
        )
        ranges.append((x, y, r, label))
    for points in marks.trails.values():
        pts = " ".join(f"{_n(x)},{_n(_y(y))}" for x, y in points)
        out.append(
            f'<polyline points="{pts}" fill="none" stroke="{MOVE_COLOUR}" stroke-width="0.05"/>'
            + "".join(
                f'<circle cx="{_n(x)}" cy="{_n(_y(y))}" r="0.07" fill="{MOVE_COLOUR}"/>'
                for x, y in points[:-1]
            )
        )
    for (ax, ay), (bx, by) in marks.charge:
        out.append(
            f'<line x1="{_n(ax)}" y1="{_n(_y(ay))}" x2="{_n(bx)}" y2="{_n(_y(by))}" '
            f'stroke="{CHARGE_COLOUR}" stroke-width="0.08" stroke-dasharray="0.2 0.1"/>'
        )
    origin = (
        np.asarray(marks.origin, np.float64) if marks.origin is not None else agent_positions(state)
    )

    def centre(i: int) -> tuple[float, float]:
        return float(origin[i, 0]), float(origin[i, 1])

    arrows, labels = [], []
    for kind, colour in (("damage", DAMAGE_COLOUR), ("heal", HEAL_COLOUR)):
        for src, dst, amount in getattr(marks, kind):
            label = _n(amount)
            if kind == "heal":
                label = heal_label(amount, marks.excess.get(dst, 0.0))
            if src == dst:
                x, y = centre(src)
                spots = [(x + 0.6 + 0.5 * len(label) * 0.34 * CHAR_W, _y(y) - 0.3)]
            else:
                svg, segment, spots = _arrow(*centre(src), *centre(dst), colour)
                arrows.append(svg)
                layout.segments.append(segment)
            labels.append((spots, label, colour))
    for i in range(len(state.cls)):
        if state.present[i]:
            out.append(_agent(state, i, layout))
    for x, y, r, label in ranges:
        layout.place(
            [(x, y - r - 0.08), (x, y + r + 0.3)], 0.26, label, f'fill="{OBSTACLE_COLOUR}" {_HALO}'
        )
    out.extend(arrows)
    for spots, label, colour in labels:
        layout.place(spots, 0.34, label, f'fill="{colour}" font-weight="bold" {_HALO}')
    out.extend(layout.out)
    out.append("</svg>")
    return "".join(out)


def heal_label(amount: float, excess: float) -> str:
    """'+12' for a heal that all counts; '+3 (9 excess)' when part of it is above max health."""
    if excess <= 0:
        return f"+{_n(amount)}"
    return f"+{_n(max(amount - excess, 0.0))} ({_n(excess)} excess)"


def agent_positions(state: Any) -> np.ndarray:
    """Centres in map units, (10, 2) floats."""
    return np.asarray(state.pos, dtype=np.float64) / MILLI
