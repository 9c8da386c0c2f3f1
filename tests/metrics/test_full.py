"""Full metrics (issue 21): the topic table, one hand-built tick per topic checked against
the engine's own events, and the compiled loop against the NumPy engine and replays.

Hand-built ticks run on the NumPy engine through `FullRecorder`; each test names the
topic's nonzero columns it expects, with amounts read from the tick's events (the engine's
report of what happened) where an amount is a rule's number.
"""

from __future__ import annotations

import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.core import classes
from marl_bgs.core.events import tick_events
from marl_bgs.metrics import PRIORITY_NAMES, facts, full, topics
from marl_bgs.metrics.game_metrics import NEEDS_SENT, FullRecorder
from tests.helpers import STAY, E, N, agent, enemy, own, position


def play(a_agents, b_agents, ticks, **top):
    """Play ticks of ([team a actions], [team b actions]); returns (columns, events)."""
    game = Game(position(a_agents, b_agents, **top))
    rec = FullRecorder(game)
    events = []
    for a_acts, b_acts in ticks:
        before = game.state
        info = rec.step_slots(game.encode_actions([list(a_acts), list(b_acts)]))
        events.append(tick_events(before, info, game.state))
    return rec.values, events


def topic(values: dict, name: str) -> dict:
    """The nonzero columns of one topic, without the topic's prefix."""
    return {k[len(name) + 1 :]: v for k, v in values.items() if k.startswith(name + ".") and v}


def amount(events, kind: str, **match) -> int:
    """The tick's event amount in milli-HP."""
    (e,) = [e for e in events if e["kind"] == kind and all(e[k] == v for k, v in match.items())]
    return round(e["amount"] * 1000)


# ---- the table --------------------------------------------------------------------------


def test_the_table_names_every_column_once_in_28_topics_and_six_sections():
    assert len(topics.TOPICS) == 28 and len(topics.SECTIONS) == 6
    assert {t.section for t in topics.TOPICS} == set(topics.SECTIONS)
    assert len(set(full.FULL_NAMES)) == len(full.FULL_NAMES) == full.FULL_SIZE
    assert sum(t.size for t in topics.TOPICS) == full.FULL_SIZE
    assert full.FULL_NAMES[: len(PRIORITY_NAMES)] == tuple(
        f"episode_results.{n}" for n in PRIORITY_NAMES
    )
    assert all(full.column_description(n) for n in full.FULL_NAMES[::97])
    assert 0.8 < full.pair_share() < 0.95
    # Enemy-only topics keep the 50 enemy pairs: no column names a teammate as the victim.
    assert "damage_done.by_a0.to_a1.basic" not in full.FULL_NAMES
    assert "damage_done.by_a0.to_b1.basic" in full.FULL_NAMES
    assert "healing_done.by_a4.to_a4.basic" in full.FULL_NAMES  # a healer heals itself too
    assert "formation.a0.and_a1.distance" in full.FULL_NAMES
    assert "formation.a1.and_a0.distance" not in full.FULL_NAMES  # each pair once


def test_isqrt_is_exact():
    d = np.asarray([0, 1, 2, 3, 4, 24, 25, 26, 999_999, 10**6, 500_000_000, 2**30 - 1, 2**30])
    got = facts.isqrt(np, d.astype(np.int32))
    assert got.tolist() == [int(np.floor(np.sqrt(float(v)))) for v in d]


# ---- one topic at a time, from hand-built ticks -----------------------------------------
MAGE_VS_ROGUE = ([agent("mage", 8, 5)], [agent("rogue", 10.5, 5, health=5)])


def test_episode_results_copy_the_priority_metrics():
    values, _ = play(*MAGE_VS_ROGUE, [([(0, enemy(0), 0)], [STAY])])
    got = topic(values, "episode_results")
    assert got == {"result": -1, "points_a": 1, "kills_a": 1, "deaths_b": 1, "ticks": 1,
                   "damage_dealt_a": got["damage_dealt_a"]}  # fmt: skip
    assert got["damage_dealt_a"] >= 5000


def test_activations_name_the_ability_and_its_target():
    values, _ = play(
        [agent("mage", 8, 5), agent("priest", 8, 7, health=50)],
        [agent("rogue", 10.5, 5)],
        [([STAY, (0, own(1), 0)], [STAY]), ([(0, 0, 1), (0, own(1), 0)], [STAY])],
    )
    assert topic(values, "activations") == {
        "by_a1.basic.on_a1": 2,  # the Priest healed itself twice
        "by_a0.ultimate.on_none": 1,  # Burst has no target
    }


def test_actions_count_what_was_sent_and_what_the_rules_refused():
    stunned = agent("mage", 8, 5, effects={"stun": 1})
    values, _ = play(
        [stunned],
        [agent("rogue", 16, 5)],
        [([(N, enemy(0), 0)], [STAY])],  # held, and the Rogue is out of reach
    )
    assert topic(values, "actions") == {
        "a0.move_sent": 1, "a0.move_refused": 1, "a0.target_sent": 1, "a0.target_refused": 1,
        "a0.idle": 1, "b0.idle": 1,
    }  # fmt: skip


def test_damage_done_by_ability():
    values, events = play(*MAGE_VS_ROGUE, [([(0, enemy(0), 0)], [STAY])])
    dealt = amount(events[0], "damage", source="a0", target="b0")
    assert topic(values, "damage_done") == {"by_a0.to_b0.basic": dealt}


def test_damage_received_and_the_part_beyond_health():
    values, events = play(*MAGE_VS_ROGUE, [([(0, enemy(0), 0)], [STAY])])
    dealt = amount(events[0], "damage", source="a0", target="b0")
    assert topic(values, "damage_received") == {
        "b0.total": dealt,
        "b0.beyond_health": dealt - 5000,
    }


def test_damage_to_enemies_under_a_harmful_effect():
    slowed = agent("rogue", 10.5, 5, effects={"slow_hunter": 1, "healing_cut": 2})
    values, events = play([agent("mage", 8, 5)], [slowed], [([(0, enemy(0), 0)], [STAY])])
    dealt = amount(events[0], "damage", source="a0", target="b0")
    assert topic(values, "damage_to_affected") == {
        "by_a0.to_b0.slow_hunter": dealt,
        "by_a0.to_b0.healing_cut": dealt,
    }


PRIEST_HEALS = (
    [agent("mage", 8, 5, health=78), agent("priest", 8, 7)],
    [agent("rogue", 16, 5)],
    [([STAY, (0, own(0), 0)], [STAY])],
)


def test_healing_done_and_received():
    values, events = play(*PRIEST_HEALS)
    given = amount(events[0], "heal", source="a1", target="a0")
    assert given == classes.HEAL_MILLI[classes.PRIEST, 0, 0]
    assert topic(values, "healing_done") == {"by_a1.to_a0.basic": given}
    assert topic(values, "healing_received") == {"a0.ability": given}


def test_excess_healing_goes_to_the_healer_when_it_healed_alone():
    values, events = play(*PRIEST_HEALS)
    excess = amount(events[0], "excess_heal", target="a0")
    assert excess == classes.HEAL_MILLI[classes.PRIEST, 0, 0] - 2000  # 78 of 80: 2 points of room
    assert topic(values, "excess_healing") == {"by_a1.to_a0": excess}


def test_excess_healing_from_two_healers_is_shared():
    values, _ = play(
        [agent("mage", 8, 5, health=78), agent("priest", 8, 7), agent("priest", 8, 3)],
        [agent("rogue", 16, 5)],
        [([STAY, (0, own(0), 0), (0, own(0), 0)], [STAY])],
    )
    assert topic(values, "excess_healing") == {"by_shared.to_a0": 2 * 8000 - 2000}


def test_healing_to_allies_under_a_harmful_effect():
    slowed = agent("mage", 8, 5, health=50, effects={"slow_charge": 2})
    values, events = play(
        [slowed, agent("priest", 8, 7)], [agent("rogue", 16, 5)], [([STAY, (0, own(0), 0)], [STAY])]
    )
    given = amount(events[0], "heal", source="a1", target="a0")
    assert topic(values, "healing_to_affected") == {"by_a1.to_a0.slow_charge": given}


def test_healing_saves_count_heals_that_kept_an_ally_alive():
    hit = classes.DAMAGE_MILLI[classes.ROGUE, 0, 0, 0, 0] / 1000  # one Backstab, no aura
    low = agent("mage", 8, 5, health=hit - 1)  # dies to the Backstab unless healed
    values, events = play(
        [low, agent("priest", 8, 7)],
        [agent("rogue", 9, 5)],
        [([STAY, (0, own(0), 0)], [(0, enemy(0), 0)])],
    )
    assert not [e for e in events[0] if e["kind"] == "death"]
    assert topic(values, "healing_saves") == {"by_a1.to_a0": 1}


def test_kill_contributions_credit_the_killers_and_the_earlier_attackers():
    values, _ = play(
        [agent("mage", 8, 3), agent("mage", 8, 7)],
        [agent("rogue", 10, 5, health=20)],
        [([(0, enemy(0), 0), STAY], [STAY]), ([STAY, (0, enemy(0), 0)], [STAY])],
    )
    assert topic(values, "kill_contributions") == {"by_a1.of_b0.kill": 1, "by_a0.of_b0.assist": 1}
    assert topic(values, "coordination") == {"a.kills_with_helpers": 1}


def test_kills_of_enemies_under_a_harmful_effect():
    trapped = agent("rogue", 10.5, 5, health=5, effects={"trap": 3})
    values, _ = play([agent("mage", 8, 5)], [trapped], [([(0, enemy(0), 0)], [STAY])])
    assert topic(values, "kills_of_affected") == {"by_a0.of_b0.trap": 1}


def test_deaths_and_time_dead():
    values, _ = play(*MAGE_VS_ROGUE, [([(0, enemy(0), 0)], [STAY]), ([STAY], [STAY])])
    assert topic(values, "deaths") == {"b0.deaths": 1, "b0.ticks_dead": 1}


def test_respawning_and_the_shield():
    values, _ = play(
        [agent("mage", 8, 5, shield=2)],
        [agent("rogue", 16, 5, alive=False)],
        [([STAY], [STAY])],
        wave_clocks=(5, 1),
    )
    assert topic(values, "respawning") == {"a0.ticks_shielded": 1, "b0.respawns": 1}


def test_red_zone_ticks_and_two_point_kills():
    deep = agent("rogue", 17, 5, health=5)  # team b's own Red Zone starts at x = 15
    values, _ = play([agent("mage", 14.5, 5)], [deep], [([(0, enemy(0), 0)], [STAY])])
    assert topic(values, "red_zone") == {"b0.ticks_in_own": 1, "a0.two_point_kills": 1}
    assert topic(values, "deaths")["b0.red_zone_deaths"] == 1


def test_coordination_counts_focus_fire():
    values, _ = play(
        [agent("mage", 8, 3), agent("mage", 8, 7)],
        [agent("warrior", 10, 5)],
        [([(0, enemy(0), 0), (0, enemy(0), 0)], [STAY])],
    )
    assert topic(values, "coordination") == {"a.focus_ticks": 1}


def test_formation_sums_distances_between_living_teammates():
    values, _ = play(
        [agent("mage", 8, 5), agent("priest", 11, 9), agent("hunter", 8, 2, alive=False)],
        [agent("rogue", 16, 5)],
        [([STAY, STAY, STAY], [STAY])] * 2,
    )
    assert topic(values, "formation") == {"a0.and_a1.distance": 2 * 5000, "a0.and_a1.ticks": 2}


def test_aura_coverage_by_emitter():
    values, _ = play(
        [agent("mage", 8, 5), agent("priest", 9.5, 5), agent("warrior", 8, 8)],
        [agent("rogue", 16, 5)],
        [([STAY, STAY, STAY], [STAY])],
    )
    got = topic(values, "aura_coverage")
    assert got == {
        "a0.of_a0": 1, "a1.of_a0": 1, "a2.of_a2": 1,  # each emitter covers itself
        "a0.any_mage": 1, "a1.any_mage": 1, "a2.any_warrior": 1,
        "a0.alive": 1, "a1.alive": 1, "a2.alive": 1, "b0.alive": 1,
    }  # fmt: skip


def test_aura_payoff_is_the_damage_the_auras_changed():
    values, events = play(
        [agent("mage", 8, 5)],
        [agent("rogue", 10.5, 5), agent("warrior", 10.5, 6.5)],
        [([(0, enemy(0), 0)], [STAY, STAY])],
    )
    dealt = amount(events[0], "damage", source="a0", target="b0")
    table = classes.DAMAGE_MILLI[classes.MAGE, 0, :, 0, :]  # [Mage auras, Warrior auras]
    assert dealt == table[1, 1]  # the Mage's own aura, and the Warrior's beside the Rogue
    assert topic(values, "aura_payoff") == {
        "a.mage_added": table[1, 1] - table[0, 1],
        "b.warrior_blocked": table[1, 0] - table[1, 1],
    }


def test_status_applications_per_effect():
    values, _ = play(
        [agent("hunter", 8, 5)], [agent("rogue", 10, 5)], [([(0, enemy(0), 1)], [STAY])]
    )
    assert topic(values, "status_applications") == {"by_a0.to_b0.trap": 1}
    assert topic(values, "hunter_trap") == {"by_a0.to_b0.set": 1}


def test_time_with_status_effects():
    values, _ = play(
        [agent("mage", 8, 5, effects={"burst": 3, "slow_poison": 1})],
        [agent("rogue", 16, 5)],
        [([STAY], [STAY])] * 2,
    )
    assert topic(values, "time_with_status") == {"a0.burst": 2, "a0.slow_poison": 1}


def test_freedom_against_slows():
    slowed = agent("mage", 8, 5, effects={"slow_hunter": 1, "blessing": 1})
    values, _ = play(
        [slowed], [agent("rogue", 16, 5, effects={"trap": 2})], [([(E, 0, 0)], [(N, 0, 0)])]
    )
    assert topic(values, "freedom") == {
        "a0.slowed": 1, "a0.slowed_blessed": 1, "b0.held": 1, "b0.held_tried_to_move": 1,
    }  # fmt: skip


def test_mage_burst_casts_and_boosted_damage():
    values, events = play(
        [agent("mage", 8, 5, effects={"burst": 2})],
        [agent("rogue", 10.5, 5)],
        [([(0, 0, 1)], [STAY]), ([(0, enemy(0), 0)], [STAY])],
    )
    dealt = amount(events[1], "damage", source="a0", target="b0")
    assert topic(values, "mage_burst") == {"a0.casts": 1, "a0.to_b0": dealt}


def test_warrior_charge_casts_and_distance():
    values, events = play(
        [agent("warrior", 5, 5)], [agent("rogue", 10, 5)], [([(0, enemy(0), 1)], [STAY])]
    )
    (charge,) = [e for e in events[0] if e["kind"] == "charge"]
    moved = round(np.hypot(charge["to"][0] - 5, charge["to"][1] - 5) * 1000)
    assert topic(values, "warrior_charge") == {"a0.casts": 1, "a0.distance": moved}


def test_hunter_trap_broken_by_a_hit():
    values, _ = play(
        [agent("mage", 8, 5)],
        [agent("rogue", 10.5, 5, effects={"trap": 3})],
        [([(0, enemy(0), 0)], [STAY])],
    )
    assert topic(values, "hunter_trap") == {"by_a0.to_b0.broken": 1}


def test_rogue_poison_healing_lost_to_the_cut():
    cut = agent("mage", 8, 5, health=50, effects={"healing_cut": 2})
    values, events = play(
        [cut, agent("priest", 8, 7)], [agent("rogue", 16, 5)], [([STAY, (0, own(0), 0)], [STAY])]
    )
    given = amount(events[0], "heal", source="a1", target="a0")
    full_heal = classes.HEAL_MILLI[classes.PRIEST, 0, 0]
    assert given == classes.HEAL_MILLI[classes.PRIEST, 0, 1] < full_heal
    assert topic(values, "rogue_poison") == {"a0.ability_healing_lost": full_heal - given}


def test_priest_ultimate_casts_and_saves():
    hit = classes.DAMAGE_MILLI[classes.ROGUE, 0, 0, 0, 0] / 1000
    values, _ = play(
        [agent("mage", 8, 5, health=hit - 1), agent("priest", 8, 7)],
        [agent("rogue", 9, 5)],
        [([STAY, (0, own(0), 1)], [(0, enemy(0), 0)])],
    )
    assert topic(values, "priest_ultimate") == {"a1.casts": 1, "a1.saves": 1}


def test_every_topic_has_a_test_here():
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    missing = [t.name for t in topics.TOPICS if f'"{t.name}")' not in source]
    assert not missing


# ---- the compiled loop --------------------------------------------------------------------


@pytest.fixture(scope="module")
def full_eval():
    pytest.importorskip("jax")
    import marl_bgs

    return marl_bgs.evaluate(
        "random", "tdm-alpha", maps=[47], games=2, seed=3, batch_size=2, horizon=60,
        record=[0, 1], progress=False, metrics="full",
    )  # fmt: skip


def test_compiled_full_metrics_equal_the_numpy_engines_from_the_replays(full_eval):
    from marl_bgs.metrics.game_metrics import replay_full_metrics

    assert list(full_eval.full.columns) == ["game", *full.FULL_NAMES]
    for g in (0, 1):
        row = full_eval.full.loc[full_eval.full["game"] == g].iloc[0]
        again = replay_full_metrics(full_eval.replay(g))
        differ = [n for n in full.FULL_NAMES if n not in NEEDS_SENT and int(row[n]) != again[n]]
        assert not differ, differ[:5]
        assert sum(again.values()) > 0


def test_full_metrics_change_no_game(full_eval):
    import marl_bgs

    plain = marl_bgs.evaluate(
        "random", "tdm-alpha", maps=[47], games=2, seed=3, batch_size=2, horizon=60,
        progress=False,
    )  # fmt: skip
    assert plain.games.equals(full_eval.games)
    first = full_eval.full[[f"episode_results.{n}" for n in PRIORITY_NAMES[1:]]].to_numpy()
    assert (first >= 0).all()


def test_the_full_table_saves_as_parquet(full_eval, tmp_path):
    import pandas as pd

    paths = full_eval.save(tmp_path / "out")
    assert pd.read_parquet(paths["full"]).equals(full_eval.full)
