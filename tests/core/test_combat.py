"""Combat rules, one by one, from hand-built positions with hand-computed outcomes."""

from __future__ import annotations

import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.core import classes
from tests.helpers import STAY, agent, agent_state, enemy, idle, of_kind, own, play, position

APPROX = 1e-3


def hp(game: Game, team: int, slot: int) -> float:
    return agent_state(game, team, slot)["health"]


@pytest.mark.parametrize(
    "cls, expected",
    [
        ("mage", 13 * 1.15),  # the Mage's own aura counts for itself
        ("warrior", 8.0),
        ("hunter", 6.0),
        ("rogue", 12.0),
    ],
)
def test_basic_damage_at_exact_range(backend, cls, expected):
    reach = classes.CLASSES[classes.CLASS_INDEX[cls]].basic_range
    g = Game(position([agent(cls, 5, 5)], [agent("rogue", 5 + reach, 5)]), backend)
    events = play(g, [(0, enemy(0), 0)], [STAY])
    (hit,) = of_kind(events, "damage")
    assert (hit["source"], hit["target"]) == ("a0", "b0")
    assert hit["amount"] == pytest.approx(expected, abs=APPROX)
    assert hp(g, 1, 0) == pytest.approx(100 - expected, abs=APPROX)


@pytest.mark.parametrize("cls", ["mage", "warrior", "hunter", "rogue"])
def test_basic_out_of_range_is_illegal_and_dropped(backend, cls):
    reach = classes.CLASSES[classes.CLASS_INDEX[cls]].basic_range
    g = Game(position([agent(cls, 5, 5)], [agent("rogue", 5 + reach + 0.001, 5)]), backend)
    assert not g.legal_actions()[0, 0, (0 * 11 + enemy(0)) * 2 + 0]
    events = play(g, [(0, enemy(0), 0)], [STAY])
    assert of_kind(events, "damage") == []
    assert agent_state(g, 0, 0)["last_action"] == [0, 0, 0]


def test_hunter_basic_slows_for_one_tick(backend):
    g = Game(position([agent("hunter", 5, 5)], [agent("rogue", 8, 5)]), backend)
    play(g, [(0, enemy(0), 0)], [STAY])
    assert agent_state(g, 1, 0)["effects"]["slow_hunter"] == 1
    play(g, [STAY], [(3, 0, 0)])  # the Rogue runs east at 1.3 * 0.85
    assert agent_state(g, 1, 0)["x"] == pytest.approx(8 + 1.3 * 0.85, abs=APPROX)
    assert agent_state(g, 1, 0)["effects"]["slow_hunter"] == 0
    play(g, [STAY], [(3, 0, 0)])
    assert agent_state(g, 1, 0)["x"] == pytest.approx(8 + 1.3 * 0.85 + 1.3, abs=APPROX)


def test_priest_basic_heals_ally_and_blesses(backend):
    g = Game(
        position([agent("priest", 5, 5), agent("rogue", 8, 5, health=50)], [agent("mage", 15, 5)]),
        backend,
    )
    events = play(g, [(0, own(1), 0), STAY], [STAY])
    (heal,) = of_kind(events, "heal")
    assert (heal["source"], heal["target"], heal["amount"]) == ("a0", "a1", 8.0)
    assert hp(g, 0, 1) == 58
    assert agent_state(g, 0, 1)["effects"]["blessing"] == 1


def test_priest_can_heal_itself_but_not_enemies(backend):
    g = Game(
        position([agent("priest", 5, 5, health=40)], [agent("rogue", 7, 5, health=40)]), backend
    )
    _, targets, _ = g.legal_heads()
    assert targets[0, 0, own(0)] and not targets[0, 0, enemy(0)]
    play(g, [(0, own(0), 0)], [STAY])
    assert hp(g, 0, 0) == 48


def test_burst_starts_next_tick_and_lasts_five(backend):
    g = Game(position([agent("mage", 5, 5)], [agent("warrior", 7, 5)]), backend)
    events = play(g, [(0, 0, 1)], [STAY])
    assert of_kind(events, "damage") == []
    assert agent_state(g, 0, 0)["effects"]["burst"] == 5
    amounts = []
    for _ in range(6):
        events = play(g, [(0, enemy(0), 0)], [STAY])
        amounts.append(of_kind(events, "damage")[0]["amount"])
    boosted = 13 * 1.15 * 1.5 * 0.85  # own Mage aura, Burst, the Warrior's own aura
    plain = 13 * 1.15 * 0.85
    assert amounts == pytest.approx([boosted] * 5 + [plain], abs=APPROX)


def test_charge_passes_over_obstacles_stops_touching_stuns_and_slows(backend):
    # The line of sight (y = 5) clears the pillar, the body's path does not.
    from tests.helpers import pillar

    obstacles = [pillar(6.5, 5.7, 0.3)]
    g = Game(position([agent("warrior", 4, 5)], [agent("rogue", 9, 5)], obstacles), backend)
    events = play(g, [(0, enemy(0), 1)], [STAY])
    (hit,) = of_kind(events, "damage")
    assert hit["amount"] == 20
    warrior = agent_state(g, 0, 0)
    assert warrior["x"] == pytest.approx(8.0, abs=0.006) and warrior["y"] == 5
    assert 9 - warrior["x"] >= 1.0  # touching, never pushed into the target
    rogue = agent_state(g, 1, 0)
    assert (rogue["x"], rogue["y"]) == (9, 5)
    assert rogue["effects"]["stun"] == 1 and rogue["effects"]["slow_charge"] == 5
    assert warrior["ultimate_cooldown"] == 29
    # Stunned for the next tick: only "stay" is legal.
    assert g.legal_actions()[1, 0].sum() == 1
    play(g, [STAY], [(3, 0, 0)])
    assert agent_state(g, 1, 0)["x"] == 9
    play(g, [STAY], [(3, 0, 0)])  # slowed to half speed
    assert agent_state(g, 1, 0)["x"] == pytest.approx(9 + 1.3 * 0.5, abs=APPROX)


def test_charge_then_ordinary_move_the_same_tick(backend):
    g = Game(position([agent("warrior", 4, 5)], [agent("rogue", 9, 5)]), backend)
    play(g, [(1, enemy(0), 1)], [STAY])  # Charge east, then step north
    warrior = agent_state(g, 0, 0)
    assert warrior["x"] == pytest.approx(8.0, abs=0.006)
    assert warrior["y"] == pytest.approx(6.0, abs=APPROX)


def test_freezing_trap_damage_and_four_tick_stun(backend):
    g = Game(position([agent("hunter", 5, 5)], [agent("rogue", 8, 5)]), backend)
    events = play(g, [(0, enemy(0), 1)], [STAY])
    assert of_kind(events, "damage")[0]["amount"] == 10
    assert agent_state(g, 1, 0)["effects"]["trap"] == 4
    for _ in range(4):
        assert g.legal_actions()[1, 0].sum() == 1
        idle(g)
    assert g.legal_actions()[1, 0].sum() > 1


def test_trap_survives_damage_on_its_own_tick_and_breaks_on_a_later_one(backend):
    a = [agent("hunter", 5, 5), agent("mage", 5, 7)]
    g = Game(position(a, [agent("rogue", 7, 6)]), backend)
    events = play(g, [(0, enemy(0), 1), (0, enemy(0), 0)], [STAY])
    assert len(of_kind(events, "damage")) == 2 and of_kind(events, "trap_broken") == []
    assert agent_state(g, 1, 0)["effects"]["trap"] == 4
    events = play(g, [STAY, (0, enemy(0), 0)], [STAY])
    (broken,) = of_kind(events, "trap_broken")
    assert broken == {"kind": "trap_broken", "target": "b0", "by": ["a1"]}
    assert agent_state(g, 1, 0)["effects"]["trap"] == 0
    assert g.legal_actions()[1, 0].sum() > 1  # free again on the next tick


def test_new_trap_replaces_old_and_damage_the_same_tick_keeps_it(backend):
    g = Game(
        position([agent("hunter", 5, 5)], [agent("rogue", 8, 5, effects={"trap": 2})]), backend
    )
    play(g, [(0, enemy(0), 1)], [STAY])
    assert agent_state(g, 1, 0)["effects"]["trap"] == 4


def test_crippling_poison(backend):
    g = Game(position([agent("rogue", 5, 5)], [agent("warrior", 6.5, 5)]), backend)
    events = play(g, [(0, enemy(0), 1)], [STAY])
    assert of_kind(events, "damage")[0]["amount"] == pytest.approx(36 * 0.85, abs=APPROX)
    eff = agent_state(g, 1, 0)["effects"]
    assert (eff["stun"], eff["slow_poison"], eff["healing_cut"]) == (1, 5, 4)


def test_salvation_fills_and_reports_excess(backend):
    g = Game(
        position([agent("priest", 5, 5), agent("mage", 9, 5, health=10)], [agent("rogue", 15, 5)]),
        backend,
    )
    events = play(g, [(0, own(1), 1), STAY], [STAY])
    assert of_kind(events, "heal")[0]["amount"] == 200
    assert of_kind(events, "excess_heal")[0]["amount"] == pytest.approx(130)
    assert hp(g, 0, 1) == 80


def test_poison_cuts_healing_for_four_ticks_salvation_heals_100(backend):
    team_a = [agent("priest", 3, 5), agent("warrior", 6, 5, health=60)]
    g = Game(position(team_a, [agent("rogue", 7.5, 5)]), backend)
    play(g, [STAY, STAY], [(0, enemy(1), 1)])  # Poison: 36, less the Warrior's own aura
    after_poison = 60 - 36 * 0.85
    assert hp(g, 0, 1) == pytest.approx(after_poison, abs=APPROX)
    events = play(g, [(0, own(1), 1), STAY], [STAY])  # Salvation under the cut
    assert of_kind(events, "heal")[0]["amount"] == 100
    assert hp(g, 0, 1) == pytest.approx(after_poison + 100, abs=APPROX)
    for _ in range(3):  # the cut lasts ticks 1-4 after the Poison
        events = play(g, [(0, own(1), 0), STAY], [STAY])
        assert of_kind(events, "heal")[0]["amount"] == 4
    events = play(g, [(0, own(1), 0), STAY], [STAY])
    assert of_kind(events, "heal")[0]["amount"] == 8


def test_heal_saves_an_ally_from_a_killing_blow(backend):
    team_a = [agent("priest", 3, 5), agent("rogue", 5, 5, health=10)]
    g = Game(position(team_a, [agent("mage", 8, 5)]), backend)
    events = play(g, [(0, own(1), 0), STAY], [(0, enemy(1), 0)])
    assert of_kind(events, "death") == []
    assert hp(g, 0, 1) == pytest.approx(10 - 14.95 + 8, abs=APPROX)
    g = Game(position(team_a, [agent("mage", 8, 5)]), backend)
    events = play(g, [STAY, STAY], [(0, enemy(1), 0)])
    assert [e["target"] for e in of_kind(events, "death")] == ["a1"]


def test_killed_agent_still_acts_this_tick(backend):
    g = Game(position([agent("mage", 6, 5, health=1)], [agent("mage", 9, 5, health=1)]), backend)
    events = play(g, [(0, enemy(0), 0)], [(0, enemy(0), 0)])
    assert sorted(e["target"] for e in of_kind(events, "death")) == ["a0", "b0"]
    assert g.state_dict()["score"] == [1, 1]


@pytest.mark.parametrize("mages, factor", [(0, 1.0), (1, 1.15), (2, 1.15**2), (3, 1.15**2)])
def test_mage_aura_alone_and_stacked(backend, mages, factor):
    team_a = [agent("hunter", 5, 5)] + [
        agent("mage", *xy) for xy in [(5, 6.5), (3.5, 5), (5, 3.5)][:mages]
    ]
    g = Game(position(team_a, [agent("rogue", 8.5, 5)]), backend)
    events = play(g, [(0, enemy(0), 0)] + [STAY] * mages, [STAY])
    assert of_kind(events, "damage")[0]["amount"] == pytest.approx(6 * factor, abs=APPROX)


@pytest.mark.parametrize("warriors, factor", [(0, 1.0), (1, 0.85), (2, 0.85**2), (3, 0.85**2)])
def test_warrior_aura_alone_and_stacked(backend, warriors, factor):
    team_b = [agent("priest", 10, 5)] + [
        agent("warrior", *xy) for xy in [(10, 6.5), (11.5, 5), (10, 3.5)][:warriors]
    ]
    g = Game(position([agent("rogue", 8.5, 5)], team_b), backend)
    events = play(g, [(0, enemy(0), 0)], [STAY] * len(team_b))
    assert of_kind(events, "damage")[0]["amount"] == pytest.approx(12 * factor, abs=APPROX)


def test_aura_reaches_exactly_two_units_and_not_beyond(backend):
    for gap, factor in [(2.0, 1.15), (2.001, 1.0)]:
        team_a = [agent("hunter", 5, 5), agent("mage", 5 - gap, 5)]
        g = Game(position(team_a, [agent("rogue", 8.5, 5)]), backend)
        events = play(g, [(0, enemy(0), 0), STAY], [STAY])
        assert of_kind(events, "damage")[0]["amount"] == pytest.approx(6 * factor, abs=APPROX)


def test_auras_stack_with_burst(backend):
    team_a = [agent("mage", 5, 5, effects={"burst": 3}), agent("mage", 5, 6.5)]
    g = Game(position(team_a, [agent("warrior", 7.5, 5)]), backend)
    events = play(g, [(0, enemy(0), 0), STAY], [STAY])
    expected = 13 * 1.15**2 * 1.5 * 0.85
    assert of_kind(events, "damage")[0]["amount"] == pytest.approx(expected, abs=APPROX)


def test_shielded_agents_give_and_receive_no_aura(backend):
    team_a = [agent("hunter", 5, 5), agent("mage", 5, 6, shield=2)]
    g = Game(position(team_a, [agent("rogue", 8.5, 5)]), backend)
    events = play(g, [(0, enemy(0), 0), STAY], [STAY])
    assert of_kind(events, "damage")[0]["amount"] == 6


def test_dead_agents_give_no_aura(backend):
    team_a = [agent("hunter", 5, 5), agent("mage", 5, 6, alive=False)]
    g = Game(position(team_a, [agent("rogue", 8.5, 5)]), backend)
    events = play(g, [(0, enemy(0), 0), STAY], [STAY])
    assert of_kind(events, "damage")[0]["amount"] == 6


def test_ultimate_cooldown_counts_thirty_ticks(backend):
    g = Game(position([agent("mage", 5, 5)], [agent("rogue", 15, 5)]), backend)
    play(g, [(0, 0, 1)], [STAY])
    for left in range(29, 0, -1):
        assert agent_state(g, 0, 0)["ultimate_cooldown"] == left
        assert not g.legal_heads()[2][0, 0, 1]
        idle(g)
    assert agent_state(g, 0, 0)["ultimate_cooldown"] == 0
    assert g.legal_heads()[2][0, 0, 1]


def test_illegal_pairs_become_none(backend):
    g = Game(position([agent("mage", 5, 5)], [agent("rogue", 7, 5)]), backend)
    events = play(g, [(3, enemy(0), 1)], [STAY])  # Burst takes no target: all dropped
    assert of_kind(events, "damage") == [] and of_kind(events, "effect") == []
    assert agent_state(g, 0, 0)["last_action"] == [3, 0, 0]
    assert agent_state(g, 0, 0)["ultimate_cooldown"] == 0


def test_stunned_agent_may_only_stay(backend):
    g = Game(position([agent("mage", 5, 5, effects={"stun": 1})], [agent("rogue", 7, 5)]), backend)
    move, target, ult = g.legal_heads()
    assert move[0, 0].tolist() == [True] + [False] * 8
    assert target[0, 0].tolist() == [True] + [False] * 10
    assert ult[0, 0].tolist() == [True, False]
    play(g, [(3, enemy(0), 0)], [STAY])
    assert agent_state(g, 0, 0)["x"] == 5


def test_the_pair_tables_read_by_rows_equal_indexing_them_on_both_engines():
    # Under JAX `_per_pair` folds a source's indices into one row and picks the column by
    # comparisons; it must give what indexing the table directly gives.
    import jax.numpy as jnp

    from marl_bgs.core.tick import _per_pair

    rng = np.random.default_rng(5)
    for table in (np.asarray(classes.DAMAGE_MILLI), np.asarray(classes.HEAL_MILLI)):
        for _ in range(4):
            source = tuple(rng.integers(0, n, 10).astype(np.int32) for n in table.shape[:-1])
            recipient = rng.integers(0, table.shape[-1], 10).astype(np.int32)
            want = table[tuple(i[:, None] for i in source) + (recipient[None, :],)]
            assert want.shape == (10, 10)
            np.testing.assert_array_equal(_per_pair(np, table, source, recipient), want)
            got = _per_pair(jnp, table, tuple(map(jnp.asarray, source)), jnp.asarray(recipient))
            np.testing.assert_array_equal(np.asarray(got), want)
