"""How a body's legs ask about the obstacles: on (body, obstacle) rows, or densely.

`obstacle_legs` plans each body's legs from three questions (`Surfaces`): the first two
surfaces a straight leg meets, the first contact of a slide, and whether a body at a
point sinks into an obstacle. The answers come from rows (`obstacle_rows`), one per body
and obstacle it can reach this tick (`row_surfaces`): one JAX game builds all and masks
the others, a batch of games under `vmap` packs every game's reachable rows into one
short list. One NumPy game asks every obstacle in one call per kind of piece, the ones
out of reach masked (`dense_surfaces`): the same answers, bit for bit.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .array_ops import first_index, min_over
from .backend import is_numpy
from .batching import nonzero
from .contact import NO_HIT, arena_entries, f32, obstacle_entries
from .geometry import body_blocked
from .map_cache import per_numpy_map
from .obstacle_rows import (
    PILLAR,
    Obstacles,
    groups,
    grown_boxes,
    materialised,
    obstacle_list,
    per_body_any,
    per_body_min,
    row_blocked,
    row_entries,
)
from .shape_tests import F32, I32
from .slides import arena_entries as arena_slide_entries
from .slides import row_slide_entries
from .state import NUM_SLOTS
from .types import Array, Namespace

_NO_COLUMN = np.int32(2**30)
# How much more than a body (milli-units) an obstacle's box is grown when NumPy asks which
# obstacles a slide may meet (`_slide_may_meet`): far above float32 errors of a contact.
_SLIDE_MARGIN = np.asarray(16, F32)


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


# Each obstacle's bounding box grown by a body (`obstacle_rows.grown_boxes` of a map's list),
# kept per NumPy map: `obstacle_legs.plan_legs` and the dense slides ask it.
map_grown_boxes = per_numpy_map(lambda xp, m: grown_boxes(obstacle_list(xp, m)))


class Surfaces(NamedTuple):
    """How `obstacle_legs` asks about the obstacles: on rows (`row_surfaces`) or, for one NumPy
    game, densely over the whole map (`dense_surfaces`); both give the same answers.

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


def row_surfaces(xp: Namespace, rows: Rows, n: int, share: int = 0) -> Surfaces:
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
            (pick,) = nonzero(marked, cap)
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
            return xp.minimum(min_over(xp, arena, 1), per_body_min(xp, n, bodies, lam, NO_HIT))

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
        return Surfaces(first_two, slides_, sunk_at)
    return Surfaces(first_two, slides_some, sunk_at, sunk_some=sunk_some)


def dense_surfaces(m: Any, near: Array) -> Surfaces:
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
        ask = near & _slide_may_meet(start, p, w, map_grown_boxes(np, m))
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

    return Surfaces(first_two, slides_, sunk_at, sunk_counts_arena=True)


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
    first = first_index(xp, values == min_over(xp, values, 1, keepdims=True), axis=1)
    cols = xp.arange(6)
    others = xp.where(cols[None, :] == first[:, None], NO_HIT, values)
    other = first_index(xp, others == min_over(xp, others, 1, keepdims=True), axis=1)
    pick = lambda k: xp.take_along_axis(surfaces, k[:, None], 1)[:, 0]  # noqa: E731
    return min_over(xp, values, 1), pick(first), min_over(xp, others, 1), pick(other)


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
    return xp.minimum(min_over(xp, arena, 1), per_body_min(xp, n, rows.body, lam, NO_HIT))
