"""Reachability: where a body may stand (the engine's own `body_overlap` on a 0.05 grid),
the connected regions of that standing room, and whether every spawn pad and standing place
connect."""

from __future__ import annotations

import json
from functools import cache

import numpy as np

from ..core.geometry import body_overlap
from ..core.state import (
    ARENA_HEIGHT,
    ARENA_WIDTH,
    MILLI,
    SPAWN_END_NAMES,
    map_arrays,
    to_milli,
)
from .obstacles import standard_pads

REACH_STEP = 50  # spacing of the body-centre grid used for reachability, milli-units
POCKET_MIN_POINTS = 8  # smaller unreachable specks lie below the reachability grid's resolution


def _grid_axis(lo: float, hi: float, step: int) -> np.ndarray:
    lo_m, hi_m = to_milli(lo), to_milli(hi)
    return np.arange(lo_m, hi_m + 1, step, dtype=np.int32)


REACH_XS = _grid_axis(0.5, ARENA_WIDTH - 0.5, REACH_STEP)
REACH_YS = _grid_axis(0.5, ARENA_HEIGHT - 0.5, REACH_STEP)


def standing_room(obstacles: list[dict], step: int = REACH_STEP) -> np.ndarray:
    """Where a body fits on a grid of centres `step` milli-units apart: bool (rows y, cols x)."""
    xs = _grid_axis(0.5, ARENA_WIDTH - 0.5, step)
    ys = _grid_axis(0.5, ARENA_HEIGHT - 0.5, step)
    pts = np.stack(np.meshgrid(xs, ys, indexing="xy"), axis=-1).reshape(-1, 2)
    m = map_arrays(obstacles)
    free = np.empty(len(pts), bool)
    for start in range(0, len(pts), 8192):
        chunk = pts[start : start + 8192]
        free[start : start + 8192] = ~np.asarray(body_overlap(np, chunk, m).any)
    return free.reshape(len(ys), len(xs))


def label_regions(free: np.ndarray) -> np.ndarray:
    """4-connected components of a boolean grid (-1 where not free), by runs along rows."""
    rows, cols = free.shape
    padded = np.zeros((rows, cols + 2), np.int8)
    padded[:, 1:-1] = free
    edges = np.diff(padded, axis=1)
    start_r, start_c = np.nonzero(edges == 1)
    _, end_c = np.nonzero(edges == -1)  # exclusive ends, same row order as the starts
    parent = list(range(len(start_r)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_row: list[list[int]] = [[] for _ in range(rows)]
    for run, r in enumerate(start_r.tolist()):
        by_row[r].append(run)
    for r in range(rows - 1):
        below, above = by_row[r], by_row[r + 1]
        i = j = 0
        while i < len(below) and j < len(above):
            a, b = below[i], above[j]
            if start_c[a] < end_c[b] and start_c[b] < end_c[a]:
                parent[find(a)] = find(b)
            if end_c[a] < end_c[b]:
                i += 1
            else:
                j += 1
    labels = np.full((rows, cols), -1, np.int32)
    for run in range(len(start_r)):
        labels[start_r[run], start_c[run] : end_c[run]] = find(run)
    return labels


def reach_problem(obstacles: list[dict]) -> str | None:
    """Why bodies cannot walk between all spawn pads or reach all standing room, or None.

    Body centres are laid on a 0.05 grid over [0.5, 19.5] x [0.5, 9.5] (4-connected), so a
    gap passes when a body fits through it at a grid line (a 1.0-wide gap between walls on
    the 0.05 grid does). Unreachable specks under 8 grid points are below the grid's
    resolution and are ignored.

    Args:
        obstacles: A checked obstacle list (`check_obstacles`).

    Returns:
        None when every pad and every standing place connect; else the reason, naming a
            pad or a sealed pocket's place.
    """
    return _reach_report(json.dumps(obstacles, sort_keys=True))


@cache
def _reach_report(obstacles_json: str) -> str | None:
    obstacles = json.loads(obstacles_json)
    labels = label_regions(standing_room(obstacles))
    pads = standard_pads()
    first = None
    for end in SPAWN_END_NAMES:
        for x, y in pads[end]:
            r = int((to_milli(y) - REACH_YS[0]) // REACH_STEP)
            c = int((to_milli(x) - REACH_XS[0]) // REACH_STEP)
            here = (int(labels[r, c]), f"{end} spawn pad at ({x:g}, {y:g})")
            if first is None:
                first = here
            elif here[0] != first[0]:
                return (
                    f"a body cannot walk from the {first[1]} to the {here[1]} "
                    "(the obstacles seal it off)"
                )
    ids, sizes = np.unique(labels[(labels >= 0) & (labels != first[0])], return_counts=True)
    pockets = ids[sizes >= POCKET_MIN_POINTS]
    if len(pockets):
        r, c = np.argwhere(labels == pockets[0])[0]
        x, y = REACH_XS[c] / MILLI, REACH_YS[r] / MILLI
        size = int((labels == pockets[0]).sum())
        return (
            f"sealed pocket near ({x:.2f}, {y:.2f}): {size} standing points a body fits on "
            "but cannot reach from the spawn pads"
        )
    return None
