"""Write the Map Atlas data: per-map JSON with statistics, an SVG drawing per map, an index.

    .venv/bin/python scripts/export_atlas.py            # writes exports/atlas/
    .venv/bin/python scripts/export_atlas.py --check    # exit 1 if exports/atlas/ is stale

The output is deterministic (fixed key order, numbers rounded to 4 decimals, no timestamps),
so the committed files can be compared byte for byte with a fresh export. Sight and standing
room are judged by the engine's own integer geometry (NumPy only).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from marl_bgs.core.geometry import body_overlap, sight_blocked  # noqa: E402
from marl_bgs.core.state import ARENA_HEIGHT, ARENA_WIDTH, MILLI, map_arrays  # noqa: E402
from marl_bgs.maps import (  # noqa: E402
    SPLITS,
    available_maps,
    is_turned,
    load_map,
    obstacle_bounds,
)
from marl_bgs.outputs import folder_argument  # noqa: E402
from marl_bgs.site.draw import PALETTE  # noqa: E402

ATLAS_FORMAT = "marl-bgs/atlas"
ATLAS_MAP_FORMAT = "marl-bgs/atlas-map"
ATLAS_VERSION = 1
DEFAULT_OUT = ROOT / "exports" / "atlas"
RED_ZONE_DEPTH = 5.0
BODY_RADIUS = 0.5
AREA_STEP = 25  # milli-units between area samples (cell centres of a 0.025 grid)
SUBSAMPLES = 5  # per axis, in cells near thin walls
THIN_WALL = 0.1  # walls thinner than this get the finer samples
STAND_XS = tuple(0.5 + k for k in range(20))  # standing grid: x = 0.5 .. 19.5
STAND_YS = tuple(1.0 + k for k in range(9))  # y = 1 .. 9 (every spawn pad is on it)
CHUNK = 4096
DIGITS = 4
PX_PER_UNIT = 40

METHOD = {
    "blocked_share": (
        "share of the arena's area inside obstacles, sampled at the centres of a "
        "0.025 x 0.025 grid of cells (800 x 400; closed shapes); cells near walls thinner "
        "than 0.1 take the share of a 5 x 5 subgrid instead"
    ),
    "standing_points": (
        "body centres on the grid x = 0.5, 1.5, ..., 19.5 and y = 1, 2, ..., 9 (spawn pads "
        "included) where a body of radius 0.5 fits"
    ),
    "visible_share": (
        "for each standing point, the share of the other standing points it can see, "
        "averaged over standing points; unlimited range (pure line of sight: obstacles "
        "block, a line touching an obstacle is blocked, bodies do not block)"
    ),
    "longest_sight_line": (
        "length of the longest segment between two standing points that touches no obstacle"
    ),
}


def rnd(value: float) -> float:
    """Round for export; -0.0 becomes 0.0 so the text is stable."""
    out = round(float(value), DIGITS)
    return 0.0 if out == 0 else out


# ----------------------------------------------------------------------------------------
# Statistics


def _points_inside(points: np.ndarray, m) -> np.ndarray:
    """Whether each int milli point lies in a (closed) obstacle: a point-sized sight line."""
    hit = np.zeros(len(points), bool)
    for s in range(0, len(points), CHUNK):
        p = points[s : s + CHUNK]
        hit[s : s + CHUNK] = np.asarray(sight_blocked(np, p, p, m))
    return hit


def _cells_near(ob: dict, nx: int, ny: int) -> tuple[slice, slice]:
    """Rows and columns of the area cells an obstacle's bounding box touches (plus one)."""
    x0, y0, x1, y1 = obstacle_bounds(ob)
    c0 = max(0, math.floor(x0 * MILLI / AREA_STEP) - 1)
    c1 = min(nx, math.ceil(x1 * MILLI / AREA_STEP) + 1)
    r0 = max(0, math.floor(y0 * MILLI / AREA_STEP) - 1)
    r1 = min(ny, math.ceil(y1 * MILLI / AREA_STEP) + 1)
    return slice(r0, r1), slice(c0, c1)


def blocked_share(obstacles: list[dict]) -> float:
    """Share of the arena inside obstacles, from point samples on a grid of cells.

    Each 0.025-wide cell is judged by its centre, except cells near a thin wall (under 0.1
    thick), which would slip between centres: those take the share of a 5 x 5 subgrid.
    """
    nx, ny = int(ARENA_WIDTH * MILLI) // AREA_STEP, int(ARENA_HEIGHT * MILLI) // AREA_STEP
    if not obstacles:
        return 0.0
    m = map_arrays(obstacles)
    candidate = np.zeros((ny, nx), bool)  # only cells near some obstacle need a test
    fine = np.zeros((ny, nx), bool)
    for ob in obstacles:
        rows, cols = _cells_near(ob, nx, ny)
        candidate[rows, cols] = True
        if ob["kind"] == "wall" and min(ob["width"], ob["height"]) < THIN_WALL:
            fine[rows, cols] = True
    share = np.zeros((ny, nx))
    rows, cols = np.nonzero(candidate & ~fine)
    centres = np.stack([cols * AREA_STEP, rows * AREA_STEP], -1) + AREA_STEP // 2
    share[rows, cols] = _points_inside(centres.astype(np.int32), m)
    rows, cols = np.nonzero(fine)
    sub = np.arange(SUBSAMPLES) * (AREA_STEP // SUBSAMPLES) + AREA_STEP // (2 * SUBSAMPLES)
    offsets = np.stack(np.meshgrid(sub, sub, indexing="xy"), -1).reshape(-1, 2)
    corners = np.stack([cols * AREA_STEP, rows * AREA_STEP], -1)
    points = (corners[:, None, :] + offsets[None, :, :]).reshape(-1, 2).astype(np.int32)
    hits = _points_inside(points, m).reshape(len(rows), len(offsets))
    share[rows, cols] = hits.mean(axis=1)
    return float(share.mean())


def sight_statistics(obstacles: list[dict]) -> dict:
    """Standing points, their visible shares and the longest open sight line."""
    m = map_arrays(obstacles)
    grid = [(x, y) for y in STAND_YS for x in STAND_XS]
    pts = np.asarray([[round(x * MILLI), round(y * MILLI)] for x, y in grid], np.int32)
    fits = ~np.asarray(body_overlap(np, pts, m).any)
    idx = np.flatnonzero(fits)
    stand = pts[idx]
    n = len(stand)
    i, j = np.triu_indices(n, 1)
    open_ = np.zeros(len(i), bool)
    for s in range(0, len(i), CHUNK):
        a, b = stand[i[s : s + CHUNK]], stand[j[s : s + CHUNK]]
        open_[s : s + CHUNK] = ~np.asarray(sight_blocked(np, a, b, m))
    seen = np.zeros((n, n), bool)
    seen[i[open_], j[open_]] = True
    seen |= seen.T
    per_point = seen.sum(axis=1) / max(n - 1, 1)
    d = stand[j].astype(np.int64) - stand[i].astype(np.int64)
    length2 = np.where(open_, (d * d).sum(axis=1), -1)
    best = int(np.argmax(length2)) if len(i) else -1
    if best >= 0 and length2[best] >= 0:
        longest = math.sqrt(float(length2[best])) / MILLI
        ends = [[grid[idx[i[best]]][0], grid[idx[i[best]]][1]]]
        ends.append([grid[idx[j[best]]][0], grid[idx[j[best]]][1]])
    else:
        longest, ends = 0.0, []
    share_grid: list[list[float | None]] = [[None] * len(STAND_XS) for _ in STAND_YS]
    for k, g in enumerate(idx.tolist()):
        share_grid[g // len(STAND_XS)][g % len(STAND_XS)] = rnd(per_point[k])
    return {
        "standing_points": n,
        "visible_share": float(per_point.mean()) if n else 0.0,
        "longest_sight_line": longest,
        "longest_sight_line_ends": ends,
        "share_grid": share_grid,
    }


def map_statistics(obstacles: list[dict]) -> tuple[dict, dict]:
    """The exported statistics and the per-point visibility grid of one map."""
    sight = sight_statistics(obstacles)
    stats = {
        "obstacle_count": len(obstacles),
        "pillars": sum(ob["kind"] == "pillar" for ob in obstacles),
        "walls": sum(ob["kind"] == "wall" for ob in obstacles),
        "tilted_walls": sum(is_turned(ob) for ob in obstacles),
        "blocked_share": rnd(blocked_share(obstacles)),
        "standing_points": sight["standing_points"],
        "visible_share": rnd(sight["visible_share"]),
        "longest_sight_line": rnd(sight["longest_sight_line"]),
        "longest_sight_line_ends": sight["longest_sight_line_ends"],
    }
    grid = {"xs": list(STAND_XS), "ys": list(STAND_YS), "visible_share": sight["share_grid"]}
    return stats, grid


# ----------------------------------------------------------------------------------------
# Files


def red_zones() -> dict:
    return {
        "depth": RED_ZONE_DEPTH,
        "left": {"x0": 0.0, "x1": RED_ZONE_DEPTH, "y0": 0.0, "y1": ARENA_HEIGHT},
        "right": {
            "x0": ARENA_WIDTH - RED_ZONE_DEPTH,
            "x1": ARENA_WIDTH,
            "y0": 0.0,
            "y1": ARENA_HEIGHT,
        },
    }


def _obstacle_out(ob: dict) -> dict:
    if ob["kind"] == "pillar":
        return {"kind": "pillar", "x": ob["x"], "y": ob["y"], "radius": ob["radius"]}
    keys = ("x", "y", "width", "height", "theta")
    return {"kind": "wall", **{k: ob[k] for k in keys}}


def _num(value: float) -> str:
    text = f"{rnd(value):.{DIGITS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def map_svg(data: dict) -> str:
    """A drawing of one map in map units (y grows north), 40 px per unit."""
    margin, band = 0.25, 0.9
    vw, vh = ARENA_WIDTH + 2 * margin, ARENA_HEIGHT + margin + band
    title = f"Map {data['id']:02d} \u00b7 {data['name']} \u00b7 {data['split']}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(vw * PX_PER_UNIT)}" '
        f'height="{_num(vh * PX_PER_UNIT)}" viewBox="{_num(-margin)} {_num(-band)} '
        f'{_num(vw)} {_num(vh)}" font-family="Helvetica, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{_num(-margin)}" y="{_num(-band)}" width="{_num(vw)}" height="{_num(vh)}" '
        'fill="#ffffff"/>',
        f'<rect x="0" y="0" width="20" height="10" fill="{PALETTE["floor"]}"/>',
        '<g transform="matrix(1 0 0 -1 0 10)">',
    ]
    zones = red_zones()
    for end in ("left", "right"):
        z = zones[end]
        out.append(
            f'<rect class="red-zone" x="{_num(z["x0"])}" y="0" '
            f'width="{_num(z["x1"] - z["x0"])}" height="10" fill="{PALETTE["red_zone_fill"]}"/>'
        )
    for x in (RED_ZONE_DEPTH, ARENA_WIDTH - RED_ZONE_DEPTH):
        out.append(
            f'<line x1="{_num(x)}" y1="0" x2="{_num(x)}" y2="10" stroke="{PALETTE["red_zone"]}" '
            'stroke-width="0.03" stroke-dasharray="0.15 0.1" stroke-opacity="0.6"/>'
        )
    out.append(
        '<line x1="10" y1="0" x2="10" y2="10" stroke="#adb5bd" stroke-width="0.02" '
        'stroke-dasharray="0.1 0.1"/>'
    )
    for ob in data["obstacles"]:
        if ob["kind"] == "pillar":
            out.append(
                f'<circle class="pillar" cx="{_num(ob["x"])}" cy="{_num(ob["y"])}" '
                f'r="{_num(ob["radius"])}" fill="{PALETTE["obstacle"]}"/>'
            )
        else:
            w, h = ob["width"], ob["height"]
            thin = min(w, h) < PALETTE["thin_wall"]
            colour = PALETTE["obstacle"]
            # A thin wall gets an outline so it stays visible; it blocks like any wall.
            style = f'fill="{colour}"' + (f' stroke="{colour}" stroke-width="0.04"' if thin else "")
            out.append(
                f'<rect class="{"thin-wall" if thin else "wall"}" x="{_num(-w / 2)}" '
                f'y="{_num(-h / 2)}" width="{_num(w)}" height="{_num(h)}" '
                f'transform="translate({_num(ob["x"])} {_num(ob["y"])}) '
                f'rotate({_num(math.degrees(ob["theta"]))})" {style}/>'
            )
    colours = {"left": PALETTE["team"][0], "right": PALETTE["team"][1]}
    for end, pads in data["spawn_pads"].items():
        for x, y in pads:  # square outlines, as the viewer draws them
            out.append(
                f'<rect class="pad pad-{end}" x="{_num(x - 0.45)}" y="{_num(y - 0.45)}" '
                f'width="0.9" height="0.9" fill="none" stroke="{colours[end]}" '
                'stroke-width="0.05"/>'
            )
    out.append("</g>")
    for end, x in (("left", RED_ZONE_DEPTH / 2), ("right", ARENA_WIDTH - RED_ZONE_DEPTH / 2)):
        out.append(
            f'<text x="{_num(x)}" y="9.75" font-size="0.32" text-anchor="middle" '
            f'fill="#c92a2a" fill-opacity="0.8">Red Zone ({end})</text>'
        )
    out.append(
        f'<text x="0" y="-0.3" font-size="0.5" font-weight="bold" fill="#212529">'
        f"{escape(title)}</text>"
    )
    out.append(
        f'<text x="20" y="-0.3" font-size="0.36" text-anchor="end" fill="#495057">'
        f"{len(data['obstacles'])} obstacles</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _flat(value) -> bool:
    """Lists of numbers and objects of plain values are written on one line."""
    if isinstance(value, list):
        if all(not isinstance(v, (list, dict)) for v in value):
            return True  # a row of numbers, however long
        nested = all(isinstance(v, list) and _flat(v) for v in value)
        return nested and len(json.dumps(value)) <= 100
    if isinstance(value, dict):
        plain = all(not isinstance(v, (list, dict)) for v in value.values())
        return plain and len(json.dumps(value, ensure_ascii=False)) <= 120
    return True


def _format(value, indent: int) -> str:
    if _flat(value):
        return json.dumps(value, ensure_ascii=False)
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(value, list):
        items = [inner + _format(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    items = [
        f"{inner}{json.dumps(k, ensure_ascii=False)}: {_format(v, indent + 1)}"
        for k, v in value.items()
    ]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"


def _dump(obj: dict) -> str:
    """JSON text with a fixed layout: one object or row of numbers per line."""
    return _format(obj, 0) + "\n"


def build_atlas(map_ids: list[int] | None = None) -> dict[str, str]:
    """Every atlas file's name and text, computed in memory."""
    ids = available_maps() if map_ids is None else list(map_ids)
    files: dict[str, str] = {}
    entries = []
    for map_id in ids:
        data = load_map(map_id)
        stats, grid = map_statistics(data["obstacles"])
        stem = f"map_{map_id:02d}"
        files[f"{stem}.json"] = _dump(
            {
                "format": ATLAS_MAP_FORMAT,
                "version": ATLAS_VERSION,
                "id": map_id,
                "name": data["name"],
                "split": data["split"],
                "width": data["width"],
                "height": data["height"],
                "spawn_pads": data["spawn_pads"],
                "red_zones": red_zones(),
                "obstacles": [_obstacle_out(ob) for ob in data["obstacles"]],
                "stats": stats,
                "visibility_grid": grid,
            }
        )
        files[f"{stem}.svg"] = map_svg(data)
        entries.append(
            {
                "id": map_id,
                "name": data["name"],
                "split": data["split"],
                "obstacle_count": stats["obstacle_count"],
                "stats": stats,
                "files": {"json": f"{stem}.json", "svg": f"{stem}.svg"},
            }
        )
    files["index.json"] = _dump(
        {
            "format": ATLAS_FORMAT,
            "version": ATLAS_VERSION,
            "generator": "scripts/export_atlas.py",
            "arena": {
                "width": ARENA_WIDTH,
                "height": ARENA_HEIGHT,
                "body_radius": BODY_RADIUS,
                "red_zone_depth": RED_ZONE_DEPTH,
            },
            "method": METHOD,
            "splits": {split: list(ids_) for split, ids_ in SPLITS.items()},
            "summary": split_summary(entries),
            "maps": entries,
        }
    )
    return files


SUMMARY_KEYS = ("obstacle_count", "blocked_share", "visible_share", "longest_sight_line")


def split_summary(entries: list[dict]) -> dict:
    """Mean statistics per split."""
    out = {}
    for split in SPLITS:
        rows = [e["stats"] for e in entries if e["split"] == split]
        if rows:
            means = {k: rnd(sum(r[k] for r in rows) / len(rows)) for k in SUMMARY_KEYS}
            out[split] = {"maps": len(rows), **{f"mean_{k}": v for k, v in means.items()}}
    return out


def write_atlas(files: dict[str, str], out_dir: Path) -> None:
    """Write the files and remove atlas files that are no longer produced."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in sorted(out_dir.glob("map_*.*")) + [out_dir / "index.json"]:
        if old.is_file() and old.name not in files:
            old.unlink()
    for name, text in files.items():
        with open(out_dir / name, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def stale_files(files: dict[str, str], out_dir: Path) -> list[str]:
    """Names of atlas files that are missing, different or no longer produced."""
    out = []
    present = {p.name for p in out_dir.glob("*") if p.is_file()} if out_dir.is_dir() else set()
    for name, text in files.items():
        path = out_dir / name
        if name not in present or path.read_bytes() != text.encode("utf-8"):
            out.append(name)
    out.extend(sorted(present - set(files)))
    return out


def stats_table(files: dict[str, str]) -> str:
    """A Markdown table of the per-map statistics and the means by split."""
    index = json.loads(files["index.json"])
    lines = [
        "| id | name | split | obstacles | blocked share | visible share | longest sight line |",
        "|---:|---|---|---:|---:|---:|---:|",
    ]
    for e in index["maps"]:
        s = e["stats"]
        lines.append(
            f"| {e['id']} | {e['name']} | {e['split']} | {s['obstacle_count']} | "
            f"{s['blocked_share']:.4f} | {s['visible_share']:.4f} | "
            f"{s['longest_sight_line']:.4f} |"
        )
    lines += [
        "",
        "| split | maps | mean obstacles | mean blocked share | mean visible share | "
        "mean longest sight line |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for split, s in index["summary"].items():
        lines.append(
            f"| {split} | {s['maps']} | {s['mean_obstacle_count']:.2f} | "
            f"{s['mean_blocked_share']:.4f} | {s['mean_visible_share']:.4f} | "
            f"{s['mean_longest_sight_line']:.4f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=folder_argument, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--check", action="store_true", help="only report stale files")
    parser.add_argument("--table", action="store_true", help="print the statistics table")
    args = parser.parse_args(argv)
    files = build_atlas()
    if args.table:
        print(stats_table(files), end="")
    if args.check:
        stale = stale_files(files, args.out)
        if stale:
            print(f"stale atlas files in {args.out}: {', '.join(stale)}", file=sys.stderr)
            print("run: python scripts/export_atlas.py", file=sys.stderr)
            return 1
        print(f"{args.out}: {len(files)} files up to date")
        return 0
    write_atlas(files, args.out)
    print(f"wrote {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
