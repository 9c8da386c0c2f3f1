"""The replay format's field tables (frames, events, views, limits) and its errors.

They live apart from the `Replay` record (`schema.py`) so that the readers, the writer and
the point-of-view filter (`view.py`) can share them without importing one another.
"""

from __future__ import annotations

from ..core import classes
from ..core.actions import HEAD_LIMITS
from ..core.checks import FieldTypeError
from ..core.position import MAX_HORIZON, MAX_WINNING_SCORE
from ..core.state import (
    AGENT_NAMES,
    ARENA_HEIGHT_MILLI,
    ARENA_WIDTH_MILLI,
    MILLI,
    NUM_SLOTS,
    TEAM_SIZE,
    State,
)

REPLAY_FORMAT = "marl-bgs/replay"
REPLAY_VERSION = 1
MAX_BYTES = 50_000_000  # uncompressed; bigger files are refused while reading
MAX_TEXT = 200  # characters in a title or a system name
HIDDEN_ACTION = -1  # an action the point of view did not see
ARENA_X, ARENA_Y = ARENA_WIDTH_MILLI, ARENA_HEIGHT_MILLI

# Every State field: its shape per tick and its allowed range (booleans are 0/1).
FRAME_FIELDS: dict[str, tuple[tuple[int, ...], int, int]] = {
    "tick": ((), 0, MAX_HORIZON),
    "horizon": ((), 1, MAX_HORIZON),
    "winning_score": ((), 1, MAX_WINNING_SCORE),
    "red_zone_depth": ((), 0, ARENA_Y),
    "score": ((2,), 0, MAX_WINNING_SCORE + 2 * TEAM_SIZE),
    "spawn_end": ((2,), 0, 1),
    "wave_clock": ((2,), 0, classes.RESPAWN_PERIOD),
    "result": ((), -1, 2),
    "present": ((NUM_SLOTS,), 0, 1),
    "alive": ((NUM_SLOTS,), 0, 1),
    "cls": ((NUM_SLOTS,), 0, len(classes.CLASSES) - 1),
    "pos": ((NUM_SLOTS, 2), 0, ARENA_X),
    "health": ((NUM_SLOTS,), 0, int(classes.MAX_HEALTH_MILLI.max())),
    "ultimate_cooldown": ((NUM_SLOTS,), 0, classes.ULTIMATE_COOLDOWN - 1),
    "shield": ((NUM_SLOTS,), 0, classes.SHIELD_TICKS),
    "out_of_combat": ((NUM_SLOTS,), 0, 2 * MAX_HORIZON),
    "effects": ((NUM_SLOTS, classes.NUM_EFFECTS), 0, max(classes.EFFECT_DURATION)),
    "last_action": ((NUM_SLOTS, 3), -1, max(HEAD_LIMITS) - 1),
}
assert tuple(FRAME_FIELDS) == State._fields
BOOL_FIELDS = ("present", "alive")
PER_AGENT_FIELDS = tuple(f for f, (shape, _, _) in FRAME_FIELDS.items() if shape[:1] == (10,))
# What a hidden agent's cells hold in a point-of-view replay (rosters' sizes stay public).
HIDDEN_VALUE = {f: (-1 if f == "last_action" else 0) for f in PER_AGENT_FIELDS if f != "present"}
ACTION_LIMITS = tuple(n - 1 for n in HEAD_LIMITS)  # highest move, target, ultimate

VIEWS = ("a", "b", *AGENT_NAMES)
PUBLIC_METRICS = ("result", "points_a", "points_b", "ticks")  # known to either side

ABILITIES = frozenset(
    name for spec in classes.CLASSES for name in (spec.basic_name, spec.ultimate_name)
)
# Event kinds written by core.events.tick_events and the type of each of their fields.
EVENT_FIELDS: dict[str, dict[str, str]] = {
    "damage": {"source": "agent", "target": "agent", "ability": "ability", "amount": "amount"},
    "heal": {"source": "agent", "target": "agent", "ability": "ability", "amount": "amount"},
    "excess_heal": {"target": "agent", "amount": "amount"},
    "effect": {"source": "agent", "target": "agent", "effect": "effect", "ticks": "ticks"},
    "trap_broken": {"target": "agent", "by": "agents"},
    "charge": {"source": "agent", "target": "agent", "from": "point", "to": "point"},
    "death": {"target": "agent", "by": "agents", "points": "points", "red_zone": "bool"},
    "shield_cleared": {"target": "agent", "to": "point"},
    "respawn": {"target": "agent", "at": "point"},
    "rest_heal": {"target": "agent", "amount": "amount"},
    "game_end": {"result": "result", "score": "score", "tick": "tick"},
}
AGENT_KEYS_OF_EVENT = ("source", "target", "by")


def rules_table() -> dict:
    """The class table and constants a viewer needs, copied into each replay from the code,
    so pages never hold a number of their own."""
    from ..core.state import PAD_MILLI, SPAWN_END_NAMES

    return {
        "arena": [ARENA_X, ARENA_Y],
        "body_radius": round(classes.BODY_RADIUS * MILLI),
        "ultimate_cooldown": classes.ULTIMATE_COOLDOWN,
        "shield_ticks": classes.SHIELD_TICKS,
        "respawn_period": classes.RESPAWN_PERIOD,
        "pads": {end: PAD_MILLI[e].tolist() for e, end in enumerate(SPAWN_END_NAMES)},
        "effects": [
            {"name": n, "duration": d}
            for n, d in zip(classes.EFFECT_NAMES, classes.EFFECT_DURATION, strict=True)
        ],
        "classes": [
            {
                "name": c.name,
                "title": c.title,
                "max_health": int(classes.MAX_HEALTH_MILLI[i]),
                "sight": round(c.sight * MILLI),
                "basic": c.basic_name,
                "ultimate": c.ultimate_name,
            }
            for i, c in enumerate(classes.CLASSES)
        ],
    }


class ReplayError(ValueError):
    """A replay that cannot be read; the message starts with the offending field.

    For example `frames.health[12][3]: 250001 is out of range [0, 200000]`. A field of the wrong
    type raises its subclass `ReplayTypeError`, which is also a `TypeError`.
    """


class ReplayTypeError(ReplayError, FieldTypeError):
    """A replay field holding a value of the wrong type (also a TypeError)."""
