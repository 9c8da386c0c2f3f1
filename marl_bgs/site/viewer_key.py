"""The replay viewer's symbols for the Visual Key: words, small SVG swatches, and a key scene.

The viewer draws on a canvas in `web_demo/viewer/render.js` with the colours of
`web_demo/assets/palette.json`, the one palette the still pictures use too. Each entry below
names the palette keys and drawing literals it describes; `check_render_source` fails the
build when render.js no longer uses one of them (or the palette lacks it), so the key cannot
silently drift from the drawing code. The key
scene is a real position played on the engine and opened in the viewer itself, so the page
also shows every symbol drawn by the viewer's own code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .draw import PALETTE
from .scenes import STAY, Scene, agent, ally, enemy, position

RENDER_JS = Path("web_demo") / "viewer" / "render.js"
P = PALETTE
TEAM = tuple(P["team"])
TEAM_LIGHT = tuple(P["team_light"])
FLOOR = P["floor"]
OBSTACLE = P["obstacle"]
W, H, R = 64, 48, 10  # swatch size and body radius in pixels
CX, CY = 32, 22


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
    import math

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
    return (
        Symbol(
            "arena",
            "The floor, drawn to scale: the canvas is the whole 20 × 10 arena, north up, "
            "whatever its width.",
            ("PALETTE.floor",),
            _svg(""),
        ),
        Symbol(
            "Red Zones",
            "Each team's own Red Zone, a red strip at its spawn end with a dashed red line "
            "(6 px dash, 4 px gap) at its inner edge; the still pictures draw them the same.",
            ("PALETTE.red_zone_fill", "PALETTE.red_zone", "[6, 4]"),
            _svg(zone),
        ),
        Symbol(
            "spawn pads",
            "Square outlines the size of a body (side 2 × body radius) in the owning team's "
            "colour, at that team's end.",
            ("PALETTE.team_light", "strokeRect"),
            _svg(pads),
        ),
        Symbol(
            "obstacles",
            "Pillars (filled circles) and walls (filled, possibly turned rectangles) in dark "
            "grey. They block movement, sight and attacks.",
            ("PALETTE.obstacle",),
            _svg(obstacles),
        ),
        Symbol(
            "thin walls",
            f"A wall thinner than {P['thin_wall']:g} units is drawn as a dark grey line at least "
            f"{P['thin_wall_px']} px wide (the still pictures: at least 0.06 units), so it never "
            "vanishes at small sizes. It is a wall like any other: it blocks movement, sight "
            "and attacks; only its drawing is widened.",
            ("isThinWall", "PALETTE.thin_wall_px"),
            _svg(thin),
        ),
        Symbol(
            "sight (team and agent views)",
            "Outside the Oracle view, everything the viewing agents cannot see is shaded dark; "
            "the clear areas are their sight radii cut by obstacles (180 rays each). Enemies "
            "they do not see, and enemies under a spawn shield, are not drawn at all.",
            ("PALETTE.shade", "RAYS = 180"),
            _svg(shade),
        ),
        Symbol(
            "agents",
            f"A filled circle of the true body radius in the team's colour (team a {TEAM[0]}, "
            f"team b {TEAM[1]}) with the class initial in bold white: M Mage, W Warrior, "
            "H Hunter, R Rogue, P Priest. Dead agents waiting for their wave are not drawn.",
            ("PALETTE.team", "TEAM_COLOURS"),
            _svg(_body(0, "M", x=18) + _body(1, "H", x=46)),
        ),
        Symbol(
            "health bar",
            "Above the body, as wide as the body: a dark track filled from the left by the "
            "share of maximum health left, green above 35%, amber at 35% or below.",
            ("PALETTE.health_track", "PALETTE.health_good", "PALETTE.health_low"),
            _svg(health),
        ),
        Symbol(
            "Ultimate ready",
            "A small full gold ring (radius 4 px) at the lower left of the body.",
            ("PALETTE.ult_ready",),
            _svg(ult),
        ),
        Symbol(
            "Ultimate cooling down",
            "The same small ring in grey, drawn clockwise from 12 o'clock over the share of "
            "the cooldown already gone.",
            ("PALETTE.ult_wait",),
            _svg(ult_wait),
        ),
        Symbol(
            "spawn shield",
            "The body drawn at 55% opacity inside a dashed gold ring (3 px dashes) just "
            "outside it: the agent respawned and cannot be seen, targeted or healed.",
            ("PALETTE.shield", "0.55"),
            _svg(shield),
        ),
        Symbol(
            "Freezing Trap",
            "A cyan square outline 4 px outside the body.",
            ("PALETTE.trap",),
            _svg(trap),
        ),
        Symbol(
            "Poison",
            "Three green dots down the body's right side while the Rogue's slow or healing "
            "cut lasts.",
            ("PALETTE.poison",),
            _svg(poison),
        ),
        Symbol(
            "status labels",
            "Small dark text under the body, one code per active effect (the viewer's Agents "
            "table shows the same codes, with their meaning on hover, and a 'Status labels' "
            f"legend sits under every viewer): {codes}.",
            ("EFFECT_LABELS",),
            _svg(labels),
        ),
        Symbol(
            "damage",
            "A solid red line (2.5 px) from attacker to target: a Basic or Ultimate that landed "
            "during the tick shown, drawn from where both stood when the tick began.",
            ("PALETTE.damage",),
            _svg(_line(P["damage"], 2.5)),
        ),
        Symbol(
            "heal",
            "A dashed green line (5 px dashes) from healer to target.",
            ("PALETTE.heal", "[5, 3]"),
            _svg(_line(P["heal"], 2.5, "5 3")),
        ),
        Symbol(
            "Charge",
            "A thick dashed purple line (4 px, 10 px dashes) from where the Warrior started "
            "to where it landed.",
            ("PALETTE.charge", "[10, 4]"),
            _svg(_line(P["charge"], 4, "10 4")),
        ),
        Symbol(
            "fallen",
            "A grey body ringed in its team's colour, with a dark cross: an agent that died "
            "during the tick shown, where it fell (the still pictures draw it the same).",
            ("PALETTE.fallen", "PALETTE.death", "drawFallen"),
            _svg(fallen),
        ),
        Symbol(
            "respawn",
            "A ring in the team's colour, 1.4 × the body radius, on the pad where a dead agent "
            "came back during the tick shown.",
            ("body * 1.4",),
            _svg(respawn),
        ),
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
    from .clips import show

    check_render_source(root)
    _, shown = show(key_scene(), "Visual Key: every symbol in one tick", prefix="../", tick=1)
    rows = "\n".join(f"| {s.svg} | **{s.name}** | {s.text} |" for s in symbols())
    return f"""## The replay viewer

The [Replay Viewer](replays.md), the Home page's game and the clips on the rules and class pages
are drawn by `web_demo/viewer/render.js`, with the same palette (`web_demo/assets/palette.json`)
as the still pictures below. Each frame shows the arena **after** the tick on the clock, with
the lines of what happened **during** that tick drawn over it (attacks, heals, Charges,
fallen agents and respawns); the line under the arena and the highlighted lines of the event
log are that tick's events. Tick 0 is the starting position.

Below, one tick played on the engine makes the viewer draw every symbol; it opens on tick 1
(step back to tick 0 for the starting position). The viewer itself draws it, so it is exactly what you will see.

{shown}

| swatch | symbol | how the viewer draws it |
|---|---|---|
{rows}
"""
