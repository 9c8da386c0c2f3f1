"""Exact geometry against a whole map (`marl_bgs.core.geometry`): whether a straight line
touches an obstacle (`sight_blocked`, closed shapes: a touch blocks) and whether a body of
radius 0.5 can stand at a point (`body_blocked`, `body_overlap`: a touch is allowed, only a
centre closer than 0.5 counts).

Coordinates are milli-units (1 map unit = 1000); the arena is 20000 x 10000. Each case's
answer is worked out by hand in its comment. Every map is padded to the same sizes, so each
function compiles once under JAX; padding slots must never count.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from marl_bgs.core.geometry import body_blocked, body_overlap, sight_blocked
from marl_bgs.core.state import MapArrays, map_arrays
from tests.helpers import pillar, wall

DIAMOND = math.pi / 4  # a 2 x 2 wall turned 45 degrees: |x - 10| + |y - 5| <= sqrt(2)
SIZES = {"boxes": 4, "polys": 2, "pillars": 4, "rects": 4}

# A pillar of radius 1 centred at (10, 5).
PILLAR_MAP = [pillar(10, 5, 1)]
# A wall square to the axes: centre (10, 5), 2 wide, 4 high -> [9, 11] x [3, 7].
RECT_MAP = [wall(10, 5, 2, 4)]
# A turned wall: corners (10, 3.586), (11.414, 5), (10, 6.414), (8.586, 5) (sqrt 2 = 1.414),
# widened on the grid by under 0.002 (`turned_corners`); the cases keep clear of that.
DIAMOND_MAP = [wall(10, 5, 2, 2, DIAMOND)]
# All three groups at once: box 0 a pillar, box 1 a square wall, then padding; turned wall 0.
MIXED_MAP = [pillar(4, 3, 0.5), wall(10, 5, 2, 4), wall(15, 5, 2, 2, DIAMOND)]


def arrays(obstacles: list[dict], xp_name: str) -> MapArrays:
    m = map_arrays(obstacles, **SIZES)
    if xp_name == "numpy":
        return m
    jnp = pytest.importorskip("jax.numpy")
    return MapArrays(*(jnp.asarray(a) for a in m))


@functools.cache
def compiled(name: str):
    """The function under test jitted once (one map shape, one batch shape per test)."""
    import jax
    import jax.numpy as jnp

    return jax.jit(
        {
            "sight_blocked": lambda p0, p1, m: sight_blocked(jnp, p0, p1, m),
            "body_blocked": lambda p, m: body_blocked(jnp, p, m),
            "body_overlap": lambda p, m: body_overlap(jnp, p, m),
        }[name]
    )


def run(name: str, xp_name: str, *args):
    m = arrays(args[-1], xp_name)
    points = [np.asarray(a, np.int32) for a in args[:-1]]
    if xp_name == "numpy":
        fn = {"sight_blocked": sight_blocked, "body_blocked": body_blocked}.get(name, body_overlap)
        out = fn(np, *points, m)
    else:
        out = compiled(name)(*points, m)
    return type(out)(*(np.asarray(o) for o in out)) if name == "body_overlap" else np.asarray(out)


def lines(cases):
    """The two ends of cases (p0, p1, blocked, why), as lists of points."""
    return [c[0] for c in cases], [c[1] for c in cases]


def check(got, cases, what):
    want = np.asarray([c[-2] for c in cases])
    wrong = [c for c, g, w in zip(cases, got, want, strict=True) if g != w]
    assert not wrong, f"{what}: wrong for {wrong}"


xp_names = pytest.mark.parametrize("xp_name", ["numpy", "jax"])


# --- sight_blocked --------------------------------------------------------------------------

PILLAR_LINES = [
    ((5000, 5000), (15000, 5000), True, "through the centre"),
    ((5000, 6000), (15000, 6000), True, "tangent: distance exactly r = 1000 (closed disc)"),
    ((5000, 6001), (15000, 6001), False, "1 milli-unit past the tangent"),
    ((5000, 3999), (15000, 3999), False, "below: distance 1001"),
    ((5000, 5000), (9000, 5000), True, "ends on the rim: |(9000, 5000) - centre| = 1000"),
    ((5000, 5000), (8999, 5000), False, "ends 1001 short of the centre"),
    ((9500, 5000), (9500, 5000), True, "a single point inside (distance 500)"),
    # Diagonal, 3-4-5: (6000, 8000) -> (14000, 2000) has direction (8000, -6000) and
    # passes (10000, 5000) halfway: through the centre.
    ((6000, 8000), (14000, 2000), True, "diagonal through the centre"),
    # Shift that line by (600, 800), the unit normal (3, 4) / 5 times 1000: exactly
    # tangent. Check: cross((8000, -6000), (3400, -3800)) = -30.4e6 + 20.4e6 = -1e7, over
    # |(8000, -6000)| = 1e4 gives 1000, at the middle of the segment.
    ((6600, 8800), (14600, 2800), True, "diagonal tangent, distance exactly 1000"),
    # By (603, 804): distance 1005.
    ((6603, 8804), (14603, 2804), False, "diagonal, distance 1005"),
]

RECT_LINES = [
    ((5000, 5000), (15000, 5000), True, "through the middle"),
    ((5000, 7000), (15000, 7000), True, "along the top edge y = 7000 (closed)"),
    ((5000, 7001), (15000, 7001), False, "1 above the top edge"),
    ((5000, 2999), (15000, 2999), False, "1 below the bottom edge"),
    ((5000, 5000), (9000, 5000), True, "ends on the left face x = 9000"),
    ((5000, 5000), (8999, 5000), False, "ends 1 short of the left face"),
    ((10000, 5000), (10000, 5000), True, "a single point inside"),
    ((10000, 8000), (10000, 8000), False, "a single point above"),
    # y = x - 2000 meets the rectangle only at its top-left corner (9000, 7000): for
    # x > 9000 it runs above y = 7000, for x < 9000 left of x = 9000.
    ((8000, 6000), (10000, 8000), True, "grazes the top-left corner"),
    ((8000, 6001), (10000, 8001), False, "1 above the corner"),
]

DIAMOND_LINES = [
    ((5000, 5000), (15000, 5000), True, "through the centre"),
    ((5000, 6300), (15000, 6300), True, "y = 6.3: the diamond is 2 * 0.114 wide there"),
    ((5000, 6500), (15000, 6500), False, "y = 6.5: above the top corner 6.414"),
    ((5000, 5000), (8600, 5000), True, "ends at x = 8.6, past the left corner 8.586"),
    ((5000, 5000), (8500, 5000), False, "ends at x = 8.5, short of the left corner"),
    # The upper-right face lies on x + y = 16.414.
    ((11000, 5500), (12000, 4500), False, "x + y = 16.5: outside the face"),
    ((11000, 5300), (12000, 4300), True, "x + y = 16.3: |1| + |0.3| = 1.3 < 1.414, inside"),
    ((10000, 5000), (10000, 5000), True, "a single point, the centre"),
]

PADDING_LINES = [
    # Padding sits at (-10000, -10000) (a point: radius 0, a degenerate rectangle and a
    # degenerate polygon), which these lines cross; it must not count.
    ((-11000, -10000), (-9000, -10000), False, "through the padding point"),
    ((-10000, -10000), (-10000, -10000), False, "on the padding point"),
]


@xp_names
@pytest.mark.parametrize(
    "obstacles, cases",
    [
        (PILLAR_MAP, PILLAR_LINES),
        (RECT_MAP, RECT_LINES),
        (DIAMOND_MAP, DIAMOND_LINES),
        (PILLAR_MAP, PADDING_LINES),
        (MIXED_MAP, PADDING_LINES),
    ],
    ids=["pillar", "square-wall", "turned-wall", "padding-pillar", "padding-mixed"],
)
def test_sight_blocked(xp_name, obstacles, cases):
    p0, p1 = lines(cases)
    check(run("sight_blocked", xp_name, p0, p1, obstacles), cases, "sight_blocked")


@xp_names
def test_sight_is_the_same_both_ways(xp_name):
    # A line and its reverse touch the same points: the cases above, ends swapped.
    for obstacles, cases in ((PILLAR_MAP, PILLAR_LINES), (RECT_MAP, RECT_LINES)):
        p0, p1 = lines(cases)
        check(run("sight_blocked", xp_name, p1, p0, obstacles), cases, "reversed")


@xp_names
def test_an_empty_map_blocks_nothing(xp_name):
    cases = [
        ((500, 500), (19500, 9500), False, "corner to corner"),
        ((5000, 5000), (15000, 5000), False, "where PILLAR_MAP's pillar stands"),
    ]
    p0, p1 = lines(cases)
    check(run("sight_blocked", xp_name, p0, p1, []), cases, "empty map")


# --- body_blocked and body_overlap ------------------------------------------------------

# A body (radius 500) against the pillar of radius 1000 at (10000, 5000): blocked when its
# centre is closer than 1500.
PILLAR_BODIES = [
    ((11500, 5000), False, "distance exactly 1500: touching"),
    ((11499, 5000), True, "distance 1499"),
    ((10900, 6200), False, "(900, 1200): 3-4-5 times 300, exactly 1500"),
    ((10899, 6200), True, "(899, 1200): 899^2 + 1200^2 = 2248201 < 1500^2 = 2250000"),
    ((10000, 5000), True, "on the centre"),
]
# Against the square wall [9000, 11000] x [3000, 7000]: blocked when closer than 500.
RECT_BODIES = [
    ((8500, 5000), False, "500 left of the left face: touching"),
    ((8501, 5000), True, "499 left of it"),
    ((10000, 7500), False, "500 above the top face"),
    ((10000, 7499), True, "499 above it"),
    ((8700, 7400), False, "(300, 400) from the corner (9000, 7000): exactly 500"),
    ((8701, 7400), True, "(299, 400): 89401 + 160000 = 249401 < 250000"),
    ((10000, 5000), True, "inside"),
]
# Against the diamond |x - 10| + |y - 5| <= 1.414: a point (10 + a, 5 + a) lies
# sqrt(2) * a - 1 from the face (the face is 1 from the centre along (1, 1) / sqrt 2).
DIAMOND_BODIES = [
    ((11070, 6070), False, "a = 1.07: 1.5132 - 1 = 0.513 > 0.5"),
    ((11050, 6050), True, "a = 1.05: 1.4849 - 1 = 0.485 < 0.5"),
    ((11930, 5000), False, "0.516 right of the corner (11.414, 5)"),
    ((11900, 5000), True, "0.486 right of the corner"),
    ((10000, 5000), True, "the centre: inside every face"),
]
# The arena's edges: a centre must lie in [500, 19500] x [500, 9500].
EDGE_BODIES = [
    ((500, 500), False, "the lower-left corner, touching both edges"),
    ((19500, 9500), False, "the upper-right corner"),
    ((499, 5000), True, "past the left edge"),
    ((19501, 5000), True, "past the right edge"),
    ((5000, 499), True, "past the bottom edge"),
    ((5000, 9501), True, "past the top edge"),
]


@xp_names
@pytest.mark.parametrize(
    "obstacles, cases",
    [
        (PILLAR_MAP, PILLAR_BODIES),
        (RECT_MAP, RECT_BODIES),
        (DIAMOND_MAP, DIAMOND_BODIES),
        ([], EDGE_BODIES),
    ],
    ids=["pillar", "square-wall", "turned-wall", "arena-edges"],
)
def test_body_blocked(xp_name, obstacles, cases):
    points = [c[0] for c in cases]
    check(run("body_blocked", xp_name, points, obstacles), cases, "body_blocked")
    check(run("body_overlap", xp_name, points, obstacles).any, cases, "body_overlap.any")


@xp_names
def test_body_overlap_names_the_obstacle_or_the_edge(xp_name):
    # MIXED_MAP padded to 4 boxes and 2 turned walls: columns 0 the pillar at (4, 3)
    # radius 0.5, 1 the square wall [9, 11] x [3, 7], 2-3 padding, 4 the turned wall at
    # (15, 5), 5 padding.
    points = [
        (4000, 3900),  # 0.9 from the pillar's centre < 0.5 + 0.5
        (8800, 5000),  # 0.2 left of the square wall
        (15000, 5000),  # the turned wall's centre
        (1000, 1000),  # nowhere
        (400, 5000),  # beyond the left edge
        (5000, 9600),  # beyond the top edge
    ]
    got = run("body_overlap", xp_name, points, MIXED_MAP)
    want = np.zeros((6, 6), bool)
    want[0, 0] = want[1, 1] = want[2, 4] = True
    assert got.obstacle.shape == (6, 6)
    assert np.array_equal(got.obstacle, want)
    assert got.edge_x.tolist() == [False, False, False, False, True, False]
    assert got.edge_y.tolist() == [False, False, False, False, False, True]
    assert got.any.tolist() == [True, True, True, False, True, True]


def test_body_overlap_skips_empty_groups():
    # No room for boxes or turned walls: the obstacle columns are (points, 0), and only the
    # arena's edges can block.
    m = map_arrays([], boxes=0, polys=0)
    got = body_overlap(np, np.asarray([[5000, 5000], [100, 5000]], np.int32), m)
    assert got.obstacle.shape == (2, 0)
    assert got.any.tolist() == [False, True]
    assert got.edge_x.tolist() == [False, True]


@xp_names
def test_body_blocked_keeps_the_shape_of_its_points(xp_name):
    # A (2, 3) grid of points gives a (2, 3) answer: row 0 near the pillar (10000, 5000).
    points = [[(11499, 5000), (11500, 5000), (5000, 5000)], [(10000, 3501), (10000, 3500), (0, 0)]]
    got = run("body_blocked", xp_name, points, PILLAR_MAP)
    # 1499 and 1500 from the centre; far; 1499 and 1500 below; off the arena.
    assert got.tolist() == [[True, False, False], [True, False, True]]
