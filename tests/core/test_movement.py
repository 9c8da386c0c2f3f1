"""Movement, collisions, sight and cover, each from a hand-built position."""

from __future__ import annotations

import math

import pytest

from marl_bgs import Game
from marl_bgs.core import classes
from marl_bgs.core.sight import compute_sight
from tests.helpers import (
    NE,
    NW,
    STAY,
    E,
    N,
    W,
    agent,
    agent_state,
    enemy,
    own,
    pillar,
    play,
    position,
    wall,
)

APPROX = 1e-3


def xy(game: Game, team: int, slot: int) -> tuple[float, float]:
    a = agent_state(game, team, slot)
    return a["x"], a["y"]


FAR = agent("rogue", 18, 9)  # an enemy out of the way


@pytest.mark.parametrize(
    "move, dx, dy",
    [(1, 0, 1), (2, 0, -1), (3, 1, 0), (4, -1, 0)]
    + [(5, 1, 1), (6, -1, 1), (7, 1, -1), (8, -1, -1)],
)
def test_every_move_has_unit_length(backend, move, dx, dy):
    g = Game(position([agent("mage", 5, 5)], [FAR]), backend)
    play(g, [(move, 0, 0)], [STAY])
    x, y = xy(g, 0, 0)
    norm = math.hypot(dx, dy)
    assert x == pytest.approx(5 + dx / norm, abs=APPROX)
    assert y == pytest.approx(5 + dy / norm, abs=APPROX)
    assert math.hypot(x - 5, y - 5) == pytest.approx(1.0, abs=APPROX)


def test_rogue_moves_1_3(backend):
    g = Game(position([agent("rogue", 5, 5)], [FAR]), backend)
    play(g, [(E, 0, 0)], [STAY])
    assert xy(g, 0, 0) == (6.3, 5)


def test_slows_multiply():
    assert classes.speed_factor((0.85, 0.5), False) == pytest.approx(0.425)
    assert classes.speed_factor((0.85, 0.5, 0.5), False) == pytest.approx(0.2125)


def test_slow_floor_is_twenty_percent():
    # No combination of this game's slows reaches the floor (0.2125 is the least), so the
    # floor is checked on the rule itself.
    assert classes.speed_factor((0.5, 0.5, 0.5), False) == pytest.approx(0.2)
    assert classes.speed_factor((0.1,), False) == pytest.approx(0.2)


def test_three_slows_multiply_in_play(backend):
    effects = {"slow_hunter": 1, "slow_charge": 3, "slow_poison": 2}
    g = Game(position([agent("mage", 5, 5, effects=effects)], [FAR]), backend)
    play(g, [(E, 0, 0)], [STAY])
    assert xy(g, 0, 0)[0] == pytest.approx(5 + 0.2125, abs=APPROX)


def test_blessing_of_freedom_speed_floor(backend):
    effects = {"slow_charge": 3, "blessing": 1}
    g = Game(position([agent("warrior", 5, 5, effects=effects)], [FAR]), backend)
    play(g, [(E, 0, 0)], [STAY])
    assert xy(g, 0, 0)[0] == pytest.approx(5.85, abs=APPROX)
    play(g, [(E, 0, 0)], [STAY])  # Blessing spent: half speed again
    assert xy(g, 0, 0)[0] == pytest.approx(6.35, abs=APPROX)


def test_blessing_after_charge_in_play(backend):
    """Charge slows on tick 0; a heal on tick 1 lifts tick 2's speed to 85%."""
    team_a = [agent("warrior", 4, 5)]
    team_b = [agent("mage", 9, 5), agent("priest", 9, 7.5)]
    g = Game(position(team_a, team_b), backend)
    play(g, [(0, enemy(0), 1)], [STAY, STAY])
    play(g, [STAY], [STAY, (0, own(0), 0)])  # the Mage is stunned; the Priest blesses it
    play(g, [STAY], [(E, 0, 0), STAY])
    assert xy(g, 1, 0)[0] == pytest.approx(9.85, abs=APPROX)
    play(g, [STAY], [(E, 0, 0), STAY])
    assert xy(g, 1, 0)[0] == pytest.approx(10.35, abs=APPROX)


def test_obstacle_blocks_and_move_slides_along_it(backend):
    # A wall face at x = 5.9; the Mage touches it and moves north-east: it slides north.
    obstacles = [wall(6.0, 5.0, 0.2, 8.0)]
    g = Game(position([agent("mage", 5.4, 2)], [FAR], obstacles), backend)
    play(g, [(NE, 0, 0)], [STAY])
    x, y = xy(g, 0, 0)
    assert x == pytest.approx(5.4, abs=APPROX)
    assert y == pytest.approx(2 + math.sqrt(0.5), abs=0.005)


def test_move_reaches_wall_then_slides_the_rest(backend):
    obstacles = [wall(6.0, 5.0, 0.2, 8.0)]
    g = Game(position([agent("mage", 5.0, 2)], [FAR], obstacles), backend)
    play(g, [(NE, 0, 0)], [STAY])
    x, y = xy(g, 0, 0)
    # 0.4 east and 0.4 north to contact, then the leftover's northern part (0.307).
    assert x == pytest.approx(5.4, abs=0.005)
    assert y == pytest.approx(2 + math.sqrt(0.5), abs=0.005)


def test_head_on_into_a_wall_stops_at_contact(backend):
    g = Game(position([agent("mage", 5.0, 5)], [FAR], [wall(6.0, 5.0, 0.2, 8.0)]), backend)
    play(g, [(E, 0, 0)], [STAY])
    assert xy(g, 0, 0)[0] == pytest.approx(5.4, abs=0.005)
    assert xy(g, 0, 0)[0] <= 5.4


def test_pillar_blocks(backend):
    g = Game(position([agent("mage", 5.0, 5)], [FAR], [pillar(6.5, 5, 0.5)]), backend)
    play(g, [(E, 0, 0)], [STAY])
    x, y = xy(g, 0, 0)
    assert (x, y) == (pytest.approx(5.5, abs=0.005), 5)
    assert x <= 5.5


def test_arena_edges_block_and_slide(backend):
    g = Game(position([agent("mage", 0.5, 5)], [FAR]), backend)
    play(g, [(W, 0, 0)], [STAY])
    assert xy(g, 0, 0) == (0.5, 5)
    play(g, [(NW, 0, 0)], [STAY])
    assert xy(g, 0, 0) == (0.5, pytest.approx(5 + math.sqrt(0.5), abs=0.005))


def test_no_tunnelling_through_a_thin_wall_at_speed_two(backend):
    # A shielded agent moves 2 units a tick; the wall is 0.01 wide.
    obstacles = [wall(6.2, 5.0, 0.01, 6.0)]
    g = Game(position([agent("mage", 5.0, 5, shield=3)], [FAR], obstacles), backend)
    play(g, [(E, 0, 0)], [STAY])
    x, _ = xy(g, 0, 0)
    assert x == pytest.approx(6.2 - 0.005 - 0.5, abs=0.01)
    assert x <= 6.2 - 0.005 - 0.5


def test_body_blocks_a_mover_at_contact(backend):
    g = Game(position([agent("mage", 5, 5)], [agent("warrior", 6.5, 5)]), backend)
    play(g, [(E, 0, 0)], [STAY])
    x, _ = xy(g, 0, 0)
    assert 5.4375 <= x <= 5.5  # cut back to first contact (within one 1/16 sample)


def test_two_movers_meet_halfway(backend):
    g = Game(position([agent("mage", 5, 5)], [agent("mage", 7, 5)]), backend)
    play(g, [(E, 0, 0)], [(W, 0, 0)])
    a, b = xy(g, 0, 0)[0], xy(g, 1, 0)[0]
    assert b - a >= 1.0
    assert a - 5 == pytest.approx(7 - b, abs=1e-9)  # one shared fraction
    assert 5.4375 <= a <= 5.5


def test_bodies_do_not_slide_around_bodies(backend):
    g = Game(position([agent("mage", 5, 5)], [agent("warrior", 5.8, 5.6)]), backend)
    play(g, [(E, 0, 0)], [STAY])
    x, y = xy(g, 0, 0)
    assert y == 5 and x < 5.8


def test_followers_in_a_line_all_move(backend):
    team = [agent("mage", 5, 5), agent("hunter", 6, 5), agent("rogue", 7, 5)]
    g = Game(position(team, [FAR]), backend)
    play(g, [(E, 0, 0)] * 3, [STAY])
    xs = [xy(g, 0, k)[0] for k in range(3)]
    # The Rogue runs 1.3; the others are held back only as much as touching needs.
    assert xs[2] == pytest.approx(8.3, abs=APPROX)
    assert xs[1] - xs[0] >= 1.0 and xs[2] - xs[1] >= 1.0


def test_killed_agents_neither_move_nor_block(backend):
    team_a = [agent("mage", 5, 5), agent("rogue", 7.5, 6)]
    g = Game(position(team_a, [agent("rogue", 6.5, 5, health=1)]), backend)
    play(g, [(E, 0, 0), (0, enemy(0), 0)], [(E, 0, 0)])
    assert not agent_state(g, 1, 0)["alive"]
    assert xy(g, 1, 0) == (6.5, 5)
    assert xy(g, 0, 0) == (6.0, 5)  # walked into the dead Rogue's spot unhindered


def test_shielded_agents_pass_through_bodies(backend):
    g = Game(position([agent("mage", 5, 5, shield=2)], [agent("warrior", 6.5, 5)]), backend)
    play(g, [(E, 0, 0)], [STAY])
    assert xy(g, 0, 0) == (7.0, 5)


def test_sight_radius_is_inclusive(backend):
    for gap, seen in [(6.0, True), (6.001, False)]:
        g = Game(position([agent("mage", 5, 5)], [agent("rogue", 5 + gap, 5)]), backend)
        sight = compute_sight(__import__("numpy"), g.state, g.map_arrays)
        assert bool(sight.team_sees[0, 5]) is seen
        assert bool(sight.own_sight[0, 5]) is seen


def test_hunter_sees_farther(backend):
    g = Game(position([agent("hunter", 5, 5)], [agent("rogue", 11.5, 5)]), backend)
    sight = compute_sight(__import__("numpy"), g.state, g.map_arrays)
    assert sight.team_sees[0, 5]


def test_obstacles_block_sight_and_attacks_bodies_do_not(backend):
    import numpy as np

    blocked = Game(
        position([agent("mage", 5, 5)], [agent("rogue", 7.5, 5)], [wall(6.2, 5, 0.01, 2)]),
        backend,
    )
    sight = compute_sight(np, blocked.state, blocked.map_arrays)
    assert not sight.team_sees[0, 5]
    assert not blocked.legal_heads()[1][0, 0, enemy(0)]
    through_body = Game(
        position([agent("mage", 5, 5), agent("warrior", 6.2, 5)], [agent("rogue", 7.5, 5)]),
        backend,
    )
    assert through_body.legal_heads()[1][0, 0, enemy(0)]


def test_sight_line_touching_an_obstacle_is_blocked(backend):
    import numpy as np

    for py, clear in [(5.5, False), (5.501, True)]:
        g = Game(
            position([agent("mage", 5, 5)], [agent("rogue", 8, 5)], [pillar(6.5, py, 0.5)]),
            backend,
        )
        sight = compute_sight(np, g.state, g.map_arrays)
        assert bool(sight.clear[0, 5]) is clear


def test_targets_need_the_actors_own_sight(backend):
    import numpy as np

    # The Priest's ally stands behind a wall: the team sees it (it is an ally), the Hunter
    # sees the enemy, but the Priest may not heal through the wall, nor the Mage shoot.
    team_a = [
        agent("priest", 5, 5),
        agent("rogue", 7, 5),
        agent("mage", 5, 2),
        agent("hunter", 8, 2),
    ]
    g = Game(
        position(team_a, [agent("warrior", 7.2, 1)], [wall(6.0, 3.0, 0.1, 6.0)]),
        backend,
    )
    sight = compute_sight(np, g.state, g.map_arrays)
    assert sight.team_sees[0, 1] and sight.team_sees[0, 5]
    _, targets, _ = g.legal_heads()
    assert not targets[0, 0, own(1)]
    assert not targets[0, 2, enemy(0)]
    assert targets[0, 3, enemy(0)]


def test_shielded_enemies_are_hidden_and_untargetable(backend):
    import numpy as np

    g = Game(position([agent("mage", 5, 5)], [agent("rogue", 7, 5, shield=2)]), backend)
    sight = compute_sight(np, g.state, g.map_arrays)
    assert not sight.team_sees[0, 5]
    assert not g.legal_heads()[1][0, 0, enemy(0)]


def test_shielded_agents_cannot_use_abilities_or_be_healed(backend):
    team_a = [agent("priest", 5, 5, shield=1), agent("rogue", 6, 5, health=50, shield=2)]
    g = Game(position(team_a, [agent("mage", 7, 5)]), backend)
    _, targets, ult = g.legal_heads()
    assert targets[0, 0].tolist() == [True] + [False] * 10
    assert ult[0, 0].tolist() == [True, False]
    priest = Game(
        position([agent("priest", 5, 5), agent("rogue", 6, 5, health=50, shield=2)], [FAR]), backend
    )
    assert not priest.legal_heads()[1][0, 0, own(1)]


def test_shield_moves_two_units_regardless_of_slows(backend):
    g = Game(position([agent("rogue", 5, 5, shield=1, effects={"slow_poison": 3})], [FAR]), backend)
    play(g, [(N, 0, 0)], [STAY])
    assert xy(g, 0, 0) == (5, 7)
