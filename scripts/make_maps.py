"""Compose the numbered maps from small motifs and write them to maps/map_NN.json.

    .venv/bin/python scripts/make_maps.py            # (re)write maps/ (map 47 is left alone)
    .venv/bin/python scripts/make_maps.py --check    # exit 1 if maps/ differs from this script

The committed JSON files are the source of truth: this script is only the authoring aid that
produced them. Each design lists the obstacles of the left half (x < 10) and of the mirror
line (x = 10); `mirrored` adds the right half. Map 47 is the benchmark's given test map and is
never rewritten here.

Design rules kept by every map: the spawn columns (x < 1.5 and x > 18.5) stay clear so no
pad is a dead end, gaps meant for walking are at least about 1.2 wide (bodies are 1.0
across), and the middle keeps both cover and some long open lines.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPS = ROOT / "maps"
FIXED = {47}  # maps authored elsewhere (map 47 is given exactly by the benchmark)
THIN = 0.02  # thickness of a thin, sight-blocking wall
PADS = {
    "left": [[0.5, 1], [0.5, 3], [0.5, 5], [0.5, 7], [0.5, 9]],
    "right": [[19.5, 1], [19.5, 3], [19.5, 5], [19.5, 7], [19.5, 9]],
}


def r3(v: float) -> float:
    out = round(float(v), 3)
    return 0.0 if out == 0 else out


# ----------------------------------------------------------------------------------------
# Motifs


def pillar(x: float, y: float, r: float = 0.5) -> list[dict]:
    return [{"kind": "pillar", "x": r3(x), "y": r3(y), "radius": r3(r)}]


def wall(x: float, y: float, w: float, h: float, theta: float = 0.0) -> list[dict]:
    """An axis-aligned (theta 0) or rotated wall: centre, full width and height."""
    return [
        {"kind": "wall", "x": r3(x), "y": r3(y), "width": r3(w), "height": r3(h),
         "theta": float(theta)}
    ]  # fmt: skip


def thin(x: float, y: float, length: float, vertical: bool = True) -> list[dict]:
    """A thin wall (0.02 thick) that blocks sight but barely takes room."""
    return wall(x, y, THIN, length) if vertical else wall(x, y, length, THIN)


def slab(x0: float, y0: float, x1: float, y1: float, thick: float = 0.3) -> list[dict]:
    """A straight wall from one end point to the other (tilted unless axis-aligned)."""
    length = math.hypot(x1 - x0, y1 - y0)
    return wall((x0 + x1) / 2, (y0 + y1) / 2, length, thick, math.atan2(y1 - y0, x1 - x0))


def diamond(x: float, y: float, side: float) -> list[dict]:
    """A square turned 45 degrees (its own mirror image)."""
    return wall(x, y, side, side, math.pi / 4)


def row(x0: float, y0: float, x1: float, y1: float, n: int, r: float) -> list[dict]:
    """n pillars evenly spaced from (x0, y0) to (x1, y1)."""
    out = []
    for k in range(n):
        t = k / (n - 1) if n > 1 else 0.5
        out += pillar(x0 + t * (x1 - x0), y0 + t * (y1 - y0), r)
    return out


def ring(cx: float, cy: float, radius: float, n: int, r: float, start_deg: float = 0.0):
    """The left half (x <= 10) of n pillars on a circle; `mirrored` adds the rest."""
    out = []
    for k in range(n):
        a = math.radians(start_deg + 360.0 * k / n)
        out += pillar(cx + radius * math.cos(a), cy + radius * math.sin(a), r)
    return [ob for ob in out if ob["x"] <= 10]


def bunker(x: float, y: float, w: float, h: float, t: float = 0.4, open_side: str = "west"):
    """Three walls of a box (outer size w x h), open on one side."""
    sides = {
        "west": wall(x - w / 2 + t / 2, y, t, h),
        "east": wall(x + w / 2 - t / 2, y, t, h),
        "south": wall(x, y - h / 2 + t / 2, w, t),
        "north": wall(x, y + h / 2 - t / 2, w, t),
    }
    out = []
    for side, parts in sides.items():
        if side == open_side:
            continue
        if side in ("south", "north") and open_side in ("west", "east"):
            shift = t / 2 if open_side == "west" else -t / 2  # arms stop at the back wall
            parts = wall(parts[0]["x"] + shift, parts[0]["y"], w - t, t)
        out += parts
    return out


def mirrored(*groups: list[dict]) -> list[dict]:
    """Left-half obstacles plus their mirror images about x = 10 (x = 10 kept once)."""
    left = [ob for g in groups for ob in g]
    out = list(left)
    for ob in left:
        if ob["x"] > 10:
            raise ValueError(f"design lists a right-half obstacle: {ob}")
        if ob["x"] == 10:
            continue
        twin = dict(ob, x=r3(20 - ob["x"]))
        if ob["kind"] == "wall":
            twin["theta"] = -ob["theta"] if ob["theta"] else 0.0
        out.append(twin)
    return out


# ----------------------------------------------------------------------------------------
# Designs: id -> (name, obstacles). Splits follow marl_bgs.maps.SPLITS.

DEG = math.pi / 180
DESIGNS: dict[int, tuple[str, list[dict]]] = {}


def design(map_id: int, name: str, *groups: list[dict]) -> None:
    DESIGNS[map_id] = (name, mirrored(*groups))


# Curriculum 0-11: one new kind of obstacle at a time.
design(0, "Open Field")
design(1, "Lone Pillar", pillar(10, 5, 1.0))
design(2, "Four Stones", pillar(6.5, 2.5, 0.75), pillar(6.5, 7.5, 0.75))
design(3, "Colonnade", row(10, 2, 10, 8, 4, 0.4))
design(4, "Avenue", row(5, 2.5, 9, 2.5, 3, 0.45), row(5, 7.5, 9, 7.5, 3, 0.45))
design(5, "Breastworks", wall(6, 5, 0.5, 3), wall(10, 2, 3, 0.5), wall(10, 8, 3, 0.5))
design(
    6,
    "Trenches",
    wall(7, 3.5, 4, 0.4),
    wall(7, 6.5, 4, 0.4),
    wall(10, 5, 0.4, 1.6),
    wall(3.5, 1.6, 1.2, 0.4),
    wall(3.5, 8.4, 1.2, 0.4),
)
design(7, "Paper Screens", thin(6, 5, 3), thin(10, 2.5, 2), thin(10, 7.5, 2))
design(
    8,
    "Blinds",
    thin(4, 2.5, 2),
    thin(4, 7.5, 2),
    thin(7, 5, 2.6),
    thin(8.5, 1.6, 2, vertical=False),
    thin(8.5, 8.4, 2, vertical=False),
)
design(9, "Slants", slab(4.6, 5.4, 6.4, 7.2), slab(6.6, 2.6, 8.4, 4.4))
design(
    10,
    "Diamond Gate",
    slab(5, 2, 7, 4),
    slab(5, 8, 7, 6),
    diamond(10, 2.8, 1.1),
    diamond(10, 7.2, 1.1),
)
design(
    11,
    "Proving Ground",
    pillar(5, 2.5),
    pillar(5, 7.5),
    wall(7.5, 5, 0.5, 2),
    thin(3.5, 5, 2),
    slab(7.8, 8.6, 9.0, 7.4),
    pillar(10, 5, 0.6),
    thin(10, 1.5, 1.4),
)

# Training 12-41: mixtures of every motif.
design(
    12,
    "Boulder Field",
    pillar(3.2, 2, 0.6),
    pillar(4.6, 4.4, 0.45),
    pillar(5.5, 6.7, 0.8),
    pillar(6.4, 1.2, 0.4),
    pillar(7.6, 3.6, 0.5),
    pillar(7.8, 6.4, 0.35),
    pillar(8, 8.6, 0.4),
    wall(3.2, 8.2, 0.4, 1.2),
    pillar(10, 5.4, 0.9),
    pillar(10, 1.6, 0.5),
)
design(
    13,
    "Crossroads",
    wall(10, 5, 4, 0.4),
    wall(10, 5, 0.4, 4),
    wall(5, 2, 1.2, 1.2),
    wall(5, 8, 1.2, 1.2),
    pillar(3, 5, 0.5),
)
design(
    14,
    "Checkerboard",
    *(wall(x, y, 0.8, 0.8) for x, y in ((4, 3), (4, 7), (6, 5), (8, 3), (8, 7), (10, 5))),
    wall(6, 1.4, 0.8, 0.8),
    wall(6, 8.6, 0.8, 0.8),
)
design(
    15,
    "Long Hall",
    wall(6.5, 3, 5, 0.4),
    wall(6.5, 7, 5, 0.4),
    pillar(10, 5, 0.6),
    pillar(10, 1.5, 0.4),
    pillar(10, 8.5, 0.4),
)
design(
    16,
    "Switchback",
    wall(4, 4, 0.4, 5),
    wall(7, 6, 0.4, 5),
    wall(10, 4, 0.4, 5),
    pillar(5.5, 1.5, 0.35),
    thin(8.5, 8.8, 1.2),
)
design(
    17,
    "Birch Wood",
    *(
        pillar(x, y, 0.3)
        for x, y in (
            (3, 2),
            (3.5, 5),
            (3, 8),
            (5, 3.5),
            (5, 6.5),
            (6.5, 1.5),
            (6.5, 8.5),
            (7, 5),
            (8.5, 3),
            (8.5, 7),
        )
    ),  # fmt: skip
    pillar(10, 1.5, 0.3),
    pillar(10, 5, 0.3),
    pillar(10, 8.5, 0.3),
)
design(
    18,
    "Stone Circle",
    ring(10, 5, 3, 8, 0.5),
    pillar(10, 5, 0.8),
    wall(4, 2.5, 0.4, 2),
    wall(4, 7.5, 0.4, 2),
)
design(
    19,
    "Islands",
    pillar(5, 5, 1.2),
    pillar(8, 2.3, 1.0),
    pillar(8, 7.7, 1.0),
    pillar(10, 5, 0.7),
)
design(
    20,
    "Gauntlet",
    wall(10, 3.5, 6, 0.4),
    wall(10, 6.5, 6, 0.4),
    thin(10, 5, 1.2),
    pillar(5, 1.5, 0.5),
    pillar(5, 8.5, 0.5),
    wall(4, 5, 0.6, 1.6),
    pillar(7.5, 1.6, 0.45),
    pillar(7.5, 8.4, 0.45),
    thin(2.6, 2.6, 1.4),
    thin(2.6, 7.4, 1.4),
)
design(
    21,
    "Bastions",
    bunker(6.2, 5, 1.8, 3, 0.4, "west"),
    pillar(10, 2, 0.6),
    pillar(10, 8, 0.6),
    pillar(10, 5, 0.4),
)
design(
    22,
    "Ribcage",
    *(wall(6, y, 2, 0.3) for y in (2, 4, 6, 8)),
    wall(10, 3, 1.5, 0.3),
    wall(10, 7, 1.5, 0.3),
)
design(
    23,
    "Shutters",
    thin(5, 2, 1.6),
    thin(5, 5, 1.6),
    thin(5, 8, 1.6),
    thin(8, 3.5, 1.6),
    thin(8, 6.5, 1.6),
    thin(10, 5, 2, vertical=False),
    pillar(10, 1.4, 0.4),
    pillar(10, 8.6, 0.4),
)
design(
    24,
    "Arrowheads",
    slab(6, 7, 8, 5),
    slab(6, 3, 8, 5),
    pillar(10, 2.5, 0.5),
    pillar(10, 7.5, 0.5),
    pillar(4, 1.8, 0.4),
    pillar(4, 8.2, 0.4),
    wall(2.8, 5, 0.4, 1.2),
    thin(7, 9.2, 1.4, vertical=False),
    thin(7, 0.8, 1.4, vertical=False),
)
design(
    25,
    "Twin Towers",
    wall(10, 2.5, 2, 2),
    wall(10, 7.5, 2, 2),
    pillar(6, 5, 0.6),
    thin(4, 2.5, 2),
    thin(4, 7.5, 2),
)
design(
    26,
    "Hourglass",
    wall(10, 1.25, 2.4, 2.5),
    wall(10, 8.75, 2.4, 2.5),
    slab(6.6, 2.2, 8.0, 3.6),
    slab(6.6, 7.8, 8.0, 6.4),
    pillar(4, 5, 0.5),
)
design(
    27,
    "Lanes",
    thin(6.5, 3.3, 5, vertical=False),
    thin(6.5, 6.7, 5, vertical=False),
    pillar(10, 1.6, 0.5),
    pillar(10, 5, 0.5),
    pillar(10, 8.4, 0.5),
    pillar(3, 5, 0.4),
)
design(
    28,
    "Orchard",
    *(row(x, 2, x, 8, 3, 0.35) for x in (4, 6, 8, 10)),
)
design(
    29,
    "Keep",
    wall(10, 7, 4, 0.4),
    wall(10, 3, 4, 0.4),
    wall(8.2, 3.6, 0.4, 1.2),
    wall(8.2, 6.4, 0.4, 1.2),
    pillar(10, 5, 0.35),
    pillar(5, 2, 0.5),
    pillar(5, 8, 0.5),
    thin(4, 5, 2),
    pillar(7, 1.2, 0.4),
    pillar(7, 8.8, 0.4),
    thin(6.0, 5, 1.2, vertical=False),
    pillar(10, 0.8, 0.4),
    pillar(10, 9.2, 0.4),
)
design(
    30,
    "Sawtooth",
    slab(4, 2, 5.5, 3.5),
    slab(7, 2, 8.5, 3.5),
    slab(4, 8, 5.5, 6.5),
    slab(7, 8, 8.5, 6.5),
    wall(10, 5, 0.5, 2),
    pillar(10, 1.5, 0.5),
    pillar(10, 8.5, 0.5),
)
design(
    31,
    "Pinch Point",
    wall(10, 1.75, 0.6, 3.5),
    wall(10, 8.25, 0.6, 3.5),
    pillar(7, 5, 0.5),
    wall(5, 3, 1.5, 0.4),
    wall(5, 7, 1.5, 0.4),
)
design(
    32,
    "Split Decision",
    wall(10, 5, 1.2, 5),
    pillar(6, 2, 0.5),
    pillar(6, 8, 0.5),
    pillar(7.5, 5, 0.6),
    thin(4, 5, 1.6, vertical=False),
)
design(
    33,
    "Scattershot",
    pillar(3.5, 3, 0.4),
    pillar(6, 6.5, 0.6),
    wall(5, 8.5, 1.4, 0.4),
    wall(7.5, 2.5, 0.4, 1.6),
    thin(8.5, 6, 1.8),
    wall(4.2, 5.2, 1.6, 0.3, 30 * DEG),
    pillar(2.8, 7.2, 0.35),
    wall(3.4, 1.2, 0.9, 0.4),
    pillar(7.6, 8.9, 0.45),
    thin(5.8, 4.3, 1.2, vertical=False),
    pillar(10, 4, 0.5),
    thin(10, 7.5, 1.6, vertical=False),
    pillar(10, 1.2, 0.4),
)
design(
    34,
    "Lantern",
    slab(7, 5, 9.1, 7.1),
    slab(7, 5, 9.1, 2.9),
    pillar(10, 5, 0.6),
    pillar(4, 2.5, 0.5),
    pillar(4, 7.5, 0.5),
    thin(5.4, 5, 1.6),
    wall(6.4, 1.6, 1.4, 0.4),
    wall(6.4, 8.4, 1.4, 0.4),
    pillar(10, 0.8, 0.4),
    pillar(10, 9.2, 0.4),
)
design(
    35,
    "Stepping Stones",
    row(4, 5, 8, 5, 3, 0.4),
    pillar(10, 5, 0.4),
    thin(6, 2, 2, vertical=False),
    thin(6, 8, 2, vertical=False),
)
design(
    36,
    "Warrens",
    wall(3.5, 6.5, 0.4, 3),
    wall(5.5, 3.5, 3, 0.4),
    wall(7, 7, 0.4, 2.6),
    wall(8.5, 4.5, 0.4, 2),
    wall(10, 1.8, 0.4, 1.6),
    wall(10, 8.2, 0.4, 1.6),
    pillar(5.2, 5.6, 0.4),
    pillar(8.0, 1.8, 0.4),
    pillar(2.8, 2.4, 0.4),
    thin(5.3, 9.0, 1.2, vertical=False),
)
design(
    37,
    "Veils",
    wall(6, 3, 2.5, THIN, 45 * DEG),
    wall(6, 7, 2.5, THIN, -45 * DEG),
    pillar(10, 5, 0.8),
    thin(10, 1.5, 1.6),
    thin(10, 8.5, 1.6),
    pillar(3.5, 5, 0.4),
)
design(
    38,
    "Outposts",
    wall(4, 5, 1, 1),
    wall(7, 2, 1, 1),
    wall(7, 8, 1, 1),
    diamond(10, 5, 1.2),
    pillar(10, 2, 0.4),
    pillar(10, 8, 0.4),
)
design(
    39,
    "Rift",
    thin(10, 1.8, 1.6),
    thin(10, 5, 2.2),
    thin(10, 8.2, 1.6),
    wall(6, 3, 0.5, 1.2),
    wall(6, 7, 0.5, 1.2),
    pillar(4, 5, 0.6),
    pillar(7.8, 1.3, 0.45),
    pillar(7.8, 8.7, 0.45),
    thin(7.6, 5, 1.2, vertical=False),
)
design(
    40,
    "Bulwark",
    wall(6, 5, 1.5, 3),
    pillar(10, 3, 0.6),
    pillar(10, 7, 0.6),
    wall(4, 1.6, 1.2, 0.4),
    wall(4, 8.4, 1.2, 0.4),
    pillar(3, 3.6, 0.4),
    pillar(3, 6.4, 0.4),
    thin(8.2, 5, 1.4),
    slab(7.6, 2.0, 8.4, 1.2),
    slab(7.6, 8.0, 8.4, 8.8),
)
design(
    41,
    "Cloister",
    row(7, 3, 10, 3, 3, 0.4),
    row(7, 7, 10, 7, 3, 0.4),
    wall(5.5, 5, 0.4, 1.6),
    thin(10, 5, 1.5, vertical=False),
    pillar(3.2, 1.8, 0.45),
    pillar(3.2, 8.2, 0.45),
    thin(7.5, 1.2, 1.6, vertical=False),
    thin(7.5, 8.8, 1.6, vertical=False),
)

# Validation 42-46 and test 48-51: dense mixtures in the style of map 47.
design(
    42,
    "Ember Yard",
    pillar(3.5, 2.2, 0.45),
    pillar(3.5, 7.8, 0.45),
    thin(2.2, 5, 2.2),
    wall(5.5, 5, 1.4, 0.5),
    pillar(6.5, 0.5, 0.5),
    pillar(6.5, 9.5, 0.5),
    slab(7.2, 3.0, 8.4, 4.2),
    slab(7.2, 7.0, 8.4, 5.8),
    wall(8.5, 1.8, 0.5, 1.0),
    wall(8.5, 8.2, 0.5, 1.0),
    diamond(10, 5, 1.0),
    thin(10, 2.8, 1.2),
    thin(10, 7.2, 1.2),
)
design(
    43,
    "Saltworks",
    pillar(3, 2.5, 0.3),
    pillar(3, 7.5, 0.3),
    wall(4.5, 5, 0.5, 2.0),
    thin(6, 2, 1.6, vertical=False),
    thin(6, 8, 1.6, vertical=False),
    pillar(6.5, 5, 0.5),
    wall(8, 3.2, 1.0, 0.5),
    wall(8, 6.8, 1.0, 0.5),
    pillar(8.6, 0.5, 0.5),
    pillar(8.6, 9.5, 0.5),
    wall(10, 5, 0.5, 1.2),
    pillar(10, 2.3, 0.4),
    pillar(10, 7.7, 0.4),
)
design(
    44,
    "Glasshouse",
    thin(2.5, 3, 1.6),
    thin(2.5, 7, 1.6),
    thin(5, 5, 3),
    thin(4, 1.2, 1.5, vertical=False),
    thin(4, 8.8, 1.5, vertical=False),
    pillar(6.5, 3, 0.5),
    pillar(6.5, 7, 0.5),
    wall(8.2, 2.4, 1.6, THIN, 45 * DEG),
    wall(8.2, 7.6, 1.6, THIN, -45 * DEG),
    pillar(8.5, 5, 0.4),
    wall(10, 5, 1.0, 1.0),
    thin(10, 1.2, 1.6),
    thin(10, 8.8, 1.6),
)
design(
    45,
    "Foundry",
    wall(3.5, 2, 1.0, 0.5),
    wall(3.5, 8, 1.0, 0.5),
    diamond(4, 5, 0.9),
    wall(6.2, 3.4, 0.5, 1.4),
    wall(6.2, 6.6, 0.5, 1.4),
    pillar(7.5, 1.2, 0.45),
    pillar(7.5, 8.8, 0.45),
    pillar(8.4, 5, 0.5),
    wall(10, 3, 1.6, 0.5),
    wall(10, 7, 1.6, 0.5),
    diamond(10, 5, 0.8),
)
design(
    46,
    "Marshlight",
    pillar(3, 3.5, 0.4),
    pillar(3, 6.5, 0.4),
    slab(4.4, 1.4, 5.8, 2.6),
    slab(4.4, 8.6, 5.8, 7.4),
    pillar(6, 5, 0.7),
    thin(7.6, 3.4, 1.4, vertical=False),
    thin(7.6, 6.6, 1.4, vertical=False),
    pillar(7.9, 1.9, 0.5),
    pillar(7.9, 8.1, 0.5),
    pillar(10, 5, 0.5),
    thin(10, 3.2, 1.0),
    thin(10, 6.8, 1.0),
    pillar(10, 0.5, 0.5),
    pillar(10, 9.5, 0.5),
)
design(
    48,
    "Broken Compass",
    pillar(3.2, 1.5, 0.45),
    pillar(3.2, 8.5, 0.45),
    wall(3, 5, 0.5, 1.4),
    slab(5.4, 6.4, 6.6, 7.6),
    slab(5.4, 3.6, 6.6, 2.4),
    pillar(7, 5, 0.5),
    wall(8.3, 1.4, 1.2, 0.5),
    wall(8.3, 8.6, 1.2, 0.5),
    thin(10, 5, 2.4, vertical=False),
    thin(10, 5, 1.0),
    pillar(10, 2.2, 0.5),
    pillar(10, 7.8, 0.5),
)
design(
    49,
    "Tidewall",
    wall(3.8, 3.4, 1.6, 0.4),
    wall(3.8, 6.6, 1.6, 0.4),
    diamond(4.5, 5, 0.8),
    thin(6, 5, 1.8),
    pillar(6.2, 1.6, 0.5),
    pillar(6.2, 8.4, 0.5),
    wall(8, 3.8, 0.5, 1.6),
    wall(8, 6.2, 0.5, 1.6),
    pillar(10, 5, 0.6),
    wall(10, 0.8, 2, 0.4),
    wall(10, 9.2, 2, 0.4),
)
design(
    50,
    "Starfall",
    pillar(2.8, 2.6, 0.35),
    pillar(2.8, 7.4, 0.35),
    pillar(4.6, 4.2, 0.5),
    pillar(4.6, 9.0, 0.4),
    pillar(5.2, 1.2, 0.5),
    pillar(6.6, 6.4, 0.6),
    pillar(7.2, 3.0, 0.45),
    pillar(8.6, 8.2, 0.4),
    pillar(8.4, 4.8, 0.35),
    wall(3.8, 6.0, 1.2, THIN, 60 * DEG),
    wall(8.0, 1.6, 1.2, THIN, -30 * DEG),
    pillar(10, 6.6, 0.4),
    pillar(10, 3.0, 0.4),
    thin(10, 9.0, 1.4, vertical=False),
)
design(
    51,
    "Last Light",
    pillar(3, 1.5, 0.5),
    pillar(3, 8.5, 0.5),
    thin(3.5, 5, 1.6),
    wall(5.4, 3.2, 1.2, 0.5),
    wall(5.4, 6.8, 1.2, 0.5),
    pillar(6.7, 5, 0.4),
    pillar(7, 0.5, 0.5),
    pillar(7, 9.5, 0.5),
    slab(7.6, 3.0, 8.4, 3.8),
    slab(7.6, 7.0, 8.4, 6.2),
    thin(8.6, 2.0, 1.0, vertical=False),
    thin(8.6, 8.0, 1.0, vertical=False),
    diamond(10, 5, 1.0),
    pillar(10, 2.4, 0.4),
    pillar(10, 7.6, 0.4),
)


def build(map_id: int) -> dict:
    name, obstacles = DESIGNS[map_id]
    split = (
        "curriculum"
        if map_id < 12
        else "training"
        if map_id < 42
        else "validation"
        if map_id < 47
        else "test"
    )
    return {
        "format": "marl-bgs/map",
        "version": 1,
        "id": map_id,
        "name": name,
        "split": split,
        "width": 20.0,
        "height": 10.0,
        "spawn_pads": PADS,
        "obstacles": obstacles,
    }


def dump(data: dict) -> str:
    """JSON with one obstacle per line, so diffs of a map read well."""
    head = {k: v for k, v in data.items() if k not in ("spawn_pads", "obstacles")}
    lines = ["{"]
    lines += [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append(' "spawn_pads": {')
    lines.append(f'  "left": {json.dumps(data["spawn_pads"]["left"])},')
    lines.append(f'  "right": {json.dumps(data["spawn_pads"]["right"])}')
    lines.append(" },")
    obs = [f"  {json.dumps(ob)}" for ob in data["obstacles"]]
    if obs:
        lines.append(' "obstacles": [')
        lines.append(",\n".join(obs))
        lines.append(" ]")
    else:
        lines.append(' "obstacles": []')
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("ids", nargs="*", type=int, help="only these maps")
    args = parser.parse_args(argv)
    ids = args.ids or sorted(DESIGNS)
    unknown = [i for i in ids if i not in DESIGNS and i not in FIXED]
    if unknown:  # before any map file is written
        parser.error(f"ids: no map design for {', '.join(map(str, unknown))} (0-51)")
    differ = []
    for map_id in ids:
        if map_id in FIXED:
            continue
        path = MAPS / f"map_{map_id:02d}.json"
        text = dump(build(map_id))
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                differ.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    if args.check and differ:
        print(f"maps differ from scripts/make_maps.py: {', '.join(differ)}", file=sys.stderr)
        return 1
    print(f"{'checked' if args.check else 'wrote'} {len([i for i in ids if i not in FIXED])} maps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
