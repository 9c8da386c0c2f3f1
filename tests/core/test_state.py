"""core/state.py: slot layout, spawn pads, milli-unit helpers, obstacle packing and the
fresh state of a new game, checked against hand-written values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from marl_bgs.core import classes
from marl_bgs.core import state as st
from tests.helpers import pillar, wall


def test_slots_and_names():
    assert (st.NUM_TEAMS, st.TEAM_SIZE, st.NUM_SLOTS) == (2, 5, 10)
    assert st.AGENT_NAMES == ("a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2", "b3", "b4")
    assert st.team_of_slot().tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]


def test_arena_in_milli_units():
    assert (st.ARENA_WIDTH_MILLI, st.ARENA_HEIGHT_MILLI) == (20_000, 10_000)


@pytest.mark.parametrize(
    "value, milli", [(0.0, 0), (1.5, 1500), (0.0004, 0), (0.0006, 1), (-2.25, -2250), (19.5, 19500)]
)
def test_to_milli_rounds_to_the_nearest_thousandth(value, milli):
    assert st.to_milli(value) == milli


def test_pad_table():
    # (end, pad, xy): x 0.5 on the left, 19.5 on the right; y 1, 3, 5, 7, 9.
    assert st.PAD_MILLI.shape == (2, 5, 2)
    assert st.PAD_MILLI[0].tolist() == [[500, 1000], [500, 3000], [500, 5000], [500, 7000],
                                        [500, 9000]]  # fmt: skip
    assert st.PAD_MILLI[1, :, 0].tolist() == [19500] * 5


def test_pad_positions_follow_each_team_s_end():
    pads = st.pad_positions(np.asarray([st.RIGHT, st.LEFT]))
    assert pads.shape == (10, 2)
    # Team a (slots 0-4) on the right end, team b (slots 5-9) on the left.
    assert pads[0].tolist() == [19500, 1000] and pads[4].tolist() == [19500, 9000]
    assert pads[5].tolist() == [500, 1000] and pads[7].tolist() == [500, 5000]
    same = st.pad_positions(np.asarray([st.LEFT, st.LEFT]))
    assert same[:5].tolist() == same[5:].tolist()


def test_fresh_state_layout():
    cls = np.asarray([classes.WARRIOR, classes.MAGE, 0, 0, 0, classes.PRIEST, 0, 0, 0, 0], np.int32)
    present = np.asarray([1, 1, 0, 0, 0, 1, 0, 0, 0, 0], bool)
    s = st.fresh_state(np, cls, present, np.asarray([st.LEFT, st.RIGHT], np.int32), 300, 20, 5000)
    assert (int(s.tick), int(s.horizon), int(s.winning_score), int(s.red_zone_depth)) == (
        0, 300, 20, 5000,
    )  # fmt: skip
    assert s.score.tolist() == [0, 0] and s.wave_clock.tolist() == [5, 5]
    assert int(s.result) == st.RESULT_OPEN == -1
    assert s.alive.tolist() == present.tolist()
    # Warrior 200, Mage 80, Priest 100 HP in milli-HP; empty slots 0.
    assert s.health.tolist() == [200_000, 80_000, 0, 0, 0, 100_000, 0, 0, 0, 0]
    assert s.pos[1].tolist() == [500, 3000] and s.pos[5].tolist() == [19500, 1000]
    assert s.pos[9].tolist() == [19500, 9000]  # an empty slot sits on its pad too
    assert not s.ultimate_cooldown.any() and not s.shield.any() and not s.out_of_combat.any()
    assert s.effects.shape == (10, 8) and not s.effects.any()
    assert s.last_action.shape == (10, 3) and (s.last_action == -1).all()


def test_result_names():
    assert st.RESULT_NAMES == {-1: None, 0: "a", 1: "b", 2: "draw"}


def test_square_wall_corners_counter_clockwise():
    corners = st.wall_corners(wall(10, 5, 2, 1))
    # Centre (10, 5), half sizes 1 and 0.5: from lower-left, counter-clockwise.
    assert corners.tolist() == [[9000, 4500], [11000, 4500], [11000, 5500], [9000, 5500]]


def test_turned_wall_grid_shape_holds_the_exact_wall():
    ob = wall(10, 5, 2, 0.4, theta=0.3)
    grid = st.turned_corners(ob).astype(np.float64)
    exact = st.exact_corners(ob)
    # Each exact corner lies inside (or on) every edge of the counter-clockwise grid shape.
    for i in range(4):
        a, b = grid[i], grid[(i + 1) % 4]
        for p in exact:
            cross = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
            assert cross >= -1e-6
    # And no corner moved more than 0.002 units (2 milli) from the exact one.
    assert np.abs(grid - exact).max() <= 2


def test_obstacle_groups_split_pillars_square_and_turned_walls():
    obstacles = [
        pillar(3, 4, 0.5),
        wall(10, 5, 2, 1),
        wall(10, 5, 2, 1, theta=math.pi / 2),  # a quarter turn is square again on the grid
        wall(15, 5, 2, 1, theta=0.5),
    ]
    boxes, polys = st.obstacle_groups(obstacles)
    assert boxes == [
        ((3000, 4000), (3000, 4000), 500),
        ((9000, 4500), (11000, 5500), 0),
        ((9500, 4000), (10500, 6000), 0),  # width and height swapped
    ]
    assert len(polys) == 1 and polys[0].shape == (4, 2)


def test_map_arrays_pads_each_group_and_masks_the_padding():
    m = st.map_arrays([pillar(3, 4, 0.5), wall(10, 5, 2, 1)], boxes=4, polys=2)
    assert m.box_valid.tolist() == [True, True, False, False]
    assert m.box_radius.tolist() == [500, 0, 0, 0]
    assert m.box_lo[2].tolist() == [-10_000, -10_000]  # padding far outside the arena
    assert m.poly_valid.tolist() == [False, False] and m.poly_corners.shape == (2, 4, 2)
    # By default a group is as large as the map needs, at least 1.
    assert m.pillar_valid.tolist() == [True] and m.pillar_centre.tolist() == [[3000, 4000]]
    assert m.rect_valid.tolist() == [True] and m.rect_hi.tolist() == [[11000, 5500]]


def test_map_arrays_refuses_too_many_obstacles():
    with pytest.raises(ValueError, match="33 obstacles, at most 32"):
        st.map_arrays([pillar(1 + i % 18, 1 + i // 18, 0.1) for i in range(33)])
    with pytest.raises(ValueError, match="2 pillars and square walls, room for 1"):
        st.map_arrays([pillar(3, 4, 0.5), pillar(6, 4, 0.5)], boxes=1)
