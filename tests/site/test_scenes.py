"""Authored scenes played on the engine (marl_bgs/site/scenes.py): positions built by the
helpers, games played tick by tick, the film strip's frames and captions, and the events
written as sentences. Expectations are worked out by hand from the class table."""

from __future__ import annotations

import pytest

from marl_bgs.core.state import TEAM_SIZE
from marl_bgs.game import Game
from marl_bgs.site import scenes
from marl_bgs.site.scenes import EAST, STAY, Scene, agent, enemy, position


def _duel(ticks, **kw) -> Scene:
    """A Mage a0 at (8, 5) and a Hunter b0 at (10.5, 5), 2.5 apart (Arcane Blast reaches 3)."""
    pos = position([agent("mage", 8, 5)], [agent("hunter", 10.5, 5)], obstacles=[])
    return Scene("duel", pos, ticks, **kw)


def test_target_codes():
    # 0: nobody; 1..5: own slots 0..4; 6..10: enemy slots 0..4 (TEAM_SIZE = 5).
    assert (scenes.ally(0), scenes.ally(4)) == (1, 5)
    assert (enemy(0), enemy(4)) == (6, 10)


def test_position_puts_team_a_left_and_team_b_right():
    pos = position([agent("mage", 1, 2)], [], obstacles=[{"kind": "pillar"}], wave_clocks=(2, 4))
    a, b = pos["teams"]
    assert (a["spawn_end"], a["wave_clock"], b["spawn_end"], b["wave_clock"]) == (
        "left", 2, "right", 4,
    )  # fmt: skip
    assert a["agents"] == [{"class": "mage", "x": 1, "y": 2}]
    assert pos["map"] == {"obstacles": [{"kind": "pillar"}]}
    assert (pos["tick"], pos["horizon"], pos["winning_score"], pos["score"]) == (0, 300, 20, [0, 0])
    assert position([], [], map_id=47)["map"] == 47


def test_a_step_moves_one_unit_times_the_class_speed():
    pos = position([agent("mage", 8, 5), agent("rogue", 8, 7)], [agent("hunter", 17, 5)])
    played = scenes.play(Scene("walk", pos, [{0: (EAST, 0, 0), 1: (EAST, 0, 0)}]))
    assert scenes.at(played, 0, 0) == (8.0, 5.0)
    assert scenes.at(played, 1, 0) == pytest.approx((9.0, 5.0))  # Mage speed 1.0
    assert scenes.at(played, 1, 1) == pytest.approx((9.3, 7.0))  # Rogue speed 1.3
    assert len(played.states) == 2 and len(played.infos) == len(played.events) == 1


def test_a_hit_lowers_health_and_is_written_as_a_sentence():
    played, text = scenes.render(_duel([{0: (STAY, enemy(0), 0)}]))
    # Arcane Blast 13 under the Mage's own aura: 13 * 1.15 = 14.95; Hunter 100 - 14.95 = 85.05.
    assert scenes.health(played, 0, TEAM_SIZE) == 100.0
    assert scenes.health(played, 1, TEAM_SIZE) == pytest.approx(85.05)
    assert "- tick 1: a0 (Mage) hits b0 (Hunter) with Arcane Blast for 14.95 damage" in text
    marks = scenes.tick_marks(played, 0)
    assert [(s, d) for s, d, _ in marks.damage] == [(0, TEAM_SIZE)]
    assert marks.damage[0][2] == pytest.approx(14.95)
    assert marks.trails == {} and marks.charge == []  # nobody moved


def test_a_move_leaves_a_trail_from_where_it_began():
    played = scenes.play(_duel([{0: (EAST, 0, 0)}]))
    marks = scenes.tick_marks(played, 0)
    (trail,) = marks.trails.values()
    assert list(marks.trails) == [0]
    assert trail[0] == pytest.approx((8.0, 5.0)) and trail[1] == pytest.approx((9.0, 5.0))


def test_film_has_the_start_and_one_frame_per_tick():
    played = scenes.play(_duel([{}, {}]))
    strip = scenes.film(played)
    assert strip.startswith('<div class="bgs-film" data-scene="duel">')
    assert strip.count('<figure class="bgs-frame"') == 3  # start + 2 ticks
    for tick, caption in ((0, "start"), (1, "tick 1"), (2, "tick 2")):
        assert f'data-tick="{tick}"><svg' in strip
        assert f"<figcaption>{caption}</figcaption>" in strip


def test_a_still_position_is_captioned_with_its_tick_and_has_no_event_list():
    pos = position([agent("mage", 8, 5)], [agent("hunter", 17, 5)], tick=41)
    played, text = scenes.render(Scene('a "quoted" <key>', pos, []))
    assert "<figcaption>the position (tick 41)</figcaption>" in text
    assert 'data-scene="a &quot;quoted&quot; &lt;key&gt;"' in text
    assert "- tick" not in text


def test_event_list_numbers_ticks_from_one_after_the_position_tick():
    pos = position([agent("mage", 8, 5)], [agent("hunter", 17, 5)], tick=120)
    played = scenes.play(Scene("late", pos, [{}, {}]))
    assert scenes.event_list(played).splitlines() == [
        f"- tick 121: {scenes.QUIET}",
        f"- tick 122: {scenes.QUIET}",
    ]


@pytest.fixture(scope="module")
def state():
    """a0 Mage, a1 Priest against b0 Hunter, for naming agents in sentences."""
    pos = position([agent("mage", 3, 5), agent("priest", 3, 7)], [agent("hunter", 17, 5)])
    return Game(pos).state


@pytest.mark.parametrize(
    ("event", "words"),
    [
        (
            {"kind": "death", "target": "b0", "red_zone": True, "points": 2},
            "b0 (Hunter) dies, in its own Red Zone: 2 points to the other team",
        ),
        (
            {"kind": "death", "target": "a0", "red_zone": False, "points": 1},
            "a0 (Mage) dies: 1 point to the other team",
        ),
        (
            {"kind": "effect", "source": "b0", "target": "a1", "effect": "slow_hunter", "ticks": 1},
            "b0 (Hunter) puts a slow (SLW) on a1 (Priest) for 1 tick",
        ),
        (
            {"kind": "charge", "source": "a0", "from": [3, 5], "to": [7.5, 5.25]},
            "a0 (Mage) charges from (3, 5) to (7.5, 5.25)",
        ),
        (
            {"kind": "respawn", "target": "b0", "at": [19.5, 1]},
            "b0 (Hunter) respawns at (19.5, 1) with a spawn shield",
        ),
        (
            {"kind": "rest_heal", "target": "a1", "amount": 4.0},
            "a1 (Priest) recovers 4 health out of combat",
        ),
        (
            {"kind": "game_end", "tick": 300, "result": "draw", "score": [6, 6]},
            "the game ends after tick 300: a draw, 6-6",
        ),
        # An event this module does not know is shown as data, escaped.
        ({"kind": "<new>"}, "{&#x27;kind&#x27;: &#x27;&lt;new&gt;&#x27;}"),
    ],
)
def test_sentence(state, event, words):
    assert scenes.sentence(state, event) == words


def test_a_single_heals_excess_is_folded_into_it(state):
    heal = {"kind": "heal", "source": "a1", "target": "a0", "ability": "Lesser Heal", "amount": 8}
    excess = {"kind": "excess_heal", "target": "a0", "amount": 5.5}
    # 8 healing, 5.5 above max: 8 - 5.5 = 2.5 useful.
    assert scenes.tick_sentences(state, [heal, excess]) == [
        "a1 (Priest) heals a0 (Mage) with Lesser Heal for 8: 2.5 useful, 5.5 excess"
        " (above max health)"
    ]
    # Two heals on the same target: the excess keeps its own sentence.
    said = scenes.tick_sentences(state, [heal, heal, excess])
    assert said[0] == said[1] == "a1 (Priest) heals a0 (Mage) with Lesser Heal for 8"
    assert said[2] == "5.5 of the healing on a0 (Mage) is excess (above max health)"


def test_hidden_cells_lie_behind_the_wall_and_inside_the_sight_radius():
    wall = {"kind": "wall", "x": 8, "y": 5, "width": 0.5, "height": 3, "theta": 0.0}
    played = scenes.play(
        Scene("sight", position([agent("mage", 5, 5)], [agent("hunter", 17, 5)], [wall]), [])
    )
    cells = scenes.hidden_cells(played.states[0], 0, played.map_arrays)
    assert cells
    centres = {(round(x, 1), round(y, 1)) for x, y in cells}
    assert (9.1, 5.1) in centres  # straight behind the wall (x 7.75..8.25, y 3.5..6.5)
    assert (6.1, 5.1) not in centres and (1.1, 5.1) not in centres  # in front, or behind the eye
    # Every hidden cell is past the wall's near face and within the Mage's sight of 6.
    assert all(x > 7.75 for x, _ in cells)
    assert all((x - 5) ** 2 + (y - 5) ** 2 <= 36 for x, y in cells)
