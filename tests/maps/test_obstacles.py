"""Inline obstacles meet the limits map files meet (issue 18, part 2).

Authored positions, replays and `reset_to` pass their obstacles through the one validator
that numbered map files use (`maps.check_obstacles`): the same keys, grid, bounds, counts
and clear spawn pads. Each bad list below is tried through every entry point.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from marl_bgs import Game, maps
from marl_bgs.core.checks import FieldTypeError
from marl_bgs.core.position import starting_position
from marl_bgs.replay import ReplayError, load_replay
from tests.helpers import pillar, wall


def tilted_walls(count: int) -> list[dict]:
    return [wall(4.0 + 1.5 * (k % 8), 2.0 + 3.0 * (k // 8), 1.0, 0.2, 0.4) for k in range(count)]


BAD_OBSTACLES = [
    # A pillar of radius 50 once overflowed the integer overlap test and let bodies through.
    ([pillar(10.0, 5.0, 50.0)], ValueError, r"obstacles\[0\]: reaches outside the arena"),
    ([wall(10.0, 5.0, 400.0, 0.5)], ValueError, r"obstacles\[0\]: reaches outside the arena"),
    ([wall(10.0, 9.9, 1.0, 1.0)], ValueError, r"obstacles\[0\]: reaches outside the arena"),
    ([wall(10.0, 5.0, 1.0, 0.2, 1e17)], ValueError, r"obstacles\[0\]\.theta: 1e\+17 must lie in \[-pi, pi\]"),
    ([wall(10.0, 5.0, 1.0, 0.2, -4.0)], ValueError, r"obstacles\[0\]\.theta: -4\.0 must lie"),
    ([pillar(6.12345, 5.0, 0.5)], ValueError, r"obstacles\[0\]: x 6\.12345 has more than three decimals"),
    ([pillar(6.0, 5.0, 0.33333)], ValueError, r"obstacles\[0\]: radius 0\.33333 has more than three"),
    ([wall(6.0, 5.0, 1.00001, 0.2)], ValueError, r"obstacles\[0\]: width 1\.00001 has more than three"),
    ([pillar(0.5, 9.0, 0.3)], ValueError, r"obstacles\[0\]: blocks the left spawn pad at \(0\.5, 9\)"),
    ([pillar(6.0, 5.0, 0.5), wall(19.5, 1.0, 0.4, 0.4)], ValueError,
     r"obstacles\[1\]: blocks the right spawn pad at \(19\.5, 1\)"),
    (tilted_walls(9), ValueError, r"obstacles\[8\]: is wall number 9 whose theta is not a multiple"),
    ([pillar(6.0, 5.0, 0.2)] * 33, ValueError, r"obstacles: 33 obstacles, at most 32 allowed"),
    ([pillar(6.0, 5.0, 0.0)], ValueError, r"obstacles\[0\]\.radius: must be positive"),
    ([pillar(6.0, 5.0, 1e300)], ValueError, r"obstacles\[0\]: reaches outside the arena \(down to x -1e\+300|obstacles\[0\]: reaches outside"),
    ([{"kind": "pillar", "x": "6", "y": 5.0, "radius": 0.5}], FieldTypeError,
     r"obstacles\[0\]\.x: expected a number, got '6'"),
    ([{"kind": "pillar", "x": 6.0, "y": 5.0}], ValueError, r"obstacles\[0\]: missing 'radius'"),
    ([{"kind": "ramp", "x": 6.0, "y": 5.0}], ValueError, r"obstacles\[0\]\.kind: must be 'pillar' or 'wall'"),
    ([[6.0, 5.0, 0.5]], FieldTypeError, r"obstacles\[0\]: expected an object"),
    ("pillars", FieldTypeError, r"obstacles: expected a list of obstacles"),
]  # fmt: skip

IDS = [f"bad{i}" for i in range(len(BAD_OBSTACLES))]


@pytest.mark.parametrize("obstacles,kind,message", BAD_OBSTACLES, ids=IDS)
def test_the_validator_refuses(obstacles, kind, message):
    with pytest.raises(kind, match=r"^map\." + message):
        maps.check_obstacles(copy.deepcopy(obstacles))


def inline_position(obstacles) -> dict:
    """A one-a-side position on an inline map (one agent a side leaves eight pads empty)."""
    position = copy.deepcopy(starting_position(47, rosters=(["mage"], ["warrior"])))
    position["map"] = {"obstacles": copy.deepcopy(obstacles)}
    return position


@pytest.mark.parametrize("obstacles,kind,message", BAD_OBSTACLES, ids=IDS)
def test_positions_refuse(obstacles, kind, message):
    with pytest.raises(kind, match=r"^map\." + message):
        Game(inline_position(obstacles))


REPLAY = sorted((Path(__file__).resolve().parents[2] / "exports" / "replays").glob("*map*.json"))[0]


@pytest.mark.parametrize("obstacles,kind,message", BAD_OBSTACLES, ids=IDS)
def test_replays_refuse(obstacles, kind, message):
    document = json.loads(REPLAY.read_text())
    document["map"]["obstacles"] = copy.deepcopy(obstacles)
    with pytest.raises(ReplayError, match=r"^map\." + message):
        load_replay(json.dumps(document).encode())


def test_good_inline_obstacles_pass_everywhere():
    inline = [
        pillar(6.0, 5.0, 0.5),
        wall(3.0, 2.0, 1.0, 0.5, 0.3),
        wall(14.0, 5.0, 2.0, 0.4, -math.pi),
    ]
    inline += tilted_walls(8)[1:]
    assert len(maps.check_obstacles(inline)) == len(inline)
    assert Game(inline_position(inline)).obstacles
    document = json.loads(REPLAY.read_text())
    assert load_replay(json.dumps(document).encode())  # the unspoiled replay reads


def test_map_files_word_the_same_reasons():
    """A numbered map file names the obstacle its own way, with the same reason."""
    bed = json.loads(maps.map_path(12).read_text())
    bed["obstacles"] = [wall(6.0, 5.0, 1.0, 0.2, 1e17), wall(14.0, 5.0, 1.0, 0.2, -1e17)]
    with pytest.raises(
        ValueError,
        match=r"^map 12 \(.*\): obstacle 0 \(wall at 6\.0, 5\.0\): theta: 1e\+17 must lie",
    ):
        maps.validate_map(bed)


@pytest.fixture(scope="module")
def env():
    pytest.importorskip("jax")
    import marl_bgs

    return marl_bgs.make("tdm", num_envs=None, map_id=47)


@pytest.mark.parametrize("obstacles,kind,message", BAD_OBSTACLES, ids=IDS)
def test_reset_to_refuses(env, obstacles, kind, message):
    with pytest.raises(kind, match=r"^position: map\." + message):
        env.reset_to(None, inline_position(obstacles))
