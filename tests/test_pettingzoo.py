"""marl_bgs.pettingzoo (issue 48): PettingZoo's own API, seed and AEC tests from the installed
package, and the env against `Game`: the same actions give the same events and result, the
masks are `Game.legal_actions`' in each agent's own frame, a dead agent may only stay, the
opponent mode plays whole games, and bad actions and settings are refused naming the field."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test  # noqa: E402
from pettingzoo.utils.conversions import parallel_to_aec  # noqa: E402

from marl_bgs import Game  # noqa: E402
from marl_bgs.core.actions import MIRROR_FLAT  # noqa: E402
from marl_bgs.core.events import tick_events  # noqa: E402
from marl_bgs.core.position import starting_position  # noqa: E402
from marl_bgs.pettingzoo import parallel_env  # noqa: E402

SHORT = {"horizon": 60, "winning_score": 5}


def _quiet(fn, *args, **kwargs):
    """PettingZoo's tests warn about our choices (the Dict observation with its mask, the
    names a0..b4, the test's own unknown reset option); the checks themselves must pass."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kwargs)


def test_pettingzoo_parallel_api_test():
    _quiet(parallel_api_test, parallel_env(**SHORT), num_cycles=200)


def test_pettingzoo_parallel_seed_test():
    _quiet(parallel_seed_test, lambda: parallel_env(**SHORT), num_cycles=100)


def test_pettingzoo_api_test_of_the_aec_conversion():
    _quiet(api_test, parallel_to_aec(parallel_env(**SHORT)), num_cycles=100)


def test_the_opponent_plays_team_b_through_a_whole_game():
    env = parallel_env(opponent="tdm-beta", winning_score=5)
    assert env.possible_agents == ["a0", "a1", "a2", "a3", "a4"]
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    rewards = None
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, rewards, terms, truncs, infos = env.step(actions)
    assert set(rewards) == set(env.possible_agents)
    assert env.game.done and env.game.result in ("a", "b", "draw")
    if env.game.result != "draw":
        assert all(terms.values()) and not any(truncs.values())
        assert set(rewards.values()) == {1.0 if env.game.result == "a" else -1.0}
    replay = env.replay()
    assert replay.ticks == int(env.game.state.tick) and replay.systems[5] == "tdm-beta"


def _own_frame(mask: np.ndarray, right: bool) -> np.ndarray:
    return mask[MIRROR_FLAT] if right else mask


def test_a_game_through_the_env_is_the_game_of_game():
    """Random legal actions through the env (team a spawning right: the frames differ) and
    the same actions through `Game`: events, results and masks tick for tick."""
    env = parallel_env(
        map_id=48, rosters=(["mage", "priest"], ["warrior", "hunter", "rogue"]), **SHORT
    )
    position = starting_position(48, (["mage", "priest"], ["warrior", "hunter", "rogue"]),
                                 spawn_ends=("right", "left"), **SHORT)  # fmt: skip
    obs, _ = env.reset(options={"position": position})
    assert env.agents == ["a0", "a1", "b0", "b1", "b2"]
    game = Game(position)
    rng = np.random.default_rng(7)
    ticks = 0
    while env.agents:
        legal = game.legal_actions()
        for agent in env.agents:
            team, k = "ab".index(agent[0]), int(agent[1])
            own = _own_frame(legal[team, k], team == 0).astype(np.int8)
            assert np.array_equal(obs[agent]["action_mask"], own), (ticks, agent)
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        flat = [np.zeros(5, np.int64), np.zeros(5, np.int64)]
        for agent, a in actions.items():
            flat["ab".index(agent[0])][int(agent[1])] = a
        before = game.state
        info = game.step_slots(game.slots_from_flat(*flat))
        expected = tick_events(before, info, game.state)
        obs, rewards, terms, truncs, infos = env.step(actions)
        assert infos["a0"]["events"] == expected
        assert [infos[a]["accepted"] for a in infos] == [actions[a] for a in infos]
        ticks += 1
    assert env.game.result == game.result and ticks == int(game.state.tick)


def test_a_dead_agent_stays_in_the_game_and_may_only_stay():
    position = starting_position(47, (["mage"], ["mage"]), **SHORT)
    position["teams"][0]["agents"][0].update(x=9.0, y=5.0)
    position["teams"][1]["agents"][0].update(x=11.0, y=5.0, health=5)
    env = parallel_env(rosters=(["mage"], ["mage"]), swap_spawns=False, **SHORT)
    obs, _ = env.reset(options={"position": position})
    blast = int(np.flatnonzero(obs["a0"]["action_mask"])[-1])  # an action on b0
    obs, *_ = env.step({"a0": blast, "b0": 0})
    assert not env.game.state.alive[5] and "b0" in env.agents
    assert np.flatnonzero(obs["b0"]["action_mask"]).tolist() == [0]


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ({"a0": 0}, "actions\\['a1'\\]: no action for this agent"),
        ({"a0": 198, "a1": 0, "b0": 0}, "actions\\['a0'\\]: 198 is outside 0..197"),
        ({"a0": 1.5, "a1": 0, "b0": 0}, "actions\\['a0'\\]: expected one whole number"),
        ({"a0": True, "a1": 0, "b0": 0}, "actions\\['a0'\\]: expected one whole number"),
        ({"a0": 0, "a1": 0, "b0": 0, "b9": 0}, "actions: no agent 'b9'"),
        ([0, 0, 0], "actions: expected a dict"),
    ],
)
def test_bad_actions_are_refused_naming_the_agent(actions, message):
    env = parallel_env(rosters=(["mage", "priest"], ["warrior"]), **SHORT)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        env.step(actions)
    assert int(env.game.state.tick) == 0  # nothing was played


def test_strict_refuses_what_the_mask_forbids():
    env = parallel_env(rosters=(["mage"], ["mage"]), strict=True, **SHORT)
    obs, _ = env.reset(seed=0)
    forbidden = int(np.flatnonzero(obs["a0"]["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="actions\\['a0'\\]: .* is not legal now"):
        env.step({"a0": forbidden, "b0": 0})


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"map_id": 52}, "map_id"),
        ({"rosters": (["mage"], ["bard"])}, "rosters\\[1\\]\\[0\\]: unknown class 'bard'"),
        ({"winning_score": 0}, "winning_score"),
        ({"render_mode": "ansi"}, "render_mode"),
        ({"opponent": "tdm-delta"}, "opponent: .*tdm-delta"),
    ],
)
def test_bad_settings_are_refused_naming_them(settings, message):
    with pytest.raises(ValueError, match=message):
        parallel_env(**settings)


def test_rgb_array_draws_the_arena():
    pytest.importorskip("matplotlib")
    env = parallel_env(render_mode="rgb_array", **SHORT)
    env.reset(seed=0)
    image = env.render()
    assert image.shape == (320, 640, 3) and image.dtype == np.uint8
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 5  # floor, walls, both teams
