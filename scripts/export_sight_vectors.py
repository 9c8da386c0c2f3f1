"""Write the Sight Lab's data and the vectors that check its JavaScript sight test.

    .venv/bin/python scripts/export_sight_vectors.py          # writes exports/sight/
    .venv/bin/python scripts/export_sight_vectors.py --check  # exit 1 if exports/sight/ is stale

`lab.json` holds every map's obstacles twice: as drawn (map-file numbers) and as the engine
tests them (integer milli-unit boxes and turned-wall corners from `map_arrays`, so the browser
never recomputes a cosine), plus each class's sight radius and ranges from the class table.
`vectors.json` holds sight lines and whole sight matrices with the engine's answers
(`core/geometry.sight_blocked`, `core/sight.compute_sight`): random lines, and lines built to
graze pillars, run along wall faces and pass through corners, where an inexact test would
fail. The output is deterministic (fixed seed, fixed key order).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from marl_bgs.core import classes  # noqa: E402
from marl_bgs.core.geometry import sight_blocked  # noqa: E402
from marl_bgs.core.position import starting_position  # noqa: E402
from marl_bgs.core.sight import compute_sight  # noqa: E402
from marl_bgs.core.state import (  # noqa: E402
    ARENA_HEIGHT_MILLI,
    ARENA_WIDTH_MILLI,
    MILLI,
    NUM_SLOTS,
    MapArrays,
    map_arrays,
)
from marl_bgs.maps import available_maps, load_map, split_of  # noqa: E402
from marl_bgs.maps.positions import parse_position  # noqa: E402
from marl_bgs.outputs import folder_argument  # noqa: E402

LAB_FORMAT = "marl-bgs/sight-lab"
VECTORS_FORMAT = "marl-bgs/sight-vectors"
VERSION = 1
DEFAULT_OUT = ROOT / "exports" / "sight"
RANDOM_LINES = 40  # per map
EDGE_LINES_PER_OBSTACLE = 6
SIGHT_STATES = 4  # per map
SEED = 20240607


def engine_shapes(m: MapArrays) -> dict:
    """The valid obstacles as the engine tests them, in milli-units."""
    boxes = [
        [int(lo[0]), int(lo[1]), int(hi[0]), int(hi[1]), int(r)]
        for lo, hi, r, ok in zip(m.box_lo, m.box_hi, m.box_radius, m.box_valid, strict=True)
        if ok
    ]
    polys = [
        [[int(x), int(y)] for x, y in corners]
        for corners, ok in zip(m.poly_corners, m.poly_valid, strict=True)
        if ok
    ]
    return {"boxes": boxes, "polys": polys}


def class_rows() -> list[dict]:
    return [
        {
            "name": c.name,
            "title": c.title,
            "sight": c.sight,
            "sight_sq": int(classes.SIGHT_SQ[i]),
            "basic_name": c.basic_name,
            "basic_target": c.basic_target,
            "basic_range": c.basic_range,
            "basic_range_sq": int(classes.BASIC_RANGE_SQ[i]),
            "ultimate_name": c.ultimate_name,
            "ultimate_target": c.ultimate_target,
            "ultimate_range": c.ultimate_range,
            "ultimate_range_sq": int(classes.ULTIMATE_RANGE_SQ[i]),
        }
        for i, c in enumerate(classes.CLASSES)
    ]


def lab_data(ids: list[int]) -> dict:
    maps = []
    for map_id in ids:
        data = load_map(map_id)
        maps.append(
            {
                "id": map_id,
                "name": data["name"],
                "split": split_of(map_id),
                "obstacles": data["obstacles"],
                **engine_shapes(map_arrays(data["obstacles"])),
            }
        )
    return {
        "format": LAB_FORMAT,
        "version": VERSION,
        "generator": "scripts/export_sight_vectors.py",
        "milli": MILLI,
        "body_radius": classes.BODY_RADIUS,
        "classes": class_rows(),
        "maps": maps,
    }


def edge_lines(shapes: dict) -> list[tuple[list[int], list[int]]]:
    """Lines at the boundary cases: grazing, along faces, through corners, one milli off."""
    out = []
    for lox, loy, hix, hiy, r in shapes["boxes"]:
        if r > 0:
            for dy in (r, r + 1, -r, -r - 1):
                out.append(([lox - 3000, loy + dy], [lox + 3000, loy + dy]))
            out.append(([lox - 2000, loy - 2000], [lox + 2000, loy + 2000]))
            out.append(([lox + r, loy + r + 4000], [lox + r, loy + r]))
        else:
            out.append(([lox - 2000, hiy], [hix + 2000, hiy]))
            out.append(([lox - 2000, hiy + 1], [hix + 2000, hiy + 1]))
            out.append(([hix, loy - 2000], [hix, hiy + 2000]))
            out.append(([hix + 1, loy - 2000], [hix + 1, hiy + 2000]))
            out.append(([lox - 1000, hiy + 1000], [lox, hiy]))
            out.append(([lox - 1000, hiy + 1001], [lox + 1, hiy + 2000]))
    for corners in shapes["polys"]:
        (ax, ay), (bx, by) = corners[0], corners[1]
        out.append(([2 * ax - bx, 2 * ay - by], [2 * bx - ax, 2 * by - ay]))  # along an edge
        out.append(([ax - 3000, ay + 7], [ax, ay]))  # ends on a corner
        out.append(([ax, ay - 3000], [bx, by + 3000]))
        cx = sum(c[0] for c in corners) // 4
        cy = sum(c[1] for c in corners) // 4
        out.append(([cx, cy], [cx + 1, cy]))  # wholly inside
        out.append(([ax - 1, ay - 2500], [ax - 1, ay + 2500]))
        out.append(([corners[2][0], corners[2][1] + 1], [corners[2][0] + 2500, corners[2][1]]))
    return out


def _clip(p: list[int]) -> list[int]:
    return [int(np.clip(p[0], 0, ARENA_WIDTH_MILLI)), int(np.clip(p[1], 0, ARENA_HEIGHT_MILLI))]


def vectors(ids: list[int], lab: dict) -> dict:
    rng = np.random.default_rng(SEED)
    lines, states = [], []
    for map_id, entry in zip(ids, lab["maps"], strict=True):
        m = map_arrays(entry["obstacles"])
        pairs = [(_clip(a), _clip(b)) for a, b in edge_lines(entry)]
        for _ in range(RANDOM_LINES):
            a = [
                int(rng.integers(0, ARENA_WIDTH_MILLI + 1)),
                int(rng.integers(0, ARENA_HEIGHT_MILLI + 1)),
            ]
            b = [
                int(rng.integers(0, ARENA_WIDTH_MILLI + 1)),
                int(rng.integers(0, ARENA_HEIGHT_MILLI + 1)),
            ]
            pairs.append((a, b))
        p0 = np.asarray([a for a, _ in pairs], np.int32)
        p1 = np.asarray([b for _, b in pairs], np.int32)
        blocked = sight_blocked(np, p0, p1, m)
        for (a, b), hit in zip(pairs, blocked, strict=True):
            lines.append({"map": map_id, "p0": a, "p1": b, "blocked": bool(hit)})
        base = parse_position(starting_position(map_id)).state
        for _ in range(SIGHT_STATES):
            pos = np.stack(
                [rng.integers(500, 19501, NUM_SLOTS), rng.integers(500, 9501, NUM_SLOTS)], -1
            ).astype(np.int32)
            cls = rng.integers(0, len(classes.CLASSES), NUM_SLOTS).astype(np.int32)
            alive = rng.random(NUM_SLOTS) > 0.15
            state = base._replace(pos=pos, cls=cls, alive=alive)
            sight = compute_sight(np, state, m)
            states.append(
                {
                    "map": map_id,
                    "pos": pos.tolist(),
                    "cls": cls.tolist(),
                    "alive": alive.tolist(),
                    "own_sight": np.asarray(sight.own_sight).astype(int).tolist(),
                }
            )
    return {
        "format": VECTORS_FORMAT,
        "version": VERSION,
        "generator": "scripts/export_sight_vectors.py",
        "engine": "marl_bgs.core.geometry.sight_blocked and marl_bgs.core.sight.compute_sight",
        "lines": lines,
        "sight": states,
    }


def render(ids: list[int]) -> dict[str, str]:
    lab = lab_data(ids)
    vec = vectors(ids, lab)
    dump = lambda d: json.dumps(d, separators=(",", ":")) + "\n"  # noqa: E731
    return {"lab.json": dump(lab), "vectors.json": dump(vec)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=folder_argument, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="fail if the files are stale")
    args = parser.parse_args(argv)
    files = render(available_maps())
    if args.check:
        stale = [n for n, t in files.items() if not (args.out / n).is_file()
                 or (args.out / n).read_text() != t]  # fmt: skip
        for name in stale:
            print(f"stale: {args.out / name} (run scripts/export_sight_vectors.py)")
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (args.out / name).write_text(text)
    lines = json.loads(files["vectors.json"])
    print(
        f"wrote {args.out}: {len(lines['lines'])} sight lines "
        f"({sum(v['blocked'] for v in lines['lines'])} blocked), "
        f"{len(lines['sight'])} sight matrices"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
