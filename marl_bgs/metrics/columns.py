"""The columns of `evaluate`'s games table, by name: importable without JAX.

`marl_bgs.evaluation` writes its rows in this order and the site's Priority metrics page
(`marl_bgs.site.metrics_page`) names the columns from here, so the site build never has to
import the JAX evaluation code for a list of names.
"""

from __future__ import annotations

from .priority import PRIORITY_NAMES

# Priority metrics kept in milli-health-points inside the engine and shown in health points.
MILLI_COLUMNS = ("damage_dealt_a", "damage_dealt_b", "useful_healing_a", "useful_healing_b")

SCHEDULE_COLUMNS = (
    "game",
    "pair",
    "seed_number",
    "map_id",
    "spawn_a",
    "spawn_b",
    "system_a",
    "system_b",
    "roster_a",
    "roster_b",
)
# The schedule, then the result, points and margin, then the other priority metrics.
GAME_COLUMNS = (
    SCHEDULE_COLUMNS + ("result", "points_a", "points_b", "margin") + tuple(PRIORITY_NAMES[3:])
)

__all__ = ["GAME_COLUMNS", "MILLI_COLUMNS", "SCHEDULE_COLUMNS"]
