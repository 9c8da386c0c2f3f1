"""The Visual Key page: the still pictures' symbols, the status labels, and the replay
viewer's symbols (small SVG swatches, their words, and a key scene played in the viewer).

The words are templates: `site_src/_templates/visual-key.md.j2` (the page),
`visual-key/viewer.md.j2` (the viewer's part) and `visual-key/symbols.md.j2` (what each viewer
symbol means). The viewer draws on a canvas in `web_demo/viewer/render.js` with the colours of
`web_demo/assets/palette.json`, the one palette the still pictures use too. Each entry below
names the palette keys and drawing literals it describes; `check_render_source` fails the
build when render.js no longer uses one of them (or the palette lacks it), so the key cannot
silently drift from the drawing code. The key
scene is a real position played on the engine and opened in the viewer itself, so the page
also shows every symbol drawn by the viewer's own code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..core import classes
from . import templates
from .clips import show
from .draw import PALETTE, SYMBOLS, TEAM_COLOURS, TEAM_LABELS
from .scenes import STAY, Scene, agent, ally, enemy, position

RENDER_JS = Path("web_demo") / "viewer" / "render.js"
P = PALETTE
TEAM = tuple(P["team"])
TEAM_LIGHT = tuple(P["team_light"])
FLOOR = P["floor"]
OBSTACLE = P["obstacle"]
W, H, R = 64, 48, 10  # swatch size and body radius in pixels
CX, CY = 32, 22
SYMBOL_TEXTS = "visual-key/symbols.md.j2"


@dataclass(frozen=True)
class Symbol:
    """One thing the viewer draws: its name, what it means, the literals render.js must hold
    (a literal `PALETTE.key` also needs `key` in palette.json)."""

    name: str
    text: str
    literals: tuple[str, ...]
    svg: str


def _svg(body: str) -> str:
    return (
        f'<svg class="bgs-swatch" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        f'xmlns="http://www.w3.org/2000/svg" aria-hidden="true">'
        f'<rect width="{W}" height="{H}" fill="{FLOOR}"/>{body}</svg>'
    )


def _body(team: int = 0, letter: str = "M", opacity: float = 1.0, x: float = CX) -> str:
    return (
        f'<circle cx="{x}" cy="{CY}" r="{R}" fill="{TEAM[team]}" fill-opacity="{opacity}"/>'
        f'<text x="{x}" y="{CY + 4}" font-size="11" font-weight="bold" fill="{P["label_halo"]}" '
        f'text-anchor="middle" font-family="sans-serif">{letter}</text>'
    )


def _line(colour: str, width: float, dash: str = "") -> str:
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<line x1="6" y1="{CY}" x2="{W - 6}" y2="{CY}" stroke="{colour}" '
        f'stroke-width="{width}"{extra}/>'
    )


def _arc_path(share: float) -> str:
    """The grey Ultimate arc: from 12 o'clock, clockwise, over `share` of a circle of r 4."""
    x0, y0, r = CX - R - 5, CY + R + 2, 4
    a = -math.pi / 2 + 2 * math.pi * share
    x1, y1 = x0 + r * math.cos(a), y0 + r * math.sin(a)
    large = 1 if share > 0.5 else 0
    return f"M {x0:.2f} {y0 - r:.2f} A {r} {r} 0 {large} 1 {x1:.2f} {y1:.2f}"


def symbols() -> tuple[Symbol, ...]:
    """Every symbol of render.js, in drawing order (arena, sight, events, agents)."""
    zone = (
        f'<rect x="0" y="0" width="24" height="{H}" fill="{P["red_zone_fill"]}"/>'
        f'<line x1="24" y1="0" x2="24" y2="{H}" stroke="{P["red_zone"]}" stroke-dasharray="6 4"/>'
        f'<rect x="{W - 24}" y="0" width="24" height="{H}" fill="{P["red_zone_fill"]}"/>'
        f'<line x1="{W - 24}" y1="0" x2="{W - 24}" y2="{H}" stroke="{P["red_zone"]}" '
        f'stroke-dasharray="6 4"/>'
    )
    pads = "".join(
        f'<rect x="{x - R}" y="{CY - R}" width="{2 * R}" height="{2 * R}" fill="none" '
        f'stroke="{TEAM_LIGHT[t]}" stroke-width="2"/>'
        for t, x in ((0, 18), (1, 46))
    )
    obstacles = (
        f'<circle cx="16" cy="{CY}" r="9" fill="{OBSTACLE}"/>'
        f'<rect x="34" y="{CY - 4}" width="24" height="8" fill="{OBSTACLE}" '
        f'transform="rotate(-20 46 {CY})"/>'
    )
    thin = (
        f'<line x1="10" y1="{CY + 12}" x2="54" y2="{CY - 12}" stroke="{OBSTACLE}" '
        f'stroke-width="{P["thin_wall_px"]}"/>'
    )
    shade = (
        f'<rect width="{W}" height="{H}" fill="{P["shade"]}"/>'
        f'<circle cx="{CX}" cy="{CY}" r="17" fill="{FLOOR}"/>' + _body(0, "H")
    )
    health = "".join(
        f'<rect x="{x - R}" y="{CY - R - 8}" width="{2 * R}" height="5" fill="{P["health_track"]}"/>'
        f'<rect x="{x - R}" y="{CY - R - 8}" width="{2 * R * share}" height="5" fill="{c}"/>'
        + _body(0, "W", x=x)
        for x, share, c in ((18, 0.8, P["health_good"]), (46, 0.25, P["health_low"]))
    )
    ult = (
        _body(0, "R", x=CX)
        + f'<circle cx="{CX - R - 5}" cy="{CY + R + 2}" r="4" fill="none" stroke="{P["ult_ready"]}" '
        f'stroke-width="2"/>'
    )
    ult_wait = _body(1, "R", x=CX) + (
        f'<path d="{_arc_path(0.6)}" fill="none" stroke="{P["ult_wait"]}" stroke-width="2"/>'
    )
    shield = _body(1, "P", 0.55) + (
        f'<circle cx="{CX}" cy="{CY}" r="{R + 3}" fill="none" stroke="{P["shield"]}" '
        f'stroke-width="2" stroke-dasharray="3 3"/>'
    )
    trap = _body(1, "W") + (
        f'<rect x="{CX - R - 4}" y="{CY - R - 4}" width="{2 * R + 8}" height="{2 * R + 8}" '
        f'fill="none" stroke="{P["trap"]}" stroke-width="2"/>'
    )
    poison = _body(1, "P") + "".join(
        f'<circle cx="{CX + R + 4}" cy="{CY - R + k * R * 0.9:.1f}" r="2.5" fill="{P["poison"]}"/>'
        for k in range(3)
    )
    labels = _body(1, "M") + (
        f'<text x="{CX}" y="{CY + R + 12}" font-size="9" fill="{P["text"]}" text-anchor="middle" '
        f'font-family="sans-serif">STN SLW</text>'
    )
    s = 0.9 * R
    fallen = (
        f'<circle cx="{CX}" cy="{CY}" r="{R}" fill="{P["fallen"]}" fill-opacity="0.6" '
        f'stroke="{TEAM[0]}" stroke-width="2"/>'
        f'<path d="M {CX - s} {CY - s} L {CX + s} {CY + s} M {CX + s} {CY - s} L {CX - s} '
        f'{CY + s}" stroke="{P["death"]}" stroke-width="3"/>'
    )
    respawn = f'<circle cx="{CX}" cy="{CY}" r="{1.4 * R}" fill="none" stroke="{TEAM[1]}" stroke-width="2"/>'
    codes = ", ".join(f"{e['code']} {e['name']}" for e in P["effects"].values())
    texts = templates.module(SYMBOL_TEXTS, P=P, TEAM=TEAM, codes=codes)
    entries = (
        ("arena", "arena", ("PALETTE.floor",), _svg("")),
        (
            "Red Zones",
            "red_zones",
            ("PALETTE.red_zone_fill", "PALETTE.red_zone", "[6, 4]"),
            _svg(zone),
        ),
        ("spawn pads", "spawn_pads", ("PALETTE.team_light", "strokeRect"), _svg(pads)),
        ("obstacles", "obstacles", ("PALETTE.obstacle",), _svg(obstacles)),
        ("thin walls", "thin_walls", ("isThinWall", "PALETTE.thin_wall_px"), _svg(thin)),
        ("sight (team and agent views)", "sight", ("PALETTE.shade", "RAYS = 180"), _svg(shade)),
        (
            "agents",
            "agents",
            ("PALETTE.team", "TEAM_COLOURS"),
            _svg(_body(0, "M", x=18) + _body(1, "H", x=46)),
        ),
        (
            "health bar",
            "health_bar",
            ("PALETTE.health_track", "PALETTE.health_good", "PALETTE.health_low"),
            _svg(health),
        ),
        ("Ultimate ready", "ult_ready", ("PALETTE.ult_ready",), _svg(ult)),
        ("Ultimate cooling down", "ult_wait", ("PALETTE.ult_wait",), _svg(ult_wait)),
        ("spawn shield", "spawn_shield", ("PALETTE.shield", "0.55"), _svg(shield)),
        ("Freezing Trap", "trap", ("PALETTE.trap",), _svg(trap)),
        ("Poison", "poison", ("PALETTE.poison",), _svg(poison)),
        ("status labels", "status_labels", ("EFFECT_LABELS",), _svg(labels)),
        ("damage", "damage", ("PALETTE.damage",), _svg(_line(P["damage"], 2.5))),
        ("heal", "heal", ("PALETTE.heal", "[5, 3]"), _svg(_line(P["heal"], 2.5, "5 3"))),
        ("Charge", "charge", ("PALETTE.charge", "[10, 4]"), _svg(_line(P["charge"], 4, "10 4"))),
        ("fallen", "fallen", ("PALETTE.fallen", "PALETTE.death", "drawFallen"), _svg(fallen)),
        ("respawn", "respawn", ("body * 1.4",), _svg(respawn)),
    )
    return tuple(
        Symbol(name, templates.words(getattr(texts, key)), literals, svg)
        for name, key, literals, svg in entries
    )


def check_render_source(root: Path) -> None:
    """Raise if render.js lacks a literal this key describes, or palette.json a key it names."""
    path = root / RENDER_JS
    source = path.read_text()
    missing = [(s.name, lit) for s in symbols() for lit in s.literals if lit not in source]
    missing += [
        (s.name, lit)
        for s in symbols()
        for lit in s.literals
        if lit.startswith("PALETTE.") and lit.split(".", 1)[1] not in PALETTE
    ]
    if missing:
        raise ValueError(
            f"{RENDER_JS}: the Visual Key (marl_bgs/site/viewer_key.py) describes drawing "
            f"that render.js no longer has: {missing}; update the key"
        )


def key_scene() -> Scene:
    """One tick on the engine that makes the viewer draw every symbol on its first frame.

    Team a: a Warrior charges, a Priest heals the wounded Mage (Burst active, Ultimate
    cooling down), a trapped Hunter, a Rogue that kills a poisoned Priest. Team b: a stunned
    Mage, a slowed Hunter shooting the Mage, a dead Rogue whose wave comes this tick, and a
    shielded Warrior.
    """
    b = 5
    pos = position(
        [
            agent("warrior", 3, 5),
            agent("priest", 5, 8, effects={"blessing": 1}),
            agent("mage", 7, 8, health=25, ultimate_cooldown=10, effects={"burst": 3}),
            agent("hunter", 6, 2, effects={"trap": 2}),
            agent("rogue", 10, 2),
        ],
        [
            agent("mage", 8, 5, effects={"stun": 1}),
            agent("hunter", 10, 8, effects={"slow_hunter": 1}),
            agent("rogue", 17, 5, alive=False),
            agent("priest", 11.2, 2, health=5, effects={"slow_poison": 3, "healing_cut": 3}),
            agent("warrior", 15.5, 7, shield=2),
        ],
        obstacles=[
            {"kind": "pillar", "x": 13.5, "y": 5, "radius": 0.6},
            {"kind": "wall", "x": 17.5, "y": 2.5, "width": 2, "height": 0.5, "theta": 0.3},
        ],
        wave_clocks=(5, 1),
    )
    ticks = [
        {0: (STAY, enemy(0), 1), 1: (STAY, ally(2), 0), 4: (STAY, enemy(3), 0)}
        | {b + 1: (STAY, enemy(2), 0)},
        {},
    ]
    return Scene("visual-key", pos, ticks, width_px=520)


def viewer_section(root: Path) -> str:
    """The Visual Key's viewer part: the live key scene and the table of symbols."""
    check_render_source(root)
    _, shown = show(key_scene(), "Visual Key: every symbol in one tick", prefix="../", tick=1)
    return templates.render("visual-key/viewer.md.j2", shown=shown, symbols=symbols())


def visual_key_page(root: Path) -> str:
    """Symbols of the site's engine pictures, and of the replay viewer when it is present."""
    viewer = viewer_section(root) if (root / RENDER_JS).is_file() else ""
    return templates.render(
        "visual-key.md.j2",
        effects=PALETTE["effects"],
        viewer=viewer,
        teams=list(zip(TEAM_COLOURS, TEAM_LABELS, strict=True)),
        classes=classes.CLASSES,
        still=SYMBOLS,
    )
