"""First contact in continuous time: when a moving body first touches each obstacle.

A body centred at p moving by v (both int32 milli-units) first touches a grown obstacle at
the fraction lam of v where its centre reaches the obstacle's grown boundary while moving
into it. The grown shapes are unions of pieces whose boundaries are straight faces and
circles (a pillar is a circle; a square wall is two slabs and four corner circles; a turned
wall is its four offset edges and four corner circles), so lam is the least entry over the
pieces: linear for faces, a quadratic root for circles. A body already touching a surface
enters it at 0 only if it moves into it; touching while moving along or away is no contact.

Floats and the two engines: every decision that can be made in integers is (who moves
toward what, whether a face's contact lies on the face), and the float steps are single,
correctly rounded operations in one fixed order. XLA on the CPU fuses a product feeding a
sum into one FMA and rewrites a division by a square root as a reciprocal-root product;
both round differently from NumPy, so `fence` sits between such operations. XLA also
turns a division by a value broadcast along an axis into a product with its reciprocal, so
every division here is written that way on both engines (`inverse`, then a product).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .array_ops import min_over, stack
from .backend import is_numpy
from .map_cache import per_numpy_map
from .numpy_obstacle_tests import piece_tiles
from .shape_tests import ARENA_HI, ARENA_LO, BODY, F32, I32, below_root_where_unsure
from .state import MapArrays
from .types import Array, Namespace

NO_HIT = np.asarray(1e6, F32)  # lam of a piece never entered (0-d: cheap in `where`)
# Float constants as 0-d arrays, not NumPy scalars: the same values and the same type
# promotion on both engines (NEP 50 treats them alike), and NumPy's ufuncs convert a
# scalar operand on every call (about 0.4 us) where they take a 0-d array as it is.
_CAP = np.asarray(3e38, F32)
_ZERO = np.asarray(0, F32)
_ONE = np.asarray(1, F32)
_MIN_SPEED = np.asarray(1e-6, F32)  # float_circle_entry's floors
_PASS = np.asarray(1 + 4e-7, F32)  # float_circle_entry: a pass this near g is tangential
_MIN_BB = np.asarray(1e-12, F32)
_TOUCH_SLACK = np.asarray(F32(0.01 / BODY))  # poly_edge: a start this near counts as touching


def fence(xp: Namespace, x: Array) -> Array:
    """`x`, unchanged for finite values, in a form XLA cannot fuse into its neighbours."""
    return xp.minimum(x, _CAP)


def f32(x: Array) -> Array:
    return x.astype(F32)


def fenced_dot(xp: Namespace, ax: Array, ay: Array, bx: Array, by: Array) -> Array:
    """ax bx + ay by in float32, each product fenced (`bounded_fence`: XLA would fuse it
    into an FMA with the sum); callers keep the products below 3e38."""
    return bounded_fence(xp, ax * bx) + bounded_fence(xp, ay * by)


def inverse(xp: Namespace, x: Array) -> Array:
    """1 / x as a fenced value, to multiply by: the form XLA gives a broadcast divisor."""
    return fence(xp, _ONE / x)


def bounded_fence(xp: Namespace, x: Array) -> Array:
    """`fence` of a value its caller has bounded: finite, or NaN, and below 3e38 in size.

    A fence (a minimum with 3e38) is there for XLA, which would otherwise fuse neighbouring
    operations and round them differently; it changes only values above 3e38 (NaN passes
    through a minimum unchanged). NumPy fuses nothing, so on NumPy such a value is taken as
    it is: the same bits, one array call fewer. Each caller states why its values are bounded.
    """
    return x if is_numpy(xp) else xp.minimum(x, _CAP)


def bounded_inverse(xp: Namespace, x: Array) -> Array:
    """`inverse` of a divisor its caller has bounded below (so 1 / x is bounded)."""
    return bounded_fence(xp, _ONE / x)


def circle_entry(xp: Namespace, ax: Array, ay: Array, vx: Array, vy: Array, g: Array) -> Array:
    """First lam >= 0 at which a + lam * v comes strictly within g of the origin.

    a (offset from the circle's centre), v and g are integers; a point touching the circle
    at lam = 0 enters it only if it moves inward (a . v < 0).
    """
    ab = ax * vx + ay * vy
    bb = vx * vx + vy * vy
    aa = ax * ax + ay * ay
    cross = xp.abs(ax * vy - ay * vx)
    g_f = f32(xp.asarray(g))
    per_speed = inverse(xp, xp.maximum(fence(xp, xp.sqrt(f32(bb))), _ONE))
    miss = fence(xp, f32(cross) * per_speed)  # distance of the line from the centre
    near = below_root_where_unsure(xp, cross, g, bb, miss, g_f)
    half = xp.sqrt(fence(xp, xp.maximum(g_f - miss, _ZERO) * (g_f + miss)))
    mid = fence(xp, f32(-ab) * inverse(xp, f32(xp.maximum(bb, 1))))
    lam = mid - fence(xp, half * per_speed)
    closing = ab < 0
    touching = aa <= g * g  # on (or, by rounding, inside) the circle at the start
    lam = xp.where(touching, _ZERO, xp.maximum(lam, _ZERO))
    return xp.where(closing & (near | touching) & (bb > 0), lam, NO_HIT)


def circle_span(
    xp: Namespace, ax: Array, ay: Array, vx: Array, vy: Array, g: Array
) -> tuple[Array, Array]:
    """The open interval of lam over which a + lam * v lies strictly within g of the origin
    (integers in; (NO_HIT, NO_HIT), an empty interval, when the line passes at g or more)."""
    ab = ax * vx + ay * vy
    bb = vx * vx + vy * vy
    cross = xp.abs(ax * vy - ay * vx)
    g_f = f32(xp.asarray(g))
    per_speed = inverse(xp, xp.maximum(fence(xp, xp.sqrt(f32(bb))), _ONE))
    miss = fence(xp, f32(cross) * per_speed)
    half = xp.sqrt(fence(xp, xp.maximum(g_f - miss, _ZERO) * (g_f + miss)))
    mid = fence(xp, f32(-ab) * inverse(xp, f32(xp.maximum(bb, 1))))
    spread = fence(xp, half * per_speed)
    crosses = below_root_where_unsure(xp, cross, g, bb, miss, g_f) & (bb > 0)
    return xp.where(crosses, mid - spread, NO_HIT), xp.where(crosses, mid + spread, NO_HIT)


def float_circle_entry(
    xp: Namespace, ax: Array, ay: Array, ux: Array, uy: Array, radii: tuple
) -> list:
    """`circle_entry` for float offsets and motions (the relative paths of two bodies), for
    each radius in `radii` (the products are shared).

    Its fences are `bounded_fence`s: the offsets and motions are differences of positions
    within a few arena widths (below 1e5 in size), so products stay below 1e10, the floored
    inverses below 1e6 and 1e12, and every fenced value below about 1e22."""
    ab = bounded_fence(xp, ax * ux) + bounded_fence(xp, ay * uy)
    bb = bounded_fence(xp, ux * ux) + bounded_fence(xp, uy * uy)
    aa = bounded_fence(xp, ax * ax) + bounded_fence(xp, ay * ay)
    cross = xp.abs(bounded_fence(xp, ax * uy) - bounded_fence(xp, ay * ux))
    per_speed = bounded_inverse(xp, xp.maximum(bounded_fence(xp, xp.sqrt(bb)), _MIN_SPEED))
    miss = bounded_fence(xp, cross * per_speed)
    mid = bounded_fence(xp, -ab * bounded_inverse(xp, xp.maximum(bb, _MIN_BB)))
    moving_in = (ab < 0) & (bb > 0)
    out = []
    for g in radii:
        g_f = F32(g)
        half = xp.sqrt(bounded_fence(xp, xp.maximum(g_f - miss, _ZERO) * (g_f + miss)))
        lam = mid - bounded_fence(xp, half * per_speed)
        touching = aa <= F32(g * g)
        # Touching at the start counts only if they close by more than float noise (a
        # body standing where a follower meets it is reached at that instant, not before).
        pressing = touching & (ab < -F32(g) * F32(0.01))
        lam = xp.where(touching, _ZERO, xp.maximum(lam, _ZERO))
        # A pass whose least distance is within float noise of g is tangential: no contact
        # (RULES.md: the distance only reaches g as its minimum). It dips at most 4e-7 g.
        passes_in = bounded_fence(xp, miss * _PASS) < g_f
        out.append(xp.where(moving_in & ((passes_in & ~touching) | pressing), lam, NO_HIT))
    return out


def face_entry(
    xp: Namespace, dist: Array, speed: Array, along: Array, drift: Array, length: Array
) -> Array:
    """First lam >= 0 at which a point reaches a straight face ahead of it.

    `dist` (>= 0 on the outer side) is its distance to the face's line and `speed` how fast
    it closes on it, both in the same integer scale; `along` is its position along the face
    from one end and `drift` how fast that changes, scaled like `dist`/`speed`. The face holds
    positions 0..`length`. The contact lies on the face when along * speed + drift * dist is
    within 0..length * speed, an exact integer test.
    """
    at = along * speed + drift * dist
    on_face = (at >= 0) & (at <= length * speed)
    lam = fence(xp, f32(dist) * inverse(xp, f32(xp.maximum(speed, 1))))
    return xp.where((speed > 0) & (dist >= 0) & on_face, lam, NO_HIT)


def arena_entries(xp: Namespace, p: Array, v: Array) -> Array:
    """(..., 4) lam at which the body reaches the left, right, bottom and top edges."""
    x, y = p[..., 0], p[..., 1]
    vx, vy = v[..., 0], v[..., 1]
    dist = stack(xp, [x - ARENA_LO[0], ARENA_HI[0] - x, y - ARENA_LO[1], ARENA_HI[1] - y], -1)
    speed = stack(xp, [-vx, vx, -vy, vy], -1)
    whole = xp.zeros_like(dist)
    return face_entry(xp, dist, speed, whole, whole, whole + 1)  # one call: NumPy's cost


def poly_edge(xp: Namespace, px, py, vx, vy, ax, ay, bx, by) -> Array:
    """First contact with edge a -> b of a turned wall (counter-clockwise), offset by a body."""
    ex, ey = bx - ax, by - ay
    outer = ey * (px - ax) - ex * (py - ay)  # |e| times the distance outside the edge
    closing = ex * vy - ey * vx  # how fast `outer` falls, per unit of lam
    ee = ex * ex + ey * ey
    offset = fence(xp, F32(BODY) * fence(xp, xp.sqrt(f32(ee))))
    dist = f32(outer) - offset
    lam = fence(xp, xp.maximum(dist, _ZERO) * inverse(xp, f32(xp.maximum(closing, 1))))
    along = f32(ex * (px - ax) + ey * (py - ay)) + fence(xp, lam * f32(ex * vx + ey * vy))
    on_edge = (along >= 0) & (along <= f32(ee))
    # A start within 1/100 of a thousandth of touching counts as touching (float rounding).
    fine = (closing > 0) & (outer > 0) & (dist > -fence(xp, offset * _TOUCH_SLACK)) & on_edge
    return xp.where(fine, lam, NO_HIT)


class _MapPieces(NamedTuple):
    """What `obstacle_entries` needs of a map that does not depend on the bodies.

    Faces (each square wall's four, grown by a body: west, east, south, north; then the
    four arena edges as one more row) are integer linear forms of the body's position and
    motion: face k of row r is at distance x * dist_x[r, k] + y * dist_y[r, k] + dist_c[r, k],
    closes at vx * -dist_x + vy * -dist_y, and so on: one `face_entry` call for them all.
    """

    centres: Array  # (C, 2) every circle piece: pillars, then square and turned walls' corners
    reach: Array  # (C,) their radii, grown by a body
    dist_x: Array  # (S + 1, 4) each of these int32
    dist_y: Array
    dist_c: Array
    speed_x: Array  # -dist_x
    speed_y: Array  # -dist_y
    along_x: Array  # where along its face a position lies: along_x * x + along_y * y + along_c
    along_y: Array
    along_c: Array
    length: Array  # each face's length (1 for an arena edge: its whole line)
    poly_a: Array  # (P, 4, 2) turned walls' edges: from these corners
    poly_b: Array  # (P, 4, 2) to these


def _map_pieces(xp: Namespace, m: MapArrays) -> _MapPieces:
    """The pieces of a map (`map_pieces` keeps them per NumPy map)."""
    lo, hi = m.rect_lo, m.rect_hi
    rect_corners = xp.stack(
        [xp.stack([lo[:, 0], lo[:, 1]], -1), xp.stack([hi[:, 0], lo[:, 1]], -1),
         xp.stack([hi[:, 0], hi[:, 1]], -1), xp.stack([lo[:, 0], hi[:, 1]], -1)], 1,
    ).reshape(-1, 2)  # fmt: skip
    poly_corners = m.poly_corners.reshape(-1, 2)
    centres = xp.concatenate([m.pillar_centre, rect_corners, poly_corners])
    reach = xp.concatenate(
        [
            m.pillar_radius + BODY,
            xp.full((rect_corners.shape[0] + poly_corners.shape[0],), BODY, dtype=I32),
        ]
    )
    g, s = BODY, lo.shape[0]
    w, h = hi[:, 0] - lo[:, 0], hi[:, 1] - lo[:, 1]

    def rows(per_wall: list, arena: list) -> Array:
        walls = xp.stack([xp.broadcast_to(xp.asarray(c, I32), (s,)) for c in per_wall], -1)
        return xp.concatenate([walls, xp.asarray([arena], I32)]).astype(I32)

    dist_x = rows([-1, 1, 0, 0], [1, -1, 0, 0])
    dist_y = rows([0, 0, -1, 1], [0, 0, 1, -1])
    dist_c = rows(
        [lo[:, 0] - g, -hi[:, 0] - g, lo[:, 1] - g, -hi[:, 1] - g],
        [-ARENA_LO[0], ARENA_HI[0], -ARENA_LO[1], ARENA_HI[1]],
    )
    along_x = rows([0, 0, 1, 1], [0, 0, 0, 0])
    along_y = rows([1, 1, 0, 0], [0, 0, 0, 0])
    along_c = rows([-lo[:, 1], -lo[:, 1], -lo[:, 0], -lo[:, 0]], [0, 0, 0, 0])
    length = rows([h, h, w, w], [1, 1, 1, 1])
    a = m.poly_corners
    return _MapPieces(
        centres, reach, dist_x, dist_y, dist_c, -dist_x, -dist_y,
        along_x, along_y, along_c, length, a, xp.roll(a, -1, axis=1),
    )  # fmt: skip


map_pieces = per_numpy_map(_map_pieces)


def _faces(xp: Namespace, px, py, vx, vy, pieces: _MapPieces) -> Array:
    """(..., S + 1, 4) first contact with the faces of `pieces`: each square wall's four
    (grown by a body), then the four arena edges (`arena_entries`' values)."""
    x, y, u, w = (a[..., None] for a in (px, py, vx, vy))  # (..., 1, 1)
    dist = x * pieces.dist_x + y * pieces.dist_y + pieces.dist_c
    along = x * pieces.along_x + y * pieces.along_y + pieces.along_c
    speed = u * pieces.speed_x + w * pieces.speed_y
    drift = u * pieces.along_x + w * pieces.along_y
    return face_entry(xp, dist, speed, along, drift, pieces.length)


def obstacle_entries(xp: Namespace, p: Array, v: Array, m: MapArrays) -> Array:
    """(..., 4 + Q + S + P) lam of first contact with each arena edge (left, right, bottom,
    top), then each pillar, square wall and turned wall; NO_HIT for none.

    The order is the tie order: mirrored maps list their obstacles in the same order and
    the two x edges never tie with each other, so ties break the same way in mirror games.
    Every circle piece (pillars, square walls' and turned walls' corners) is one array, then
    every face and every edge: few array calls for NumPy, where each call has a fixed cost,
    and wide elementwise work that XLA compiles quickly and vectorises well. NumPy with
    bodies on one axis takes `_numpy_entries`, the same steps in fewer calls.
    """
    if is_numpy(xp) and p.ndim == 2:
        return _numpy_entries(p, v, numpy_pieces(np, m))
    return _entries(xp, p, v, m)


def _entries(xp: Namespace, p: Array, v: Array, m: MapArrays) -> Array:
    """`obstacle_entries` as written for both engines."""
    px, py, vx, vy = (a[..., None] for a in (p[..., 0], p[..., 1], v[..., 0], v[..., 1]))
    pieces = map_pieces(xp, m)
    centres = pieces.centres
    nq, ns, npoly = m.pillar_centre.shape[0], m.rect_lo.shape[0], m.poly_corners.shape[0]
    shape = p.shape[:-1]
    with np.errstate(all="ignore"):  # masked padding divides by zero
        faces = _faces(xp, px, py, vx, vy, pieces)
        parts = [faces[..., ns, :]]
        if centres.shape[0]:  # an empty group (a shape, known when tracing) is skipped
            circles = circle_entry(xp, px - centres[:, 0], py - centres[:, 1], vx, vy, pieces.reach)
        if nq:
            parts.append(xp.where(m.pillar_valid, circles[..., :nq], NO_HIT))
        if ns:
            rect_c = min_over(xp, circles[..., nq : nq + 4 * ns].reshape(shape + (ns, 4)))
            walls = min_over(xp, faces[..., :ns, :])
            parts.append(xp.where(m.rect_valid, xp.minimum(walls, rect_c), NO_HIT))
        if npoly:
            poly_c = min_over(xp, circles[..., nq + 4 * ns :].reshape(shape + (npoly, 4)))
            a, b = pieces.poly_a, pieces.poly_b
            edges = min_over(xp, poly_edge(
                xp, px[..., None], py[..., None], vx[..., None], vy[..., None],
                a[..., 0], a[..., 1], b[..., 0], b[..., 1],
            ))  # fmt: skip
            parts.append(xp.where(m.poly_valid, xp.minimum(edges, poly_c), NO_HIT))
    return xp.concatenate(parts, axis=-1) if len(parts) > 1 else parts[0]


class _NumpyPieces(NamedTuple):
    """`obstacle_entries`' operands that depend on the map alone, as `_numpy_entries` takes
    them (kept per NumPy map by `numpy_pieces`), pieces first: the circle pieces (pillars,
    then each square wall's corner k for k = 0..3, then each turned wall's corner k), the
    faces (face k of every square wall and then of the arena, for k = 0..3) and the turned
    walls' edges (edge k of every wall, for k = 0..3) each on one flat axis, and the same
    tiled for each number of bodies asked (`tiles`, (pieces, bodies)). Every elementwise
    step is then between arrays of one shape (NumPy sets up a broadcast per call, which
    costs several times a same-shape operation), and the least over a wall's four pieces is
    taken over the leading axis (a reduction over a short last axis is several times dearer)."""

    cx: Array  # (C,) int32 the circle pieces' centres
    cy: Array
    reach_f: Array  # (C,) float32 their radii grown by a body
    reach_sq: Array  # (C,) int32 those radii squared
    reach: Array  # (C,) int32 those radii
    dist_x: Array  # (F,) int32 the faces' linear forms, `_MapPieces`' (S + 1, 4) transposed
    dist_y: Array
    dist_c: Array
    speed_x: Array
    speed_y: Array
    along_x: Array
    along_y: Array
    along_c: Array
    length: Array
    ax: Array  # (E,) int32 the turned walls' edges, (P, 4) transposed: from a, along e = b - a
    ay: Array
    ex: Array
    ey: Array
    ee_f: Array  # (E,) float32 |e|^2
    offset: Array  # (E,) float32 |e| times a body's radius, as `poly_edge` computes it
    slack: Array  # (E,) float32 minus its touching slack, as `poly_edge` computes it
    pillar_valid: Array  # (Q,) bool
    rect_valid: Array  # (S,) bool
    poly_valid: Array  # (P,) bool
    tiles: dict  # number of bodies n -> every field above, (pieces, n) each


def _numpy_pieces(xp: Namespace, m: MapArrays) -> _NumpyPieces:
    """The map's parts of `obstacle_entries`, computed by its own expressions."""
    pieces = map_pieces(np, m)
    nq, ns, npoly = m.pillar_centre.shape[0], m.rect_lo.shape[0], m.poly_corners.shape[0]
    # Circle pieces in `map_pieces` order are pillars, then 4 corners per square wall, then
    # 4 per turned wall; here corner-major within each group.
    order = np.concatenate(
        [
            np.arange(nq),
            nq + np.arange(4 * ns).reshape(ns, 4).T.ravel(),
            nq + 4 * ns + np.arange(4 * npoly).reshape(npoly, 4).T.ravel(),
        ]
    ).astype(np.intp)
    g = np.asarray(pieces.reach)[order]
    a, b = pieces.poly_a, pieces.poly_b
    ax, ay = a[..., 0].T.ravel(), a[..., 1].T.ravel()
    ex, ey = b[..., 0].T.ravel() - ax, b[..., 1].T.ravel() - ay
    ee = ex * ex + ey * ey
    offset = fence(np, F32(BODY) * fence(np, np.sqrt(f32(ee))))
    slack = -fence(np, offset * _TOUCH_SLACK)
    faces = [pieces.dist_x, pieces.dist_y, pieces.dist_c, pieces.speed_x, pieces.speed_y]
    faces += [pieces.along_x, pieces.along_y, pieces.along_c, pieces.length]
    flat = [pieces.centres[order, 0], pieces.centres[order, 1], f32(g), g * g, g]
    flat += [np.asarray(f).T.ravel() for f in faces]
    flat += [ax, ay, ex, ey, f32(ee), offset, slack, m.pillar_valid, m.rect_valid, m.poly_valid]
    flat = [np.ascontiguousarray(np.asarray(f).ravel()) for f in flat]
    return _NumpyPieces(*flat, {})


numpy_pieces = per_numpy_map(_numpy_pieces)
_ZERO_I, _ONE_I = np.asarray(0, I32), np.asarray(1, I32)


def _numpy_entries(p: Array, v: Array, k: _NumpyPieces) -> Array:
    """`obstacle_entries` for NumPy bodies (N, 2): the same integer and float steps as
    `_faces` with `face_entry`, `circle_entry` and `poly_edge`, elementwise on
    (pieces, N) arrays of one shape (each body's coordinates repeated along the pieces once,
    the map's parts tiled per number of bodies: `_tiles`), the least over each wall's four
    pieces over the leading axis; `poly_edge`'s two evaluations of the point's offset from
    an edge's start are made once. The result is the transpose of a (4 + K, N) array.

    The fences are left out: a fence (a minimum with 3e38, there for XLA's fusion) changes
    only values above 3e38, and none of these can be: every operand comes from int32
    values (below 2**31 in size, about 2.1e9), every divisor is at least 1 and every
    square root is of a product of two such bounds, so no intermediate exceeds about 1e19."""
    n = p.shape[0]
    nq, ns, npoly = k.pillar_valid.shape[0], k.rect_valid.shape[0], k.poly_valid.shape[0]
    (cx, cy, g_f, g_sq, g_int, dx, dy, dc, sx, sy, lx, ly, lc, length, ax, ay, ex, ey, ee_f, offset,
     slack, pillar_valid, rect_valid, poly_valid) = piece_tiles(k, n)  # fmt: skip
    body = (p[:, 0], p[:, 1], v[:, 0], v[:, 1])
    with np.errstate(all="ignore"):  # padding far off the arena wraps int32 products
        # The faces (`_faces`, then `face_entry`): face k of every square wall and the arena.
        x, y, u, w = (a[None, :].repeat(dx.shape[0], 0) for a in body)
        dist = x * dx + y * dy + dc
        along = x * lx + y * ly + lc
        speed = u * sx + w * sy
        drift = u * lx + w * ly
        at = along * speed + drift * dist
        on_face = (at >= _ZERO_I) & (at <= length * speed)
        lam = f32(dist) * (_ONE / f32(np.maximum(speed, _ONE_I)))
        fine = (speed > _ZERO_I) & (dist >= _ZERO_I) & on_face
        faces = np.where(fine, lam, NO_HIT).reshape(4, ns + 1, n)
        parts = [faces[:, ns]]
        if cx.shape[0]:  # circle_entry
            x, y, u, w = (a[None, :].repeat(cx.shape[0], 0) for a in body)
            ax_c, ay_c = x - cx, y - cy
            ab = ax_c * u + ay_c * w
            bb = u * u + w * w
            aa = ax_c * ax_c + ay_c * ay_c
            cross = np.abs(ax_c * w - ay_c * u)
            per_speed = _ONE / np.maximum(np.sqrt(f32(bb)), _ONE)
            miss = f32(cross) * per_speed
            near = below_root_where_unsure(np, cross, g_int, bb, miss, g_f)
            half = np.sqrt(np.maximum(g_f - miss, _ZERO) * (g_f + miss))
            mid = f32(-ab) * (_ONE / f32(np.maximum(bb, _ONE_I)))
            lam = mid - half * per_speed
            touching = aa <= g_sq
            lam = np.where(touching, _ZERO, np.maximum(lam, _ZERO))
            circles = np.where((ab < _ZERO_I) & (near | touching) & (bb > _ZERO_I), lam, NO_HIT)
        if nq:
            parts.append(np.where(pillar_valid, circles[:nq], NO_HIT))
        if ns:
            rect_c = circles[nq : nq + 4 * ns].reshape(4, ns, n).min(axis=0)
            walls = faces[:, :ns].min(axis=0)
            parts.append(np.where(rect_valid, np.minimum(walls, rect_c), NO_HIT))
        if npoly:  # poly_edge: edge k of every turned wall
            poly_c = circles[nq + 4 * ns :].reshape(4, npoly, n).min(axis=0)
            x, y, u, w = (a[None, :].repeat(ax.shape[0], 0) for a in body)
            wx, wy = x - ax, y - ay
            outer = ey * wx - ex * wy
            closing = ex * w - ey * u
            dist = f32(outer) - offset
            lam = np.maximum(dist, _ZERO) * (_ONE / f32(np.maximum(closing, _ONE_I)))
            along = f32(ex * wx + ey * wy) + lam * f32(ex * u + ey * w)
            on_edge = (along >= _ZERO) & (along <= ee_f)
            fine = (closing > _ZERO_I) & (outer > _ZERO_I) & (dist > slack) & on_edge
            edges = np.where(fine, lam, NO_HIT).reshape(4, npoly, n).min(axis=0)
            parts.append(np.where(poly_valid, np.minimum(edges, poly_c), NO_HIT))
    return (np.concatenate(parts) if len(parts) > 1 else parts[0]).T
