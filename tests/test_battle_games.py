"""marl_bgs/battle_games.py, the BattleClient's sessions: they play from the engine wheel without
JAX (the learned entrant included), seat humans of both teams in turn, start from authored
positions, and name bad settings by field."""

from __future__ import annotations

import json

import numpy as np
import pytest

from marl_bgs import Game, battle_games
from marl_bgs.core.position import starting_position
from marl_bgs.replay import load_replay, replay_game
from tests.browser_engine.test_wheel import PLAY as WHEEL_PLAY

from .engine_files import run_from_wheel

# The wheel test's interpreter that refuses JAX and friends, then a BattleClient game.
HEADER = WHEEL_PLAY[: WHEEL_PLAY.index("import numpy as np")]
PLAY = (
    HEADER
    + """
from marl_bgs import battle_games
from marl_bgs.replay import load_replay
assert battle_games.__file__.startswith(sys.argv[1]), battle_games.__file__
systems = json.loads(battle_games.browser_catalog())["systems"]
spec = {"map": 48, "rosters": [["mage", "priest"], ["rogue", "hunter"]], "horizon": 6,
        "controllers": ["human", "ppo-rec-ippo-0", 0, 0, 0, "tdm-gamma", "qmix-500k", 0, 0, 0]}
sid = battle_games.new_session(json.dumps(spec))
view = json.loads(battle_games.view(sid, "a"))
while not view["done"]:
    view = json.loads(battle_games.step(sid, json.dumps({"a0": [3, 0, 0]}), "a"))
replay = load_replay(battle_games.replay_text(sid).encode())
print(json.dumps({"systems": systems, "slots": replay.systems, "ticks": replay.ticks,
                  "banned": sorted(m for m in sys.modules if m.split(".")[0] in BANNED)}))
"""
)


def test_sessions_play_from_the_engine_wheel_without_jax(tmp_path):
    names, done = run_from_wheel(tmp_path, PLAY, timeout=120)
    assert {f"marl_bgs/_entrants/{name}.npz" for name in battle_games.ENTRANTS} <= set(names)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["systems"] == ["human", "random", "tdm-alpha", "tdm-beta", "tdm-gamma",
                              *battle_games.ENTRANTS]  # fmt: skip
    assert out["slots"][:2] == ["human", "ppo-rec-ippo-0"] and out["slots"][5] == "tdm-gamma"
    assert out["slots"][6] == "qmix-500k"
    assert out["ticks"] == 6 and out["banned"] == []


def test_the_wheel_carries_the_entrants_the_client_offers(tmp_path):
    """scripts/engine_wheel.py reads battle_games.py's list from the checkout's file; a checkout
    without the list is refused naming the file."""
    from pathlib import Path

    from .engine_files import script

    wheel = script("engine_wheel")
    assert wheel.entrants() == battle_games.ENTRANTS
    assert "ppo-rec-ippo-0" in battle_games.ENTRANTS
    assert {f"{m}-500k" for m in ("rec-ippo", "rec-mappo", "ff-ippo", "ff-mappo", "qmix",
                                  "pqn-vdn")} <= set(battle_games.ENTRANTS)  # fmt: skip
    (tmp_path / "marl_bgs").mkdir()
    (tmp_path / "marl_bgs" / "battle_games.py").write_text("OTHER = ('x',)\n")
    with pytest.raises(ValueError, match="battle_games.py has no ENTRANTS"):
        wheel.entrants(Path(tmp_path))


def test_a_q_learner_plays_its_best_legal_action_in_the_client():
    """QMIX's `.npz` is a Q-network: whatever the seed, it plays the same (greedy) game;
    Rec-IPPO's samples, so another seed plays another game."""

    def actions(who: str, seed: int) -> list:
        spec = {"map": 47, "horizon": 8, "seed": seed,
                "controllers": [who] * 5 + ["tdm-beta"] * 5}  # fmt: skip
        sid = battle_games.new_session(json.dumps(spec))
        view = json.loads(battle_games.view(sid, "a"))
        while not view["done"]:
            view = json.loads(battle_games.step(sid, "{}", "a"))
        return load_replay(battle_games.replay_text(sid).encode()).actions.tolist()

    assert actions("qmix-500k", 1) == actions("qmix-500k", 2)
    assert actions("rec-ippo-500k", 1) != actions("rec-ippo-500k", 2)


def test_humans_of_both_teams_see_their_own_side_only():
    spec = {
        "map": 47,
        "rosters": [["mage"], ["priest"]],
        "controllers": ["human", None, None, None, None, "human", None, None, None, None],
        "horizon": 4,
    }
    sid = battle_games.new_session(json.dumps(spec))
    for who, slot in (("a", "a0"), ("b", "b0")):
        view = json.loads(battle_games.view(sid, who))
        assert [h["slot"] for h in view["humans"]] == [slot]
        assert view["window"]["view"]["of"] == who and view["human_teams"] == ["a", "b"]
    assert json.loads(battle_games.view(sid, "auto"))["window"]["view"]["of"] == "a"
    assert json.loads(battle_games.view(sid, "oracle"))["window"]["view"] is None
    for _ in range(4):
        battle_games.step(sid, json.dumps({"a0": [3, 0, 0], "b0": [4, 0, 0]}), "a")
    replay = load_replay(battle_games.replay_text(sid).encode())
    assert replay.systems[0] == replay.systems[5] == "human"
    assert (
        replay.actions[:, 0, 0].tolist() == [3] * 4 and replay.actions[:, 5, 0].tolist() == [4] * 4
    )
    assert replay_game(replay) == 4
    battle_games.close_session(sid)


def test_a_position_starts_the_game_and_systems_fill_the_other_slots():
    position = starting_position(42, (["warrior"], ["hunter", "rogue"]), horizon=5, winning_score=2)
    controllers = ["human", "human", None, None, None, "random", "tdm-beta", "human", None, None]
    sid = battle_games.new_session(
        json.dumps({"position": position, "controllers": controllers, "seed": 3})
    )
    view = json.loads(battle_games.view(sid, "auto"))
    assert view["controllers"][:2] == ["human", None]  # a1 is not in this position
    assert view["controllers"][5:8] == ["random", "tdm-beta", None]
    assert view["window"]["title"] == "BattleClient: human vs random + tdm-beta, map 42"
    while not view["done"]:
        view = json.loads(battle_games.step(sid, "{}", "a"))  # a living human left out stands still
    assert view["tick"] == 5


def test_the_view_sends_each_humans_stride_where_the_engine_moves_it():
    """`humans[i].strides` (the page's ghosts) is, for every move, where the engine's tick
    moves that agent in the open: its class speed under its slows, Blessing's floor."""
    doc = starting_position(0, (["mage", "rogue", "priest"], ["warrior"]), horizon=3)  # Open Field
    a = doc["teams"][0]["agents"]
    a[0].update(x=9.0, y=2.0, effects={"slow_charge": 3})  # Charge: x0.5
    a[1].update(x=9.0, y=5.0, effects={"slow_hunter": 1, "slow_poison": 2})  # x0.85 x0.5
    a[2].update(x=9.0, y=8.0, effects={"slow_charge": 4, "blessing": 1})  # Blessing: x0.85
    controllers = ["human"] * 3 + [None, None, "tdm-alpha"] + [None] * 4
    sid = battle_games.new_session(json.dumps({"position": doc, "controllers": controllers}))
    humans = json.loads(battle_games.view(sid, "a"))["humans"]
    assert [h["slot"] for h in humans] == ["a0", "a1", "a2"]
    strides = np.asarray([h["strides"] for h in humans])
    assert strides.shape == (3, 9, 2) and (strides[:, 0] == 0).all()
    for move in range(9):
        game = Game(doc)
        start = game.state.pos[:3].copy()
        game.step([[[move, 0, 0]] * 3, [[0, 0, 0]]])
        assert (game.state.pos[:3] - start).tolist() == strides[:, move].tolist(), move
    lengths = np.hypot(*strides[:, 3].T)  # east: the full stride
    assert lengths.tolist() == pytest.approx([1000 * 0.5, 1300 * 0.85 * 0.5, 1000 * 0.85], abs=1)
    assert [h["speed"] for h in humans] == [1000, 1300, 1000]  # the class speeds, unslowed
    battle_games.close_session(sid)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"controllers": ["human"] * 9}, "controllers: expected 10 entries"),
        ({"controllers": ["human", "tdm-omega"] + [None] * 8}, "controllers[1] (a1): 'tdm-omega'"),
        (
            {"position": starting_position(47), "map": 3},
            "game: with 'position', unknown field(s) ['map']",
        ),
        ({"rosters": [["mage"]]}, "rosters: expected two lists"),
        (
            {"spawn_ends": ["left", "left"]},
            "teams[1].spawn_end: the two teams must start at different ends",
        ),
        ({"winning_score": 0}, "winning_score: 0 is out of range [1, 1000]"),
        ({"colour": "red"}, "game: unknown field(s) ['colour']"),
        ({"position": {"format": "marl-bgs/position"}}, "position.horizon: required"),
    ],
)
def test_bad_settings_are_named(spec, message):
    with pytest.raises(ValueError) as err:
        battle_games.new_session(json.dumps(spec))
    assert str(err.value).startswith(message), str(err.value)


def test_the_catalog_names_the_official_game_as_the_engine_defines_it():
    from marl_bgs.core.position import starting_position

    official = json.loads(battle_games.browser_catalog())["official"]
    doc = starting_position(47)
    assert official == {"winning_score": doc["winning_score"], "horizon": doc["horizon"]}
    assert official == {"winning_score": 20, "horizon": 300}  # RULES.md's official game
