"""The class table: the only place in the project where class numbers live.

Pages, tests, the browser and the LLM text view all read these values from here, so a
balance change is a one-line edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

TargetKind = Literal["enemy", "ally", "self"]


@dataclass(frozen=True, kw_only=True)
class ClassSpec:
    """One class's numbers and ability names (Table S3 as refined by RULES.md)."""

    name: str
    title: str
    role: str
    max_health: float
    speed: float
    sight: float
    basic_name: str
    basic_target: TargetKind
    basic_range: float
    basic_damage: float
    basic_heal: float
    ultimate_name: str
    ultimate_target: TargetKind
    ultimate_range: float
    ultimate_damage: float
    ultimate_heal: float
    passive_name: str
    out_of_combat_delay: int


MAGE, WARRIOR, HUNTER, ROGUE, PRIEST = range(5)

CLASSES: tuple[ClassSpec, ...] = (
    ClassSpec(
        name="mage", title="Mage", role="Glass-Cannon Artillery",
        max_health=80.0, speed=1.0, sight=6.0,
        basic_name="Arcane Blast", basic_target="enemy", basic_range=3.0,
        basic_damage=13.0, basic_heal=0.0,
        ultimate_name="Burst", ultimate_target="self",
        ultimate_range=0.0, ultimate_damage=0.0, ultimate_heal=0.0,
        passive_name="Sorcerer's Empowerment", out_of_combat_delay=5,
    ),
    ClassSpec(
        name="warrior", title="Warrior", role="Tank",
        max_health=200.0, speed=1.0, sight=6.0,
        basic_name="Shield Bash", basic_target="enemy", basic_range=1.5,
        basic_damage=8.0, basic_heal=0.0,
        ultimate_name="Charge", ultimate_target="enemy",
        ultimate_range=5.75, ultimate_damage=20.0, ultimate_heal=0.0,
        passive_name="Guardian's Barrier", out_of_combat_delay=5,
    ),
    ClassSpec(
        name="hunter", title="Hunter", role="Scout and Crowd Controller",
        max_health=100.0, speed=1.0, sight=6.5,
        basic_name="Serrated Arrows", basic_target="enemy", basic_range=3.5,
        basic_damage=6.0, basic_heal=0.0,
        ultimate_name="Freezing Trap", ultimate_target="enemy",
        ultimate_range=3.0, ultimate_damage=10.0, ultimate_heal=0.0,
        passive_name="Far Sight", out_of_combat_delay=5,
    ),
    ClassSpec(
        name="rogue", title="Rogue", role="Assassin",
        max_health=100.0, speed=1.3, sight=6.0,
        basic_name="Backstab", basic_target="enemy", basic_range=1.5,
        basic_damage=12.0, basic_heal=0.0,
        ultimate_name="Crippling Poison", ultimate_target="enemy",
        ultimate_range=1.5, ultimate_damage=36.0, ultimate_heal=0.0,
        passive_name="Phantom's Quickness", out_of_combat_delay=3,
    ),
    ClassSpec(
        name="priest", title="Priest", role="Healer",
        max_health=100.0, speed=1.0, sight=6.0,
        basic_name="Lesser Heal", basic_target="ally", basic_range=3.0,
        basic_damage=0.0, basic_heal=8.0,
        ultimate_name="Holy Word: Salvation", ultimate_target="ally",
        ultimate_range=5.75, ultimate_damage=0.0, ultimate_heal=200.0,
        passive_name="Blessing of Freedom", out_of_combat_delay=5,
    ),
)  # fmt: skip

CLASS_NAMES: tuple[str, ...] = tuple(c.name for c in CLASSES)
CLASS_INDEX: dict[str, int] = {name: i for i, name in enumerate(CLASS_NAMES)}
NUM_CLASSES = len(CLASSES)  # the width of a class one-hot (the learners' class input)

# Rules shared by every class (RULES.md, "All").
BODY_RADIUS = 0.5
ULTIMATE_COOLDOWN = 30
OUT_OF_COMBAT_HEAL_SHARE = 0.04
SLOW_FLOOR = 0.2
AURA_RADIUS = 2.0
AURA_MAX_EMITTERS = 2
MAGE_AURA_FACTOR = 1.15
WARRIOR_AURA_FACTOR = 0.85
BURST_FACTOR = 1.5
SHIELD_SPEED = 2.0
SHIELD_TICKS = 3
RESPAWN_PERIOD = 5
POISON_HEALING_FACTOR = 0.5
BLESSING_SPEED_FLOOR = 0.85

# Status effects: name, full duration in ticks, and (for slows) the speed factor.
EFFECT_NAMES: tuple[str, ...] = (
    "stun",
    "trap",
    "slow_hunter",
    "slow_charge",
    "slow_poison",
    "healing_cut",
    "burst",
    "blessing",
)
STUN, TRAP, SLOW_HUNTER, SLOW_CHARGE, SLOW_POISON, HEALING_CUT, BURST, BLESSING = range(8)
NUM_EFFECTS = len(EFFECT_NAMES)
EFFECT_DURATION: tuple[int, ...] = (1, 4, 1, 5, 5, 4, 5, 1)
SLOW_FACTORS: dict[int, float] = {SLOW_HUNTER: 0.85, SLOW_CHARGE: 0.5, SLOW_POISON: 0.5}


def speed_factor(slows: tuple[float, ...], blessed: bool) -> float:
    """Share of base speed left under these slows: they multiply, floor 20%; Blessing 85%."""
    factor = 1.0
    for slow in slows:
        factor *= slow
    factor = max(factor, SLOW_FLOOR)
    return max(factor, BLESSING_SPEED_FLOOR) if blessed else factor


def _column(field: str, dtype: type) -> np.ndarray:
    return np.asarray([getattr(c, field) for c in CLASSES], dtype=dtype)


# Per-class columns indexed by class id, for branch-free array code.
MAX_HEALTH = _column("max_health", np.float32)
SPEED = _column("speed", np.float32)
SIGHT = _column("sight", np.float32)
BASIC_RANGE = _column("basic_range", np.float32)
ULTIMATE_RANGE = _column("ultimate_range", np.float32)
OUT_OF_COMBAT_DELAY = _column("out_of_combat_delay", np.int32)
BASIC_TARGETS_ALLY = np.asarray([c.basic_target == "ally" for c in CLASSES])
ULTIMATE_TARGETS_ALLY = np.asarray([c.ultimate_target == "ally" for c in CLASSES])
ULTIMATE_IS_SELF = np.asarray([c.ultimate_target == "self" for c in CLASSES])

# Effects each Ultimate and Basic applies to its target: (class, effect) -> True.
ULTIMATE_EFFECTS = np.zeros((5, NUM_EFFECTS), dtype=bool)
ULTIMATE_EFFECTS[WARRIOR, [STUN, SLOW_CHARGE]] = True
ULTIMATE_EFFECTS[HUNTER, TRAP] = True
ULTIMATE_EFFECTS[ROGUE, [STUN, SLOW_POISON, HEALING_CUT]] = True
BASIC_EFFECTS = np.zeros((5, NUM_EFFECTS), dtype=bool)
BASIC_EFFECTS[HUNTER, SLOW_HUNTER] = True
BASIC_EFFECTS[PRIEST, BLESSING] = True
SELF_EFFECTS_ON_ULTIMATE = np.zeros((5, NUM_EFFECTS), dtype=bool)
SELF_EFFECTS_ON_ULTIMATE[MAGE, BURST] = True


# Integer tables for the engines: milli-units and milli-HP, computed once here in float64 so
# that both engines look up identical whole numbers instead of multiplying floats.
def _milli_sq(values: np.ndarray) -> np.ndarray:
    return np.round(values.astype(np.float64) * 1000).astype(np.int64) ** 2


SIGHT_SQ = _milli_sq(SIGHT).astype(np.int32)
BASIC_RANGE_SQ = _milli_sq(BASIC_RANGE).astype(np.int32)
ULTIMATE_RANGE_SQ = _milli_sq(ULTIMATE_RANGE).astype(np.int32)
AURA_RADIUS_SQ = int(round(AURA_RADIUS * 1000)) ** 2
MAX_HEALTH_MILLI = np.round(MAX_HEALTH.astype(np.float64) * 1000).astype(np.int32)


def _damage_table() -> np.ndarray:
    """[class, ultimate, Mage auras 0-2, Burst 0/1, Warrior auras 0-2] -> damage in milli-HP."""
    table = np.zeros((5, 2, 3, 2, 3), np.int32)
    for c, spec in enumerate(CLASSES):
        for u, base in enumerate((spec.basic_damage, spec.ultimate_damage)):
            for mages in range(3):
                for burst in range(2):
                    for warriors in range(3):
                        value = (
                            base
                            * MAGE_AURA_FACTOR**mages
                            * (BURST_FACTOR if burst else 1.0)
                            * WARRIOR_AURA_FACTOR**warriors
                        )
                        table[c, u, mages, burst, warriors] = round(value * 1000)
    return table


def _heal_table() -> np.ndarray:
    """[class, ultimate, healing cut 0/1] -> healing in milli-HP."""
    table = np.zeros((5, 2, 2), np.int32)
    for c, spec in enumerate(CLASSES):
        for u, base in enumerate((spec.basic_heal, spec.ultimate_heal)):
            for cut in range(2):
                table[c, u, cut] = round(base * (POISON_HEALING_FACTOR if cut else 1.0) * 1000)
    return table


def _rest_table() -> np.ndarray:
    """[class, healing cut 0/1] -> out-of-combat healing per tick in milli-HP."""
    return np.asarray(
        [
            [
                round(OUT_OF_COMBAT_HEAL_SHARE * c.max_health * f * 1000)
                for f in (1.0, POISON_HEALING_FACTOR)
            ]
            for c in CLASSES
        ],
        np.int32,
    )


DAMAGE_MILLI = _damage_table()
HEAL_MILLI = _heal_table()
REST_HEAL_MILLI = _rest_table()
