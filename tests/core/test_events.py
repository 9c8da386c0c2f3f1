"""core/events.py: the exact readable event list one tick gives, from hand-built positions.

Amounts are hand-computed from the class table (RULES.md numbers): a Mage's own aura counts
for itself (x1.15), a Warrior's aura protects itself (x0.85).
"""

from __future__ import annotations

import pytest

from marl_bgs import Game
from marl_bgs.core.events import agent_name
from tests.helpers import STAY, agent, enemy, idle, of_kind, own, play, position

FAR = agent("rogue", 18, 9)


def test_agent_names_by_team_letter_and_slot():
    # Slots 0-4 are team a, 5-9 team b; the number is the slot within the team.
    assert [agent_name(s) for s in range(10)] == [
        "a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2", "b3", "b4",
    ]  # fmt: skip


def test_a_quiet_tick_has_no_events():
    g = Game(position([agent("mage", 8, 5)], [FAR]))
    assert idle(g) == []


def test_hunter_basic_is_a_damage_event_then_its_slow():
    g = Game(position([agent("hunter", 5, 5)], [agent("rogue", 8, 5)]))
    events = play(g, [(0, enemy(0), 0)], [STAY])
    assert events == [
        # Serrated Arrows: 6 damage, no auras either side.
        {"kind": "damage", "source": "a0", "target": "b0", "ability": "Serrated Arrows",
         "amount": 6.0},
        # slow_hunter lasts 1 tick (EFFECT_DURATION[2]).
        {"kind": "effect", "source": "a0", "target": "b0", "effect": "slow_hunter", "ticks": 1},
    ]  # fmt: skip


def test_mage_basic_amount_counts_both_auras():
    g = Game(position([agent("mage", 5, 5)], [agent("warrior", 7, 5)]))
    (hit,) = play(g, [(0, enemy(0), 0)], [STAY])
    # 13 x 1.15 (own Mage aura) x 0.85 (the Warrior's own aura) = 12.7075 HP = 12707.5
    # milli-HP, rounded half to even (Python's round) to 12708.
    assert hit["ability"] == "Arcane Blast"
    assert hit["amount"] == 12.708


def test_team_b_source_and_target_names_follow_their_slots():
    team_b = [agent("mage", 15, 9), agent("mage", 15, 7), agent("rogue", 11, 5)]
    g = Game(position([agent("warrior", 10, 5)], team_b))
    events = play(g, [STAY], [STAY, STAY, (0, enemy(0), 0)])
    # b2 (slot 7) hits a0 with Backstab: 12 x 0.85 (the Warrior's aura) = 10.2.
    assert events == [
        {"kind": "damage", "source": "b2", "target": "a0", "ability": "Backstab",
         "amount": pytest.approx(10.2, abs=1e-9)},
    ]  # fmt: skip


def test_damage_events_are_ordered_by_source_slot():
    # Both sides fire the same tick: a0 on b0 first, then b0 on a0 (source order, not team).
    g = Game(position([agent("hunter", 5, 5)], [agent("rogue", 6.5, 5)]))
    events = play(g, [(0, enemy(0), 0)], [(0, enemy(0), 0)])
    assert [(e["kind"], e["source"], e["target"]) for e in events] == [
        ("damage", "a0", "b0"),
        ("damage", "b0", "a0"),
        ("effect", "a0", "b0"),  # effects come after every damage and heal event
    ]
    assert [e["amount"] for e in of_kind(events, "damage")] == [6.0, 12.0]


def test_crippling_poison_lists_its_three_effects_in_table_order():
    g = Game(position([agent("rogue", 5, 5)], [agent("rogue", 6.5, 5)]))
    events = play(g, [(0, enemy(0), 1)], [STAY])
    assert events == [
        {"kind": "damage", "source": "a0", "target": "b0", "ability": "Crippling Poison",
         "amount": 36.0},
        # Effect order is EFFECT_NAMES order: stun (1), slow_poison (5), healing_cut (4).
        {"kind": "effect", "source": "a0", "target": "b0", "effect": "stun", "ticks": 1},
        {"kind": "effect", "source": "a0", "target": "b0", "effect": "slow_poison", "ticks": 5},
        {"kind": "effect", "source": "a0", "target": "b0", "effect": "healing_cut", "ticks": 4},
    ]  # fmt: skip


def test_burst_is_a_self_effect_and_no_damage():
    g = Game(position([agent("mage", 5, 5)], [FAR]))
    events = play(g, [(0, 0, 1)], [STAY])
    assert events == [
        {"kind": "effect", "source": "a0", "target": "a0", "effect": "burst", "ticks": 5}
    ]


def test_priest_basic_is_a_heal_then_a_blessing():
    team_a = [agent("priest", 5, 5), agent("rogue", 8, 5, health=50)]
    g = Game(position(team_a, [FAR]))
    events = play(g, [(0, own(1), 0), STAY], [STAY])
    assert events[:2] == [
        {"kind": "heal", "source": "a0", "target": "a1", "ability": "Lesser Heal", "amount": 8.0},
        {"kind": "effect", "source": "a0", "target": "a1", "effect": "blessing", "ticks": 1},
    ]  # fmt: skip


def test_salvation_over_max_health_reports_the_excess_after_the_heal():
    team_a = [agent("priest", 5, 5), agent("mage", 9, 5, health=10)]
    g = Game(position(team_a, [FAR]))
    events = play(g, [(0, own(1), 1), STAY], [STAY])
    assert events == [
        {"kind": "heal", "source": "a0", "target": "a1", "ability": "Holy Word: Salvation",
         "amount": 200.0},
        # 10 + 200 = 210 against the Mage's 80 max: 130 over.
        {"kind": "excess_heal", "target": "a1", "amount": 130.0},
    ]  # fmt: skip


def test_charge_event_from_start_to_landing_after_its_effects():
    g = Game(position([agent("warrior", 4, 5)], [agent("rogue", 9, 5)]))
    events = play(g, [(0, enemy(0), 1)], [STAY])
    assert [e["kind"] for e in events] == ["damage", "effect", "effect", "charge"]
    assert events[0]["ability"] == "Charge" and events[0]["amount"] == 20.0
    charge = events[3]
    assert (charge["source"], charge["target"], charge["from"]) == ("a0", "b0", [4.0, 5.0])
    # It stops touching the Rogue: centres 1.0 apart, so at (8, 5).
    assert charge["to"] == [pytest.approx(8.0, abs=0.006), 5.0]


def test_a_kill_names_every_damager_in_slot_order():
    # The Mage at (8, 8) is 3.0 from the Rogue (its range) and over 2 from the Hunter (no aura).
    team_b = [agent("hunter", 11, 5), agent("mage", 8, 8)]
    g = Game(position([agent("rogue", 8, 5, health=10)], team_b))
    events = play(g, [STAY], [(0, enemy(0), 0), (0, enemy(0), 0)])
    assert [e["kind"] for e in events] == ["damage", "damage", "effect", "death"]
    assert [e["amount"] for e in of_kind(events, "damage")] == [6.0, 14.95]  # 13 x 1.15
    # 10 - 6 - 14.95 < 0; x = 8 is outside team a's Red Zone (x <= 5): 1 point.
    assert events[-1] == {
        "kind": "death", "target": "a0", "by": ["b0", "b1"], "points": 1, "red_zone": False
    }  # fmt: skip


def test_a_kill_in_the_own_red_zone_is_flagged():
    g = Game(position([agent("rogue", 4, 5, health=1)], [agent("mage", 6, 5)]))
    events = play(g, [STAY], [(0, enemy(0), 0)])
    assert of_kind(events, "death") == [
        {"kind": "death", "target": "a0", "by": ["b0"], "points": 2, "red_zone": True}
    ]


def test_respawn_event_at_the_slot_s_pad():
    # a2 is dead; team a's wave fires at the end of this tick (clock 1 -> 0).
    team_a = [agent("mage", 8, 1), agent("mage", 8, 3), agent("rogue", 8, 7, alive=False)]
    g = Game(position(team_a, [FAR], wave_clocks=(1, 5)))
    events = idle(g)
    # Slot 2's left-end pad: (0.5, PAD_Y[2] = 5.0).
    assert events == [{"kind": "respawn", "target": "a2", "at": [0.5, 5.0]}]


def test_no_respawn_event_before_the_wave():
    team_a = [agent("mage", 8, 1), agent("rogue", 8, 7, alive=False)]
    g = Game(position(team_a, [FAR], wave_clocks=(2, 5)))
    assert idle(g) == []  # clock 2 -> 1: no wave yet
    assert idle(g) == [{"kind": "respawn", "target": "a1", "at": [0.5, 3.0]}]


def test_respawn_comes_before_rest_heal():
    team_a = [agent("mage", 8, 1, health=40, out_of_combat=5), agent("rogue", 8, 7, alive=False)]
    g = Game(position(team_a, [FAR], wave_clocks=(1, 5)))
    events = idle(g)
    assert events == [
        {"kind": "respawn", "target": "a1", "at": [0.5, 3.0]},
        # 4% of the Mage's 80 max health.
        {"kind": "rest_heal", "target": "a0", "amount": pytest.approx(3.2, abs=1e-9)},
    ]


def test_shield_cleared_comes_before_respawn():
    team_a = [agent("mage", 5, 5, shield=1), agent("rogue", 8, 9, alive=False)]
    g = Game(position(team_a, [agent("warrior", 5.3, 5)], wave_clocks=(1, 5)))
    events = idle(g)
    assert [(e["kind"], e["target"]) for e in events] == [
        ("shield_cleared", "a0"),
        ("respawn", "a1"),
    ]
    # Cleared straight out along the line of centres, 1.0 from the Warrior: about (4.3, 5).
    assert events[0]["to"] == [pytest.approx(4.3, abs=0.01), 5.0]


def test_a_winning_kill_ends_with_game_end_after_the_death():
    g = Game(position([agent("mage", 8, 5)], [agent("rogue", 10, 5, health=1)], score=[19, 3]))
    events = play(g, [(0, enemy(0), 0)], [STAY])
    assert [e["kind"] for e in events] == ["damage", "death", "game_end"]
    # x = 10 is outside team b's Red Zone (x >= 15): 1 point, 19 + 1 = 20 wins.
    assert events[-1] == {"kind": "game_end", "result": "a", "score": [20, 3], "tick": 1}
