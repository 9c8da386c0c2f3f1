"""The environment's settings read into checked values and packed arrays.

`TeamDeathmatch.__init__` hands its keyword arguments here: each is checked (a wrong one is
refused naming it: `horizon: 0 is out of range [1, 100000]`) and the maps and rosters are
packed into the fixed-shape arrays every game of the env draws from. Apart from `env.py`
because none of it is about playing: it runs once, on the host, before anything compiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .core import classes
from .core.checks import choice, one_or_many, sequence, whole
from .core.observation import MAX_TURNED_WALLS
from .core.position import OFFICIAL_ROSTER
from .core.sight import sight_lines
from .core.state import (
    MAX_OBSTACLES,
    NUM_SLOTS,
    TEAM_SIZE,
    MapArrays,
    map_arrays,
    obstacle_groups,
    pad_positions,
)
from .maps import load_map
from .metrics import PRIORITY_NAMES
from .metrics.full import FULL_WIDTH

METRIC_LEVELS = ("none", "priority", "full")
MAX_NUM_ENVS = 1 << 20  # far beyond any device's memory at this state size; a typo guard


class MapBank(NamedTuple):
    """The env's maps, packed once: every game draws one by its index in `map_ids`."""

    map_ids: tuple[int, ...]
    capacity: tuple[int, int]  # room per game: (boxes, turned walls)
    room: tuple[int, int, int, int]  # ... and the boxes split by shape (pillars, square walls)
    maps: MapArrays  # every leaf with a leading axis over map_ids
    # Sight lines between the spawn pads, per map and spawn-end order (unswapped, swapped):
    # every fresh game looks them up instead of testing 45 lines (exact: same integers).
    pad_lines: Any


def map_bank(map_id: Any, obstacle_capacity: Any) -> MapBank:
    """The maps named by `map_id` (one id or a list), packed to `obstacle_capacity` (None:
    sized to the maps)."""
    many, is_list = one_or_many(map_id, "map_id")
    where = [f"map_id[{i}]" for i in range(len(many))] if is_list else ["map_id"]
    ids = [whole(m, w, 0, 10**6) for m, w in zip(many, where, strict=True)]
    obstacles = [load_map(i)["obstacles"] for i in ids]
    capacity = obstacle_room(obstacles, obstacle_capacity)
    room = sight_room(obstacles, obstacle_capacity, capacity)
    banks = [pack_map(obs, f"map_id {i}", room) for i, obs in zip(ids, obstacles, strict=True)]
    ends = (np.asarray([0, 1], np.int32), np.asarray([1, 0], np.int32))
    return MapBank(
        map_ids=tuple(ids),
        capacity=capacity,
        room=room,
        maps=jax.tree.map(lambda *xs: jnp.asarray(np.stack(xs)), *banks),
        pad_lines=jnp.asarray(
            [[sight_lines(np, pad_positions(e), bank) for e in ends] for bank in banks]
        ),
    )


def pack_map(obstacles: list[dict], where: str, capacity: tuple[int, int, int, int]) -> MapArrays:
    """Map arrays padded to the environment's capacity, shared by all its games: room for
    (boxes, turned walls, pillars, square walls), the last two for the sight test."""
    boxes, polys, pillars, rects = capacity
    try:
        return map_arrays(obstacles, boxes=boxes, polys=polys, pillars=pillars, rects=rects)
    except ValueError as err:
        raise ValueError(
            f"{where}: {err} (raise the environment's obstacle_capacity to fit it)"
        ) from None


def obstacle_room(obstacles: list[list[dict]], asked: Any) -> tuple[int, int]:
    """Room for boxes and turned walls per game: what the maps need unless asked for.

    It fixes array shapes, so every map that fits runs in the same compiled program;
    smaller room makes every tick cheaper (turned walls are the dearer tests).
    """
    need_boxes = max(len(obstacle_groups(o)[0]) for o in obstacles)
    need_walls = max(len(obstacle_groups(o)[1]) for o in obstacles)
    if asked is None:
        return max(need_boxes, 1), max(need_walls, 1)
    boxes, walls = sequence(asked, "obstacle_capacity", 2, 2)
    boxes = whole(boxes, "obstacle_capacity[0]")
    walls = whole(walls, "obstacle_capacity[1]")
    if not (need_boxes <= boxes <= MAX_OBSTACLES and need_walls <= walls <= MAX_TURNED_WALLS):
        raise ValueError(
            f"obstacle_capacity: {asked!r} must hold the maps' {need_boxes} boxes and "
            f"{need_walls} turned walls, within ({MAX_OBSTACLES}, {MAX_TURNED_WALLS})"
        )
    return int(boxes), int(walls)


def sight_room(
    obstacles: list[list[dict]], asked: Any, capacity: tuple[int, int]
) -> tuple[int, int, int, int]:
    """The capacity plus room for the boxes split by shape (pillars, square walls).

    Sized to the maps by default; a capacity asked for serves any map that fits it, so
    either split group then has room for every box.
    """
    boxes = [obstacle_groups(o)[0] for o in obstacles]
    if asked is None:
        pillars = max(max(sum(1 for b in bs if b[2] > 0) for bs in boxes), 1)
        rects = max(max(sum(1 for b in bs if b[2] == 0) for bs in boxes), 1)
    else:
        pillars = rects = capacity[0]
    return capacity[0], capacity[1], pillars, rects


def roster_table(rosters: Sequence[tuple[Sequence[str], Sequence[str]]]) -> np.ndarray:
    """Class id per slot, -1 for an empty slot, shape (R, 10)."""
    table = np.full((len(rosters), NUM_SLOTS), -1, np.int32)
    for r, pair in enumerate(rosters):
        for t, team in enumerate(sequence(pair, f"rosters[{r}]", 2, 2)):
            for k, name in enumerate(sequence(team, f"rosters[{r}][{t}]", 1, TEAM_SIZE)):
                table[r, t * TEAM_SIZE + k] = classes.CLASS_INDEX[
                    choice(name, f"rosters[{r}][{t}][{k}]", tuple(classes.CLASS_INDEX), "class")
                ]
    return table


def read_rosters(rosters: Any) -> tuple:
    """`rosters` as a tuple of (team a, team b) class-name tuples: None (the official
    roster), one pair of lists, or a non-empty list of pairs."""
    if rosters is None:
        return ((OFFICIAL_ROSTER, OFFICIAL_ROSTER),)
    pairs = sequence(rosters, "rosters", lo=1)
    flat = [isinstance(t, (list, tuple)) and not any(isinstance(n, (list, tuple)) for n in t)
            for t in pairs]  # fmt: skip
    if len(pairs) == 2 and all(flat):
        pairs = [pairs]  # one pair of teams (flat lists of names)
    roster_table(pairs)  # every entry checked, naming it
    return tuple((tuple(a), tuple(b)) for a, b in pairs)


def winning_scores(winning_score: Any) -> list[int]:
    """The points that win a game (1-1000): one, or a list to draw from per game."""
    scores, is_list = one_or_many(winning_score, "winning_score")
    return [
        whole(v, f"winning_score[{i}]" if is_list else "winning_score", 1, 1000)
        for i, v in enumerate(scores)
    ]


def metric_width(metrics: Any) -> int:
    """Columns of `state.metrics` for a `metrics` level (refusing an unknown level)."""
    choice(metrics, "metrics", METRIC_LEVELS)
    return {"none": 0, "priority": len(PRIORITY_NAMES)}.get(
        metrics, len(PRIORITY_NAMES) + FULL_WIDTH
    )
