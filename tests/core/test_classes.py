"""core/classes.py: the class table agrees with itself and with its integer tables (values
written out by hand from RULES.md's numbers)."""

from __future__ import annotations

import pytest

from marl_bgs.core import classes as c


def test_class_ids_names_and_index():
    assert (c.MAGE, c.WARRIOR, c.HUNTER, c.ROGUE, c.PRIEST) == (0, 1, 2, 3, 4)
    assert c.CLASS_NAMES == ("mage", "warrior", "hunter", "rogue", "priest")
    assert c.CLASS_INDEX == {"mage": 0, "warrior": 1, "hunter": 2, "rogue": 3, "priest": 4}
    assert c.NUM_CLASSES == 5
    assert [spec.title for spec in c.CLASSES] == ["Mage", "Warrior", "Hunter", "Rogue", "Priest"]


def test_every_class_has_a_distinct_basic_ultimate_and_passive():
    names = [n for s in c.CLASSES for n in (s.basic_name, s.ultimate_name, s.passive_name)]
    assert all(names) and len(set(names)) == 15


def test_per_class_columns():
    assert c.MAX_HEALTH.tolist() == [80, 200, 100, 100, 100]
    assert c.SPEED.tolist() == pytest.approx([1.0, 1.0, 1.0, 1.3, 1.0])
    assert c.SIGHT.tolist() == [6.0, 6.0, 6.5, 6.0, 6.0]
    assert c.OUT_OF_COMBAT_DELAY.tolist() == [5, 5, 5, 3, 5]


def test_squared_ranges_in_milli_units():
    # (range x 1000) squared, by hand.
    assert c.SIGHT_SQ.tolist() == [36_000_000] * 2 + [42_250_000] + [36_000_000] * 2
    assert c.BASIC_RANGE_SQ.tolist() == [9_000_000, 2_250_000, 12_250_000, 2_250_000, 9_000_000]
    assert c.ULTIMATE_RANGE_SQ.tolist() == [0, 33_062_500, 9_000_000, 2_250_000, 33_062_500]
    assert c.AURA_RADIUS_SQ == 4_000_000
    assert c.MAX_HEALTH_MILLI.tolist() == [80_000, 200_000, 100_000, 100_000, 100_000]


def test_targets():
    assert c.BASIC_TARGETS_ALLY.tolist() == [False, False, False, False, True]
    assert c.ULTIMATE_TARGETS_ALLY.tolist() == [False, False, False, False, True]
    assert c.ULTIMATE_IS_SELF.tolist() == [True, False, False, False, False]
    burst = c.CLASSES[c.MAGE]  # a self Ultimate has no range and does nothing to others
    assert (burst.ultimate_range, burst.ultimate_damage, burst.ultimate_heal) == (0, 0, 0)


def test_each_ability_either_damages_or_heals_by_its_target():
    for s in c.CLASSES:
        for target, damage, heal in (
            (s.basic_target, s.basic_damage, s.basic_heal),
            (s.ultimate_target, s.ultimate_damage, s.ultimate_heal),
        ):
            if target == "enemy":
                assert damage > 0 and heal == 0, s.name
            else:
                assert damage == 0, s.name


def test_effect_names_indices_and_durations_line_up():
    assert len(c.EFFECT_NAMES) == len(c.EFFECT_DURATION) == c.NUM_EFFECTS == 8
    named = {
        c.STUN: ("stun", 1), c.TRAP: ("trap", 4), c.SLOW_HUNTER: ("slow_hunter", 1),
        c.SLOW_CHARGE: ("slow_charge", 5), c.SLOW_POISON: ("slow_poison", 5),
        c.HEALING_CUT: ("healing_cut", 4), c.BURST: ("burst", 5), c.BLESSING: ("blessing", 1),
    }  # fmt: skip
    for index, (name, ticks) in named.items():
        assert (c.EFFECT_NAMES[index], c.EFFECT_DURATION[index]) == (name, ticks)
    assert {c.EFFECT_NAMES[e] for e in c.SLOW_FACTORS} == {
        "slow_hunter", "slow_charge", "slow_poison",
    }  # fmt: skip
    assert c.SLOW_FACTORS == {c.SLOW_HUNTER: 0.85, c.SLOW_CHARGE: 0.5, c.SLOW_POISON: 0.5}


def _effects(row) -> set[str]:
    return {c.EFFECT_NAMES[e] for e, on in enumerate(row) if on}


def test_ability_effects_by_class():
    ult = [_effects(row) for row in c.ULTIMATE_EFFECTS]
    assert ult == [set(), {"stun", "slow_charge"}, {"trap"},
                   {"stun", "slow_poison", "healing_cut"}, set()]  # fmt: skip
    basic = [_effects(row) for row in c.BASIC_EFFECTS]
    assert basic == [set(), set(), {"slow_hunter"}, set(), {"blessing"}]
    own = [_effects(row) for row in c.SELF_EFFECTS_ON_ULTIMATE]
    assert own == [{"burst"}, set(), set(), set(), set()]


@pytest.mark.parametrize(
    "slows, blessed, factor",
    [
        ((), False, 1.0),
        ((0.85,), False, 0.85),
        ((0.5, 0.5), False, 0.25),
        ((0.5, 0.5, 0.85), False, 0.2125),
        ((0.5, 0.5, 0.5), False, 0.2),  # 0.125 floored at 20%
        ((0.5,), True, 0.85),  # Blessing lifts to 85%
        ((), True, 1.0),  # and never lowers
    ],
)
def test_speed_factor(slows, blessed, factor):
    assert c.speed_factor(slows, blessed) == pytest.approx(factor)


def test_damage_table_entries():
    assert c.DAMAGE_MILLI.shape == (5, 2, 3, 2, 3)
    # [class, ultimate, Mage auras, Burst, Warrior auras]
    assert c.DAMAGE_MILLI[c.MAGE, 0, 0, 0, 0] == 13_000
    assert c.DAMAGE_MILLI[c.MAGE, 0, 1, 0, 0] == 14_950  # 13 x 1.15
    # 13 x 1.15^2 x 1.5 x 0.85^2 = 13 x 1.3225 x 1.5 x 0.7225 = 18.632371875
    assert c.DAMAGE_MILLI[c.MAGE, 0, 2, 1, 2] == 18_632
    assert c.DAMAGE_MILLI[c.WARRIOR, 1, 0, 0, 0] == 20_000  # Charge
    assert c.DAMAGE_MILLI[c.HUNTER, 1, 0, 0, 0] == 10_000  # Freezing Trap
    assert c.DAMAGE_MILLI[c.ROGUE, 1, 0, 0, 1] == 30_600  # Poison 36 x 0.85
    assert c.DAMAGE_MILLI[c.ROGUE, 0, 0, 0, 2] == 8_670  # 12 x 0.7225
    assert not c.DAMAGE_MILLI[c.PRIEST].any()  # the Priest deals no damage
    assert not c.DAMAGE_MILLI[c.MAGE, 1].any()  # Burst itself deals none


def test_heal_and_rest_tables():
    assert c.HEAL_MILLI[c.PRIEST].tolist() == [[8_000, 4_000], [200_000, 100_000]]
    assert not c.HEAL_MILLI[: c.PRIEST].any()
    # 4% of max health per quiet tick, halved under Poison's cut.
    assert c.REST_HEAL_MILLI.tolist() == [
        [3_200, 1_600], [8_000, 4_000], [4_000, 2_000], [4_000, 2_000], [4_000, 2_000],
    ]  # fmt: skip


def test_shared_rule_constants():
    assert (c.BODY_RADIUS, c.ULTIMATE_COOLDOWN, c.RESPAWN_PERIOD, c.SHIELD_TICKS) == (0.5, 30, 5, 3)
    assert (c.AURA_RADIUS, c.AURA_MAX_EMITTERS) == (2.0, 2)
    assert (c.MAGE_AURA_FACTOR, c.WARRIOR_AURA_FACTOR, c.BURST_FACTOR) == (1.15, 0.85, 1.5)
