"""The "How a match works" page (marl_bgs/site/rules_page.py): its numbers are the class
table's, formatted as the page formats them, and the results of the games it plays match
arithmetic done by hand from that table."""

from __future__ import annotations

import dataclasses

import pytest

from marl_bgs.core import classes
from marl_bgs.site import rules_page


def _flat(text: str) -> str:
    """The page with every run of white space made one space (the template wraps lines)."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def page() -> str:
    return _flat(rules_page.rules_page())


def test_page_shows_class_table_numbers(page):
    for words in (
        # Mage Basic range 3.0 is written '3'; the target stands 3 + 0.5 = 3.5 away.
        "Arcane Blast (3 units of range) on a target 3.5 units away",
        "Holy Word: Salvation (200 healing)",  # Priest ultimate_heal 200.0
        "Serrated Arrows (6 base damage)",  # Hunter basic_damage 6.0
        "The Warrior's Charge (range 5.75)",  # Warrior ultimate_range 5.75
        "The target takes 20 damage",  # Warrior ultimate_damage 20.0
        "(centres 1 apart)",  # 2 * BODY_RADIUS = 2 * 0.5
        "multiplies the damage its allies deal by 1.15",  # MAGE_AURA_FACTOR
        "multiplies the damage its allies take by 0.85",  # WARRIOR_AURA_FACTOR
        "ready again 30 ticks after it was used",  # ULTIMATE_COOLDOWN
        "freezes its target for 4 ticks",  # EFFECT_DURATION[TRAP]
        "The Hunter's Freezing Trap deals 10 damage",  # Hunter ultimate_damage 10.0
        "never below 20% of base speed",  # SLOW_FLOOR 0.2 * 100
        "recovers 4% of its maximum health",  # OUT_OF_COMBAT_HEAL_SHARE 0.04 * 100
        "out of combat for 5 ticks (Rogue: 3)",  # delays: Mage 5, Rogue 3
        "sight radius (6 units; the Hunter's Far Sight gives 6.5)",
        "bottom to top: Mage, Warrior, Hunter, Rogue, Priest.",
        "a period of 5 ticks",  # RESPAWN_PERIOD
        "moves 2 units per tick",  # SHIELD_SPEED 2.0
    ):
        assert words in page, words


def test_games_played_for_the_page_match_hand_arithmetic(page):
    # Mage Basic 13 under its own aura: 13 * 1.15 = 14.95.
    assert "a0 (Mage) hits b0 (Rogue) with Arcane Blast for 14.95 damage" in page
    # 10 health - 14.95 damage + 8 Lesser Heal = 3.05 left.
    assert "the left Mage has 10 health" in page
    assert "it ends the tick on 3.05" in page
    # Warrior at 200 - 10 = 190 health gets a 200 heal: 10 useful, 190 excess.
    assert "for 200: 10 useful, 190 excess" in page
    # Hunter 6 * Mage aura 1.15 * target's Warrior aura 0.85 = 5.865; without auras 6.
    assert "it deals 5.865. The lower pair has no auras around it: 6." in page
    # Burst on the next tick: 13 * 1.15 * 1.5 = 22.425.
    assert "tick 2: a0 (Mage) hits b0 (Hunter) with Arcane Blast for 22.425 damage" in page
    # Freezing Trap 10 on a Warrior (own aura): 10 * 0.85 = 8.5.
    assert "with Freezing Trap for 8.5 damage" in page
    # Rogue speed 1.3; slowed next tick to 1.3 * 0.85 = 1.105.
    assert "full step (1.3) in the tick it is hit" in page
    assert "slowed (1.105)" in page
    # Charge from (3, 5) to the Mage at (8.5, 5) stops bodies touching: 8.5 - 1 = 7.5.
    assert "lands at (7.5, 5)" in page
    # Rest: 4% of 80 = 3.2 for the Mage, 4% of 100 = 4 for the Rogue.
    assert "a0 (Mage) recovers 3.2 health" in page
    assert "a1 (Rogue) recovers 4 health" in page
    # Winning: 19 + 1 = 20 reached; horizon draw at tick 300.
    assert "team a wins, 20-7" in page
    assert "the horizon (300 ticks by default)" in page


def test_legality_section_places_the_target_from_the_mage_range():
    section = rules_page.legality()
    assert section["far"] == 3.5  # basic_range 3.0 + 0.5
    assert section["accepted"] == [0, 0, 0]  # out of range: stay, no target, no Ultimate


def test_a_changed_class_value_changes_the_page(monkeypatch):
    cl = rules_page.CL
    monkeypatch.setitem(cl, "hunter", dataclasses.replace(cl["hunter"], basic_damage=7.0))
    monkeypatch.setitem(cl, "mage", dataclasses.replace(cl["mage"], basic_range=4.0))
    monkeypatch.setitem(cl, "priest", dataclasses.replace(cl["priest"], ultimate_heal=150.0))
    text = _flat(rules_page.rules_page())
    assert "Serrated Arrows (7 base damage)" in text
    assert "Serrated Arrows (6 base damage)" not in text
    # The target is placed from the range: 4 + 0.5 = 4.5.
    assert "Arcane Blast (4 units of range) on a target 4.5 units away" in text
    assert "Holy Word: Salvation (150 healing)" in text


def test_a_changed_shared_constant_changes_the_page(monkeypatch):
    monkeypatch.setattr(classes, "ULTIMATE_COOLDOWN", 45)
    monkeypatch.setattr(classes, "MAGE_AURA_FACTOR", 1.25)
    text = _flat(rules_page.rules_page())
    assert "ready again 45 ticks after it was used" in text
    assert "multiplies the damage its allies deal by 1.25" in text
    assert "ready again 30 ticks" not in text


def test_rest_delays_are_read_from_the_class_table(monkeypatch):
    specs = list(classes.CLASSES)
    specs[classes.ROGUE] = dataclasses.replace(specs[classes.ROGUE], out_of_combat_delay=4)
    monkeypatch.setattr(classes, "CLASSES", tuple(specs))
    section = rules_page.resting()
    assert section["slower"] == ["Rogue"]
    assert section["slower_delay"] == 4
