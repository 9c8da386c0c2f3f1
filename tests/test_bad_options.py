"""Options and files refused early, naming the field (issue 18, parts 4 and 5).

One checker (`marl_bgs.core.checks`) serves the env's options, evaluate's, positions, map
files and replays: a wrong type raises `FieldTypeError` (a `TypeError` that is also a
`ValueError`), a wrong value `ValueError`, each naming the field, before any work.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from marl_bgs import Game, maps
from marl_bgs.core.checks import FieldTypeError, plain_json, strict_json
from marl_bgs.core.position import starting_position
from marl_bgs.maps import load as map_load
from marl_bgs.replay import ReplayError, load_replay


def test_a_wrong_type_is_both_a_type_error_and_a_value_error():
    assert issubclass(FieldTypeError, TypeError) and issubclass(FieldTypeError, ValueError)


ENV_OPTIONS = [
    ({"num_envs": 10**12}, ValueError, r"num_envs: 1000000000000 is out of range"),
    ({"num_envs": 0}, ValueError, r"num_envs: 0 is out of range"),
    ({"num_envs": 2.0}, FieldTypeError, r"num_envs: expected a whole number, got 2\.0"),
    ({"num_envs": True}, FieldTypeError, r"num_envs: expected a whole number"),
    ({"rosters": []}, ValueError, r"rosters: expected at least 1 items, got 0"),
    ({"rosters": "mage"}, FieldTypeError, r"rosters: expected a list"),
    ({"rosters": [[["mage"], ["mage"], ["mage"]]]}, ValueError, r"rosters\[0\]: expected 2 items"),
    ({"rosters": [["mage"], []]}, ValueError, r"rosters\[0\]\[1\]: expected 1 to 5 items, got 0"),
    ({"rosters": [["mage"], ["paladin"]]}, ValueError, r"rosters\[0\]\[1\]\[0\]: unknown class 'paladin'; known: mage"),
    ({"rosters": [["mage"], [3]]}, FieldTypeError, r"rosters\[0\]\[1\]: expected a list|"
                                                   r"rosters\[0\]\[1\]\[0\]: expected one of"),
    ({"winning_score": []}, ValueError, r"winning_score: expected at least 1 items"),
    ({"winning_score": "20"}, FieldTypeError, r"winning_score: expected a whole number, got '20'"),
    ({"winning_score": [20, 0]}, ValueError, r"winning_score\[1\]: 0 is out of range \[1, 1000\]"),
    ({"map_id": None}, FieldTypeError, r"map_id: expected a whole number, got None"),
    ({"map_id": 47.0}, FieldTypeError, r"map_id: expected a whole number, got 47\.0"),
    ({"map_id": []}, ValueError, r"map_id: expected at least 1 items"),
    ({"map_id": [47, "48"]}, FieldTypeError, r"map_id\[1\]: expected a whole number, got '48'"),
    ({"map_id": 99}, ValueError, r"map: no map with id 99"),
    ({"swap_spawns": "false"}, FieldTypeError, r"swap_spawns: expected true or false, got 'false'"),
    ({"swap_spawns": 0}, FieldTypeError, r"swap_spawns: expected true or false, got 0"),
    ({"red_zone_depth": "5"}, FieldTypeError, r"red_zone_depth: expected a number, got '5'"),
    ({"red_zone_depth": 11}, ValueError, r"red_zone_depth: 11 must lie in \[0, 10\]"),
    ({"red_zone_depth": float("nan")}, ValueError, r"red_zone_depth: must be finite"),
    ({"red_zone_depth": 5.0004}, ValueError, r"red_zone_depth: 5\.0004 has more than three decimals \(the grid is 0\.001\)"),
    ({"horizon": 0}, ValueError, r"horizon: 0 is out of range"),
    ({"horizon": "300"}, FieldTypeError, r"horizon: expected a whole number"),
    ({"metrics": "all"}, ValueError, r"metrics: unknown value 'all'; known: none, priority, full"),
    ({"metrics": None}, FieldTypeError, r"metrics: expected one of none, priority, full, got None"),
    ({"obstacle_capacity": 5}, FieldTypeError, r"obstacle_capacity: expected a list, got 5"),
    ({"obstacle_capacity": (32,)}, ValueError, r"obstacle_capacity: expected 2 items, got 1"),
    ({"obstacle_capacity": ("a", 8)}, FieldTypeError, r"obstacle_capacity\[0\]: expected a whole number, got 'a'"),
    ({"obstacle_capacity": (32, 8.0)}, FieldTypeError, r"obstacle_capacity\[1\]: expected a whole number, got 8\.0"),
    ({"obstacle_capacity": (33, 8)}, ValueError, r"obstacle_capacity: \(33, 8\) must hold"),
]  # fmt: skip


@pytest.mark.parametrize("options,kind,message", ENV_OPTIONS)
def test_make_refuses_bad_options_naming_them(options, kind, message):
    pytest.importorskip("jax")
    import marl_bgs

    with pytest.raises(kind, match=message):
        marl_bgs.make("tdm", **options)


def test_make_takes_numpy_integers():
    pytest.importorskip("jax")
    import marl_bgs

    env = marl_bgs.make("tdm", map_id=np.int64(47), num_envs=np.int32(2), winning_score=[5])
    assert env.map_ids == (47,) and env.num_envs == 2


EVAL_OPTIONS = [
    ({"rosters": []}, ValueError, r"rosters: expected 2 items, got 0"),
    ({"rosters": [["mage"], ["priest", 3]]}, FieldTypeError, r"rosters\[1\]\[1\]: expected one of"),
    ({"rosters": [["mage"], ["mage"] * 6]}, ValueError, r"rosters\[1\]: expected 1 to 5 items"),
    ({"games": 3}, ValueError, r"games: 3 is odd"),
    ({"games": 2.0}, FieldTypeError, r"games: expected a whole number, got 2\.0"),
    ({"seed": -1}, ValueError, r"seed: -1 is out of range"),
    ({"batch_size": 0}, ValueError, r"batch_size: 0 is out of range"),
    ({"winning_score": []}, FieldTypeError, r"winning_score: expected a whole number, got \[\]"),
    ({"horizon": 10**400}, ValueError, r"horizon: 1000000.*\.\.\. is out of range"),
    ({"maps": None}, ValueError, r"maps: expected a split name, a map id or a list of ids"),
    ({"maps": [47.0]}, FieldTypeError, r"maps\[0\]: expected a whole number, got 47\.0"),
    ({"maps": [47, 52]}, ValueError, r"maps\[1\]: 52 is out of range \[0, 51\]"),
    ({"record": 5}, FieldTypeError, r"record: expected a list, got 5"),
    ({"record": [0, 2]}, ValueError, r"record\[1\]: 2 is out of range \[0, 1\]"),
    ({"record": [0.0]}, FieldTypeError, r"record\[0\]: expected a whole number, got 0\.0"),
]  # fmt: skip


@pytest.mark.parametrize("options,kind,message", EVAL_OPTIONS)
def test_evaluate_refuses_bad_options_before_playing(options, kind, message):
    pytest.importorskip("jax")
    import marl_bgs

    kw = {"maps": [47], "games": 2, "progress": False, **options}
    with pytest.raises(kind, match=message):
        marl_bgs.evaluate("random", "random", **kw)


def agent0(p):
    return p["teams"][0]["agents"][0]


def nested(depth):
    d: list = []
    for _ in range(depth):
        d = [d]
    return d


POSITIONS = [
    (lambda p: agent0(p).__setitem__("x", 10**400), ValueError,
     r"teams\[0\]\.agents\[0\]\.x: 1000000.*\.\.\. is too large"),
    (lambda p: agent0(p).__setitem__("class", ["mage"]), FieldTypeError,
     r"teams\[0\]\.agents\[0\]\.class: expected a class name, got \['mage'\]"),
    (lambda p: agent0(p).__setitem__(3, 1), ValueError, r"teams\[0\]\.agents\[0\]\.3: unknown key"),
    (lambda p: p.__setitem__(("a",), 1), ValueError, r"position\.\('a',\): unknown key"),
    (lambda p: agent0(p).__setitem__("effects", nested(100_000)), ValueError,
     r"position: nested more than 24 levels deep"),
    (lambda p: p.__setitem__("horizon", 10**400), ValueError, r"horizon: 1000000.*out of range"),
    (lambda p: p.__setitem__("tick", 1.0), FieldTypeError, r"tick: expected a whole number, got 1\.0"),
    (lambda p: agent0(p).__setitem__("health", float("nan")), ValueError, r"health: must be finite"),
    (lambda p: agent0(p).__setitem__("y", None), FieldTypeError, r"\.y: expected a number, got None"),
    (lambda p: agent0(p).__setitem__("x", "1"), FieldTypeError, r"\.x: expected a number, got '1'"),
]  # fmt: skip


@pytest.mark.parametrize("edit,kind,message", POSITIONS)
def test_game_refuses_bad_positions_naming_the_field(edit, kind, message):
    position = copy.deepcopy(starting_position(47))
    edit(position)
    with pytest.raises(kind, match=message):
        Game(position)


def test_plain_json_walks_without_recursion():
    assert plain_json({"a": nested(23)}, "x") is not None  # 24 levels below the top
    with pytest.raises(ValueError, match=r"x: nested more than 24 levels"):
        plain_json({"a": nested(24)}, "x")
    with pytest.raises(ValueError, match=r"x: more than 10 values"):
        plain_json(list(range(20)), "x", max_items=10)


@pytest.fixture
def map_file(tmp_path):
    """A copy of map 47's file to spoil; read through the map reader (cache bypassed)."""
    path = tmp_path / "map_47.json"
    shutil.copy(maps.map_path(47), path)
    return path


def read_map(path):
    return map_load._load_file.__wrapped__(str(path))


MAP_FILES = [
    (lambda t: t.replace('"id": 47', '"id": 47, "id": 47', 1), r"map_47\.json: the key 'id' appears twice"),
    (lambda t: t.encode("utf-16"), r"map_47\.json: starts with a byte-order mark"),
    (lambda t: b"\xef\xbb\xbf" + t.encode(), r"map_47\.json: starts with a byte-order mark"),
    (lambda t: "[" * 100_000 + "]" * 100_000, r"map_47\.json: nested too deeply"),
    (lambda t: t[: len(t) // 2], r"map_47\.json: not valid JSON"),
    (lambda t: t.replace('"id": 47', '"id": NaN', 1), r"map_47\.json: id: NaN is not allowed"),
    (lambda t: t.replace('"width": 20.0', '"width": NaN', 1), r"map_47\.json: width: NaN is not allowed"),
    (lambda t: t.replace('"theta": 0.7853982', '"theta": NaN', 1), r"map_47\.json: obstacles\[28\]\.theta: NaN is not allowed"),
    (lambda t: t + "junk", r"map_47\.json: not valid JSON \(Extra data"),
]  # fmt: skip


@pytest.mark.parametrize("spoil,message", MAP_FILES)
def test_map_files_are_read_strictly(map_file, spoil, message):
    text = map_file.read_text()
    assert '"id": 47' in text
    bad = spoil(text)
    map_file.write_bytes(bad if isinstance(bad, bytes) else bad.encode())
    with pytest.raises(ValueError, match=message):
        read_map(map_file)


def test_the_unspoiled_map_file_reads(map_file):
    assert read_map(map_file)["id"] == 47


# mtime=0 keeps the parameter (and so the test id) the same in every pytest-xdist worker.
@pytest.mark.parametrize(
    "tail", [gzip.compress(b"{}", mtime=0), b"garbage"], ids=["gzip", "garbage"]
)
def test_replays_with_data_after_the_gzip_stream_are_refused(tail):
    with pytest.raises(ReplayError, match=r"^file: bytes after the end of the gzip stream"):
        load_replay(gzip.compress(b'{"format": "marl-bgs/replay"}', mtime=0) + tail)


def test_strict_json_takes_its_error_type():
    with pytest.raises(ReplayError, match=r"^here: the key 'k'"):
        strict_json('{"k": 1, "k": 2}', "here", ReplayError)
    assert strict_json(json.dumps({"k": [1, 2.5]}).encode(), "here") == {"k": [1, 2.5]}


REPLAY = sorted((Path(__file__).resolve().parent.parent / "exports" / "replays").glob("*.json*"))[0]


@pytest.mark.parametrize("extra,message", [
    (["--port", "70000"], r"--port: 70000 is out of range \[0, 65535\]"),
    (["--port", "-1"], r"--port: -1 is out of range"),
    (["--tick", "-5"], r"--tick: -5 is out of range"),
    (["--tick", "100000"], r"--tick: 100000 is out of range"),
    (["--view", "zz"], r"--view: unknown value 'zz'; known: oracle, a, b, a0"),
])  # fmt: skip
def test_view_refuses_bad_options(extra, message, capsys):
    from marl_bgs import cli

    assert cli.main(["view", str(REPLAY), "--no-browser", *extra]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_view_names_a_busy_port(capsys):
    import socket

    from marl_bgs import cli

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli.main(["view", str(REPLAY), "--no-browser", "--port", str(port)]) == 2
    assert f"--port: cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_crossplay_needs_two_systems(capsys):
    from marl_bgs import cli, crossplay

    with pytest.raises(ValueError, match=r"systems: cross-play needs at least two Systems"):
        crossplay(["random"])
    with pytest.raises(TypeError, match=r"systems: expected a list"):
        crossplay("random")
    assert cli.main(["crossplay", "--systems", "random", "--quiet"]) == 2
    assert "systems: cross-play needs at least two" in capsys.readouterr().err
    # An empty name is a usage error (it exited 0 and printed a NaN row).
    for given in ("random,,tdm-alpha", "random,tdm-alpha,", ",random,tdm-alpha", "random, ,x"):
        assert cli.main(["crossplay", "--systems", given, "--quiet"]) == 2
        assert f"--systems: an empty name in {given!r}" in capsys.readouterr().err
