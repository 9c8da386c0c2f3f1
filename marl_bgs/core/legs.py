"""Each body against the obstacles alone: a straight leg to its first contact, one slide.

The work runs on rows (`obstacle_rows`), one per body and obstacle it can reach this tick:
NumPy builds only those rows; one JAX game builds all and masks the others; a batch of
games under `vmap` packs every game's reachable rows into one short list (the `custom_vmap`
rule below), a few per body instead of every obstacle of the map, twice a tick.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .array_ops import first_index, stack
from .backend import is_numpy, known_none
from .batching import every_game, in_chunks, with_batch_rule
from .body_contacts import QUANTA, Paths, cell_corners, pick_point
from .contact import (
    NO_HIT,
    arena_entries,
    bounded_fence,
    bounded_inverse,
    f32,
    fenced_dot,
    obstacle_entries,
)
from .geometry import body_blocked
from .map_cache import per_numpy_map
from .obstacle_rows import (
    PILLAR,
    SQUARE,
    TURNED,
    Obstacles,
    groups,
    grown_boxes,
    materialised,
    obstacle_list,
    per_body_any,
    per_body_min,
    reachable,
    row_blocked,
    row_entries,
)
from .shape_tests import F32, I32, off_arena
from .slides import arena_entries as arena_slide_entries
from .slides import row_slide_entries
from .state import LEFT, NUM_SLOTS
from .types import Array, Namespace

# Rows of each kind a batch of games packs per game before it falls back to every (body,
# obstacle) row of every game (random play on map 47 averages about 6 pillar and 12 square
# wall rows per game; 1 game in 100 has more than 12 and 17).
OBSTACLE_ROWS_PER_GAME = {PILLAR: 12, SQUARE: 16, TURNED: 8}
# A batch finds where each body stands on the grid by testing the nearest grid point of its
# end for every body, then the other candidates only on the rows of the bodies whose nearest
# point sinks, in lists this many times shorter than the rows of each kind.
GRID_END_SHARE = 4
_NO_COLUMN = np.int32(2**30)
# Float constants as 0-d arrays (NumPy converts a scalar operand on every call).
_QUANTUM_F = np.asarray(1.0 / QUANTA, F32)
_ZERO_F, _ONE_F, _TINY_F = (np.asarray(x, F32) for x in (0, 1, 1e-12))
# How much more than a body (milli-units) an obstacle's box is grown when NumPy asks which
# obstacles a slide may meet (`_slide_may_meet`): far above float32 errors of a contact.
_SLIDE_MARGIN = np.asarray(16, F32)
# Outward normals of the arena's left, right, bottom and top edges (surfaces 0-3).
_EDGE_NORMALS = np.asarray([[1, 0], [-1, 0], [0, 1], [0, -1]], np.int32)


class Rows(NamedTuple):
    """(body, obstacle) rows of a set of bodies, the pillars' rows first, then the square
    walls', then the turned walls': each body's index among the bodies, the obstacle's column
    in its game's `Obstacles` list and whether the row counts, all groups end to end; then
    per group its kind and its rows' obstacles."""

    body: Array  # (R,) int32
    column: Array  # (R,) int32
    valid: Array  # (R,) bool
    groups: tuple  # ((kind, Obstacles (R_g, ...)), ...) in row order


def make_rows(xp: Namespace, obstacles: Obstacles, parts: list) -> Rows:
    """Rows from per-group (kind, body, column, valid) of games whose lists are `obstacles`
    ((G, K, ...)); a body's game is its index // NUM_SLOTS."""
    body = xp.concatenate([b for _, b, _, _ in parts]).astype(I32)
    column = xp.concatenate([c for _, _, c, _ in parts]).astype(I32)
    valid = xp.concatenate([v for _, _, _, v in parts])
    per_group = tuple((kind, _gather(obstacles, b // NUM_SLOTS, c)) for kind, b, c, _ in parts)
    return Rows(body, column, valid, per_group)


def _gather(obstacles: Obstacles, game: Array, column: Array) -> Obstacles:
    """Fields of `obstacles` ((G, K, ...) for G games) at (game, column) per row."""
    return Obstacles(*(a[game, column] for a in obstacles))


def _by_group(xp: Namespace, rows: Rows, fn, *per_row: Any) -> Array:
    """`fn(kind, obstacles, *row slices)` for each group, joined end to end (each computed
    whole first: XLA on the CPU does not vectorise a join fused with what it joins). NumPy
    skips groups without rows (it pays per call, not per row)."""
    out, begin = [], 0
    for kind, ob in rows.groups:
        size = ob.radius.shape[0]
        if size or not is_numpy(xp):
            part = fn(kind, ob, *(a[begin : begin + size] for a in per_row))
            out.append(materialised(xp, part))
        begin += size
    if not out:  # NumPy, no rows at all: an empty result of the right shape
        kind, ob = rows.groups[0]
        return fn(kind, ob, *(a[:0] for a in per_row))
    return xp.concatenate(out) if len(out) > 1 else out[0]


def _grid_end(xp: Namespace, start: Array, ends: Array, surfaces: Any) -> Array:
    """Where each body stands on the grid (int (N, 2)) after a path ending at the float
    offsets `ends` (N, K, 2) from `start`, the exact end first, then fallbacks in order
    (the first contact, the start): of each, the grid points of the thousandth square
    around it, nearest first, the first where the body stands free (in the arena and sunk
    into no obstacle: `surfaces.sunk_at`). A body touching a convex surface has one of them
    on its free side; the start (offset 0, last) is free, as every stored position is."""
    n = start.shape[0]
    cands = cell_corners(xp, ends).reshape(n, -1, 2)  # (N, 4 K, 2)
    cands = xp.concatenate([cands, xp.zeros((n, 1, 2), F32)], axis=1).astype(I32)
    pts = start[:, None, :] + cands
    if is_numpy(xp):  # NumPy pays per call: the nearest alone, which mostly stands free
        first = ~_blocked_at(np, pts[:, :1], surfaces)[:, 0]
        if first.all():
            return pts[:, 0]
    if surfaces.sunk_some is not None:  # the nearest for all, the rest for those it fails
        first = ~_blocked_at(xp, pts[:, :1], surfaces)[:, 0]
        sunk = surfaces.sunk_some(pts, ~first)
        edge_x, edge_y = off_arena(pts)
        later = first_index(xp, ~(sunk | edge_x | edge_y), axis=1)
        index = xp.where(first, 0, xp.minimum(later, pts.shape[1] - 1))
        return pick_point(xp, pts, index)
    free = ~_blocked_at(xp, pts, surfaces)
    return pick_point(xp, pts, xp.minimum(first_index(xp, free, axis=1), pts.shape[1] - 1))


def _blocked_at(xp: Namespace, pts: Array, surfaces: Any) -> Array:
    """Whether a body at each point ((N, S, 2)) is off the arena or sinks into an obstacle
    (`surfaces.sunk_at`, which may count the arena already, as `geometry.body_blocked`)."""
    sunk = surfaces.sunk_at(pts)
    if surfaces.sunk_counts_arena:
        return sunk
    edge_x, edge_y = off_arena(pts)
    return sunk | edge_x | edge_y


class _Surfaces(NamedTuple):
    """How `_legs` asks about the obstacles: on rows (`_row_surfaces`) or, for one NumPy
    game, densely over the whole map (`_dense_surfaces`); both give the same answers.

    first_two(p, v): per body the least first contact and its surface (0-3 the arena
    edges, 4 + k obstacle k), then the same over the other surfaces (p, v int). slides(start,
    p, w, skip): the least first contact of slides from float offsets p along float w,
    leaving out each body's surface `skip` (`slides`). sunk_at(pts): whether a body at each
    point sinks into an obstacle (and, where `sunk_counts_arena`, whether it is off the
    arena as well). sunk_some(pts, need), optional: `sunk_at` for the bodies `need` marks
    (what it says of the others is never read).
    """

    first_two: Array
    slides: Array
    sunk_at: Array
    sunk_counts_arena: bool = False
    sunk_some: Any = None


def _row_surfaces(xp: Namespace, rows: Rows, n: int, share: int = 0) -> _Surfaces:
    """Questions answered on `rows`. With `share` > 0 (JAX batches), the slides and
    `sunk_some` work only on the rows that can matter (a slide's rows whose obstacle it may
    meet; the rows of the bodies asked about), packed into lists `share` times shorter than
    each kind's rows, and on all rows again when those overflow: the same answers."""

    def first_two(p, v):
        return _two_smallest(xp, *_entries(xp, p, v, rows), rows)

    def slides_(start, p, w, skip):
        return _slide_least(xp, start, p, w, skip, rows)

    def sunk_at(pts):
        at = materialised(xp, pts)[rows.body]
        hits = _by_group(xp, rows, lambda kind, ob, a: row_blocked(xp, a, ob, kind), at)
        return per_body_any(xp, n, rows.body, hits & rows.valid[:, None])

    def packed(take, value, fill):
        """Per kind, the rows `take(kind, ob, body, column)` marks, packed; `value(kind,
        obstacles, bodies)` of them (`fill` where a list has room left), their bodies, and
        whether any list overflowed."""
        bodies, values, over, begin = [], [], [], 0
        for kind, ob in rows.groups:
            size = ob.radius.shape[0]
            body = rows.body[begin : begin + size]
            column = rows.column[begin : begin + size]
            marked = rows.valid[begin : begin + size] & take(kind, ob, body, column)
            cap = max(1, size // share)
            (pick,) = xp.nonzero(marked, size=cap, fill_value=0)
            count = xp.sum(marked)
            ok = xp.arange(cap) < count
            got = value(kind, Obstacles(*(a[pick] for a in ob)), body[pick])
            ok = ok.reshape(ok.shape + (1,) * (got.ndim - 1))
            bodies.append(body[pick])
            values.append(materialised(xp, xp.where(ok, got, fill)))
            over.append(count > cap)
            begin += size
        return xp.concatenate(bodies), xp.concatenate(values), xp.any(xp.stack(over))

    def slides_some(start, p, w, skip):
        import jax

        base = f32(start)  # exact: whole numbers
        low = xp.minimum(p, p + w) + base - _SLIDE_MARGIN
        high = xp.maximum(p, p + w) + base + _SLIDE_MARGIN
        moving = xp.any(w != 0, axis=1)
        at = materialised(xp, (start, p, w, low, high, moving, skip))

        def take(kind, ob, body, column):
            s0, p0, w0, lo, hi, move, sk = (a[body] for a in at)
            grown_lo = f32(ob.corners.min(axis=-2) - ob.radius[:, None])
            grown_hi = f32(ob.corners.max(axis=-2) + ob.radius[:, None])
            meets = xp.all((grown_lo <= hi) & (grown_hi >= lo), axis=1)
            return meets & move & (column != sk - 4)

        def value(kind, ob, body):
            return row_slide_entries(xp, at[0][body], at[1][body], at[2][body], ob, kind)

        def few():
            bodies, lam, _ = found
            arena = arena_slide_entries(xp, start, p, w)
            arena = xp.where(xp.arange(4)[None, :] == skip[:, None], NO_HIT, arena)
            return xp.minimum(xp.min(arena, axis=1), per_body_min(xp, n, bodies, lam, NO_HIT))

        found = packed(take, value, NO_HIT)
        return jax.lax.cond(found[2], lambda: _slide_least(xp, start, p, w, skip, rows), few)

    def sunk_some(pts, need):
        import jax

        at = materialised(xp, pts)

        def value(kind, ob, body):
            return row_blocked(xp, at[body], ob, kind)

        bodies, hits, over = packed(lambda kind, ob, body, column: need[body], value, False)
        few = lambda: per_body_any(xp, n, bodies, hits)  # noqa: E731
        return jax.lax.cond(over, lambda: sunk_at(pts), few)

    if not share:
        return _Surfaces(first_two, slides_, sunk_at)
    return _Surfaces(first_two, slides_some, sunk_at, sunk_some=sunk_some)


def _dense_surfaces(m: Any, near: Array) -> _Surfaces:
    """NumPy, one game: every obstacle in one call per kind of piece (NumPy pays per call,
    not per element), each body's obstacles out of reach (`near` False) masked as its rows
    leave them. `obstacle_entries` evaluates the rows' expressions: the same bits."""
    mask = np.concatenate([np.ones((near.shape[0], 4), bool), near], axis=1)

    def entries(p, v):
        return np.where(mask, obstacle_entries(np, p, v, m), NO_HIT)

    def first_two(p, v):
        values = entries(p, v)
        rows = np.arange(values.shape[0])
        first = np.argmin(values, axis=1)  # the first of equal values: the lower surface
        lam1 = values[rows, first]
        values[rows, first] = NO_HIT
        second = np.argmin(values, axis=1)
        return lam1, first.astype(I32), values[rows, second], second.astype(I32)

    def slides_(start, p, w, skip):
        # Rows of the bodies that slide and the obstacles their slide may meet, pillars
        # first: a slide is short and runs along the surface it leaves (`skip`), so most
        # kinds have no row left and cost no call.
        ask = near & _slide_may_meet(start, p, w, _grown_boxes(np, m))
        ask[np.arange(ask.shape[0]), np.maximum(skip - 4, 0)] &= skip < 4
        column, body = np.nonzero(ask.T)  # by column: the kinds' rows come in order
        obstacles = obstacle_list(np, m)
        parts, bodies = [], []
        for kind, b, e in groups(m):
            lo, hi = np.searchsorted(column, (b, e))
            if hi > lo:  # one game's list, read by column alone (no game index)
                parts.append((kind, Obstacles(*(a[column[lo:hi]] for a in obstacles))))
                bodies.append(body[lo:hi])
        if not parts:  # no obstacle in any slide's way
            parts = [(PILLAR, Obstacles(*(a[:0] for a in obstacles)))]
            bodies = [body]
        body = np.concatenate(bodies).astype(I32)
        rows = Rows(body, column.astype(I32), np.ones(body.shape, bool), tuple(parts))
        return _slide_least(np, start, p, w, skip, rows)

    def sunk_at(pts):
        # Points on a body's path lie in its reach, so obstacles out of reach hold none.
        # `body_blocked` counts the arena's edges too, so `_stop_quanta` need not again.
        return body_blocked(np, pts, m)

    return _Surfaces(first_two, slides_, sunk_at, sunk_counts_arena=True)


def _slide_may_meet(start: Array, p: Array, w: Array, boxes: tuple[Array, Array]) -> Array:
    """NumPy: (N, K) whether each slide (from float offset p along w of a body starting at
    `start`) comes near each obstacle's grown box: the box, grown by _SLIDE_MARGIN more,
    meets the box around the slide. A row left out has no first contact before the slide's
    end (float32 errors of a contact are far below the margin), so the least contact, capped
    at the slide's end, is the same bits. A still body (w = 0) meets nothing."""
    lo, hi = boxes
    a, b = p, p + w
    base = start.astype(F32)  # exact: whole numbers
    low = (np.minimum(a, b) + base)[:, None, :] - _SLIDE_MARGIN
    high = (np.maximum(a, b) + base)[:, None, :] + _SLIDE_MARGIN
    meets = (lo[None] <= high) & (hi[None] >= low)
    return meets.all(axis=2) & np.any(w != 0, axis=1)[:, None]


def _entries(xp: Namespace, p: Array, v: Array, rows: Rows) -> tuple[Array, Array]:
    """(N, 4) first contacts with the arena edges and (R,) with each row's obstacle."""
    p, v = materialised(xp, (p, v))
    lam = _by_group(
        xp, rows, lambda kind, ob, a, b: row_entries(xp, a, b, ob, kind), p[rows.body], v[rows.body]
    )
    return arena_entries(xp, p, v), xp.where(rows.valid, lam, NO_HIT)


def _two_smallest(
    xp: Namespace, arena: Array, lam: Array, rows: Rows
) -> tuple[Array, Array, Array, Array]:
    """Per body: the least first contact and its surface (0-3 the arena edges, 4 + k the
    obstacle in column k), then the same over the other surfaces; ties go to the lower
    surface, as a first index over all `obstacle_entries` columns would."""
    n = arena.shape[0]
    least = per_body_min(xp, n, rows.body, lam, NO_HIT)
    on_least = lam == least[rows.body]
    col1 = per_body_min(xp, n, rows.body, xp.where(on_least, rows.column, _NO_COLUMN), _NO_COLUMN)
    rest = xp.where(rows.column == col1[rows.body], NO_HIT, lam)
    second = per_body_min(xp, n, rows.body, rest, NO_HIT)
    on_second = (rest == second[rows.body]) & (rows.column != col1[rows.body])
    col2 = per_body_min(xp, n, rows.body, xp.where(on_second, rows.column, _NO_COLUMN), _NO_COLUMN)
    # The two best rows follow the four edges; positions then order ties like surfaces.
    values = xp.concatenate([arena, least[:, None], second[:, None]], axis=1)
    surfaces = xp.concatenate(
        [xp.broadcast_to(xp.arange(4, dtype=I32), (n, 4)), 4 + col1[:, None], 4 + col2[:, None]],
        axis=1,
    )
    first = first_index(xp, values == xp.min(values, axis=1, keepdims=True), axis=1)
    cols = xp.arange(6)
    others = xp.where(cols[None, :] == first[:, None], NO_HIT, values)
    other = first_index(xp, others == xp.min(others, axis=1, keepdims=True), axis=1)
    pick = lambda k: xp.take_along_axis(surfaces, k[:, None], 1)[:, 0]  # noqa: E731
    return xp.min(values, axis=1), pick(first), xp.min(others, axis=1), pick(other)


def _slide_least(xp: Namespace, start: Array, p: Array, w: Array, skip: Array, rows: Rows) -> Array:
    """(N,) the least first contact of each body's slide (from float offsets p along w)
    with the arena's edges and its rows' obstacles, its own surface `skip` left out."""
    n = start.shape[0]
    arena = arena_slide_entries(xp, start, p, w)
    arena = xp.where(xp.arange(4)[None, :] == skip[:, None], NO_HIT, arena)
    if is_numpy(xp) and not rows.body.size:  # no obstacle in any slide's way
        return arena.min(axis=1)
    at = materialised(xp, (start, p, w))
    lam = _by_group(
        xp, rows,
        lambda kind, ob, s0, a, b: row_slide_entries(xp, s0, a, b, ob, kind),
        *(x[rows.body] for x in at),
    )  # fmt: skip
    lam = xp.where(rows.valid & (rows.column != skip[rows.body] - 4), lam, NO_HIT)
    return xp.minimum(xp.min(arena, axis=1), per_body_min(xp, n, rows.body, lam, NO_HIT))


def _fdot(xp: Namespace, a: Array, b: Array) -> Array:
    """`fenced_dot` of vectors on a last axis of 2."""
    return fenced_dot(xp, a[..., 0], a[..., 1], b[..., 0], b[..., 1])


def _surface_normal(xp: Namespace, at: Array, which: Array, corners: Array, kind: Array) -> Array:
    """Outward normal (float32 (N, 2), not unit length) at the contact point `at` (float
    offsets from each body's start) on surface `which` (0-3 an arena edge, else the
    obstacle whose corners, as offsets from the body's start, and kind are given per body).

    An edge's or a face's own direction (exact), or the offset of the contact point from
    the corner or centre that a circle piece is drawn around: the normal at the exact
    contact point (RULES.md: the tangent at the contact point), not at a grid point near it.
    """
    n = f32(xp.asarray(_EDGE_NORMALS)[xp.minimum(which, 3)])
    c = f32(corners)  # small whole numbers: exact
    near = xp.minimum(xp.maximum(at, c[:, 0]), c[:, 2])  # the nearest point of the box (clip)
    box_n = at - near  # a pillar's lo and hi are its centre: the offset from it
    obstacle = (which >= 4)[:, None]
    if known_none(xp, (kind == TURNED) & (which >= 4)):  # NumPy pays per call: none met
        return xp.where(obstacle, box_n, n)
    ax, ay = c[:, :, 0], c[:, :, 1]
    bx, by = xp.roll(ax, -1, axis=1), xp.roll(ay, -1, axis=1)
    ux, uy = bx - ax, by - ay
    wx, wy = at[:, None, 0] - ax, at[:, None, 1] - ay
    dot = bounded_fence(xp, wx * ux) + bounded_fence(xp, wy * uy)
    uu = bounded_fence(xp, ux * ux) + bounded_fence(xp, uy * uy)
    outside = bounded_fence(xp, uy * wx) - bounded_fence(xp, ux * wy) > 0
    on_edge = outside & (dot > 0) & (dot < uu)
    on_corner = xp.roll(dot >= uu, 1, axis=1) & (dot <= 0)  # corner j closes edge j-1
    zero = _ZERO_F
    side_n = stack(
        xp, [xp.where(on_edge, uy, zero).sum(1), xp.where(on_edge, -ux, zero).sum(1)], -1
    )
    corner_n = stack(
        xp, [xp.where(on_corner, wx, zero).sum(1), xp.where(on_corner, wy, zero).sum(1)], -1
    )
    wall_n = xp.where(on_edge.any(axis=1)[:, None], side_n, corner_n)
    piece_n = xp.where((kind == TURNED)[:, None], wall_n, box_n)
    return xp.where(obstacle, piece_n, n)


def _slide(xp: Namespace, rest: Array, n: Array) -> Array:
    """The part of `rest` (float (N, 2)) along the tangent of a surface with outward
    normal n: unrounded, so a slide keeps its exact direction until the end is stored."""
    t = stack(xp, [-n[:, 1], n[:, 0]], -1)
    tt = xp.maximum(_fdot(xp, t, t), _TINY_F)
    k = bounded_fence(xp, _fdot(xp, rest, t) * bounded_inverse(xp, tt))
    return bounded_fence(xp, t * k[:, None])


def legs_on_rows(
    xp: Namespace,
    start: Array,
    stride: Array,
    end: Array,
    obstacles: Obstacles,
    rows: Rows,
    share: int = 0,
) -> tuple[Paths, Array]:
    """`plan_legs` for N bodies (of G games, NUM_SLOTS each, in order) given their rows;
    `obstacles` holds each game's list, (G, K, ...); `share` as `_row_surfaces` takes it."""
    surfaces = _row_surfaces(xp, rows, start.shape[0], share)
    return _legs(xp, start, stride, end, obstacles, surfaces)


def _legs(
    xp: Namespace,
    start: Array,
    stride: Array,
    end: Array,
    obstacles: Obstacles,
    surfaces: _Surfaces,
) -> tuple[Paths, Array]:
    """`plan_legs` for N bodies (of G games, NUM_SLOTS each, in order); `obstacles` holds
    each game's list, (G, K, ...), and `surfaces` answers the questions about them."""
    n = start.shape[0]
    lam1, first, lam2, second = surfaces.first_two(start, stride)
    met = lam1 < 1
    v = f32(stride)
    t1 = xp.where(met, lam1, _ONE_F)  # the exact contact instant (float32)
    v1 = bounded_fence(xp, v * t1[:, None])  # where it is then: the true velocity's path
    if known_none(xp, met):  # nothing met: every body ends at its first leg's end
        paths = Paths(stack(np, [0 * t1, t1, t1], -1), stack(np, [0 * v, v1, v1], 1))
        return paths, _grid_end(np, start, v1[:, None], surfaces)
    game = xp.arange(n) // NUM_SLOTS
    k_max = obstacles.kind.shape[-1] - 1

    def normal(which: Array) -> Array:
        column = xp.minimum(xp.maximum(which - 4, 0), k_max)
        if is_numpy(xp) and obstacles.kind.shape[0] == 1:
            # One NumPy game: its list indexed by column alone (a gather by two index
            # arrays costs several times more).
            corners, kind = obstacles.corners[0][column], obstacles.kind[0][column]
        else:
            corners, kind = obstacles.corners[game, column], obstacles.kind[game, column]
        rel = corners - start[:, None, :]
        return _surface_normal(xp, v1, which, rel, kind)

    rest = v - v1
    n1 = normal(first)
    w1 = _slide(xp, rest, n1)
    both = met & (lam2 < lam1 + _QUANTUM_F)
    if known_none(xp, both):  # the second surface only matters to `both`
        n2, w2 = n1, w1
    else:
        n2 = normal(second)
        w2 = _slide(xp, rest, n2)
    ok1 = ~both | (_fdot(xp, w1, n2) >= 0)
    ok2 = both & (_fdot(xp, w2, n1) >= 0)
    l1, l2 = _fdot(xp, w1, w1), _fdot(xp, w2, w2)
    # On a tie, the slide toward the own spawn end, then the southern one (mirror-safe).
    own = xp.where(end == LEFT, _ONE_F, -_ONE_F)
    key1, key2 = w1[:, 0] * own, w2[:, 0] * own
    prefer2 = (l2 > l1) | ((l2 == l1) & ((key2 < key1) | ((key2 == key1) & (w2[:, 1] < w1[:, 1]))))
    take2 = ok2 & (~ok1 | prefer2)
    slide = xp.where(take2[:, None], w2, xp.where(ok1[:, None], w1, _ZERO_F))
    slide = xp.where(met[:, None], slide, _ZERO_F)
    # A slide runs along a tangent of the surface it slides on, a supporting line of that
    # convex shape (or edge): it never enters it, so only the other surfaces are asked.
    along = xp.where(take2, second, first).astype(I32)
    reach = xp.minimum(surfaces.slides(start, v1, slide, along), _ONE_F)
    v2 = v1 + bounded_fence(xp, slide * reach[:, None])
    t2 = t1 + bounded_fence(xp, (_ONE_F - t1) * reach)
    paths = Paths(stack(xp, [0 * t1, t1, t2], -1), stack(xp, [0 * v, v1, v2], 1))
    return paths, _grid_end(xp, start, stack(xp, [v2, v1], 1), surfaces)


def plan_legs(
    xp: Namespace, start: Array, stride: Array, end: Array, m: Any
) -> tuple[Paths, Array]:
    """Each body of one game against the obstacles alone: to its first contact, then one
    slide; and where on the grid it stands at the end.

    The first leg runs at the body's own velocity to the exact contact instant (float32);
    the slide runs from there along the tangent of the surface met at that point, at the
    part of the velocity along it, until the tick ends or it meets something else. A body
    meeting two surfaces within one quantum (1/1024 of the tick) slides along one that does
    not lead into the other (the longer; on a tie toward its own spawn end, then south), or
    stops. Paths are float offsets from the start (`Paths`); only the end is rounded, to
    the nearest grid point where the body stands free (`_grid_end`).
    """
    if is_numpy(xp):
        obstacles = obstacle_list(np, m)
        near = reachable(np, obstacles, start, stride, _grown_boxes(np, m))
        lists = Obstacles(*(a[None] for a in obstacles))
        return _legs(np, start, stride, end, lists, _dense_surfaces(m, near))
    times, points, ends = _plan_legs_jax(start, stride, end, m)
    return Paths(times, points), ends


_grown_boxes = per_numpy_map(lambda xp, m: grown_boxes(obstacle_list(xp, m)))


def _one_game(start: Array, stride: Array, end: Array, m: Any) -> tuple[Array, Array, Array]:
    import jax.numpy as jnp

    obstacles = obstacle_list(jnp, m)
    near = reachable(jnp, obstacles, start, stride)
    parts = []
    for kind, begin, stop in groups(m):
        k = stop - begin
        body = jnp.repeat(jnp.arange(NUM_SLOTS), k)
        column = jnp.tile(jnp.arange(begin, stop), NUM_SLOTS)
        parts.append((kind, body, column, near[:, begin:stop].ravel()))
    lists = Obstacles(*(a[None] for a in obstacles))
    legs, ends = legs_on_rows(jnp, start, stride, end, lists, make_rows(jnp, lists, parts))
    return legs.times, legs.points, ends


def _many_games(axis_size: int, in_batched: Any, *args: Any) -> tuple[Array, Array, Array]:
    """`vmap` of `_one_game`: every game's reachable rows in one list of the batch's bodies
    per group (OBSTACLE_ROWS_PER_GAME of each kind per game on average).

    A batch with more reachable rows of some kind than its list holds runs its games a
    list at a time (`in_chunks`); the result is the same.
    """
    import jax
    import jax.numpy as jnp

    games = axis_size
    start, stride, end, m = jax.lax.optimization_barrier(every_game(games, args, in_batched))
    obstacles = jax.vmap(lambda mm: obstacle_list(jnp, mm))(m)
    near = jax.vmap(lambda o, s, v: reachable(jnp, o, s, v))(obstacles, start, stride)
    spans = groups(m)
    # Any one game fits: every body of it against every obstacle of each kind.
    room = [max(OBSTACLE_ROWS_PER_GAME[kind] * games, NUM_SLOTS * (e - b)) for kind, b, e in spans]

    def resolve(take):
        flat = (near & take[:, None, None]).reshape(games * NUM_SLOTS, near.shape[-1])
        parts = []
        for (kind, b, e), size in zip(spans, room, strict=True):
            body, column = jnp.nonzero(flat[:, b:e], size=size, fill_value=0)
            parts.append((kind, body, column + b, jnp.arange(size) < jnp.sum(flat[:, b:e])))
        rows = make_rows(jnp, obstacles, parts)
        legs, ends = legs_on_rows(
            jnp, start.reshape(-1, 2), stride.reshape(-1, 2), end.reshape(-1), obstacles, rows,
            GRID_END_SHARE,
        )  # fmt: skip
        return (
            legs.times.reshape(games, NUM_SLOTS, 3),
            legs.points.reshape(games, NUM_SLOTS, 3, 2),
            ends.reshape(games, NUM_SLOTS, 2),
        )

    counts = jnp.stack([jnp.sum(near[:, :, b:e], axis=(1, 2)) for _, b, e in spans], axis=1)
    empty = jax.eval_shape(resolve, jnp.ones(games, bool))
    empty = jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), empty)
    return in_chunks(counts, room, resolve, empty), (True, True, True)


_plan_legs_jax = with_batch_rule(_one_game, _many_games)
