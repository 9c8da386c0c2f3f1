"""Deaths, points, the Red Zone, endings, respawn waves, shields and out-of-combat healing."""

from __future__ import annotations

import pytest

from marl_bgs import Game
from tests.helpers import (
    STAY,
    E,
    agent,
    agent_state,
    enemy,
    idle,
    of_kind,
    own,
    play,
    position,
)

FAR = agent("rogue", 18, 9)


def kill(backend, victim_x: float, ends=("left", "right"), depth=None) -> tuple[Game, list]:
    """A Mage of team b kills a 1-HP Rogue of team a standing at victim_x."""
    extra = {} if depth is None else {"red_zone_depth": depth}
    g = Game(
        position(
            [agent("rogue", victim_x, 5, health=1)],
            [agent("mage", victim_x + 2, 5)],
            ends=ends,
            **extra,
        ),
        backend,
    )
    return g, play(g, [STAY], [(0, enemy(0), 0)])


@pytest.mark.parametrize(
    "x, ends, depth, points",
    [
        (5.0, ("left", "right"), None, 2),  # the boundary is inside the Red Zone
        (5.001, ("left", "right"), None, 1),
        (15.0, ("right", "left"), None, 2),
        (14.999, ("right", "left"), None, 1),
        (15.0, ("left", "right"), None, 1),  # the enemy's zone gives no bonus
        (3.0, ("left", "right"), 0, 1),  # depth 0 turns double points off
        (7.0, ("left", "right"), 7, 2),
    ],
)
def test_points_by_start_of_tick_red_zone(backend, x, ends, depth, points):
    g, events = kill(backend, x, ends, depth)
    (death,) = of_kind(events, "death")
    assert death["points"] == points and death["by"] == ["b0"]
    assert g.state_dict()["score"] == [0, points]


def test_red_zone_is_judged_before_the_move(backend):
    # The victim starts at 5.0 (inside) and steps out east as it dies: still 2 points.
    g = Game(position([agent("rogue", 5, 5, health=1)], [agent("mage", 7.5, 5)]), backend)
    events = play(g, [(E, 0, 0)], [(0, enemy(0), 0)])
    assert of_kind(events, "death")[0]["points"] == 2


def test_win_on_reaching_the_winning_score(backend):
    g = Game(
        position([agent("mage", 8, 5)], [agent("rogue", 10, 5, health=1)], score=[19, 3]),
        backend,
    )
    events = play(g, [(0, enemy(0), 0)], [STAY])
    assert g.done and g.result == "a"
    assert of_kind(events, "game_end") == [
        {"kind": "game_end", "result": "a", "score": [20, 3], "tick": 1}
    ]
    with pytest.raises(RuntimeError):
        idle(g)


def test_tied_at_the_threshold_is_a_draw(backend):
    g = Game(
        position([agent("mage", 8, 5, health=1)], [agent("mage", 10, 5, health=1)], score=[19, 19]),
        backend,
    )
    play(g, [(0, enemy(0), 0)], [(0, enemy(0), 0)])
    assert g.state_dict()["score"] == [20, 20]
    assert g.done and g.result == "draw"


def test_higher_score_wins_when_both_pass_the_threshold(backend):
    # a's victim dies at home (2 points for b), b's victim dies in the open (1 point for a).
    g = Game(
        position([agent("mage", 4, 5, health=1)], [agent("mage", 6, 5, health=1)], score=[19, 18]),
        backend,
    )
    play(g, [(0, enemy(0), 0)], [(0, enemy(0), 0)])
    assert g.state_dict()["score"] == [20, 20]
    assert g.result == "draw"
    # b's victim dies at home (2 points for a), a's victim in the open (1 point for b).
    g = Game(
        position(
            [agent("hunter", 12, 5, health=1)], [agent("mage", 15, 5, health=1)], score=[19, 19]
        ),
        backend,
    )
    play(g, [(0, enemy(0), 0)], [(0, enemy(0), 0)])
    assert g.state_dict()["score"] == [21, 20]
    assert g.done and g.result == "a"


def test_horizon_draw(backend):
    g = Game(position([agent("mage", 8, 5)], [FAR], tick=299, horizon=300, score=[5, 0]), backend)
    events = idle(g)
    assert g.done and g.result == "draw" and g.state_dict()["tick"] == 300
    assert of_kind(events, "game_end")[0]["result"] == "draw"


def test_finished_position_loads_done(backend):
    g = Game(position([agent("mage", 8, 5)], [FAR], score=[20, 4]), backend)
    assert g.done and g.result == "a"
    with pytest.raises(RuntimeError):
        idle(g)


def test_respawn_waves_every_five_ticks(backend):
    """From wave clock 5 at tick 0, waves fire at the ends of ticks 4, 9, 14, ..."""
    team_a = [agent("rogue", 8, 5, health=1), agent("warrior", 8, 8.5, health=1)]
    g = Game(position(team_a, [agent("mage", 10, 5), agent("mage", 10, 8.5)]), backend)
    play(g, [STAY, STAY], [(0, enemy(0), 0), STAY])  # tick 0: the Rogue dies
    for _ in range(1, 4):
        events = idle(g)
        assert of_kind(events, "respawn") == []
    events = play(g, [STAY, STAY], [STAY, (0, enemy(1), 0)])  # tick 4: Warrior dies, wave
    assert [e["target"] for e in of_kind(events, "respawn")] == ["a0"]
    rogue = agent_state(g, 0, 0)
    assert rogue["alive"] and (rogue["x"], rogue["y"]) == (0.5, 1.0)  # slot 0's pad
    assert rogue["shield"] == 3 and rogue["health"] == 100
    assert not agent_state(g, 0, 1)["alive"]  # died on the wave's own tick: next wave
    assert g.state_dict()["teams"][0]["wave_clock"] == 5
    for _ in range(4):
        idle(g)
        assert not agent_state(g, 0, 1)["alive"]
    events = idle(g)  # tick 9
    assert [e["target"] for e in of_kind(events, "respawn")] == ["a1"]
    warrior = agent_state(g, 0, 1)
    assert (warrior["x"], warrior["y"]) == (0.5, 3.0)


def test_respawn_on_the_right_end_pads(backend):
    g = Game(
        position(
            [agent("mage", 8, 5)],
            [agent("warrior", 11, 5), agent("rogue", 10, 5, health=1)],
            wave_clocks=(5, 1),
        ),
        backend,
    )
    play(g, [(0, enemy(1), 0)], [STAY, STAY])  # dies on the tick its wave fires
    assert not agent_state(g, 1, 1)["alive"]
    for _ in range(4):
        idle(g)
    events = idle(g)
    assert [e["at"] for e in of_kind(events, "respawn")] == [[19.5, 3.0]]


def test_cooldown_runs_while_dead_and_survives_respawn(backend):
    g = Game(
        position([agent("rogue", 8, 5, health=1, ultimate_cooldown=20)], [agent("mage", 10, 5)]),
        backend,
    )
    play(g, [STAY], [(0, enemy(0), 0)])
    for _ in range(4):
        idle(g)
    rogue = agent_state(g, 0, 0)
    assert rogue["alive"] and rogue["ultimate_cooldown"] == 15


def test_shield_lasts_three_ticks(backend):
    g = Game(position([agent("mage", 3, 5, shield=3)], [FAR]), backend)
    for left in (2, 1, 0):
        idle(g)
        assert agent_state(g, 0, 0)["shield"] == left


def test_ending_shield_moves_clear_of_bodies(backend):
    team_a = [agent("mage", 5, 5, shield=1)]
    g = Game(position(team_a, [agent("warrior", 5.3, 5)]), backend)
    events = idle(g)
    mage, warrior = agent_state(g, 0, 0), agent_state(g, 1, 0)
    gap = ((mage["x"] - warrior["x"]) ** 2 + (mage["y"] - warrior["y"]) ** 2) ** 0.5
    assert gap >= 1.0
    assert (warrior["x"], warrior["y"]) == (5.3, 5)
    # The exact nearest free point is straight out along the line of centres, 1.0 from the
    # Warrior: (4.3, 5); the engine lands within 0.01 of it, on the free side.
    assert abs(mage["x"] - 4.3) <= 0.01 and mage["x"] <= 4.3 and mage["y"] == 5
    assert [e["target"] for e in of_kind(events, "shield_cleared")] == ["a0"]


def test_agents_start_unshielded(backend):
    from marl_bgs.core.position import starting_position

    g = Game(starting_position(47), backend)
    assert all(a["shield"] == 0 for t in g.state_dict()["teams"] for a in t["agents"])


@pytest.mark.parametrize("cls, delay, max_hp", [("rogue", 3, 100), ("mage", 5, 80)])
def test_out_of_combat_healing_after_the_delay(backend, cls, delay, max_hp):
    g = Game(position([agent(cls, 8, 5, health=40)], [FAR]), backend)
    for _ in range(delay):
        idle(g)
        assert agent_state(g, 0, 0)["health"] == 40
    events = idle(g)  # the first heal comes on quiet tick delay + 1
    step = 0.04 * max_hp
    assert agent_state(g, 0, 0)["health"] == pytest.approx(40 + step)
    assert of_kind(events, "rest_heal")[0]["amount"] == pytest.approx(step)
    idle(g)
    assert agent_state(g, 0, 0)["health"] == pytest.approx(40 + 2 * step)


def test_out_of_combat_healing_is_cut_by_poison(backend):
    g = Game(
        position(
            [agent("rogue", 8, 5, health=40, out_of_combat=3, effects={"healing_cut": 2})], [FAR]
        ),
        backend,
    )
    idle(g)
    assert agent_state(g, 0, 0)["health"] == pytest.approx(42)


def test_out_of_combat_healing_stops_at_full_health(backend):
    g = Game(position([agent("rogue", 8, 5, health=99, out_of_combat=9)], [FAR]), backend)
    events = idle(g)
    assert agent_state(g, 0, 0)["health"] == 100
    assert of_kind(events, "rest_heal")[0]["amount"] == 1
    events = idle(g)
    assert of_kind(events, "rest_heal") == []


def test_taking_damage_resets_the_count(backend):
    g = Game(
        position([agent("rogue", 8, 5, health=40, out_of_combat=7)], [agent("hunter", 11, 5)]),
        backend,
    )
    play(g, [STAY], [(0, enemy(0), 0)])
    rogue = agent_state(g, 0, 0)
    assert rogue["out_of_combat"] == 0 and rogue["health"] == 34  # no rest heal that tick


def test_dealing_damage_is_combat(backend):
    g = Game(position([agent("hunter", 8, 5, out_of_combat=7)], [agent("rogue", 11, 5)]), backend)
    play(g, [(0, enemy(0), 0)], [STAY])
    assert agent_state(g, 0, 0)["out_of_combat"] == 0


def test_healing_an_agent_in_combat_puts_the_healer_in_combat(backend):
    team_a = [
        agent("priest", 5, 5, out_of_combat=9),
        agent("rogue", 7, 5, health=50, out_of_combat=1),
    ]
    g = Game(position(team_a, [FAR]), backend)
    play(g, [(0, own(1), 0), STAY], [STAY])
    assert agent_state(g, 0, 0)["out_of_combat"] == 0
    assert agent_state(g, 0, 1)["out_of_combat"] == 0


def test_healing_a_rested_agent_is_not_combat(backend):
    team_a = [
        agent("priest", 5, 5, out_of_combat=9),
        agent("rogue", 7, 5, health=50, out_of_combat=3),
    ]
    g = Game(position(team_a, [FAR]), backend)
    play(g, [(0, own(1), 0), STAY], [STAY])
    assert agent_state(g, 0, 0)["out_of_combat"] == 10
    assert agent_state(g, 0, 1)["out_of_combat"] == 4
    assert agent_state(g, 0, 1)["health"] == 50 + 8 + 4  # heal and rest heal both


def test_shielded_agents_still_heal_out_of_combat(backend):
    g = Game(position([agent("rogue", 3, 5, health=50, shield=2, out_of_combat=3)], [FAR]), backend)
    idle(g)
    assert agent_state(g, 0, 0)["health"] == 54


def test_death_resets_the_count_and_it_stays_zero(backend):
    g = Game(
        position([agent("rogue", 8, 5, health=1, out_of_combat=2)], [agent("mage", 10, 5)]),
        backend,
    )
    play(g, [STAY], [(0, enemy(0), 0)])
    for _ in range(3):
        assert agent_state(g, 0, 0)["out_of_combat"] == 0
        idle(g)
