"""Where an agent goes when its spawn shield ends inside another body.

The rule: each such agent moves to the point nearest to where it stands whose body overlaps
no blocking body and no obstacle, lies inside the arena, and can be reached along a clear
straight line. Outside the arena's edges, the allowed set is the plane minus a union of
convex shapes (each other body's disc of radius 1.0, each obstacle grown by a body radius),
so its nearest point is the agent's own spot, the nearest point of one shape's boundary, or
a corner where two boundaries cross. Those points are computed in closed form and nudged
onto the milli-unit grid on the allowed side (`exit_candidates`, which also states how),
tested exactly with the integer helpers of `geometry`, and the nearest one that passes wins.

Candidates, for the leaver at h:
- h itself;
- projections of h onto: the circle of every other blocking body (radius 1000; a body
  standing exactly on h gives the point toward the leaver's own spawn end), each nearby
  pillar grown by 500, each nearby square wall grown by 500 (a rounded rectangle: from its
  nearest point), each edge of each nearby turned wall grown by 500, the four arena edges;
- crossings of two circles: the K_BODIES_NEAR nearest bodies pairwise and with each nearby
  pillar; the K_BODIES nearest bodies with the four corner circles of each nearby square
  and turned wall; nearby pillars pairwise;
- crossings of a circle with a line: the K_BODIES_NEAR nearest bodies with the nearer side
  edge and the nearer end edge of the arena; the K_BODIES nearest bodies with the four grown
  faces of each nearby square and turned wall.
"Nearby" obstacles are the K_PILLARS pillars, K_RECTS square walls and K_WALLS turned walls
nearest to h (by an integer lower bound of the gap between a body there and the shape). A group's
choice is cut at the first key left out, ties included (`_nearest`), so it never depends on
how slots or obstacles are listed. With the constants below, about 285 candidates.

Choice. Candidates are first filtered cheaply: every blocking body (exact), the arena edges
(exact), the nearby obstacles (`_surely_blocked`, which errs only toward "free"). Of those
left, the SHORTLIST first in order of preference (exact integer squared distance; ties:
nearer the leaver's own spawn end, then southmost, which leaves no ties between distinct
points) are tested exactly against the whole map (`body_blocked`) and for a clear line from
h (`sight_blocked`); the first that passes is taken. With none, the leaver stays.

Several leavers: one moves per pass, the one nearest its own spawn edge first, then the
southmost (exact equal keys, which only a leaver and the mirror image of a leaver from the
other end can share, fall to the lower slot); later leavers see earlier ones where they
landed. Each leaver is considered once per tick.

Symmetry and engines. Every float step works on integer offsets relative to h with
operations that commute with negation (IEEE round-to-nearest-even), every rounding is
half-to-even, and every two-circle formula is symmetric in its two circles, so mirrored
inputs give exactly mirrored candidates and permuted slots the same candidate set. Float
products that feed an addition, and square roots used as divisors, pass through `fence`,
which keeps XLA from fusing them into FMAs or rewriting them as rsqrt; divisions by a radius
are products with its reciprocal on both engines (XLA rewrites a division by a constant).

Limits (where the result may be farther than 0.01 from the exact nearest point, though it is
always a legal point with a clear line, or the leaver stays):
- the free wedge at the answer opens by less than about 11 degrees (two boundaries crossing
  almost tangentially): the nudge is then over 10 milli-units;
- the answer is a crossing of a wall (square or turned) with a body that is not among the
  K_BODIES nearest (a crowd of three or more bodies around the leaver, next to a wall), or of
  a pillar with a body beyond the K_BODIES_NEAR nearest, or involves an obstacle beyond the
  nearby ones;
- the answer is a corner between two obstacles with no body boundary through it (pillar
  pairs excepted): two obstacles closer than a body's width, the leaver beyond the gap;
- the nearest free points are hidden from h behind an obstacle (the true answer then lies on
  a shadow line, which is not a candidate), or more than SHORTLIST-1 nearer candidates pass
  the cheap filter but fail the exact tests;
- mirror-image leavers with equal order keys (above) are ordered by slot.
"""

from __future__ import annotations

import numpy as np

from .array_ops import first_index
from .backend import is_numpy, known_none
from .contact import fence
from .exit_candidates import (
    circle_axis_line,
    circle_face,
    circle_pair,
    edge_projection,
    flat,
    join,
    projection,
    reciprocal,
    scale,
    snap_all,
    to_f32,
)
from .geometry import body_blocked, sight_blocked
from .settle_loop import settle
from .shape_tests import ARENA_HI, ARENA_LO, BODY, CONTACT, CONTACT_SQ, F32, I32, sq
from .state import ARENA_HEIGHT_MILLI, ARENA_WIDTH_MILLI, LEFT, NUM_SLOTS, MapArrays
from .types import Array, Namespace

K_BODIES_NEAR = 6  # nearest other bodies crossed with each other, arena edges, pillars
K_BODIES = 2  # nearest other bodies crossed with the nearby walls (square and turned)
K_PILLARS = 3
K_RECTS = 3
K_WALLS = 2
SHORTLIST = 3  # nearest candidates tested exactly (whole map, line of sight)
MARGIN = 100  # milli-units subtracted from every distance key (covers nudge and rounding)
CLEAR_PASSES = NUM_SLOTS
BIG = np.int32(2**30)
BOX_LO = (-1000, -1000)  # candidates are clamped into this box (outside the arena stays out)
BOX_HI = (ARENA_WIDTH_MILLI + 1000, ARENA_HEIGHT_MILLI + 1000)


def _floor_sqrt(xp: Namespace, n: Array) -> Array:
    """floor(sqrt(n)) for a non-negative int32, to within one (float32 rounding)."""
    return xp.floor(xp.sqrt(to_f32(xp, n))).astype(I32)


def _nearest(xp: Namespace, keys: Array, count: int) -> tuple[Array, Array]:
    """Indices of the `count` smallest keys, and the next smallest key (BIG if none).

    The cut-off value does not depend on how equal keys are ordered, and neither does any
    result within it: that is what makes the choice of nearby shapes order-free.
    """
    n = keys.shape[0]
    count = min(count, n)
    i = np.arange(n)
    # rank[i]: how many keys come before key i (smaller, or equal with a lower index). A
    # comparison table and sums: far cheaper under XLA on the CPU than a sort.
    before = (keys[None, :] < keys[:, None]) | (
        (keys[None, :] == keys[:, None]) & xp.asarray(i[None, :] < i[:, None])
    )
    rank = xp.sum(before.astype(I32), axis=1)
    at = rank[None, :] == xp.arange(count)[:, None]
    idx = xp.sum(xp.where(at, xp.asarray(i, I32)[None, :], 0), axis=1)
    cut = xp.min(xp.where(rank >= count, keys, BIG)) if n > count else xp.asarray(BIG)
    return idx, cut


def _edges(xp: Namespace, corners: Array) -> tuple:
    """Each turned wall's edges: start (ax, ay), direction (ex, ey) ints, unit direction and
    unit outward normal (float), all (W, 4)."""
    ax, ay = corners[..., 0], corners[..., 1]
    bx = xp.concatenate([ax[..., 1:], ax[..., :1]], axis=-1)
    by = xp.concatenate([ay[..., 1:], ay[..., :1]], axis=-1)
    ex, ey = bx - ax, by - ay
    length = fence(xp, xp.sqrt(to_f32(xp, xp.maximum(sq(xp, ex, ey), 1))))
    ux, uy = to_f32(xp, ex) / length, to_f32(xp, ey) / length
    nx, ny = to_f32(xp, ey) / length, to_f32(xp, -ex) / length  # corners run counter-clockwise
    return ax, ay, ex, ey, length, ux, uy, nx, ny


def _leaver_spot(
    xp: Namespace, pos: Array, bodies: Array, k: Array, end_k: Array, m: MapArrays
) -> tuple:
    """The spot leaver k moves to, and whether it found one (see the module docstring)."""
    slots = xp.arange(NUM_SLOTS)
    h = pos[k]
    hx, hy = h[0], h[1]
    toward_end = xp.where(end_k == LEFT, -1, 1)
    blockers = bodies & (slots != k)

    # Nearby shapes: those whose key is below the cut of their group (order-free).
    rel = pos - h
    body_key = _floor_sqrt(xp, sq(xp, rel[:, 0], rel[:, 1])) - CONTACT - MARGIN
    body_key = xp.where(blockers, body_key, BIG)
    ia, cut_a = _nearest(xp, body_key, K_BODIES_NEAR)
    ib, cut_b = _nearest(xp, body_key, K_BODIES)
    pc = m.pillar_centre - h
    pillar_key = _floor_sqrt(xp, sq(xp, pc[:, 0], pc[:, 1])) - m.pillar_radius - BODY - MARGIN
    ip, cut_p = _nearest(xp, xp.where(m.pillar_valid, pillar_key, BIG), K_PILLARS)
    rlo, rhi = m.rect_lo - h, m.rect_hi - h
    gx = xp.maximum(xp.maximum(rlo[:, 0], -rhi[:, 0]), 0)
    gy = xp.maximum(xp.maximum(rlo[:, 1], -rhi[:, 1]), 0)
    rect_key = _floor_sqrt(xp, sq(xp, gx, gy)) - BODY - MARGIN
    ir, cut_r = _nearest(xp, xp.where(m.rect_valid, rect_key, BIG), K_RECTS)
    ax, ay, ex, ey, length = _edges(xp, m.poly_corners - h)[:5]
    # A turned wall is a rectangle (to within the rounding of its corners): its distance
    # from h follows from how far h lies beyond each pair of opposite edge lines.
    outside = to_f32(xp, -(ax * ey - ay * ex)) / length
    gx = xp.maximum(xp.maximum(outside[:, 0], outside[:, 2]), F32(0))
    gy = xp.maximum(xp.maximum(outside[:, 1], outside[:, 3]), F32(0))
    gap = xp.sqrt(fence(xp, gx * gx) + fence(xp, gy * gy))
    wall_key = xp.floor(gap).astype(I32) - 2 - BODY - MARGIN
    iw, cut_w = _nearest(xp, xp.where(m.poly_valid, wall_key, BIG), K_WALLS)

    va = body_key[ia] < cut_a
    ca = (rel[ia, 0], rel[ia, 1])
    vb = body_key[ib] < cut_b
    cb = (rel[ib, 0], rel[ib, 1])
    vp = m.pillar_valid[ip] & (pillar_key[ip] < cut_p)
    cp = (pc[ip, 0], pc[ip, 1])
    rp = m.pillar_radius[ip] + BODY
    vr = m.rect_valid[ir] & (rect_key[ir] < cut_r)
    lo, hi = rlo[ir], rhi[ir]
    vw = m.poly_valid[iw] & (wall_key[iw] < cut_w)
    walls = m.poly_corners[iw] - h
    edge = _edges(xp, walls)
    lines = [  # (at, vertical, free side) for the arena's four edges, relative to h
        (ARENA_LO[0] - hx, True, 1),
        (ARENA_HI[0] - hx, True, -1),
        (ARENA_LO[1] - hy, False, 1),
        (ARENA_HI[1] - hy, False, -1),
    ]

    # Candidates, in a few large groups (each group is one vectorised computation).
    parts = []
    zero = F32(0) * to_f32(xp, hx)
    truth = xp.asarray(True)
    parts.append(flat(xp, (zero, zero, zero, zero, truth)))  # h itself
    # Projections onto circles: every other body, the nearby pillars, and each nearby square
    # wall's nearest point (grown by BODY, which is its boundary's nearest point).
    qx = xp.clip(0, lo[:, 0], hi[:, 0])
    qy = xp.clip(0, lo[:, 1], hi[:, 1])
    circles = join(
        xp,
        [
            flat(xp, (rel[:, 0], rel[:, 1], CONTACT, blockers)),
            flat(xp, (cp[0], cp[1], rp, vp)),
            flat(xp, (qx, qy, BODY, vr)),
        ],
    )
    parts.append(flat(xp, projection(xp, circles[:2], circles[2], toward_end) + circles[3:]))
    parts.append(flat(xp, edge_projection(xp, edge, toward_end) + (vw[:, None],)))
    for at, vertical, side in lines:  # straight onto each arena edge
        p = (to_f32(xp, at), zero) if vertical else (zero, to_f32(xp, at))
        n = (F32(2 * side) + zero, zero) if vertical else (zero, F32(2 * side) + zero)
        parts.append(flat(xp, p + n + (truth,)))

    # Crossings of two circles: nearer-tier bodies pairwise and with the nearby pillars; the
    # nearest bodies with the corner circles of nearby walls; nearby pillars pairwise.
    a, b = np.triu_indices(len(va), 1)
    cx_r = xp.stack([lo[:, 0], hi[:, 0], hi[:, 0], lo[:, 0]], -1)[None]
    cy_r = xp.stack([lo[:, 1], lo[:, 1], hi[:, 1], hi[:, 1]], -1)[None]
    b2 = (cb[0][:, None, None], cb[1][:, None, None], CONTACT)
    pa, pb = np.triu_indices(len(vp), 1)
    pairs = join(
        xp,
        [
            flat(xp, (ca[0][a], ca[1][a], CONTACT, ca[0][b], ca[1][b], CONTACT, va[a] & va[b])),
            flat(
                xp,
                (ca[0][:, None], ca[1][:, None], CONTACT)
                + (cp[0][None], cp[1][None], rp[None], va[:, None] & vp[None]),
            ),  # fmt: skip
            flat(xp, b2 + (cx_r, cy_r, BODY, vb[:, None, None] & vr[None, :, None])),
            flat(
                xp,
                b2
                + (walls[None, :, :, 0], walls[None, :, :, 1], BODY)
                + (vb[:, None, None] & vw[None, :, None],),
            ),  # fmt: skip
            flat(xp, (cp[0][pa], cp[1][pa], rp[pa], cp[0][pb], cp[1][pb], rp[pb], vp[pa] & vp[pb])),
        ],
    )
    crossing = circle_pair(xp, pairs[0:2], pairs[2], pairs[3:5], pairs[5])
    parts.append(flat(xp, crossing[:4] + (crossing[4] & pairs[6][:, None],)))

    # Crossings of a circle with a line square to the axes: nearer-tier bodies with the
    # nearer side edge and the nearer end edge of the arena (a body circle reaching the
    # other one is over 8 units away; on an exact tie at the centre line neither is taken,
    # which keeps mirror images exact); the nearest bodies with the nearby square walls'
    # grown faces.
    arena = []
    halves = ((lines[0], lines[1], ARENA_WIDTH_MILLI // 2),
              (lines[2], lines[3], ARENA_HEIGHT_MILLI // 2))  # fmt: skip
    for (lo_at, vertical, _), (hi_at, _, _), mid in halves:
        here = hx if vertical else hy
        at = xp.where(here < mid, lo_at, hi_at)
        side = xp.where(here < mid, 1, -1)
        arena.append(flat(xp, ca + (CONTACT, at, vertical, side, va & (here != mid))))
    face_at = xp.stack([lo[:, 0] - BODY, hi[:, 0] + BODY, lo[:, 1] - BODY, hi[:, 1] + BODY], -1)
    face_vertical = np.asarray([True, True, False, False])
    face_side = np.asarray([-1, 1, -1, 1], np.int32)
    faces = flat(
        xp, b2 + (face_at[None], face_vertical, face_side, vb[:, None, None] & vr[None, :, None])
    )
    lined = join(xp, arena + [faces])
    crossing = circle_axis_line(xp, lined[0:2], lined[2], lined[3], lined[4], lined[5])
    parts.append(flat(xp, crossing[:4] + (crossing[4] & lined[6][:, None],)))

    # Crossings of the nearest bodies' circles with the nearby turned walls' grown faces.
    crossing = circle_face(xp, b2[:2], CONTACT, tuple(q[None] for q in edge))
    both = vb[:, None, None] & vw[None, :, None]
    parts.append(flat(xp, crossing[:4] + (crossing[4] & both[..., None],)))

    spot, ok = snap_all(xp, parts)
    spot = xp.clip(spot + h, xp.asarray(BOX_LO, I32), xp.asarray(BOX_HI, I32))
    off = spot - h
    d2 = sq(xp, off[:, 0], off[:, 1])
    for j in range(NUM_SLOTS):  # no blocking body closer than touching
        gap = sq(xp, spot[:, 0] - pos[j, 0], spot[:, 1] - pos[j, 1])
        ok = ok & ~((gap < CONTACT_SQ) & blockers[j])
    ok = ok & ~_surely_blocked(xp, spot, m, (ip, vp), (ir, vr), (iw, vw))
    ok = _materialise(xp, ok)

    # Shortlist in order of preference: distance, then toward the own end, then south
    # (`order` holds the last two as one exact integer, |y offset| < 2**14).
    ahead = xp.where(end_k == LEFT, off[:, 0], -off[:, 0])
    order = ahead * 32768 + off[:, 1]
    picks, found = [], []
    avail = ok
    for _ in range(SHORTLIST):
        d_min = xp.min(xp.where(avail, d2, BIG))
        o_min = xp.min(xp.where(avail & (d2 == d_min), order, BIG))
        hit = d_min < BIG
        ahead_min = (o_min + 16384) // 32768
        x_off = xp.where(hit, xp.where(end_k == LEFT, ahead_min, -ahead_min), 0)
        y_off = xp.where(hit, o_min - ahead_min * 32768, 0)
        picks.append(xp.stack([x_off, y_off]))
        found.append(hit)
        avail = avail & ~((d2 == d_min) & (order == o_min))
    shortlist = xp.stack(picks).astype(I32) + h
    # The shortlist is tested exactly against the whole map, line of sight included.
    start = xp.broadcast_to(h, shortlist.shape)
    clear = xp.stack(found) & ~body_blocked(xp, shortlist, m)
    clear = clear & ~sight_blocked(xp, start, shortlist, m)
    first = first_index(xp, clear)  # the only reader of `clear` (see `_materialise`)
    return shortlist[xp.minimum(first, SHORTLIST - 1)], first < SHORTLIST


def _materialise(xp: Namespace, mask: Array) -> Array:
    """The same mask, computed once. Under XLA on the CPU, cheap element-wise work is fused
    into every reader and repeated there (the shortlist reads the candidates' mask half a
    dozen times, which made the filter three times as dear); a reduction is not fused into
    its readers, so the mask goes through one (checked in the compiled HLO: one fusion)."""
    if is_numpy(xp):
        return mask
    return xp.any(xp.stack([mask, xp.zeros_like(mask)], -1), -1)


def _surely_blocked(xp: Namespace, p: Array, m: MapArrays, pillars, rects, walls) -> Array:
    """A first, cheap pass of `body_blocked` over the arena edges and the nearby obstacles:
    True only where a body at p (int (N, 2)) certainly leaves the arena or sinks into one of
    them. Exact for the edges, pillars and square walls. A turned wall is a rectangle (up to the rounding of its corners to the grid): p
    is taken as blocked where its distance to the rectangle, from the signed distances to
    the four edge lines, is below BODY - 2, which covers that rounding and float error in
    favour of "free" (the shortlist is tested exactly afterwards)."""
    x, y = p[:, 0], p[:, 1]
    out = (x < ARENA_LO[0]) | (x > ARENA_HI[0]) | (y < ARENA_LO[1]) | (y > ARENA_HI[1])
    (ip, vp), (ir, vr), (iw, vw) = pillars, rects, walls
    centre, radius = m.pillar_centre[ip], m.pillar_radius[ip] + BODY
    for i in range(ip.shape[0]):
        d = sq(xp, x - centre[i, 0], y - centre[i, 1])
        out = out | ((d < radius[i] * radius[i]) & vp[i])
    lo, hi = m.rect_lo[ir], m.rect_hi[ir]
    for i in range(ir.shape[0]):
        gx = xp.maximum(xp.maximum(lo[i, 0] - x, x - hi[i, 0]), 0)
        gy = xp.maximum(xp.maximum(lo[i, 1] - y, y - hi[i, 1]), 0)
        out = out | ((sq(xp, gx, gy) < BODY * BODY) & vr[i])
    corners = m.poly_corners[iw]
    inv = reciprocal(
        xp, fence(xp, xp.sqrt(to_f32(xp, xp.maximum(sq(xp, *_sides(xp, corners)), 1))))
    )
    reach = F32((BODY - 2) * (BODY - 2))
    for w in range(iw.shape[0]):
        out_by = []  # how far beyond each edge's line p lies (negative inside)
        for e in range(4):
            ax, ay = corners[w, e, 0], corners[w, e, 1]
            ex = corners[w, (e + 1) % 4, 0] - ax
            ey = corners[w, (e + 1) % 4, 1] - ay
            out_by.append(scale(xp, to_f32(xp, (x - ax) * ey - (y - ay) * ex), inv[w, e]))
        gx = xp.maximum(xp.maximum(out_by[0], out_by[2]), F32(0))
        gy = xp.maximum(xp.maximum(out_by[1], out_by[3]), F32(0))
        out = out | ((fence(xp, gx * gx) + fence(xp, gy * gy) < reach) & vw[w])
    return out


def _sides(xp: Namespace, corners: Array) -> tuple[Array, Array]:
    """Each quadrilateral's edge vectors (..., 4), corner k to corner k + 1."""
    ax, ay = corners[..., 0], corners[..., 1]
    bx = xp.concatenate([ax[..., 1:], ax[..., :1]], axis=-1)
    by = xp.concatenate([ay[..., 1:], ay[..., :1]], axis=-1)
    return bx - ax, by - ay


def _overlapping(xp: Namespace, pos: Array, bodies: Array) -> Array:
    """Whether each agent is a blocking body closer than touching to another one."""
    out = xp.zeros(NUM_SLOTS, bool)
    for j in range(NUM_SLOTS):
        gap = sq(xp, pos[:, 0] - pos[j, 0], pos[:, 1] - pos[j, 1])
        out = out | ((gap < CONTACT_SQ) & bodies[j] & (xp.arange(NUM_SLOTS) != j))
    return out & bodies


def clear_of_bodies(
    xp: Namespace, pos: Array, leaving: Array, others: Array, end: Array, m: MapArrays
) -> Array:
    """Move each agent whose shield ends (`leaving`) off any body it overlaps.

    Bodies of `others | leaving` block. Each overlapping leaver goes to the nearest point
    clear of every blocking body and obstacle, inside the arena, with a clear line from where
    it stood (see the module docstring for the candidates, the rounding and the limits); one
    leaver per pass, nearest its own spawn edge first, then southmost; later leavers see the
    earlier ones where they landed. A leaver with no such point stays.
    """
    if known_none(xp, leaving):  # no shield ends: nobody to move (NumPy pays per call)
        return pos
    bodies = others | leaving
    slots = xp.arange(NUM_SLOTS)

    def needing(pos, tried):
        return leaving & ~tried & _overlapping(xp, pos, bodies)

    def clear_one(carry):
        pos, tried = carry
        needs = needing(pos, tried)
        if known_none(xp, needs):
            return (pos, tried), False
        from_edge = xp.where(end == LEFT, pos[:, 0], ARENA_WIDTH_MILLI - pos[:, 0])
        k = xp.argmin(xp.where(needs, from_edge * 16384 + pos[:, 1], BIG))
        best, moved = _leaver_spot(xp, pos, bodies, k, end[k], m)
        here = (slots == k) & needs[k]
        pos = xp.where((here & moved)[:, None], best[None, :], pos).astype(I32)
        tried = tried | here
        return (pos, tried), xp.any(needing(pos, tried))

    untried = xp.zeros(NUM_SLOTS, bool)
    first = xp.any(needing(pos, untried))
    return settle(xp, clear_one, (pos, untried), CLEAR_PASSES, first)[0]
