"""The authored-position format: reading, validating, writing back; the Game API's guards."""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import marl_bgs.core
from marl_bgs import Game
from marl_bgs.core import position as core_position
from marl_bgs.core.actions import decode
from marl_bgs.core.position import OFFICIAL_ROSTER, starting_position
from marl_bgs.core.state import State, fresh_state
from marl_bgs.maps.positions import parse_position
from tests.helpers import STAY, agent, pillar, position

BASE = position(
    [agent("mage", 0.5, 1.0), agent("warrior", 3, 3, health=150)],
    [agent("rogue", 19.5, 1.0)],
    [pillar(10, 5, 1)],
)


def mutate(path: str, value) -> dict:
    """A copy of BASE with one field replaced (path like 'teams.0.agents.1.x')."""
    data = copy.deepcopy(BASE)
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    elif value is KeyError:
        del node[last]
    else:
        node[last] = value
    return data


BAD = [
    ("format", "marl-bgs/replay", "format"),
    ("version", 2, "version"),
    ("version", True, "version: expected the whole number 1, got True"),
    ("version", 1.0, "version: expected the whole number 1, got 1.0"),
    ("map", 99, "no map with id 99"),
    ("map", "47", "map"),
    ("map", {"obstacles": [{"kind": "tree", "x": 1, "y": 1}]}, "map.obstacles[0].kind"),
    ("map", {"obstacles": [{"kind": "pillar", "x": 1, "y": 1}]}, "missing 'radius'"),
    ("map", {"obstacles": [], "name": "x"}, "map.name: unknown key"),
    ("tick", -1, "tick"),
    ("tick", 301, "tick"),
    ("tick", 1.5, "tick: expected a whole number"),
    ("horizon", 0, "horizon"),
    ("winning_score", 0, "winning_score"),
    ("score", [0], "score"),
    ("score", [0, 40], "score[1]"),
    ("score", [-1, 0], "score[0]"),
    ("red_zone_depth", 11, "red_zone_depth"),
    ("colour", "red", "position.colour: unknown key"),
    ("teams", [], "teams"),
    ("teams.0.spawn_end", "top", "teams[0].spawn_end"),
    ("teams.1.spawn_end", "left", "teams[1].spawn_end: the two teams"),
    ("teams.0.wave_clock", 0, "teams[0].wave_clock"),
    ("teams.0.wave_clock", 6, "teams[0].wave_clock"),
    ("teams.0.agents", [], "teams[0].agents"),
    (
        "teams.0.agents",
        [agent("mage", 1, 1 + 2 * k) for k in range(5)] + [agent("mage", 5, 5)],
        "teams[0].agents",
    ),
    ("teams.0.agents.0.class", "paladin", "teams[0].agents[0].class: unknown class"),
    ("teams.0.agents.0.speed", 3, "teams[0].agents[0].speed: unknown key"),
    ("teams.0.agents.0.x", 0.4, "teams[0].agents[0].x"),
    ("teams.0.agents.0.x", 19.6, "teams[0].agents[0].x"),
    ("teams.0.agents.0.y", 9.6, "teams[0].agents[0].y"),
    ("teams.0.agents.0.x", float("nan"), "teams[0].agents[0].x: must be finite"),
    ("teams.0.agents.0.x", True, "teams[0].agents[0].x: expected a number"),
    ("teams.0.agents.0.x", 1.0001, "more than three decimals"),
    ("teams.0.agents.0.x", KeyError, "teams[0].agents[0].x: required"),
    (
        "teams.0.agents.1",
        agent("warrior", 9.0, 5),
        "teams[0].agents[1]: the body overlaps an obstacle",
    ),
    ("teams.0.agents.1.health", 201, "teams[0].agents[1].health"),
    ("teams.0.agents.1.health", 0, "teams[0].agents[1].health"),
    ("teams.0.agents.1.health", -3, "teams[0].agents[1].health"),
    ("teams.0.agents.1.alive", "yes", "teams[0].agents[1].alive"),
    ("teams.0.agents.1.ultimate_cooldown", 30, "ultimate_cooldown"),
    ("teams.0.agents.1.ultimate_cooldown", -1, "ultimate_cooldown"),
    ("teams.0.agents.1.shield", 4, "teams[0].agents[1].shield"),
    ("teams.0.agents.1.out_of_combat", -1, "out_of_combat"),
    ("teams.0.agents.1.effects", {"stun": 2}, "effects.stun"),
    ("teams.0.agents.1.effects", {"stun": -1}, "effects.stun"),
    ("teams.0.agents.1.effects", {"freeze": 1}, "effects.freeze: unknown key"),
    ("teams.0.agents.1.effects", {"burst": 1.0}, "effects.burst: expected a whole number"),
    ("teams.0.agents.1.last_action", [9, 0, 0], "last_action[0]"),
    ("teams.0.agents.1.last_action", [0, 11, 0], "last_action[1]"),
    ("teams.0.agents.1.last_action", [0, 0], "last_action"),
]


@pytest.mark.parametrize("path, value, message", BAD, ids=[f"{p}={v!r}"[:60] for p, v, _ in BAD])
def test_bad_positions_are_rejected_naming_the_field(path, value, message):
    data = mutate(path, value)
    before = copy.deepcopy(data)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Game(data)
    assert data == before  # nothing is changed in the caller's dict


def test_overlapping_living_bodies_are_rejected():
    data = mutate("teams.0.agents.1", agent("warrior", 1.2, 1.5))
    with pytest.raises(ValueError, match=r"teams\[0\].agents\[1\]: the body overlaps"):
        Game(data)


def test_touching_bodies_are_allowed_and_shielded_may_overlap():
    Game(mutate("teams.0.agents.1", agent("warrior", 1.5, 1.0)))
    Game(mutate("teams.0.agents.1", agent("warrior", 1.0, 1.0, shield=2)))


def test_dead_agents_carry_nothing():
    for extra, field in [({"health": 5}, "health"), ({"shield": 1}, "shield"),
                         ({"effects": {"stun": 1}}, "effects"), ({"out_of_combat": 2}, "out_of_combat")]:  # fmt: skip
        data = mutate("teams.0.agents.1", agent("warrior", 3, 3, alive=False, **extra))
        with pytest.raises(ValueError, match=field):
            Game(data)
    g = Game(mutate("teams.0.agents.1", agent("warrior", 3, 3, alive=False)))
    assert g.state_dict()["teams"][0]["agents"][1]["health"] == 0


def test_defaults_are_a_fresh_agent():
    written = Game(BASE).state_dict()["teams"][0]["agents"][0]
    assert written == {
        "class": "mage", "x": 0.5, "y": 1.0, "health": 80.0, "alive": True,
        "ultimate_cooldown": 0, "shield": 0, "out_of_combat": 0,
        "effects": {name: 0 for name in
                    ["stun", "trap", "slow_hunter", "slow_charge", "slow_poison",
                     "healing_cut", "burst", "blessing"]},
        "last_action": None,
    }  # fmt: skip


@pytest.mark.parametrize("backend_name", ["numpy", "jax"])
def test_state_dict_round_trips(backend_name):
    g = Game(starting_position(47), backend_name)
    for k in range(8):
        g.step([[(3, 0, 0)] * 5, [(4, 0, 0)] * 5] if k < 6 else [[(0, 0, 0)] * 5] * 2)
        written = g.state_dict()
        again = Game(json.loads(json.dumps(written)), backend_name).state_dict()
        assert again == written
    assert written["teams"][0]["agents"][0]["last_action"] == [0, 0, 0]


def test_inline_map_round_trips():
    data = Game(BASE).state_dict()
    assert data["map"] == {"obstacles": [{"kind": "pillar", "x": 10.0, "y": 5.0, "radius": 1.0}]}
    assert Game(data).state_dict() == data


def test_actions_are_checked():
    g = Game(BASE)
    for actions, message in [
        ([[STAY, STAY]], "two lists"),
        ([[STAY], [STAY]], r"actions\[0\]: expected 2 actions"),
        ([[STAY, STAY], [STAY, STAY]], r"actions\[1\]: expected 1 actions"),
        ([[STAY, (9, 0, 0)], [STAY]], r"actions\[0\]\[1\]\[0\]: 9 is outside 0..8"),
        ([[STAY, (0, 11, 0)], [STAY]], r"actions\[0\]\[1\]\[1\]"),
        ([[STAY, (0, 0, 2)], [STAY]], r"actions\[0\]\[1\]\[2\]"),
        ([[STAY, (0, 0)], [STAY]], r"actions\[0\]\[1\]: expected \(move, target, ultimate\)"),
        ([[STAY, (0.0, 0, 0)], [STAY]], "whole number"),
    ]:
        with pytest.raises(ValueError, match=message):
            g.step(actions)
    assert g.state_dict()["tick"] == 0  # nothing was played


def test_mask_shapes_and_absent_slots():
    g = Game(BASE)
    legal = g.legal_actions()
    assert legal.shape == (2, 5, 198) and legal.dtype == bool
    move, target, ult = g.legal_heads()
    assert move.shape == (2, 5, 9) and target.shape == (2, 5, 11) and ult.shape == (2, 5, 2)
    for t, k in [(0, 2), (0, 4), (1, 1)]:  # absent slots allow only (stay, none, no)
        assert np.flatnonzero(legal[t, k]).tolist() == [0]


def test_masks_match_the_flat_encoding():
    g = Game(starting_position(47))
    legal = g.legal_actions()
    move, target, ult = g.legal_heads()
    flat = np.arange(198)
    m, tg, u = decode(flat)
    assert np.all(~legal | (move[..., m] & target[..., tg] & ult[..., u]))
    for t in range(2):
        for k in range(5):
            assert set(m[legal[t, k]]) == set(np.flatnonzero(move[t, k]))


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="backend"):
        Game(BASE, backend="torch")


def test_core_imports_without_jax():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'jax' or name.startswith('jax.') or name.startswith('jaxlib'):\n"
        "            raise ImportError('jax is blocked for this test')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import marl_bgs.core\n"
        "from marl_bgs import Game\n"
        "from marl_bgs.core.position import starting_position\n"
        "g = Game(starting_position(47))\n"
        "g.step([[(3, 0, 0)] * 5, [(4, 0, 0)] * 5])\n"
        "assert 'jax' not in sys.modules\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_core_imports_nothing_above_it():
    """The rules layer depends on nothing else in the package (maps, replays, systems...),
    not even through an import inside a function: every import in marl_bgs/core/ names a
    module of core itself or a library."""
    offenders = []
    for path in sorted(Path(marl_bgs.core.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
                if node.level > 1:
                    offenders.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.split(".")[0] == "marl_bgs" and not name.startswith("marl_bgs.core"):
                    offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders, "core imports from above it: " + ", ".join(offenders)


def test_core_parser_takes_the_map_from_its_caller():
    """core's `parse_position` reads no map files: the resolver it is given decides."""
    data = json.loads(json.dumps(BASE))
    data["map"] = "somewhere"
    seen = []

    def resolve(raw):
        seen.append(raw)
        return "somewhere", [{"kind": "pillar", "x": 10.0, "y": 5.0, "radius": 1.0}]

    parsed = core_position.parse_position(data, resolve)
    assert seen == ["somewhere"] and parsed.map_ref == "somewhere"
    assert np.array_equal(parsed.state.pos, parse_position(BASE).state.pos)


@pytest.mark.parametrize("ends", [("left", "right"), ("right", "left")])
def test_a_starting_position_is_the_fresh_state(ends):
    """`starting_position` (a document) and `fresh_state` (the env's recipe) describe the
    same new game: every present agent's fields and every team field agree."""
    rosters = (("mage", "rogue"), OFFICIAL_ROSTER)
    parsed = Game(starting_position(47, rosters, ends, horizon=77, winning_score=9)).state
    present = parsed.present
    fresh = fresh_state(np, parsed.cls, present, parsed.spawn_end, 77, 9, parsed.red_zone_depth)
    for name in State._fields:
        got, want = np.asarray(getattr(fresh, name)), np.asarray(getattr(parsed, name))
        if got.shape[:1] == (10,):
            got, want = got[present], want[present]
        assert np.array_equal(got, want), name


def test_game_from_state_keeps_the_state_exactly():
    game = Game(starting_position(47, (("mage",), ("rogue", "priest"))))
    game.step([[(3, 0, 0)], [(4, 0, 0), (0, 0, 0)]])
    state = game.state._replace(pos=game.state.pos.copy())
    state.pos[9] = (1234, 4321)  # an empty slot's field, which no position spells out
    again = Game.from_state(state, 47)
    for name in State._fields:
        assert np.array_equal(getattr(again.state, name), getattr(state, name)), name
    assert again.sizes == [1, 2] and again.start_tick == 1
