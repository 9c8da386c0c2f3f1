"""core/tick.py: the order of a tick's phases (legal orders from start-of-tick sight, combat,
Charge, movement, statuses, deaths and points, the respawn wave, rest healing, the result),
each from a hand-built position where another order would give another outcome."""

from __future__ import annotations

import pytest

from marl_bgs import Game
from tests.helpers import STAY, E, W, agent, agent_state, enemy, idle, of_kind, play, position

FAR = agent("rogue", 18, 9)
APPROX = 1e-3


def test_combat_reads_start_of_tick_positions_before_anyone_moves():
    # Both step apart (W and E, 1 unit each) as the Mage fires from exactly its range 3.
    g = Game(position([agent("mage", 5, 5)], [agent("rogue", 8, 5)]))
    events = play(g, [(W, enemy(0), 0)], [(E, 0, 0)])
    assert [e["amount"] for e in of_kind(events, "damage")] == [14.95]  # 13 x 1.15
    assert agent_state(g, 0, 0)["x"] == 4  # both still moved
    assert agent_state(g, 1, 0)["x"] == pytest.approx(8 + 1.3, abs=APPROX)


def test_legality_is_judged_before_the_move():
    # 3.2 away: out of the Mage's range 3 at the start; a step E would bring it to 2.2.
    g = Game(position([agent("mage", 5, 5)], [agent("rogue", 8.2, 5)]))
    events = play(g, [(E, enemy(0), 0)], [STAY])
    assert of_kind(events, "damage") == []
    assert agent_state(g, 0, 0)["last_action"] == [E, 0, 0]  # the attack dropped, the move kept
    assert agent_state(g, 0, 0)["x"] == 6


def test_an_agent_killed_in_combat_does_not_move():
    g = Game(position([agent("rogue", 8, 5, health=1)], [agent("mage", 10, 8)]))
    play(g, [(W, 0, 0)], [(0, enemy(0), 0)])  # dist sqrt(4 + 9) = 3.6: out of range
    assert agent_state(g, 0, 0)["x"] == pytest.approx(8 - 1.3, abs=APPROX)
    g = Game(position([agent("rogue", 8, 5, health=1)], [agent("mage", 10, 7)]))
    play(g, [(W, 0, 0)], [(0, enemy(0), 0)])  # dist sqrt(4 + 4) = 2.83: killed, stays put
    rogue = agent_state(g, 0, 0)
    assert not rogue["alive"] and rogue["x"] == 8


@pytest.mark.parametrize("victim_health, warrior_x", [(1, 6.0), (100, 6.5)])
def test_a_body_killed_this_tick_blocks_no_movement(victim_health, warrior_x):
    # The Warrior bashes the Rogue 1.5 away (8 damage) and steps 1 toward it. A dead Rogue
    # is no body: the Warrior reaches x = 6; a living one stops it touching, at 5.5 + 1.
    g = Game(position([agent("rogue", 5.5, 5, health=victim_health)], [agent("warrior", 7, 5)]))
    play(g, [STAY], [(W, enemy(0), 0)])
    assert agent_state(g, 1, 0)["x"] == pytest.approx(warrior_x, abs=0.006)
    assert agent_state(g, 0, 0)["alive"] == (victim_health > 8)


def test_this_tick_s_stun_and_slow_act_only_from_the_next_tick():
    # Crippling Poison stuns (1) and slows (5) the Rogue, which still runs at full speed now.
    g = Game(position([agent("rogue", 5, 5)], [agent("rogue", 6.5, 5)]))
    play(g, [(0, enemy(0), 1)], [(E, 0, 0)])
    assert agent_state(g, 1, 0)["x"] == pytest.approx(6.5 + 1.3, abs=APPROX)
    play(g, [STAY], [(E, 0, 0)])  # stunned: no move
    assert agent_state(g, 1, 0)["x"] == pytest.approx(7.8, abs=APPROX)
    play(g, [STAY], [(E, 0, 0)])  # slowed to half: 1.3 x 0.5
    assert agent_state(g, 1, 0)["x"] == pytest.approx(7.8 + 0.65, abs=APPROX)


def test_effects_age_before_new_ones_apply_and_die_with_their_agent():
    # A slow_poison of 3 ages to 2; a killed agent keeps no effects.
    g = Game(
        position(
            [agent("rogue", 8, 5, effects={"slow_poison": 3}),
             agent("rogue", 8, 8, health=1, effects={"slow_poison": 3})],
            [agent("mage", 10.5, 8)],
        )
    )  # fmt: skip
    play(g, [STAY, STAY], [(0, enemy(1), 0)])
    assert agent_state(g, 0, 0)["effects"]["slow_poison"] == 2
    assert agent_state(g, 0, 1)["effects"]["slow_poison"] == 0


def test_a_dead_agent_respawns_at_full_health_with_a_shield_and_no_rest_heal():
    team_a = [agent("warrior", 8, 5, alive=False, health=0)]
    g = Game(position(team_a, [FAR], wave_clocks=(1, 5)))
    events = idle(g)
    warrior = agent_state(g, 0, 0)
    assert (warrior["x"], warrior["y"], warrior["health"]) == (0.5, 1.0, 200)
    assert warrior["shield"] == 3 and warrior["out_of_combat"] == 0
    assert of_kind(events, "rest_heal") == []
    assert g.state_dict()["teams"][0]["wave_clock"] == 5  # reset after firing


def test_wave_clocks_count_down_per_team():
    g = Game(position([agent("mage", 8, 5)], [FAR], wave_clocks=(3, 5)))
    idle(g)
    assert [t["wave_clock"] for t in g.state_dict()["teams"]] == [2, 4]


def test_the_winning_tick_is_played_in_full():
    # The kill wins the game; the same tick team b's wave still returns its dead b1 and a0
    # still rests (out of combat for 5 ticks, 40 of 80 HP: + 3.2).
    g = Game(
        position(
            [agent("mage", 8, 5), agent("mage", 8, 1, health=40, out_of_combat=5)],
            [agent("rogue", 10, 5, health=1), agent("rogue", 12, 9, alive=False)],
            wave_clocks=(5, 1),
            score=[19, 0],
        )
    )
    events = play(g, [(0, enemy(0), 0), STAY], [STAY, STAY])
    assert g.done and g.result == "a"
    assert [e["kind"] for e in events] == ["damage", "death", "respawn", "rest_heal", "game_end"]
    b1 = agent_state(g, 1, 1)
    assert b1["alive"] and (b1["x"], b1["y"]) == (19.5, 3.0)
    assert agent_state(g, 0, 1)["health"] == pytest.approx(43.2, abs=APPROX)
    assert g.state_dict()["tick"] == 1


def test_rest_heal_comes_after_the_cap_and_on_top_of_combat_health():
    # A Rogue at 97.5 HP resting: +4 is capped at max health 100, so only 2.5 is healed.
    g = Game(position([agent("rogue", 8, 5, health=97.5, out_of_combat=3)], [FAR]))
    events = idle(g)
    assert of_kind(events, "rest_heal")[0]["amount"] == 2.5
    assert agent_state(g, 0, 0)["health"] == 100
