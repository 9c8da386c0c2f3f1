"""The engine-only wheel: reproducible bytes, and a play path that imports no JAX, pandas,
pyarrow or tqdm (checked in a fresh interpreter that refuses those imports); the NumPy
Systems and the JSON bridge the page calls."""

from __future__ import annotations

import hashlib
import json
import zipfile

import numpy as np
import pytest

from marl_bgs import Game, browser_api, fingerprints
from marl_bgs.core.position import starting_position
from marl_bgs.systems.numpy_play import NAMES, numpy_system, play_tick
from marl_bgs.systems.scripted import alpha_act, alpha_memory
from tests.engine_files import ROOT, run_from_wheel, script

ew = script("engine_wheel")

PLAY = """
import importlib.abc, json, sys
BANNED = ("jax", "jaxlib", "pandas", "pyarrow", "tqdm", "flax", "optax")
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BANNED:
            raise ImportError(f"the play path imported {name}")
sys.meta_path.insert(0, Refuse())
sys.path.insert(0, sys.argv[1])
import numpy as np
import marl_bgs
assert marl_bgs.__file__.startswith(sys.argv[1]), marl_bgs.__file__
from marl_bgs import Game, browser_api
from marl_bgs.core.position import starting_position
from marl_bgs.replay import load_replay, record_game
from marl_bgs.systems.numpy_play import NAMES, numpy_system, play_tick
for i, name in enumerate(NAMES):
    game = Game(starting_position(47 + i, horizon=20))
    systems = (numpy_system(name), numpy_system("tdm-alpha"))
    memories = [s.init() for s in systems]
    rng = np.random.default_rng(i)
    while not game.done:
        play_tick(game, systems, memories, rng)
g = browser_api.new_game(json.dumps({"map": 42, "winning_score": 3, "horizon": 15}))
while not json.loads(browser_api.state(g))["done"]:
    browser_api.step(g, json.dumps([json.loads(browser_api.decide_team(g, t, "tdm-gamma")) for t in (0, 1)]))
rng = np.random.default_rng(0)
def choose(game):
    legal = game.legal_actions().reshape(10, -1)
    flat = np.asarray([rng.choice(np.flatnonzero(legal[s])) for s in range(10)])
    return np.stack([flat // 22, (flat // 2) % 11, flat % 2], axis=1)
rep = record_game(Game(starting_position(47)), choose, ("random", "random"), 0, max_ticks=10)
load_replay(rep.to_bytes())
print("ok", sorted(m for m in sys.modules if m.split(".")[0] in BANNED))
"""


def test_wheel_is_the_same_bytes_every_build(tmp_path):
    a = ew.build_wheel(tmp_path / "a").read_bytes()
    b = ew.build_wheel(tmp_path / "b").read_bytes()
    assert a == b
    with zipfile.ZipFile(tmp_path / "a" / ew.wheel_name()) as zf:
        names = zf.namelist()
        assert names == list(ew.wheel_bytes())
        assert all(i.date_time == ew.DATE for i in zf.infolist())
    assert sum(n.startswith("marl_bgs/_map_files/map_") for n in names) == 52
    assert "marl_bgs/env.py" not in names and "marl_bgs/systems/both_teams.py" not in names


def test_play_path_imports_no_jax_pandas_pyarrow_tqdm(tmp_path):
    _, done = run_from_wheel(tmp_path, PLAY, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok []"


def test_numpy_systems_decide_as_their_act_functions():
    game = Game(starting_position(49, horizon=12))
    twin = Game(starting_position(49, horizon=12))
    systems = (numpy_system("tdm-alpha"), numpy_system("tdm-alpha"))
    memories = [s.init() for s in systems]
    mine = [alpha_memory(np), alpha_memory(np)]
    rng = np.random.default_rng(0)
    while not game.done:
        flat = []
        for t in (0, 1):
            a, mine[t] = alpha_act(np, twin.team_inputs(t), mine[t])
            flat.append(a)
        twin.step_slots(twin.slots_from_flat(*flat))
        play_tick(game, systems, memories, rng)
        assert all(np.array_equal(x, y) for x, y in zip(game.state, twin.state, strict=True))


def test_numpy_random_picks_only_legal_actions():
    game = Game(starting_position(47, horizon=30))
    system, rng = numpy_system("random"), np.random.default_rng(3)
    while not game.done:
        for t in (0, 1):
            inputs = game.team_inputs(t)
            acts, _ = system.act(inputs, None, rng)
            assert inputs.avail[np.arange(5), acts][inputs.present].all()
        play_tick(game, (system, system), [None, None], rng)
    with pytest.raises(ValueError, match="unknown name 'nobody'"):
        numpy_system("nobody")
    assert NAMES == ("random", "tdm-alpha", "tdm-beta", "tdm-gamma")


def test_bridge_plays_legal_actions_and_names_bad_fields():
    spec = {"map": 48, "rosters": [["mage", "priest"], ["rogue"]], "winning_score": 3,
            "horizon": 40, "spawn_ends": ["right", "left"]}  # fmt: skip
    g = browser_api.new_game(json.dumps(spec))
    while not json.loads(browser_api.state(g))["done"]:
        legal = json.loads(browser_api.legal_actions(g))
        assert [len(team) for team in legal] == [2, 1]
        acts = [json.loads(browser_api.decide_team(g, t, "tdm-beta")) for t in (0, 1)]
        for t in (0, 1):
            for k, (m, tg, u) in enumerate(acts[t]):
                assert (m * 11 + tg) * 2 + u in legal[t][k]
        browser_api.step(g, json.dumps(acts))
    view = json.loads(browser_api.team_view(g, 1))
    assert view["present"] == [True, False, False, False, False]
    position = json.loads(browser_api.state(g))["position"]
    again = browser_api.new_game(json.dumps({"position": position}))
    assert json.loads(browser_api.state(again))["position"] == position
    for bad, field in [
        ({"rosters": [["mage"]]}, "rosters"),
        ({"horizon": 1.5}, "horizon"),
        ({"winning_score": "3"}, "winning_score"),
        ({"colour": 1}, "colour"),
        ({"map": 99}, "map"),
        ({"seed": -1}, "seed"),
        ({"position": {"format": "nope"}}, "position"),
    ]:
        with pytest.raises(ValueError, match=field):
            browser_api.new_game(json.dumps(bad))
    with pytest.raises(ValueError, match="actions"):
        browser_api.step(g, "[[")
    with pytest.raises(ValueError, match="no game with id"):
        browser_api.state(10**6)
    assert (ROOT / "marl_bgs" / "browser_api.py").read_text().count("import jax") == 0


# Scripted games on NumPy: every state and every System memory of two games (Alpha v Beta
# on map 49, Gamma v Alpha on map 28 from the right), hashed. Taken just before
# pathing.py read its shifted grids from one padded copy; that change must move no bit.
# Re-taken when the exact movement changed the games themselves (the rules, not the
# scripted players: their decisions on the old games were pinned until then), and again
# when the scripted players learned to give way in a jam (`pathing.give_way`: a new memory
# field, and other moves where two teammates jam).
# Kept in marl_bgs.fingerprints.SCRIPTED, which saved season fixtures carry in their keys.
SCRIPTED_HASH = fingerprints.SCRIPTED


def test_scripted_opponents_decide_exactly_as_before():
    h = hashlib.sha256()
    games = (("tdm-alpha", "tdm-beta", 49), ("tdm-gamma", "tdm-alpha", 28))
    for i, (a, b, m) in enumerate(games):
        ends = ("right", "left") if i else ("left", "right")
        g = Game(starting_position(m, spawn_ends=ends, horizon=60, winning_score=60))
        systems = (numpy_system(a), numpy_system(b))
        memories = [s.init() for s in systems]
        rng = np.random.default_rng(i)
        while not g.done:
            play_tick(g, systems, memories, rng)
            for t in (0, 1):
                for leaf in memories[t]:
                    h.update(np.ascontiguousarray(np.asarray(leaf)).tobytes())
            for x in g.state:
                h.update(np.ascontiguousarray(x).tobytes())
    assert h.hexdigest() == SCRIPTED_HASH
