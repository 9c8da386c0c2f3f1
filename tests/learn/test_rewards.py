"""Each term of the training reward (Table S9) on a hand-built position, amounts by hand.

Flat actions: (move * 11 + target) * 2 + Ultimate; target 1-5 are own slots 0-4, 6-10
enemy slots 0-4. A Hunter's Serrated Arrows deal 6 HP (no Mage or Warrior nearby to change
it), a Priest's Lesser Heal 8 HP.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")

from marl_bgs.learn.config import FFMAPPOConfig, RecIPPOConfig  # noqa: E402
from marl_bgs.learn.rewards import make_reward_fn, reward_terms  # noqa: E402
from marl_bgs.registration import make  # noqa: E402
from tests.helpers import agent, position  # noqa: E402

STAY = 0
SHOOT_ENEMY_0 = (0 * 11 + 6) * 2  # Basic on enemy slot 0
HEAL_OWN_0 = (0 * 11 + 1) * 2  # Basic on own slot 0


@pytest.fixture(scope="module")
def play():
    env = make("tdm", num_envs=1, map_id=0)
    per_agent = make_reward_fn(RecIPPOConfig())
    team = make_reward_fn(FFMAPPOConfig())

    @jax.jit
    def tick(state, actions):
        _, after, _, _, info = env.step_env(None, state, actions)
        terms = jax.vmap(reward_terms)(state.game, after.game, info["record"])
        return per_agent(state, after, info), team(state, after, info), terms, after

    def run(pos, actions):
        _, state = env.reset_to(jax.random.PRNGKey(0), pos)
        acts = np.zeros((1, 10), np.int32)
        for slot, a in actions.items():
            acts[0, slot] = a
        r, rt, terms, after = tick(state, acts)
        return np.asarray(r[0]), np.asarray(rt[0]), jax.tree.map(lambda x: np.asarray(x[0]), terms)

    return run


def test_damage_pays_per_point(play):
    pos = position([agent("hunter", 7, 5)], [agent("mage", 10, 5)])
    r, _, terms = play(pos, {0: SHOOT_ENEMY_0})
    assert terms["own"]["damage"][0] == pytest.approx(6.0)
    assert r[0] == pytest.approx(0.006, rel=1e-5)
    assert r[5] == 0.0


def test_red_zone_kill_and_death_overkill_not_paid(play):
    # The Mage (4 HP) stands in its own Red Zone (right end: x >= 15): 6 dealt, 4 paid.
    pos = position([agent("hunter", 13, 5)], [agent("mage", 16, 5, health=4)])
    r, _, terms = play(pos, {0: SHOOT_ENEMY_0})
    assert terms["own"]["damage"][0] == pytest.approx(4.0)
    assert terms["own"]["kill_credit"][0] == 1 and terms["own"]["red_zone_kill"][0] == 1
    assert r[0] == pytest.approx(0.004 + 0.05 + 0.10, rel=1e-5)
    assert r[5] == pytest.approx(-0.05 - 0.10, rel=1e-5)


def test_useful_healing_priest_credit_and_healing_range(play):
    # The Hunter (95/100 HP) kills the 3-HP Mage while the Priest heals it: 8 healed,
    # 5 useful; the Priest's useful heal reached the killer, so it shares the kill credit.
    # After the tick the Priest and the Hunter stand 2 apart (Basic range 3), both outside
    # their Red Zone: one pair, +0.001 to every agent of the team.
    pos = position(
        [agent("hunter", 7, 5, health=95), agent("priest", 7, 7)], [agent("mage", 10, 5, health=3)]
    )
    r, rt, terms = play(pos, {0: SHOOT_ENEMY_0, 1: HEAL_OWN_0})
    assert terms["own"]["useful_healing"][1] == pytest.approx(5.0)
    assert terms["own"]["kill_credit"][:2].tolist() == [1, 1]
    assert terms["shared"]["healing_range"][0] == 1
    hunter = 0.003 + 0.05 + 0.001
    priest = 0.005 + 0.05 + 0.001
    assert r[0] == pytest.approx(hunter, rel=1e-5) and r[1] == pytest.approx(priest, rel=1e-5)
    assert r[5] == pytest.approx(-0.05, rel=1e-5)
    # Team form: shared once plus the team's total of own terms, for every agent.
    team_a = 0.001 + (0.003 + 0.05) + (0.005 + 0.05)
    assert rt[0] == pytest.approx(team_a, rel=1e-5) and rt[1] == pytest.approx(team_a, rel=1e-5)
    assert rt[5] == pytest.approx(-0.05, rel=1e-5)


def test_two_attackers_split_the_paid_damage_and_both_get_credit(play):
    pos = position([agent("hunter", 7, 4), agent("hunter", 7, 6)], [agent("mage", 10, 5, health=3)])
    r, _, terms = play(pos, {0: SHOOT_ENEMY_0, 1: SHOOT_ENEMY_0})
    np.testing.assert_allclose(terms["own"]["damage"][:2], [1.5, 1.5], rtol=1e-6)
    assert r[0] == pytest.approx(0.0015 + 0.05, rel=1e-5)
    assert r[1] == pytest.approx(0.0015 + 0.05, rel=1e-5)


def test_win_and_own_red_zone(play):
    # First to 1 point wins; the Hunter stands in its own Red Zone (left end: x <= 5).
    pos = position([agent("hunter", 4, 5)], [agent("mage", 7, 5, health=2)], winning_score=1)
    r, _, terms = play(pos, {0: SHOOT_ENEMY_0})
    assert terms["own"]["own_red_zone"][0] == 1
    assert r[0] == pytest.approx(1.0 + 0.002 + 0.05 - 0.002, rel=1e-5)
    assert r[5] == pytest.approx(-1.0 - 0.05, rel=1e-5)


def test_idle_tick_pays_nothing_outside_red_zones(play):
    pos = position([agent("hunter", 8, 5)], [agent("mage", 12, 5)])
    r, rt, _ = play(pos, {})
    assert not r.any() and not rt.any()
