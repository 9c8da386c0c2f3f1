"""Priority metrics from hand-built games with hand-computed values."""

from __future__ import annotations

import numpy as np

from marl_bgs import Game
from marl_bgs.metrics import PRIORITY_NAMES, priority_record, priority_update
from tests.helpers import STAY, agent, enemy, own, position


def run(game: Game, ticks: list) -> dict:
    metrics = priority_record(np.zeros(len(PRIORITY_NAMES), np.int32))
    for team_a, team_b in ticks:
        slots = game.encode_actions([team_a, team_b])
        info = game.step_slots(slots)
        metrics = priority_update(np, metrics, info, game.state, True)
    return {name: int(value) for name, value in metrics._asdict().items()}


def test_a_winning_kill():
    g = Game(position([agent("mage", 8, 5)], [agent("rogue", 10, 5, health=1)], score=[19, 3]))
    m = run(g, [([(0, enemy(0), 0)], [STAY])])
    assert m == {
        "result": 0, "points_a": 20, "points_b": 3, "kills_a": 1, "kills_b": 0,
        "deaths_a": 0, "deaths_b": 1, "damage_dealt_a": 14950, "damage_dealt_b": 0,
        "useful_healing_a": 0, "useful_healing_b": 0, "ultimates_used_a": 0,
        "ultimates_used_b": 0, "red_zone_deaths_a": 0, "red_zone_deaths_b": 0, "ticks": 1,
    }  # fmt: skip


def test_red_zone_death_ultimates_and_useful_healing():
    team_a = [agent("rogue", 3, 5, health=1), agent("priest", 6, 8, health=96)]
    team_b = [agent("hunter", 6, 5)]
    g = Game(position(team_a, team_b))
    # Tick 0: the Hunter Traps the Rogue at home (a Red Zone death); the Priest heals itself
    # by 8 from 96: 4 useful, 4 excess.
    m = run(g, [([STAY, (0, own(1), 0)], [(0, enemy(0), 1)])])
    assert (m["deaths_a"], m["kills_b"], m["red_zone_deaths_a"], m["points_b"]) == (1, 1, 1, 2)
    assert m["ultimates_used_b"] == 1 and m["damage_dealt_b"] == 10000
    assert m["useful_healing_a"] == 4000
    assert m["result"] == -1 and m["ticks"] == 1
