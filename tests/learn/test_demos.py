"""Demonstrations (`learn.demos`): recorded in the compiled loop, read back exactly, refused
when damaged or hostile (naming the field), and rebuilt from replays on the engine."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.cli import main
from marl_bgs.core.actions import NUM_JOINT, compass_flat, encode
from marl_bgs.core.observation import OBS_WIDTH
from marl_bgs.core.position import starting_position
from marl_bgs.core.state import RIGHT
from marl_bgs.learn import demos
from marl_bgs.random_play import random_actions
from marl_bgs.replay import record_game

TINY = dict(teacher="random", opponents=("random",), maps=(0,), roster=("mage", "rogue"),
            winning_score=3, horizon=12, num_envs=3, chunk_ticks=8, steps=60, shard_steps=40)  # fmt: skip


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demos") / "random"
    demos.record_demos(demos.DemoSettings(**TINY), folder, progress=False)
    return folder


def test_a_recording_reads_back_whole_and_consistent(recorded):
    read = demos.read_demos(recorded)
    m = read.manifest
    # 60 steps of 3 games in chunks of 8 ticks: 3 chunks (72 steps), 2 chunks a shard.
    assert [s["ticks"] for s in m["shards"]] == [16, 8]
    assert m["steps"] == 72 and read.envs == 3
    assert m["settings"] == json.loads(json.dumps(demos.DemoSettings(**TINY).to_dict()))
    assert m["provenance"]["teacher"] == "random" and m["provenance"]["reward"]["damage"] == 0.001
    a = read.arrays()
    assert a["obs"].shape == (24, 3, 5, OBS_WIDTH) and a["avail"].shape == (24, 3, 5, NUM_JOINT)
    assert a["new_game"][0].all()  # every game starts fresh
    # A game that ends is replaced by a fresh one at the next tick, and only then.
    assert np.array_equal(a["new_game"][1:], a["done"][:-1])
    assert m["games_finished"] == int(a["done"].sum()) > 0
    assert sum(m["results"].values()) == m["games_finished"]
    # Two classes in the roster: slots 2-4 are empty; the random teacher chose legally.
    assert a["present"][..., :2].all() and not a["present"][..., 2:].any()
    batch = demos.learner_batch(a)
    assert np.array_equal(batch["counts"], a["present"] & a["alive"])
    assert m["teacher_illegal_choices"] == 0


def test_returns_sum_the_discounted_rewards_of_each_game_to_its_end():
    reward = np.zeros((5, 2, 5), np.float32)
    reward[:, 0, 0] = [1, 2, 3, 4, 5]
    reward[:, 1, 1] = [1, 1, 1, 1, 1]
    done = np.zeros((5, 2), bool)
    done[2, 0] = True  # game 1 of env 0 ends at tick 2; the next is cut off by the end
    ret, complete = demos.discounted_returns(reward, done, 0.5)
    assert ret[:, 0, 0].tolist() == [1 + 0.5 * 2 + 0.25 * 3, 2 + 0.5 * 3, 3, 4 + 0.5 * 5, 5]
    assert ret[:, 1, 1].tolist() == [1.9375, 1.875, 1.75, 1.5, 1.0]
    assert complete[:, 0].tolist() == [True, True, True, False, False]
    assert not complete[:, 1].any()


def test_the_demos_command_records_and_names_its_options(tmp_path, capsys):
    out = tmp_path / "d"
    args = ["demos", "record", "--teacher", "random", "--vs", "random", "--maps", "1",
            "--roster", "hunter", "--winning-score", "2", "--horizon", "20", "--num-envs", "2",
            "--chunk-ticks", "4", "--steps", "8", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(args) == 0
    assert "8 game steps in 1 shards" in capsys.readouterr().out
    assert main(args) == 2  # the folder holds demonstrations now
    assert "already holds demos.json" in capsys.readouterr().err
    for bad, says in (
        (["--maps", "47"], "--maps[0]: map 47 is held out"),
        (["--maps", "44"], "--maps[0]: map 44 is held out"),
        (["--num-envs", "0"], "--num-envs"),
        (["--roster", "bard"], "--roster[0]: unknown class 'bard'"),
        (["--vs", "nobody"], "error: opponents[0]: 'nobody' is not a registered System"),
    ):
        assert main([*args, "--force", *bad]) == 2
        assert says in capsys.readouterr().err


# ---- damaged and hostile files -------------------------------------------------------------
def _copy(recorded, tmp_path):
    folder = tmp_path / "copy"
    folder.mkdir()
    for f in recorded.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    return folder


def _manifest(folder):
    return json.loads((folder / demos.MANIFEST).read_text())


def _save_manifest(folder, m):
    (folder / demos.MANIFEST).write_text(json.dumps(m))


def _rewrite_shard(folder, change):
    """Shard 0 rewritten with `change(arrays)` (a dict of raw arrays), the manifest's size
    and digest updated so that only the arrays' checks can catch it."""
    path = folder / "shard-00000.npz"
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    change(arrays)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    path.write_bytes(buf.getvalue())
    m = _manifest(folder)
    m["shards"][0]["bytes"] = len(buf.getvalue())
    m["shards"][0]["sha256"] = hashlib.sha256(buf.getvalue()).hexdigest()
    _save_manifest(folder, m)


@pytest.mark.parametrize(
    "spoil, says",
    [
        (lambda m: m.update(format="marl-bgs/replay"), "format: expected 'marl-bgs/demos'"),
        (lambda m: m.update(version=2), "version: unsupported 2"),
        (lambda m: m.update(steps=71), "steps: the manifest says 71, its shards hold 72"),
        (lambda m: m["shards"][0].update(file="../x.npz"), "shards[0].file: expected a .npz"),
        (lambda m: m["shards"][1].update(file="gone.npz"), "shards[1].file: gone.npz is missing"),
        (lambda m: m["shards"][0].update(bytes=5), "shards[0].bytes"),
        (lambda m: m["shards"][0].update(sha256="0" * 64), "shards[0].sha256: shard-00000.npz"),
        (lambda m: m["shards"][0].update(ticks=True), "shards[0].ticks: expected a positive"),
        (lambda m: m.update(envs=0), "envs: expected a whole number"),
        (lambda m: m["settings"].update(maps=[48]), "settings.maps[0]: map 48 is held out"),
        (lambda m: m["settings"].update(speed=3), "settings.speed: unknown setting"),
        (lambda m: m.update(shards={}), "shards: expected a list"),
    ],
)
def test_a_damaged_manifest_is_refused_naming_the_field(recorded, tmp_path, spoil, says):
    folder = _copy(recorded, tmp_path)
    m = _manifest(folder)
    spoil(m)
    _save_manifest(folder, m)
    with pytest.raises(ValueError) as err:
        demos.read_demos(folder)
    assert says in str(err.value)


def _set(name, value):
    def change(arrays):
        arrays[name] = value(arrays[name])

    return change


@pytest.mark.parametrize(
    "change, says",
    [
        (_set("obs", lambda a: a.astype(np.float64)), "shards[0].obs: expected float32"),
        (_set("obs", lambda a: a[:, :2]), "shards[0].obs: expected float32 (16, 3, 5, 784)"),
        (_set("obs", lambda a: np.where(a == 0, np.nan, a).astype(np.float32)), "non-finite"),
        (_set("action", lambda a: (a + 300).astype(np.int16)), "shards[0].action: actions must"),
        (_set("classes", lambda a: (a + 7).astype(np.int8)), "shards[0].classes: class ids"),
        (lambda arrays: arrays.pop("done"), "shards[0].done: missing"),
        (lambda arrays: arrays.update(extra=np.zeros(3)), "shards[0].extra.npy: unknown array"),
        (_set("avail", lambda a: np.asfortranarray(a)), "shards[0].avail: expected uint8"),
    ],
)
def test_a_damaged_shard_is_refused_naming_the_array(recorded, tmp_path, change, says):
    folder = _copy(recorded, tmp_path)
    _rewrite_shard(folder, change)
    read = demos.read_demos(folder)  # the manifest is whole: the arrays are checked when read
    with pytest.raises(ValueError) as err:
        read.shard(0)
    assert says in str(err.value)


def test_a_shard_that_is_not_an_archive_or_claims_a_huge_array_is_refused(recorded, tmp_path):
    folder = _copy(recorded, tmp_path)
    _rewrite_shard(folder, lambda arrays: None)
    path = folder / "shard-00000.npz"
    # A member whose header claims a huge array: refused from the header, nothing allocated.
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**9, 3, 784)}
    )
    members["world.npy"] = header.getvalue()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    _fix_digest(folder)
    with pytest.raises(ValueError, match="shards\\[0\\].world: expected float32"):
        demos.read_demos(folder).shard(0)
    path.write_bytes(b"\x93NUMPY not a zip")
    _fix_digest(folder)
    with pytest.raises(ValueError, match="shards\\[0\\]: shard-00000.npz is not a .npz archive"):
        demos.read_demos(folder).shard(0)


def _fix_digest(folder):
    data = (folder / "shard-00000.npz").read_bytes()
    m = _manifest(folder)
    m["shards"][0].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    _save_manifest(folder, m)


# ---- from replays --------------------------------------------------------------------------
def test_demos_from_a_replay_are_the_engine_inputs_and_the_accepted_actions(tmp_path):
    """Team a spawns on the right, so its own frame is the mirror of the compass frame."""
    rng = np.random.default_rng(4)
    start = starting_position(12, (("mage", "warrior"), ("rogue",)), ("right", "left"), 40)
    replay = record_game(Game(start), lambda g: random_actions(g, rng), ("human", "random"), 4)
    path = tmp_path / "game.json.gz"
    replay.save(path)
    folder = demos.demos_from_replays([path, path], "a", tmp_path / "demos")
    read = demos.read_demos(folder)
    assert read.manifest["source"] == "replays" and read.num_shards == 2
    a = read.shard(1)
    ticks = replay.ticks
    assert a["obs"].shape == (ticks, 1, 5, OBS_WIDTH)
    game = Game(start)
    for t in range(ticks):
        inputs = game.team_inputs(0)
        assert np.array_equal(a["obs"][t, 0], inputs.obs)
        assert np.array_equal(a["avail"][t, 0], inputs.avail)
        heads = replay.actions[t][:5]
        compass = encode(heads[:, 0], heads[:, 1], heads[:, 2])
        own = a["action"][t, 0].astype(np.int64)
        assert np.array_equal(compass_flat(np, own, np.full(5, RIGHT))[:2], compass[:2])
        game.step_slots(replay.actions[t].astype(np.int32))
    assert a["new_game"][0, 0] and not a["new_game"][1:].any()
    assert a["done"][-1, 0] and not a["done"][:-1].any()
    # The accepted actions of living agents are legal in their own frame.
    live = a["alive"][..., :2]
    legal = np.take_along_axis(a["avail"], a["action"][..., None].astype(np.int64), -1)[..., 0]
    assert legal[..., :2][live].all()
    with pytest.raises(ValueError, match="side: expected 'a' or 'b'"):
        demos.demos_from_replays([path], "c", tmp_path / "x")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="replays: bad.json"):
        demos.demos_from_replays([tmp_path / "bad.json"], "a", tmp_path / "y")
