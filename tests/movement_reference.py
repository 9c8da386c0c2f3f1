"""An independent reference for ordinary movement, written from the rules text alone.

It exists to check the engine (`marl_bgs.core.movement`), so it shares none of its code: it
reads only the obstacle geometry from `MapArrays`, as the engine defines it, and answers in
float64 milli-units where the engine rounds to the grid.

The rules it implements (RULES.md, "Charge and movement", settled 2026-12-01):

- A body's centre stays in [500, 19500] x [500, 9500] (four straight surfaces) and out of the
  obstacles grown by the body radius 500: a pillar (c, r) is the disc of radius r + 500, a
  wall (four corners, counter-clockwise) its four faces pushed out by 500 joined by arcs of
  radius 500 around the corners. Touching is allowed; only strictly inside overlaps.
- Each body moves at its stride (milli-units per tick) from t = 0 to 1 until its first
  contact with an obstacle or edge, then along the tangent there (the straight tangent line,
  also on a curve) at its velocity's component along it, until the tick ends or it touches
  something else, where it stops. One slide. A surface is a contact only while the motion
  points strictly into it. Two surfaces met at the same instant: slide along one whose slide
  does not lead into the other (both do not: the longer slide; equal: the one whose
  x-component points toward the body's spawn end, then the southern one); none: stop.
- Blocking bodies on their actual paths: the earliest instant two of them touch (centres
  1000 apart) while closing (the distance strictly decreasing right after), both stop and
  stand there; repeat with the stopped bodies standing. A distance that only reaches 1000 as
  its minimum is a tangential pass, not a touch. Contacts at the same instant all count.

Exactness. Every yes/no decision (entering or grazing a surface, touching or passing a body,
equal instants) is made on exact numbers while they are available: integer starts and
strides, `fractions.Fraction`, and `Surd`, the exact a + b*sqrt(d) a contact with a circle (or
a face of a turned wall, whose length is a square root) produces. A comparison of two surds
with different radicands is exact too (`_sign_sum`). Arithmetic that would need two unrelated
radicands at once (a slide from a contact on a circle against a turned wall or another
circle, a body met after another body's irrational stop) continues in float64, and a decision
on a float is "zero" within a tolerance of `REL_TOL` (1e-9) times the size of the terms that
make it up: about 1e-6 milli for a position, 1e-9 tick for an instant. That is the only
tolerance, and it only ever applies where the exact answer needs nested roots.

Where the rules leave room, this reference reads them so (the engine's own page says it
meets "two surfaces within 1/1024 of the tick"; here they must be met at the same instant):

- only surfaces the motion points into count as the two contacts; a slide that leads into a
  surface the body merely touches stops at once;
- "the longer slide" is the longer distance actually slid (to the tick end or a stop);
- a body whose distance to another reaches 1000 at a bend of either path is judged by the
  motion after the bend: closing then is a touch, otherwise it was the minimum;
- inputs that already overlap (a start inside an obstacle or two blocking bodies closer
  than 1000, which legal states never have) are not refused: a surface or body pointed into
  from inside counts as touched at t = 0.

Hand-checked examples (milli-units; a Mage's unit moves are (1000, 0), (707, 707), ...):

1. Top edge. Start (10000, 9200), stride (-707, 707). The edge y = 9500 is met at
   t = 300/707 = 0.42433 at x = 10000 - 300 = 9700; the slide keeps the western part -707
   for the remaining 407/707 of the tick: x = 9700 - 407 = 9293. End (9293, 9500).
2. Along a wall face past its rounded corner. Wall x 13500..14500, y 6250..6750 grown by
   500: its west face is x = 13000. Start (13000, 5000), stride (0, 1000): the path runs on
   the face line, so it never enters the face, and it is tangent to the corner's circle
   around (13500, 6250) (distance exactly 500 at y = 6250): no contact. End (13000, 6000).
   The same from (13000, 5800): end (13000, 6800), past the corner, touching it at 6250.
3. Head-on. Blocking bodies at (5000, 5000) and (7000, 5000), strides (1000, 0) and
   (-1000, 0): the gap 2000 - 2000 t is 1000 at t = 0.5 and falling: both stop there.
   Ends (5500, 5000) and (6500, 5000).
4. Pillar tangent. Start (5000, 5300), stride (1000, 0), pillar (6500, 5000) r 500 (grown
   to 1000): (1500 - 1000 t)^2 + 300^2 = 1000^2 at t = 1.5 - sqrt(0.91) = 0.546061; normal
   (-953.94, 300)/1000, tangent (0.3, 0.95394): the rest, 453.94 east, keeps 136.18 along it.
   End (5586.92, 5429.91).
5. Arena corner. Start (19500, 9500), stride (707, 707): both edges are contacts at t = 0,
   the slide along each leads into the other: it stays at (19500, 9500).
6. A tangential pass. A blocking body stands at (5000, 5000); another, blocking, moves
   (1300, 0) from (4350, 6000): the distance is 1000 exactly at t = 0.5 (x = 5000) and more
   before and after, a pass and not a touch. End (5650, 6000). From (4350, 5999) instead the
   distance falls below 1000: it stops at its first touch, (4350 + 650 - sqrt(1999), 5999) =
   (4955.29, 5999), at t = 0.46560.
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import isqrt
from typing import NamedTuple

import numpy as np

from marl_bgs.core.state import MapArrays

BODY = 500  # body radius, milli-units
CONTACT = 1000  # centre distance of two touching bodies
CONTACT_SQ = CONTACT * CONTACT
X_MIN, X_MAX, Y_MIN, Y_MAX = 500, 19500, 500, 9500  # where a centre may be
REL_TOL = 1e-9  # a float decision's "zero", relative to the size of the terms it sums
SCALE = 1e4  # milli-units: the size of a coordinate, for position tolerances
TIME_TOL = 1e-9  # ticks: two float instants closer than this are the same instant
BOX_MARGIN = 1.0  # milli-units: quick bounding-box skips keep this much slack for floats

ZERO = Fraction(0)
ONE = Fraction(1)


# --- Exact numbers ---------------------------------------------------------------------------

_PRIMES = tuple(p for p in range(2, 1000) if all(p % k for k in range(2, isqrt(p) + 1)))
_SQUARE_PARTS: dict[int, tuple[int, int]] = {}


def _square_part(n: int) -> tuple[int, int]:
    """n = k * k * d as (k, d): d = 1 when n is a perfect square, else free of square factors
    below 1000, so that equal radicands usually look equal (`_root_ratio` finds the rest)."""
    hit = _SQUARE_PARTS.get(n)
    if hit is not None:
        return hit
    r = isqrt(n)
    if r * r == n:
        out = (r, 1)
    else:
        k, rest = 1, n
        for p in _PRIMES:
            pp = p * p
            if pp > rest:
                break
            while rest % pp == 0:
                rest //= pp
                k *= p
        r = isqrt(rest)
        out = (k * r, 1) if r * r == rest else (k, rest)
    if len(_SQUARE_PARTS) < 1 << 18:
        _SQUARE_PARTS[n] = out
    return out


def _root_ratio(d1: int, d2: int) -> int | None:
    """k with sqrt(d1 * d2) = k when that is whole (then sqrt(d2) = k / d1 * sqrt(d1))."""
    k = isqrt(d1 * d2)
    return k if k * k == d1 * d2 else None


def _sign_root(p: Fraction, q: Fraction, k: int) -> int:
    """The exact sign of p + q * sqrt(k)."""
    sp = (p > 0) - (p < 0)
    sq = (q > 0) - (q < 0) if k else 0
    if sq == 0:
        return sp
    if sp == 0 or sp == sq:
        return sq
    diff = p * p - q * q * k
    return sp if diff > 0 else (sq if diff < 0 else 0)


def _sign_sum(a: Fraction, b: Fraction, m: int, c: Fraction, n: int) -> int:
    """The exact sign of a + b * sqrt(m) + c * sqrt(n), squaring only where signs differ."""
    sb, sc = (b > 0) - (b < 0), (c > 0) - (c < 0)
    if sb == 0 or sc == 0 or sb == sc:
        roots = sb or sc
    else:
        diff = b * b * m - c * c * n
        roots = sb if diff > 0 else (sc if diff < 0 else 0)
    sa = (a > 0) - (a < 0)
    if sa == 0 or roots == 0 or roots == sa:
        return roots or sa
    # Opposite signs: compare a^2 with (b sqrt m + c sqrt n)^2 = b^2 m + c^2 n + 2bc sqrt(mn).
    t = _sign_root(a * a - b * b * m - c * c * n, -2 * b * c, m * n)
    return sa if t > 0 else (roots if t < 0 else 0)


class Surd:
    """The exact number a + b * sqrt(d), b != 0, d > 1 not a perfect square.

    Sums, products and quotients with rationals or surds of the same radicand stay exact;
    anything else falls back to float (and is then decided with `REL_TOL`)."""

    __slots__ = ("a", "b", "d")

    def __init__(self, a: Fraction, b: Fraction, d: int) -> None:
        self.a, self.b, self.d = Fraction(a), Fraction(b), d

    def _over(self, x: object) -> tuple[Fraction, Fraction] | None:
        """x as (a, b) over this radicand, or None when it needs another one (or a float)."""
        if isinstance(x, int | Fraction):
            return Fraction(x), ZERO
        if isinstance(x, Surd):
            if x.d == self.d:
                return x.a, x.b
            k = _root_ratio(self.d, x.d)
            if k is not None:
                return x.a, x.b * Fraction(k, self.d)
        return None

    def __add__(self, x: object) -> Num:
        o = self._over(x)
        if o is None:
            return float(self) + float(x)  # type: ignore[arg-type]
        return _surd(self.a + o[0], self.b + o[1], self.d)

    __radd__ = __add__

    def __neg__(self) -> Surd:
        return Surd(-self.a, -self.b, self.d)

    def __sub__(self, x: object) -> Num:
        return self + (-x)  # type: ignore[operator]

    def __rsub__(self, x: object) -> Num:
        return (-self) + x

    def __mul__(self, x: object) -> Num:
        o = self._over(x)
        if o is None:
            return float(self) * float(x)  # type: ignore[arg-type]
        a, b = o
        return _surd(self.a * a + self.b * b * self.d, self.a * b + self.b * a, self.d)

    __rmul__ = __mul__

    def inverse(self) -> Surd:
        norm = self.a * self.a - self.b * self.b * self.d  # nonzero: sqrt(d) is irrational
        return Surd(self.a / norm, -self.b / norm, self.d)

    def __truediv__(self, x: object) -> Num:
        if isinstance(x, int | Fraction):
            return _surd(self.a / x, self.b / x, self.d)
        if isinstance(x, Surd):
            return self * x.inverse()
        return float(self) / float(x)  # type: ignore[arg-type]

    def __rtruediv__(self, x: object) -> Num:
        return x * self.inverse()  # type: ignore[operator]

    def __float__(self) -> float:
        # sqrt(d) to 2^-128 first, so a sum that nearly cancels still rounds correctly.
        root = Fraction(isqrt(self.d << 256), 1 << 128)
        return float(self.a + self.b * root)

    def sign(self) -> int:
        return _sign_root(self.a, self.b, self.d)

    def __repr__(self) -> str:
        return f"({self.a} + {self.b}*sqrt({self.d}))"


Num = int | Fraction | Surd | float
Point = tuple[Num, Num]


def _surd(a: Fraction, b: Fraction, d: int) -> Fraction | Surd:
    return a if b == 0 else Surd(a, b, d)


def exact(x: Num) -> bool:
    return not isinstance(x, float)


def div(x: Num, y: Num) -> Num:
    """x / y, exact when both are (a Fraction, never an int's float quotient)."""
    return Fraction(x) / y if isinstance(x, int) else x / y  # type: ignore[operator]


def sqrt(x: Num) -> Num:
    """The exact root of a rational (a Surd, or a Fraction for a square), else a float."""
    if isinstance(x, int | Fraction):
        x = Fraction(x)
        k, d = _square_part(x.numerator * x.denominator)
        return Fraction(k, x.denominator) if d == 1 else Surd(ZERO, Fraction(k, x.denominator), d)
    return math.sqrt(max(float(x), 0.0))


def sign(x: Num, tol: float = 0.0) -> int:
    """The sign of x: exact for exact numbers; a float within `tol` of zero is zero."""
    if isinstance(x, float):
        return 0 if abs(x) <= tol else (1 if x > 0 else -1)
    if isinstance(x, Surd):
        return x.sign()
    return (x > 0) - (x < 0)


def compare(x: Num, y: Num, tol: float = TIME_TOL) -> int:
    """-1, 0 or 1 as x <, = or > y; exact for exact numbers, even of two radicands."""
    if isinstance(x, Surd) and isinstance(y, Surd) and x.d != y.d:
        if _root_ratio(x.d, y.d) is None:
            return _sign_sum(x.a - y.a, x.b, x.d, -y.b, y.d)
    return sign(x - y, tol)  # type: ignore[operator]


def _dot(p: Point, q: Point) -> Num:
    return p[0] * q[0] + p[1] * q[1]  # type: ignore[operator]


def _sub(p: Point, q: Point) -> Point:
    return p[0] - q[0], p[1] - q[1]  # type: ignore[operator]


def _axpy(p: Point, s: Num, v: Point) -> Point:
    """p + s * v."""
    return p[0] + s * v[0], p[1] + s * v[1]  # type: ignore[operator]


def _norm(p: Point) -> float:
    return math.hypot(float(p[0]), float(p[1]))


def _flt(p: Point) -> tuple[float, float]:
    return float(p[0]), float(p[1])


# --- Obstacles -------------------------------------------------------------------------------


class Face(NamedTuple):
    """A straight surface: the centre must keep normal . p >= level (normal points out of
    the obstacle). A wall's face is also bounded: its points p have 0 <= side . (p - corner)
    <= side . side (the face runs beside the wall's side from `corner`)."""

    normal: tuple[int, int]
    level: Fraction | Surd
    corner: tuple[int, int] | None = None
    side: tuple[int, int] | None = None
    side_sq: int = 0


class Disc(NamedTuple):
    """A circular surface: the centre must keep |p - centre| >= radius."""

    centre: tuple[int, int]
    radius: int


class Obstacle(NamedTuple):
    """One convex forbidden region for the centre (a grown obstacle, or the outside of one
    arena edge), its surfaces, and its bounding box for quick skips."""

    name: str
    faces: tuple[Face, ...]
    discs: tuple[Disc, ...]
    lo: tuple[float, float]
    hi: tuple[float, float]


_INF = math.inf
EDGES = (
    Obstacle("edge W", (Face((1, 0), Fraction(X_MIN)),), (), (-_INF, -_INF), (X_MIN, _INF)),
    Obstacle("edge E", (Face((-1, 0), Fraction(-X_MAX)),), (), (X_MAX, -_INF), (_INF, _INF)),
    Obstacle("edge S", (Face((0, 1), Fraction(Y_MIN)),), (), (-_INF, -_INF), (_INF, Y_MIN)),
    Obstacle("edge N", (Face((0, -1), Fraction(-Y_MAX)),), (), (-_INF, Y_MAX), (_INF, _INF)),
)


def grown_wall(name: str, corners: list[tuple[int, int]]) -> Obstacle:
    """A convex wall (integer corners) grown by the body radius: faces and corner arcs."""
    area2 = sum(
        corners[i][0] * corners[(i + 1) % 4][1] - corners[(i + 1) % 4][0] * corners[i][1]
        for i in range(4)
    )
    if area2 < 0:  # MapArrays promises counter-clockwise; accept the other turn too
        corners = corners[::-1]
    faces = []
    for i, a in enumerate(corners):
        b = corners[(i + 1) % len(corners)]
        u = (b[0] - a[0], b[1] - a[1])
        uu = u[0] * u[0] + u[1] * u[1]
        if uu == 0:
            continue
        n = (u[1], -u[0])  # the outward normal of a counter-clockwise side
        level = n[0] * a[0] + n[1] * a[1] + BODY * sqrt(uu)  # pushed out by 500 |n|
        faces.append(Face(n, level, a, u, uu))
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return Obstacle(
        name,
        tuple(faces),
        tuple(Disc(c, BODY) for c in corners),
        (min(xs) - BODY, min(ys) - BODY),
        (max(xs) + BODY, max(ys) + BODY),
    )


_MAPS: dict[bytes, tuple[Obstacle, ...]] = {}


def obstacles_of(m: MapArrays) -> tuple[Obstacle, ...]:
    """The four arena edges, then every valid pillar, square wall and turned wall of `m`."""
    parts = [
        np.asarray(x)
        for x in (
            m.pillar_centre,
            m.pillar_radius,
            m.pillar_valid,
            m.rect_lo,
            m.rect_hi,
            m.rect_valid,
            m.poly_corners,
            m.poly_valid,
        )
    ]
    key = b"|".join(repr(p.shape).encode() + p.astype(np.int64).tobytes() for p in parts)
    if key in _MAPS:
        return _MAPS[key]
    centre, radius, pv, lo, hi, rv, corners, qv = parts
    out = list(EDGES)
    for k in np.flatnonzero(pv):
        c = (int(centre[k, 0]), int(centre[k, 1]))
        r = int(radius[k]) + BODY
        out.append(
            Obstacle(f"pillar {k}", (), (Disc(c, r),), (c[0] - r, c[1] - r), (c[0] + r, c[1] + r))
        )
    for k in np.flatnonzero(rv):
        (x0, y0), (x1, y1) = (int(v) for v in lo[k]), (int(v) for v in hi[k])
        out.append(grown_wall(f"wall {k}", [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]))
    for k in np.flatnonzero(qv):
        pts = [(int(x), int(y)) for x, y in corners[k]]
        out.append(grown_wall(f"turned wall {k}", pts))
    _MAPS[key] = tuple(out)
    return _MAPS[key]


def overlaps_obstacle(p: tuple[int, int], obstacles: tuple[Obstacle, ...]) -> str | None:
    """The name of an obstacle (or edge) an integer centre is strictly inside, else None."""
    x, y = int(p[0]), int(p[1])
    for ob in obstacles:
        if x < ob.lo[0] or x > ob.hi[0] or y < ob.lo[1] or y > ob.hi[1]:
            continue
        if any((x - d.centre[0]) ** 2 + (y - d.centre[1]) ** 2 < d.radius**2 for d in ob.discs):
            return ob.name
        if ob.faces and ob.faces[0].side is None:  # an arena edge: a half-plane
            f = ob.faces[0]
            if f.normal[0] * x + f.normal[1] * y < f.level:
                return ob.name
            continue
        crosses = []
        for f in ob.faces:
            a, u = f.corner, f.side
            w = (x - a[0], y - a[1])  # type: ignore[index]
            cross = u[0] * w[1] - u[1] * w[0]  # type: ignore[index]
            crosses.append(cross)
            along = u[0] * w[0] + u[1] * w[1]  # type: ignore[index]
            if 0 <= along <= f.side_sq and cross * cross < BODY * BODY * f.side_sq:
                return ob.name
        if ob.faces and all(c >= 0 for c in crosses):
            return ob.name
    return None


def clearance(p: tuple[float, float], obstacles: tuple[Obstacle, ...]) -> float:
    """Float distance from a centre to the nearest surface it may not cross (negative when
    inside), for diagnostics only."""
    x, y = float(p[0]), float(p[1])
    best = _INF
    for ob in obstacles:
        if ob.faces and ob.faces[0].side is None:
            f = ob.faces[0]
            best = min(best, (f.normal[0] * x + f.normal[1] * y) - float(f.level))
            continue
        if not ob.faces:
            d = ob.discs[0]
            best = min(best, math.hypot(x - d.centre[0], y - d.centre[1]) - d.radius)
            continue
        inside, seg = True, _INF
        for f in ob.faces:
            a, u = f.corner, f.side
            wx, wy = x - a[0], y - a[1]  # type: ignore[index]
            cross = u[0] * wy - u[1] * wx  # type: ignore[index]
            inside &= cross >= 0
            s = min(max((u[0] * wx + u[1] * wy) / f.side_sq, 0.0), 1.0)  # type: ignore[index]
            seg = min(seg, math.hypot(wx - s * u[0], wy - s * u[1]))  # type: ignore[index]
        best = min(best, (-seg if inside else seg) - BODY)
    return best


# --- One body against the obstacles ----------------------------------------------------------


def _face_entry(f: Face, q: Point, w: Point, smax: Num) -> Num | None:
    """When, in [0, smax], the motion q + s w enters the face (None: it does not)."""
    n = f.normal
    nw = n[0] * w[0] + n[1] * w[1]
    nn = math.hypot(*n)
    if sign(nw, REL_TOL * nn * _norm(w)) >= 0:  # along or away from the face: no contact
        return None
    g = n[0] * q[0] + n[1] * q[1] - f.level
    gs = sign(g, REL_TOL * nn * SCALE)
    if gs < 0:  # already past the face's line: its crossing lies behind
        return None
    s = ZERO if gs == 0 else div(g, -nw)
    if compare(s, smax) > 0:
        return None
    if f.side is not None:
        a, u = f.corner, f.side
        along = u[0] * (q[0] - a[0]) + u[1] * (q[1] - a[1]) + s * (u[0] * w[0] + u[1] * w[1])  # type: ignore[index]
        tol = REL_TOL * math.sqrt(f.side_sq) * SCALE
        if sign(along, tol) < 0 or sign(along - f.side_sq, tol) > 0:
            return None  # the line crosses beside the face: a corner's arc decides
    return s


def _disc_entry(c: Disc, q: Point, w: Point, smax: Num) -> Num | None:
    """When, in [0, smax], the motion q + s w enters the circle (None: misses or grazes)."""
    d = (q[0] - c.centre[0], q[1] - c.centre[1])
    dl, wl = _norm(d), _norm(w)
    b = _dot(d, w)
    if sign(b, REL_TOL * dl * wl) >= 0:  # not moving toward the centre: no contact ahead
        return None
    cc = _dot(d, d) - c.radius * c.radius
    cs = sign(cc, REL_TOL * (dl * dl + c.radius * c.radius))
    if cs <= 0:  # on the circle (or, for inputs that overlap, inside) and moving in
        return ZERO
    a = _dot(w, w)
    disc = b * b - a * cc
    if sign(disc, REL_TOL * (float(b) ** 2 + abs(float(a) * float(cc)))) <= 0:
        return None  # misses, or exactly tangent: a graze never enters
    s = div(cc, sqrt(disc) - b)  # the smaller root, in the form that does not cancel
    return None if compare(s, smax) > 0 else s


def first_contact(
    q: Point, w: Point, smax: Num, obstacles: tuple[Obstacle, ...], skip: frozenset = frozenset()
) -> tuple[Num, list[tuple[int, Face | Disc]]] | None:
    """The earliest s in [0, smax] at which q + s w enters an obstacle not in `skip`, and every
    (obstacle index, surface) entered at that same instant; None if it enters none."""
    qf, wf = _flt(q), _flt(w)
    ef = (qf[0] + float(smax) * wf[0], qf[1] + float(smax) * wf[1])
    lo = (min(qf[0], ef[0]) - BOX_MARGIN, min(qf[1], ef[1]) - BOX_MARGIN)
    hi = (max(qf[0], ef[0]) + BOX_MARGIN, max(qf[1], ef[1]) + BOX_MARGIN)
    best: Num | None = None
    hits: list[tuple[int, Face | Disc]] = []
    for k, ob in enumerate(obstacles):
        if (
            k in skip
            or lo[0] > ob.hi[0]
            or hi[0] < ob.lo[0]
            or lo[1] > ob.hi[1]
            or hi[1] < ob.lo[1]
        ):
            continue
        for surface in (*ob.faces, *ob.discs):
            if isinstance(surface, Face):
                s = _face_entry(surface, q, w, smax)
            else:
                s = _disc_entry(surface, q, w, smax)
            if s is None:
                continue
            order = -1 if best is None else compare(s, best)
            if order < 0:
                best, hits = s, [(k, surface)]
            elif order == 0 and all(k != j for j, _ in hits):
                hits.append((k, surface))
    return None if best is None else (best, hits)


def _normal_at(surface: Face | Disc, q: Point) -> tuple[Point, int]:
    """The outward normal (not unit) of a surface at the contact point q, and its length^2."""
    if isinstance(surface, Face):
        n = surface.normal
        return n, n[0] * n[0] + n[1] * n[1]
    d = (q[0] - surface.centre[0], q[1] - surface.centre[1])
    return d, surface.radius * surface.radius  # |q - centre| is the radius at a contact


class Leg(NamedTuple):
    """One body's motion against the obstacles alone.

    It moves from `start` at `stride` until `t_contact` (1 if it meets nothing) at `contact`,
    then at `slide` until `t_end`, and stands at `end` until the tick ends. Instants and
    points are exact numbers where possible (`exact`), else floats."""

    start: tuple[int, int]
    stride: tuple[int, int]
    t_contact: Num
    contact: Point
    slide: Point
    t_end: Num
    end: Point
    surfaces: tuple[str, ...]  # obstacles met at t_contact (two or more: a corner)
    slid_along: str  # the surface slid along ("" for none)
    stopped_by: tuple[str, ...]  # what ended the slide early, or the corner that stopped it

    @property
    def exact(self) -> bool:
        return exact(self.end[0]) and exact(self.end[1])


def _slide(
    q: Point, w: Point, rest: Num, k: int, obstacles: tuple[Obstacle, ...]
) -> tuple[Num, Point, tuple[str, ...]]:
    """Slide from q at w for up to `rest` of the tick, the surface of obstacle k excepted (a
    convex obstacle lies wholly on one side of its tangent line): (duration, end, stopper)."""
    wl = _norm(w)
    if sign(_dot(w, w), REL_TOL * wl * wl + 1e-18) == 0:
        return ZERO, q, ()
    hit = first_contact(q, w, rest, obstacles, frozenset({k}))
    if hit is None:
        return rest, _axpy(q, rest, w), ()
    s, hits = hit
    return s, _axpy(q, s, w), tuple(obstacles[j].name for j, _ in hits)


def _longer(new: tuple, old: tuple, end: int) -> bool:
    """Whether slide option `new` beats `old` (each starts (length^2, velocity, ...)): the
    longer slide; on a tie the one pointing more toward the body's own end, then south."""
    order = compare(new[0], old[0], REL_TOL * (1.0 + abs(float(old[0]))))
    if order:
        return order > 0
    order = compare(new[1][0], old[1][0], REL_TOL * SCALE)
    if order:
        return order < 0 if end == 0 else order > 0
    return compare(new[1][1], old[1][1], REL_TOL * SCALE) < 0


def plan_leg(
    start: tuple[int, int], stride: tuple[int, int], end: int, obstacles: tuple[Obstacle, ...]
) -> Leg:
    """One body's straight leg to its first contact, then its one slide (or its stop)."""
    p0 = (int(start[0]), int(start[1]))
    v = (int(stride[0]), int(stride[1]))
    if v == (0, 0):
        return Leg(p0, v, ONE, p0, (0, 0), ONE, p0, (), "", ())
    hit = first_contact(p0, v, ONE, obstacles)
    if hit is None:
        goal = (p0[0] + v[0], p0[1] + v[1])
        return Leg(p0, v, ONE, goal, (0, 0), ONE, goal, (), "", ())
    tc, hits = hit
    q = _axpy(p0, tc, v)
    rest = ONE - tc
    names = tuple(obstacles[k].name for k, _ in hits)
    normals = [_normal_at(surface, q) for _, surface in hits]
    slides = []
    for n, nn in normals:
        along = div(_dot(v, n), nn)
        slides.append((v[0] - along * n[0], v[1] - along * n[1]))
    options = range(len(hits))
    if len(hits) > 1:  # a corner: only a slide that leads into none of the others
        options = [
            i
            for i, w in enumerate(slides)
            if all(
                sign(_dot(w, n), REL_TOL * _norm(w) * math.sqrt(nn)) >= 0
                for j, (n, nn) in enumerate(normals)
                if j != i
            )
        ]
        if not options:
            return Leg(p0, v, tc, q, (0, 0), tc, q, names, "", names)
    best = None
    for i in options:
        w = slides[i]
        s, stop, stopper = _slide(q, w, rest, hits[i][0], obstacles)
        option = (_dot(w, w) * s * s, w, s, stop, stopper, i)
        if best is None or _longer(option, best, end):
            best = option
    _, w, s, stop, stopper, i = best  # type: ignore[misc]
    along = names[i] if sign(_dot(w, w), REL_TOL * _norm(w) ** 2) else ""  # "" head-on
    return Leg(p0, v, tc, q, w, tc + s, stop, names, along, stopper)


class Legs(NamedTuple):
    """Every body's `Leg`, and the same as float64 arrays: times (N, 3) = (0, contact, end
    of the slide) and points (N, 3, 2) = (start, contact, end), absolute milli-units."""

    times: np.ndarray
    points: np.ndarray
    legs: tuple[Leg, ...]


def reference_legs(start, stride, end, m: MapArrays) -> Legs:
    """Each body against the obstacles and edges alone (other bodies ignored)."""
    obstacles = obstacles_of(m)
    start, stride, end = np.asarray(start), np.asarray(stride), np.asarray(end)
    legs = tuple(
        plan_leg(tuple(start[i]), tuple(stride[i]), int(end[i]), obstacles)
        for i in range(len(start))
    )
    times = np.asarray([[0.0, float(g.t_contact), float(g.t_end)] for g in legs])
    points = np.asarray([[_flt(g.start), _flt(g.contact), _flt(g.end)] for g in legs])
    return Legs(times.reshape(-1, 3), points.reshape(-1, 3, 2), legs)


# --- Bodies against each other ---------------------------------------------------------------


class Piece(NamedTuple):
    """A stretch of a body's motion: from `t0` to `t1` it is at p + (t - t0) * velocity."""

    t0: Num
    t1: Num
    p: Point
    velocity: Point


def _pieces(leg: Leg) -> list[Piece]:
    raw = [
        Piece(ZERO, leg.t_contact, leg.start, leg.stride),
        Piece(leg.t_contact, leg.t_end, leg.contact, leg.slide),
        Piece(leg.t_end, ONE, leg.end, (0, 0)),
    ]
    out = [pc for pc in raw if compare(pc.t0, pc.t1) < 0]
    return out or [Piece(ZERO, ONE, leg.start, (0, 0))]


def _at(path: list[Piece], t: Num) -> Point:
    for pc in path:
        if compare(t, pc.t1) <= 0:
            return _axpy(pc.p, t - pc.t0, pc.velocity)  # type: ignore[operator]
    pc = path[-1]
    return _axpy(pc.p, pc.t1 - pc.t0, pc.velocity)  # type: ignore[operator]


def _piece_over(path: list[Piece], ta: Num, tb: Num) -> Piece:
    for pc in path:
        if compare(pc.t0, ta) <= 0 and compare(tb, pc.t1) <= 0:
            return pc
    raise AssertionError("no piece covers the interval")


def _stand_from(path: list[Piece], t: Num) -> list[Piece]:
    """The same motion until t, then standing where it is at t."""
    here = _at(path, t)
    kept = [pc._replace(t1=t) if compare(pc.t1, t) > 0 else pc for pc in path]
    kept = [pc for pc in kept if compare(pc.t0, t) < 0]
    return [*kept, Piece(t, ONE, here, (0, 0))] if compare(t, ONE) < 0 else kept


def _box(path: list[Piece]) -> tuple[float, float, float, float]:
    pts = [_flt(pc.p) for pc in path] + [_flt(_at(path, ONE))]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def first_touch(a: list[Piece], b: list[Piece]) -> Num | None:
    """The first instant two bodies on these paths touch while closing (None: never)."""
    marks = [ZERO, ONE]
    for pc in (*a, *b):
        for t in (pc.t0, pc.t1):
            if all(compare(t, s) != 0 for s in marks):
                marks.append(t)
    ordered: list[Num] = []
    for t in marks:  # insertion sort with the exact comparison
        i = len(ordered)
        while i and compare(ordered[i - 1], t) > 0:
            i -= 1
        ordered.insert(i, t)
    for ta, tb in zip(ordered, ordered[1:], strict=False):
        pa, pb = _piece_over(a, ta, tb), _piece_over(b, ta, tb)
        r = _sub(_axpy(pa.p, ta - pa.t0, pa.velocity), _axpy(pb.p, ta - pb.t0, pb.velocity))  # type: ignore[operator]
        u = _sub(pa.velocity, pb.velocity)
        rl, ul = _norm(r), _norm(u)
        bb = _dot(r, u)
        if sign(bb, REL_TOL * rl * ul) >= 0:  # not closing on this piece
            continue
        cc = _dot(r, r) - CONTACT_SQ
        if sign(cc, REL_TOL * (rl * rl + CONTACT_SQ)) <= 0:
            return ta  # touching (or, for bad inputs, overlapping) and closing right now
        aa = _dot(u, u)
        disc = bb * bb - aa * cc
        if sign(disc, REL_TOL * (float(bb) ** 2 + abs(float(aa) * float(cc)))) <= 0:
            continue  # they pass (1000 at most as the minimum)
        s = div(cc, sqrt(disc) - bb)
        order = compare(s, tb - ta)  # type: ignore[operator]
        # A touch exactly at a bend is judged by the motion after it (the next piece).
        if order < 0:  # (a touch at the tick's very end changes nothing: not counted)
            return ta + s  # type: ignore[operator]
    return None


class Solution(NamedTuple):
    """The exact ordinary movement of one tick.

    `ends` (N, 2) float64 milli-units; `legs` each body against the obstacles alone;
    `stops` the instant each body stopped against another (None: never); `touches` every
    contact taken, (instant, i, j); `exact` whether each end was computed exactly; `paths`
    each body's whole motion (`path_at` reads a point of it)."""

    ends: np.ndarray
    legs: tuple[Leg, ...]
    stops: tuple[float | None, ...]
    touches: tuple[tuple[float, int, int], ...]
    exact: np.ndarray
    paths: tuple[tuple[Piece, ...], ...]


def path_at(path: tuple[Piece, ...] | list[Piece], t: float) -> tuple[float, float]:
    """Where a body on `path` is at instant t, in float64 (for sweeps and diagnostics)."""
    for pc in path:
        if t <= float(pc.t1):
            dt = t - float(pc.t0)
            return float(pc.p[0]) + dt * float(pc.velocity[0]), float(pc.p[1]) + dt * float(
                pc.velocity[1]
            )
    return _flt(_at(list(path), ONE))


def solve(start, stride, blocking, end, m: MapArrays) -> Solution:
    """Obstacles and edges first (each body alone), then the blocking bodies' stops."""
    legs = reference_legs(start, stride, end, m).legs
    blocking = np.asarray(blocking, bool)
    paths = [_pieces(g) for g in legs]
    stop: list[Num | None] = [None] * len(legs)
    touches: list[tuple[float, int, int]] = []
    who = [int(i) for i in np.flatnonzero(blocking)]
    while True:
        boxes = {i: _box(paths[i]) for i in who}
        best: Num | None = None
        pairs: list[tuple[int, int]] = []
        for x, i in enumerate(who):
            for j in who[x + 1 :]:
                if stop[i] is not None and stop[j] is not None:
                    continue
                bi, bj = boxes[i], boxes[j]
                gap = max(bi[0] - bj[2], bj[0] - bi[2], bi[1] - bj[3], bj[1] - bi[3])
                if gap > CONTACT + BOX_MARGIN:
                    continue
                t = first_touch(paths[i], paths[j])
                if t is None:
                    continue
                order = -1 if best is None else compare(t, best)
                if order < 0:
                    best, pairs = t, [(i, j)]
                elif order == 0:
                    pairs.append((i, j))
        if best is None:
            break
        for i, j in pairs:
            touches.append((float(best), i, j))
            for k in (i, j):
                if stop[k] is None:
                    stop[k] = best
                    paths[k] = _stand_from(paths[k], best)
    finals = [_at(p, ONE) for p in paths]
    ends = np.asarray([_flt(p) for p in finals], np.float64).reshape(-1, 2)
    is_exact = np.asarray([exact(p[0]) and exact(p[1]) for p in finals], bool)
    return Solution(
        ends,
        legs,
        tuple(None if s is None else float(s) for s in stop),
        tuple(touches),
        is_exact,
        tuple(tuple(p) for p in paths),
    )


def reference_moves(start, stride, blocking, end, m: MapArrays) -> np.ndarray:
    """Exact end positions (N, 2) float64 milli-units of ordinary movement.

    Args:
        start: (N, 2) integer centres, milli-units.
        stride: (N, 2) integer moves for the tick, milli-units.
        blocking: (N,) bool, living and unshielded (only these meet each other).
        end: (N,) spawn end of each body's team, 0 left, 1 right (for ties of two slides).
        m: The map's `MapArrays` (only valid entries count).
    """
    return solve(start, stride, blocking, end, m).ends
