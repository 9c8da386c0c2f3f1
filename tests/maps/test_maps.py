"""The 52 numbered maps: validity, splits, design rules, broken files, and the curriculum."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from marl_bgs import Game, maps
from marl_bgs.core.position import starting_position
from marl_bgs.core.state import MAX_TURNED_WALLS
from marl_bgs.learn import curriculum
from marl_bgs.maps import files as map_files
from marl_bgs.random_play import random_actions

ROOT = Path(__file__).resolve().parents[2]
SPEC_MAP47 = ROOT.parent / "shared" / "spec" / "map47.json"


def raw(map_id: int) -> dict:
    """A map file exactly as committed."""
    return json.loads(maps.map_path(map_id).read_text(encoding="utf-8"))


def kinds(ob: dict) -> str:
    if ob["kind"] == "pillar":
        return "pillar"
    if maps.is_turned(ob):
        return "turned"
    return "thin" if min(ob["width"], ob["height"]) <= 0.05 else "wall"


class _AllMaps(dict):
    """Every numbered map, loaded on first use (so a broken file fails a test, not import)."""

    def __missing__(self, map_id: int) -> dict:
        self[map_id] = maps.load_map(map_id)
        return self[map_id]


ALL = _AllMaps()


# ----------------------------------------------------------------------------------------
# The committed maps


def test_there_are_52_maps_named_by_id():
    files = sorted(p.name for p in maps.maps_dir().glob("*.json"))
    assert files == [f"map_{i:02d}.json" for i in range(52)]
    assert maps.available_maps() == list(range(52))


@pytest.mark.parametrize("map_id", maps.MAP_IDS)
def test_every_map_is_valid_and_in_its_split(map_id):
    data = ALL[map_id]
    assert data["id"] == map_id
    assert data["split"] == maps.split_of(map_id)
    assert 0 <= len(data["obstacles"]) <= 32
    assert sum(maps.is_turned(ob) for ob in data["obstacles"]) <= MAX_TURNED_WALLS
    assert maps.validate_map(raw(map_id))["obstacles"] == data["obstacles"]


def test_splits_cover_every_map_once():
    ids = [i for split in maps.SPLITS.values() for i in split]
    assert sorted(ids) == list(range(52))
    assert maps.SPLITS["curriculum"] == tuple(range(12))
    assert maps.SPLITS["training"] == tuple(range(12, 42))
    assert maps.SPLITS["validation"] == tuple(range(42, 47))
    assert maps.SPLITS["test"] == tuple(range(47, 52))
    assert maps.TRAINING_MAPS == tuple(range(42))
    assert maps.HELD_OUT_MAPS == tuple(range(42, 52))
    with pytest.raises(ValueError, match="no map with id 52"):
        maps.split_of(52)


def test_names_are_distinct_and_short():
    names = [ALL[i]["name"] for i in maps.MAP_IDS]
    assert len(set(names)) == 52
    assert all(0 < len(n) <= 20 and n == n.strip() for n in names)


def test_map_47_is_the_given_test_map():
    data = ALL[47]
    assert data["split"] == "test"
    assert len(data["obstacles"]) == 32
    if not SPEC_MAP47.is_file():
        pytest.skip("the shared spec folder is not checked out here")
    spec = json.loads(SPEC_MAP47.read_text(encoding="utf-8"))
    mine = raw(47)
    for key in ("id", "split", "width", "height", "spawn_pads", "obstacles"):
        assert mine[key] == spec[key], key


def test_held_out_maps_share_no_layout_with_training_maps():
    for held in maps.HELD_OUT_MAPS:
        mine = maps.layout_units(ALL[held]["obstacles"])
        for train in maps.TRAINING_MAPS:
            other = maps.layout_units(ALL[train]["obstacles"])
            # Not equal, not a mirror, not one change away (a mirrored pair counts 2) ...
            assert maps.layout_distance(ALL[held]["obstacles"], ALL[train]["obstacles"]) > 2
            # ... and not even half of the obstacles in common.
            common, union = sum((mine & other).values()), sum((mine | other).values())
            assert common / max(union, 1) < 0.5, (held, train)


def test_no_two_maps_share_a_layout():
    keys = {tuple(sorted(maps.layout_units(ALL[i]["obstacles"]).items())) for i in maps.MAP_IDS}
    assert len(keys) == 52


def test_curriculum_maps_add_one_kind_of_obstacle_at_a_time():
    def kinds_of(i):
        return {kinds(ob) for ob in ALL[i]["obstacles"]}

    assert ALL[0]["obstacles"] == []
    assert kinds_of(1) == kinds_of(2) == {"pillar"}
    assert len(ALL[1]["obstacles"]) == 1
    for i in (3, 4):  # rows: at least three pillars on one line
        assert kinds_of(i) == {"pillar"}
        pts = [(ob["x"], ob["y"]) for ob in ALL[i]["obstacles"]]
        assert any(sum(p[1] == y for p in pts) >= 3 for _, y in pts) or any(
            sum(p[0] == x for p in pts) >= 3 for x, _ in pts
        )
    assert kinds_of(5) == kinds_of(6) == {"wall"}
    assert kinds_of(7) == kinds_of(8) == {"thin"}
    assert "turned" in kinds_of(9) and "turned" in kinds_of(10)
    assert kinds_of(11) == {"pillar", "wall", "thin", "turned"}


def test_training_maps_mix_every_motif_and_held_out_maps_are_dense():
    seen = set()
    for i in maps.SPLITS["training"]:
        seen |= {kinds(ob) for ob in ALL[i]["obstacles"]}
        assert len(ALL[i]["obstacles"]) >= 6
    assert seen == {"pillar", "wall", "thin", "turned"}
    for i in maps.HELD_OUT_MAPS:
        assert len(ALL[i]["obstacles"]) >= 18
        assert len({kinds(ob) for ob in ALL[i]["obstacles"]}) >= 3


def test_spawn_columns_are_clear():
    """No pad is a dead end: nothing stands within a body width of the pad columns."""
    for i in maps.MAP_IDS:
        for ob in ALL[i]["obstacles"]:
            x0, _, x1, _ = maps.obstacle_bounds(ob)
            assert x0 >= 1.5 and x1 <= 18.5, (i, ob)


def _grown(ob: dict, d: float) -> dict:
    ob = dict(ob)
    if ob["kind"] == "pillar":
        ob["radius"] += d
    else:
        ob["width"] += 2 * d
        ob["height"] += 2 * d
    return ob


def test_walking_routes_are_at_least_1_2_wide():
    """With every obstacle grown by 0.1, bodies still reach every pad and all standing room."""
    for i in maps.MAP_IDS:
        grown = [_grown(ob, 0.1) for ob in ALL[i]["obstacles"]]
        assert maps.reach_problem(grown) is None, i


@pytest.mark.parametrize("map_id", maps.MAP_IDS)
def test_every_map_plays(map_id):
    game = Game(starting_position(map_id))
    rng = np.random.default_rng(map_id)
    for _ in range(3):
        game.step(random_actions(game, rng))


def test_load_map_returns_private_copies():
    a = maps.load_map(12)
    a["obstacles"].clear()
    assert maps.load_map(12)["obstacles"]
    with pytest.raises(ValueError, match="no map with id 99"):
        maps.load_map(99)
    with pytest.raises(TypeError, match="map: expected a whole number, got True"):
        maps.load_map(True)


# ----------------------------------------------------------------------------------------
# Broken maps are rejected with the map, the obstacle and the reason


def pillar(x, y, r=0.5):
    return {"kind": "pillar", "x": x, "y": y, "radius": r}


def wall(x, y, w, h, theta=0.0):
    return {"kind": "wall", "x": x, "y": y, "width": w, "height": h, "theta": theta}


def bed_map(obstacles=None, **top) -> dict:
    obstacles = (
        [pillar(6.0, 5.0), pillar(14.0, 5.0), wall(10.0, 2.0, 2.0, 0.5)]
        if obstacles is None
        else obstacles
    )
    data = {
        "format": "marl-bgs/map",
        "version": 1,
        "id": 12,
        "name": "Testbed",
        "split": "training",
        "width": 20.0,
        "height": 10.0,
        "spawn_pads": maps.standard_pads(),
        "obstacles": obstacles,
    }
    data.update(top)
    return data


def rejected(data: dict, *parts: str) -> str:
    with pytest.raises(ValueError) as err:
        maps.validate_map(data)
    msg = str(err.value)
    for part in parts:
        assert part in msg, msg
    return msg


def test_testbed_is_valid():
    assert maps.validate_map(bed_map())["name"] == "Testbed"


def test_asymmetric_map():
    rejected(
        bed_map([pillar(6.0, 5.0), pillar(14.2, 5.0)]),
        "map 12 (Testbed): obstacle 0 (pillar at 6.0, 5.0): has no mirror image about x = 10",
        "expected a pillar at (14.000, 5.000) with radius 0.5",
    )
    rejected(
        bed_map([pillar(6.0, 5.0), pillar(14.0, 5.0, 0.6)]),
        "obstacle 0 (pillar at 6.0, 5.0): has no mirror image",
    )


def test_wall_theta_must_mirror_to_minus_theta():
    ok = bed_map([wall(6.0, 5.0, 2.0, 0.3, 0.5), wall(14.0, 5.0, 2.0, 0.3, -0.5)])
    assert maps.validate_map(ok)
    rejected(
        bed_map([wall(6.0, 5.0, 2.0, 0.3, 0.5), wall(14.0, 5.0, 2.0, 0.3, 0.5)]),
        "map 12 (Testbed): obstacle 0 (wall at 6.0, 5.0): has no mirror image",
        "with theta -0.5",
    )
    # A square turned by 45 degrees is its own mirror, whichever sign its theta has (map 47).
    diamonds = [wall(6.0, 5.0, 1.0, 1.0, 0.7853982), wall(14.0, 5.0, 1.0, 1.0, 0.7853982)]
    assert maps.validate_map(bed_map(diamonds))


def test_obstacle_on_the_mirror_line_must_be_symmetric():
    rejected(
        bed_map([wall(10.0, 5.0, 2.0, 0.3, 0.3)]),
        "obstacle 0 (wall at 10.0, 5.0): lies on the mirror line x = 10 but is not symmetric",
    )
    assert maps.validate_map(bed_map([wall(10.0, 5.0, 1.0, 1.0, math.pi / 4)]))


def test_obstacle_outside_the_arena():
    rejected(
        bed_map([pillar(3.0, 9.8), pillar(17.0, 9.8)]),
        "obstacle 0 (pillar at 3.0, 9.8): reaches outside the arena",
    )
    rejected(
        bed_map([wall(10.0, 0.5, 3.0, 0.5, math.pi / 4)]),
        "obstacle 0 (wall at 10.0, 0.5): reaches outside the arena",
    )
    rejected(
        bed_map([pillar(-1.0, 5.0), pillar(21.0, 5.0)]),
        "obstacle 0 (pillar at -1.0, 5.0): centre (-1.0, 5.0) lies outside the arena",
    )


def test_spawn_pad_blocked():
    rejected(
        bed_map([pillar(1.2, 7.0), pillar(18.8, 7.0)]),
        "map 12 (Testbed): obstacle 0 (pillar at 1.2, 7.0): blocks the left spawn pad at (0.5, 7)",
    )


def test_sealed_pocket():
    box = [
        wall(10.0, 3.0, 4.0, 0.4),
        wall(10.0, 7.0, 4.0, 0.4),
        wall(8.0, 5.0, 0.4, 4.4),
        wall(12.0, 5.0, 0.4, 4.4),
    ]
    rejected(bed_map(box), "map 12 (Testbed): sealed pocket near", "cannot reach")


def test_pads_cut_off_from_each_other():
    rejected(
        bed_map([wall(10.0, 5.0, 0.4, 10.0)]),
        "map 12 (Testbed): a body cannot walk from the left spawn pad at (0.5, 1) to the right",
    )
    # A gap narrower than a body seals as well as a wall does.
    halves = [wall(10.0, 2.3, 0.4, 4.6), wall(10.0, 7.7, 0.4, 4.6)]
    rejected(bed_map(halves), "a body cannot walk from the left spawn pad")
    halves = [wall(10.0, 2.25, 0.4, 4.5), wall(10.0, 7.75, 0.4, 4.5)]
    assert maps.validate_map(bed_map(halves))  # a door exactly one body wide is enough


def test_too_many_obstacles():
    many = [pillar(x, y, 0.2) for x in (3.0, 5.0, 7.0, 9.0) for y in (2.0, 4.0, 6.0, 8.0)]
    many += [dict(ob, x=20 - ob["x"]) for ob in many]
    assert maps.validate_map(bed_map(many))  # 32 is fine
    rejected(
        bed_map(many + [pillar(10.0, 5.0, 0.2)]),
        "map 12 (Testbed): 33 obstacles, at most 32 allowed",
    )


def test_too_many_turned_walls():
    turned = []
    for k in range(5):
        y = 1.5 + 1.8 * k
        turned += [wall(5.0, y, 1.0, 0.2, 0.4), wall(15.0, y, 1.0, 0.2, -0.4)]
    rejected(
        bed_map(turned),
        "obstacle 8 (wall at 5.0, 8.7): is wall number 9 whose theta is not a multiple of pi/2",
    )
    assert maps.validate_map(bed_map(turned[:8]))


def test_duplicate_and_malformed_obstacles():
    rejected(
        bed_map([pillar(6.0, 5.0), pillar(14.0, 5.0), pillar(6.0, 5.0)]),
        "obstacle 2 (pillar at 6.0, 5.0): duplicates obstacle 0",
    )
    rejected(
        bed_map([pillar(6.0, 5.0, -1.0)]),
        "obstacle 0 (pillar at 6.0, 5.0): radius: must be positive",
    )
    rejected(bed_map([{"kind": "tree", "x": 1, "y": 1}]), "obstacle 0: kind: must be 'pillar'")
    rejected(bed_map([dict(pillar(6.0, 5.0), colour="red")]), "unknown key 'colour'")
    rejected(bed_map(["pillar"]), "map 12 (Testbed): obstacle 0: expected an object")
    rejected(
        bed_map([pillar(6.0005, 5.0), pillar(13.9995, 5.0)]),
        "obstacle 0 (pillar at 6.0005, 5.0): x 6.0005 has more than three decimals",
    )


@pytest.mark.parametrize(
    "change, message",
    [
        ({"format": "marl-bgs/position"}, "map 12 (Testbed): format: expected 'marl-bgs/map'"),
        ({"version": 2}, "map 12 (Testbed): version: unsupported version 2"),
        ({"id": 52}, "id: expected a whole number 0-51, got 52"),
        ({"id": "12"}, "id: expected a whole number 0-51, got '12'"),
        ({"id": True}, "id: expected a whole number 0-51, got True"),
        ({"split": "train"}, "split: must be one of curriculum, training, validation, test"),
        ({"split": "test"}, "split: map 12 belongs to the 'training' split, not 'test'"),
        ({"name": ""}, "name: expected a non-empty string"),
        ({"name": 7}, "name: expected a non-empty string, got 7"),
        ({"name": " Testbed"}, "must be printable, trimmed"),
        ({"name": "x" * 41}, "at most 40 characters"),
        ({"width": 30.0}, "width: the arena is 20 x 10"),
        ({"spawn_pads": {"left": [], "right": []}}, "spawn_pads: must be exactly"),
        ({"obstacles": {}}, "obstacles: expected a list"),
        ({"author": "me"}, "map 12 (Testbed): author: unknown key"),
    ],
)
def test_bad_header(change, message):
    rejected(bed_map(**change), message)


def test_missing_key_and_not_an_object():
    data = bed_map()
    del data["split"]
    rejected(data, "map 12 (Testbed): split: required")
    rejected([], "map ?: expected a JSON object")  # type: ignore[arg-type]


def test_held_out_map_must_not_copy_a_training_map():
    copy_of_12 = dict(raw(12), id=42, split="validation", name="Copycat")
    rejected(
        copy_of_12,
        "map 42 (Copycat): a held-out (validation) map has the same layout as training map 12",
    )
    one_less = copy.deepcopy(copy_of_12)
    removed = [ob for ob in one_less["obstacles"] if ob["x"] == 3.2 and ob["y"] == 2]
    one_less["obstacles"] = [ob for ob in one_less["obstacles"] if ob not in removed]
    one_less["obstacles"] = [ob for ob in one_less["obstacles"] if ob["x"] != 16.8 or ob["y"] != 2]
    rejected(one_less, "nearly the same layout as training map 12 (2 obstacles differ")
    # The same obstacles as a training map are fine for another training map's checks.
    assert maps.validate_map(dict(raw(12), name="Twin"), check_layouts=True)


def test_file_errors_name_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(map_files, "maps_dir", lambda: tmp_path)
    (tmp_path / "map_12.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="map_12.json: not valid JSON"):
        maps.load_map(12)
    (tmp_path / "map_13.json").write_text(json.dumps(bed_map()), encoding="utf-8")
    with pytest.raises(ValueError, match=r"map 12 \(Testbed\): the file map_13.json must hold"):
        maps.load_map(13)
    bad = bed_map(format="nope", id="x")
    (tmp_path / "map_14.json").write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ValueError, match=r"map_14.json \(Testbed\): format"):
        maps.load_map(14)


def test_inline_obstacles_need_no_symmetry():
    inline = [pillar(6.0, 5.0), wall(3.0, 2.0, 1.0, 0.5, 0.3)]
    assert len(maps.check_obstacles(inline)) == 2
    position = starting_position({"obstacles": inline})
    assert Game(position).obstacles


# ----------------------------------------------------------------------------------------
# Curriculum


def test_default_curriculum_grows():
    stages = curriculum.CURRICULUM
    assert curriculum.validate_stages(stages) == stages
    assert stages[0].team_size == 1 and stages[-1].team_size == 5
    assert stages[0].maps == (0,)
    sizes = [s.team_size for s in stages]
    scores = [s.winning_score for s in stages]
    assert sizes == sorted(sizes) and scores == sorted(scores)
    assert stages[-1].winning_score == 20
    seen: set[int] = set()
    for s in stages:
        assert seen <= set(s.maps)  # maps are only ever added
        seen = set(s.maps)
    assert set(stages[-2].maps) == set(range(12))
    assert set(stages[-1].maps) == set(maps.TRAINING_MAPS)


def test_stage_at_follows_progress():
    bounds = curriculum.stage_bounds()
    assert bounds[0][0] == 0.0 and bounds[-1][1] == 1.0
    assert curriculum.stage_at(0.0) is curriculum.CURRICULUM[0]
    assert curriculum.stage_at(1.0) is curriculum.CURRICULUM[-1]
    assert curriculum.stage_at(np.float32(0.999)) is curriculum.CURRICULUM[-1]
    for k, (start, end) in enumerate(bounds):
        assert curriculum.stage_at((start + end) / 2) is curriculum.CURRICULUM[k]
        assert curriculum.stage_at(start) is curriculum.CURRICULUM[k]
    picked = [curriculum.CURRICULUM.index(curriculum.stage_at(p / 100)) for p in range(101)]
    assert picked == sorted(picked)
    for bad in (-0.1, 1.5, float("nan"), "half", True, None):
        with pytest.raises(ValueError, match="progress"):
            curriculum.stage_at(bad)


def test_custom_stages():
    mine = [
        curriculum.Stage("warm-up", [0, 1], team_size=2, winning_score=5),
        curriculum.Stage("full", (12, 13, 14), team_size=5, winning_score=20, weight=3),
    ]
    assert curriculum.stage_at(0.2, mine).name == "warm-up"
    assert curriculum.stage_at(0.3, mine).name == "full"
    assert mine[0].maps == (0, 1)
    with pytest.raises(ValueError, match="non-empty"):
        curriculum.stage_at(0.5, [])
    cases = [
        (
            curriculum.Stage("x", (), 1, 5),
            r"curriculum\[0\] \('x'\).maps: expected at least one map",
        ),
        (curriculum.Stage("x", (0,), 0, 5), r"team_size: 0 is out of range \[1, 5\]"),
        (curriculum.Stage("x", (0,), 6, 5), r"team_size: 6 is out of range \[1, 5\]"),
        (curriculum.Stage("x", (60,), 1, 5), "maps: no map with id 60"),
        (curriculum.Stage("x", (47,), 1, 5), "map 47 is a held-out test map"),
        (curriculum.Stage("x", (0,), 1, 0), "winning_score: 0 is out of range"),
        (curriculum.Stage("x", (0,), 1.0, 5), "team_size: expected a whole number, got 1.0"),
        (curriculum.Stage("x", (0,), 1, 5, horizon=0), "horizon: 0 is out of range"),
        (curriculum.Stage("x", (0,), 1, 5, weight="2"), "weight: expected a number"),
        (curriculum.Stage("x", (0,), 1, 5, weight=0), "weight: expected a positive number"),
        (curriculum.Stage("", (0,), 1, 5), "name: expected a non-empty string"),
    ]
    for stage, message in cases:
        with pytest.raises(ValueError, match=message):
            curriculum.validate_stages([stage])
    with pytest.raises(ValueError, match="expected a Stage"):
        curriculum.validate_stages([{"name": "x"}])
    assert curriculum.stage_at(
        0.5, [curriculum.Stage("eval", (47,), 5, 20)], allow_held_out=True
    ).maps == (47,)
