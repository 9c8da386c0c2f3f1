"""Bodies against only the obstacles they can reach this tick, one row per (body, obstacle).

A body's ordinary move (a first leg, then at most one slide: `obstacle_legs.plan_legs`) never takes
it farther from its start than the length of its stride, so an obstacle whose grown
bounding box lies outside the square of that half-width around the start can be neither met
nor sunk into (an exact pre-test, `reachable`). Random play on a 32-obstacle map leaves
about two such obstacles per body. The leg computations therefore run on rows, one per
(body, reachable obstacle), and gather per-body results with a minimum (or an "any") over a
body's rows, as the body passes do (`body_contacts`).

The per-row tests evaluate exactly the expressions of `contact.obstacle_entries` and
`geometry.body_blocked` for one obstacle, so the answers are the same bits.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .backend import is_numpy, min_at
from .contact import NO_HIT, circle_entry, face_entry, poly_edge
from .map_cache import per_numpy_map
from .shape_tests import BODY, I32, box_holds_body, edge_holds_body
from .types import Array, Namespace

PILLAR, SQUARE, TURNED = 0, 1, 2
# How far beyond its stride's length (milli-units, summed over x and y) a body's path and
# its first contacts can lie: grid rounding of the contact point and of the slide (a unit
# each, one more for the slide's lean step) and contacts found up to a quantum past the
# leg's end (which `obstacle_legs` compares against the first contact), with room to spare.
REACH_SLACK = 8


class Obstacles(NamedTuple):
    """One list of a map's obstacles: pillars, then square walls, then turned walls (the
    column order of `contact.obstacle_entries` after the four arena edges, the tie order).

    Leading axes (games, rows) come before the obstacle fields' own."""

    corners: Array  # (..., 4, 2) int32: a pillar's centre four times; a square wall's corners
    #                counter-clockwise from its lower left; a turned wall's corners
    radius: Array  # (...,) int32 the circles about the corners, grown by a body
    kind: Array  # (...,) int32 PILLAR, SQUARE or TURNED
    valid: Array  # (...,) bool


def _obstacle_list(xp: Namespace, m: Any) -> Obstacles:
    """A map's obstacles (`MapArrays`) as one `Obstacles` list."""
    c = m.pillar_centre
    lo, hi = m.rect_lo, m.rect_hi
    squares = xp.stack(
        [lo, xp.stack([hi[:, 0], lo[:, 1]], -1), hi, xp.stack([lo[:, 0], hi[:, 1]], -1)], 1
    )
    corners = xp.concatenate(
        [xp.broadcast_to(c[:, None, :], (c.shape[0], 4, 2)), squares, m.poly_corners]
    )
    nq, ns, npoly = c.shape[0], lo.shape[0], m.poly_corners.shape[0]
    body = xp.full((ns + npoly,), BODY, dtype=I32)
    radius = xp.concatenate([m.pillar_radius + BODY, body]).astype(I32)
    kind = np.concatenate(
        [np.full(nq, PILLAR), np.full(ns, SQUARE), np.full(npoly, TURNED)]
    ).astype(I32)
    valid = xp.concatenate([m.pillar_valid, m.rect_valid, m.poly_valid])
    return Obstacles(corners.astype(I32), radius, xp.asarray(kind), valid)


obstacle_list = per_numpy_map(_obstacle_list)


def grown_boxes(obstacles: Obstacles) -> tuple[Array, Array]:
    """(K, 2) lower and upper corners of each obstacle's bounding box, grown by a body."""
    lo = obstacles.corners.min(axis=-2) - obstacles.radius[:, None]
    return lo, obstacles.corners.max(axis=-2) + obstacles.radius[:, None]


def reachable(
    xp: Namespace, obstacles: Obstacles, start: Array, stride: Array, boxes=None
) -> Array:
    """(N, K) whether each of N bodies (start, stride (N, 2)) may meet or sink into each of
    the K obstacles this tick: the grown bounding boxes (`grown_boxes`, computed here unless
    given) meet the square that holds the body's whole path."""
    half = xp.abs(stride[:, 0]) + xp.abs(stride[:, 1]) + REACH_SLACK
    grown_lo, grown_hi = grown_boxes(obstacles) if boxes is None else boxes
    lo = start - half[:, None]
    hi = start + half[:, None]
    meets = (grown_lo[None, :, :] <= hi[:, None, :]) & (grown_hi[None, :, :] >= lo[:, None, :])
    return meets[..., 0] & meets[..., 1] & obstacles.valid[None, :]


def _corner_min(xp: Namespace, test, corners: Array) -> Array:
    """The least of `test(cx, cy, k)` over the four corners (R, 4, 2): NumPy in one call,
    XLA corner by corner (it does not vectorise short reductions along the last axis)."""
    if is_numpy(xp):
        return test(corners[..., 0], corners[..., 1], slice(None)).min(-1)
    out = None
    for k in range(4):
        one = test(corners[:, k, 0], corners[:, k, 1], k)
        out = one if out is None else xp.minimum(out, one)
    return out


def groups(m: Any) -> tuple[tuple[int, int, int], ...]:
    """(kind, first column, end column) of the pillars, square walls and turned walls in the
    `obstacle_list` of a map (`MapArrays`, of one game or a batch): static, from shapes."""
    q, s, p = m.pillar_valid.shape[-1], m.rect_valid.shape[-1], m.poly_valid.shape[-1]
    return ((PILLAR, 0, q), (SQUARE, q, q + s), (TURNED, q + s, q + s + p))


def row_entries(xp: Namespace, p: Array, v: Array, ob: Obstacles, kind: int) -> Array:
    """(R,) first contact lam of a body at p moving by v (R, 2) with the obstacle of its row,
    all of one kind: `contact.obstacle_entries`' value for it (NO_HIT for none)."""
    col = (lambda a: a[:, None]) if is_numpy(xp) else (lambda a: a)
    px, py, vx, vy = col(p[:, 0]), col(p[:, 1]), col(v[:, 0]), col(v[:, 1])
    c = ob.corners
    with np.errstate(all="ignore"):  # padding rows divide by zero
        if kind == PILLAR:
            lam = circle_entry(
                xp, p[:, 0] - c[:, 0, 0], p[:, 1] - c[:, 0, 1], v[:, 0], v[:, 1], ob.radius
            )
            return xp.where(ob.valid, lam, NO_HIT)
        circles = _corner_min(
            xp, lambda cx, cy, k: circle_entry(xp, px - cx, py - cy, vx, vy, BODY), c
        )
        if kind == SQUARE:
            flat = _square_faces(xp, p, v, c[:, 0], c[:, 2])
        else:
            b = xp.roll(c, -1, axis=1)
            flat = _corner_min(
                xp,
                lambda ax, ay, k: poly_edge(xp, px, py, vx, vy, ax, ay, b[:, k, 0], b[:, k, 1]),
                c,
            )
    return xp.where(ob.valid, xp.minimum(flat, circles), NO_HIT)


def _square_faces(xp: Namespace, p: Array, v: Array, lo: Array, hi: Array) -> Array:
    """(R,) first contact with the four faces of a square wall lo..hi grown by a body
    (`contact._faces` for one wall per row)."""
    px, py, vx, vy = p[:, 0], p[:, 1], v[:, 0], v[:, 1]
    g = BODY
    w, h = hi[:, 0] - lo[:, 0], hi[:, 1] - lo[:, 1]
    dx, dy = py - lo[:, 1], px - lo[:, 0]
    parts = (
        (lo[:, 0] - g - px, vx, dx, vy, h),
        (px - hi[:, 0] - g, -vx, dx, vy, h),
        (lo[:, 1] - g - py, vy, dy, vx, w),
        (py - hi[:, 1] - g, -vy, dy, vx, w),
    )
    if is_numpy(xp):
        return face_entry(xp, *(np.stack(a, -1) for a in zip(*parts, strict=True))).min(-1)
    out = None
    for part in parts:
        one = face_entry(xp, *part)
        out = one if out is None else xp.minimum(out, one)
    return out


def row_blocked(xp: Namespace, pts: Array, ob: Obstacles, kind: int) -> Array:
    """(R, S) whether a body centred at each of S points (R, S, 2) sinks into the obstacle of
    its row (all of one kind; touching allowed): `geometry.body_blocked`'s test for it."""
    x, y = pts[..., 0], pts[..., 1]
    c = ob.corners[:, None]  # (R, 1, 4, 2): the points on the second axis
    if kind != TURNED:
        hit = box_holds_body(
            xp, (x, y), c[..., 0, 0], c[..., 0, 1], c[..., 2, 0], c[..., 2, 1],
            (ob.radius - BODY)[:, None],
        )  # fmt: skip
        return hit & ob.valid[:, None]
    near, inner = None, None
    for k in range(4):
        a, b = c[..., k, :], c[..., (k + 1) % 4, :]
        n, (i,) = edge_holds_body(xp, (x, y), a[..., 0], a[..., 1], b[..., 0], b[..., 1])
        near = n if near is None else near | n
        inner = i if inner is None else inner & i
    return (near | inner) & ob.valid[:, None]


def per_body_min(xp: Namespace, n: int, body: Array, values: Array, fill: Array) -> Array:
    """(n,) the least value of each body's rows (`fill` for a body with none)."""
    return min_at(xp, xp.full((n,), fill, dtype=values.dtype), body, materialised(xp, values))


def per_body_any(xp: Namespace, n: int, body: Array, hits: Array) -> Array:
    """(n, S) whether any of each body's rows holds, per point (hits (R, S))."""
    if is_numpy(xp):
        out = np.zeros((n,) + hits.shape[1:], bool)
        np.logical_or.at(out, body, hits)
        return out
    return xp.zeros((n,) + hits.shape[1:], I32).at[body].max(materialised(xp, hits.astype(I32))) > 0


def materialised(xp: Namespace, values: Any) -> Any:
    """`values` (an array or a tuple of them), computed whole before a gather or scatter
    reads them. XLA on the CPU fuses the work that feeds a gather into it (and repeats that
    work for every element read) and the work that feeds a scatter into its element loop,
    which runs one at a time.

    Under JAX the values pass through a conditional, which XLA does not fuse across. An
    optimization barrier does not do it: XLA's CPU pipeline removes barriers before it
    fuses (a barrier between `sin(x)` and a gather of it left the sine fused into the
    gather, evaluated once per element read). The predicate is true for every value
    (`bits | 1` is never 0) but XLA cannot fold it; the other branch, never taken, gives
    zeros so that the two branches differ (XLA merges a conditional of equal branches).
    """
    if is_numpy(xp):
        return values
    import jax
    import jax.numpy as jnp

    sized = [a for a in jax.tree.leaves(values) if a.size]
    if not sized:
        return values
    first = sized[0].reshape(-1)[:1]
    if first.dtype == jnp.float32:
        bits = jax.lax.bitcast_convert_type(first, jnp.int32)
    else:
        bits = first.astype(jnp.int32)
    always = ((bits | 1) != 0)[0]
    zeros = lambda v: jax.tree.map(jnp.zeros_like, v)  # noqa: E731
    return jax.lax.cond(always, lambda v: v, zeros, values)
