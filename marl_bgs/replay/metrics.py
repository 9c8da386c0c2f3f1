"""The sixteen priority metrics, recomputed from a replay's frames, actions and events.

The compiled loop accumulates the same numbers with `metrics.priority_update`; a test checks
that both agree, so a replay file can be audited without rerunning the game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.state import TEAM_SIZE, to_milli
from ..metrics import PriorityMetrics


def _team(name: str) -> int:
    return "ab".index(name[0])


def metrics_from_content(frames: dict[str, Any], actions: Any, events: list) -> dict[str, int]:
    """Priority metrics of a recorded game (oracle content: every event present)."""
    deaths, dealt, useful, red = [0, 0], [0, 0], [0, 0], [0, 0]
    for tick_events in events:
        for e in tick_events:
            kind = e["kind"]
            if kind == "damage":
                dealt[_team(e["source"])] += to_milli(e["amount"])
            elif kind == "heal":
                useful[_team(e["target"])] += to_milli(e["amount"])
            elif kind == "excess_heal":
                useful[_team(e["target"])] -= to_milli(e["amount"])
            elif kind == "death":
                deaths[_team(e["target"])] += 1
                red[_team(e["target"])] += int(bool(e["red_zone"]))
    acts = np.asarray(actions).reshape(-1, 2 * TEAM_SIZE, 3)
    ults = [int(np.sum(acts[:, :TEAM_SIZE, 2] == 1)), int(np.sum(acts[:, TEAM_SIZE:, 2] == 1))]
    last = -1
    metrics = PriorityMetrics(
        result=int(frames["result"][last]),
        points_a=int(frames["score"][last][0]),
        points_b=int(frames["score"][last][1]),
        kills_a=deaths[1],  # a team's kills are the other team's deaths
        kills_b=deaths[0],
        deaths_a=deaths[0],
        deaths_b=deaths[1],
        damage_dealt_a=dealt[0],
        damage_dealt_b=dealt[1],
        useful_healing_a=useful[0],
        useful_healing_b=useful[1],
        ultimates_used_a=ults[0],
        ultimates_used_b=ults[1],
        red_zone_deaths_a=red[0],
        red_zone_deaths_b=red[1],
        ticks=int(frames["tick"][last]),
    )
    return metrics._asdict()
