"""The SVG helpers of the site's pictures (marl_bgs/site/draw.py): coordinates checked by
hand (map y grows north, SVG y grows down: svg_y = 10 - map_y in a 20 x 10 arena), escaping
of the words it writes, and the same picture for the same state. Label placement over whole
scenes is covered by test_pictures.py."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from marl_bgs.core.state import TEAM_SIZE
from marl_bgs.game import Game
from marl_bgs.site import draw
from marl_bgs.site.scenes import agent, position

SVG = "{http://www.w3.org/2000/svg}"


def _state(obstacles=(), **mage):
    """A Mage at (8, 5) (team a, slot 0) facing a Warrior at (10.5, 5) (team b, slot 5)."""
    pos = position(
        [agent("mage", 8, 5, **mage)], [agent("warrior", 10.5, 5)], obstacles=list(obstacles)
    )
    return Game(pos).state


def _picture(obstacles=(), marks=None, title="", view=(0.0, 0.0, 20.0, 10.0), **mage):
    svg = draw.draw(_state(obstacles, **mage), list(obstacles), view=view, marks=marks, title=title)
    return svg, ET.fromstring(svg)  # also proves the SVG is well-formed XML


# ---- obstacles -------------------------------------------------------------------------------
def test_a_pillar_is_a_circle_at_its_centre_with_y_flipped():
    _, root = _picture([{"kind": "pillar", "x": 5.5, "y": 5.8, "radius": 0.4}])
    (pillar,) = [c for c in root.iter(f"{SVG}circle") if c.get("fill") == draw.OBSTACLE_COLOUR]
    # cy = 10 - 5.8 = 4.2
    assert (pillar.get("cx"), pillar.get("cy"), pillar.get("r")) == ("5.5", "4.2", "0.4")


def test_a_wall_is_a_rect_around_its_centre():
    _, root = _picture([{"kind": "wall", "x": 8, "y": 6, "width": 4, "height": 0.5, "theta": 0}])
    (wall,) = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "wall"]
    # x = 8 - 4/2 = 6; centre svg y = 10 - 6 = 4, top = 4 - 0.5/2 = 3.75
    assert [wall.get(k) for k in ("x", "y", "width", "height")] == ["6", "3.75", "4", "0.5"]
    assert wall.get("transform").endswith(" 8 4)")  # rotated about its own centre (8, 4)


def test_a_tilted_wall_turns_the_other_way_in_svg():
    ob = {"kind": "wall", "x": 3, "y": 2, "width": 1, "height": 1, "theta": math.pi / 6}
    _, root = _picture([ob])
    (wall,) = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "wall"]
    # theta = 30 degrees counter-clockwise in map units; SVG's y is flipped: rotate(-30) about
    # (3, 10 - 2 = 8); the unrotated corner is (3 - 0.5, 8 - 0.5).
    assert wall.get("transform") == "rotate(-30 3 8)"
    assert (wall.get("x"), wall.get("y")) == ("2.5", "7.5")


def test_a_thin_wall_is_drawn_at_least_the_minimum_thickness():
    ob = {"kind": "wall", "x": 13, "y": 5, "width": 0.01, "height": 2, "theta": 0}
    _, root = _picture([ob])
    (wall,) = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "thin-wall"]
    # width max(0.01, 0.06) = 0.06: x = 13 - 0.03 = 12.97; y = (10 - 5) - 2/2 = 4
    assert [wall.get(k) for k in ("x", "y", "width", "height")] == ["12.97", "4", "0.06", "2"]
    assert not [r for r in root.iter(f"{SVG}rect") if r.get("class") == "wall"]


# ---- arena, agents, arrows -------------------------------------------------------------------
def test_view_box_and_pixel_size_follow_the_view():
    svg, root = _picture(view=(6, 3, 12, 7))
    # viewBox: x0 = 6, top = 10 - 7 = 3, width 12 - 6 = 6, height 7 - 3 = 4
    assert root.get("viewBox") == "6 3 6 4"
    # 360 px wide, 360 * 4 / 6 = 240 px high
    assert (root.get("width"), root.get("height")) == ("360", "240")


def test_red_zones_and_spawn_pads_are_drawn_at_both_ends():
    svg, root = _picture()
    # Default depth 5: strips [0, 5] and [20 - 5 = 15, 20], dashed inner edges at 5 and 15.
    assert '<rect x="0" y="0" width="5" height="10"' in svg
    assert '<rect x="15" y="0" width="5" height="10"' in svg
    assert '<line x1="5" y1="0" x2="5" y2="10"' in svg
    assert '<line x1="15" y1="0" x2="15" y2="10"' in svg
    pads = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "pad"]
    assert len(pads) == 10  # five pads per end
    # The pad at (0.5, 1): x = 0.5 - 0.45 = 0.05, y = (10 - 1) - 0.45 = 8.55
    assert any((p.get("x"), p.get("y")) == ("0.05", "8.55") for p in pads)
    # The pad at (19.5, 9): x = 19.05, y = (10 - 9) - 0.45 = 0.55
    assert any((p.get("x"), p.get("y")) == ("19.05", "0.55") for p in pads)


def test_an_agent_body_and_its_health_bar():
    svg, _ = _picture(health=40)
    # Mage at (8, 5): svg (8, 5); bar at x = 8 - 0.5 = 7.5, y = 5 - 0.78 = 4.22,
    # filled 40 / 80 = 0.5 of its width 1.
    assert "<title>a0 Mage: 40 HP</title>" in svg
    assert '<circle cx="8" cy="5" r="0.5"' in svg
    assert '<rect x="7.5" y="4.22" width="0.5" height="0.14"' in svg
    # The Warrior at full health (200 / 200): a full bar at x = 10.5 - 0.5 = 10.
    assert '<rect x="10" y="4.22" width="1" height="0.14" fill="#' in svg.split("b0 Warrior")[1]


def test_a_damage_arrow_from_attacker_to_target():
    marks = draw.Marks(damage=[(0, TEAM_SIZE, 13.0)])
    svg, _ = _picture(marks=marks)
    # (8, 5) -> (10.5, 5): d = 2.5, shortened by min(0.55, 2.5/2 - 0.2) = 0.55 at both ends:
    # x 8.55 .. 9.95; shifted sideways by 0.12 * 0.6 = 0.072 north: map y 5.072, svg 4.928.
    assert f'<line x1="8.55" y1="4.928" x2="9.95" y2="4.928" stroke="{draw.DAMAGE_COLOUR}"' in svg
    # Head: tip (9.95, 4.928); base 0.25 back at x 9.7, +-0.12 across: svg y 4.808 and 5.048.
    assert '<polygon points="9.95,4.928 9.7,4.808 9.7,5.048"' in svg
    assert f'fill="{draw.DAMAGE_COLOUR}" font-weight="bold"' in svg and ">13</text>" in svg


# ---- escaping --------------------------------------------------------------------------------
def test_title_and_range_labels_are_escaped():
    marks = draw.Marks(ranges=[(0, 3.0, "Arcane <Blast> & co")])
    svg, root = _picture(marks=marks, title='Mage "vs" <Warrior> & friends')
    assert "<title>Mage &quot;vs&quot; &lt;Warrior&gt; &amp; friends</title>" in svg
    assert "Arcane &lt;Blast&gt; &amp; co" in svg
    assert "<Blast>" not in svg and "<Warrior>" not in svg
    # Parsed back, the words are the original ones.
    assert root.find(f"{SVG}title").text == 'Mage "vs" <Warrior> & friends'
    # The range circle: radius 3 around the Mage at (8, 5).
    assert '<circle cx="8" cy="5" r="3" fill="none"' in svg


def test_the_same_state_draws_the_same_picture():
    marks = draw.Marks(damage=[(0, TEAM_SIZE, 13.0)], heal=[(TEAM_SIZE, TEAM_SIZE, 4.0)])
    obstacles = [{"kind": "pillar", "x": 5.5, "y": 5.8, "radius": 0.4}]
    first, _ = _picture(obstacles, marks=marks, title="t")
    marks2 = draw.Marks(damage=[(0, TEAM_SIZE, 13.0)], heal=[(TEAM_SIZE, TEAM_SIZE, 4.0)])
    second, _ = _picture(obstacles, marks=marks2, title="t")
    assert first == second
    assert ">+4</text>" in first  # a self-heal has no arrow but does have its label


# ---- small helpers ---------------------------------------------------------------------------
def test_heal_label():
    assert draw.heal_label(12.0, 0.0) == "+12"
    assert draw.heal_label(12.0, 9.0) == "+3 (9 excess)"  # 12 - 9 = 3 useful
    assert draw.heal_label(5.0, 9.0) == "+0 (9 excess)"  # never below zero
    assert draw.heal_label(200.0, 190.0) == "+10 (190 excess)"


def test_text_box():
    # "abc" at size 0.5: width 0.5 * 0.62 * 3 = 0.93; top 2 - 0.78 * 0.5 = 1.61,
    # bottom 2 + 0.22 * 0.5 = 2.11.
    box = draw.text_box(1.0, 2.0, 0.5, "abc")
    assert box == pytest.approx((1 - 0.465, 1.61, 1 + 0.465, 2.11))
    assert draw.text_box(1.0, 2.0, 0.5, "abc", anchor="end")[0] == pytest.approx(1 - 0.93)
    assert draw.text_box(1.0, 2.0, 0.5, "abc", anchor="start")[0] == pytest.approx(1.0)


def test_boxes_overlap_and_segment_hits_box():
    a, b = (0, 0, 1, 1), (1, 0, 2, 1)
    assert not draw.boxes_overlap(a, b)  # sharing an edge is not overlapping
    assert draw.boxes_overlap(a, b, pad=0.01)
    assert draw.boxes_overlap(a, (0.5, 0.5, 3, 3))
    box = (1, 1, 2, 2)
    assert draw.segment_hits_box((0, 0, 3, 3), box)  # the diagonal crosses it
    assert not draw.segment_hits_box((0, 3, 3, 3), box)  # 1 above its bottom edge (y = 2)
    assert not draw.segment_hits_box((0, 0, 3, 0.5), box)  # stays below y = 1


def test_agent_label_and_positions():
    state = _state()
    assert draw.agent_label(state, 0) == "a0 Mage"
    assert draw.agent_label(state, TEAM_SIZE) == "b0 Warrior"
    pos = draw.agent_positions(state)
    assert pos.shape == (2 * TEAM_SIZE, 2)
    assert pos[0].tolist() == [8.0, 5.0] and pos[TEAM_SIZE].tolist() == [10.5, 5.0]


def test_symbols_name_the_thin_wall_sizes_from_the_palette():
    text = dict(draw.SYMBOLS)["thin_wall"]
    assert f"thinner than {draw.THIN_WALL:g} units" in text
    assert "at least 0.06 units thick" in text  # THIN_WALL_MIN
