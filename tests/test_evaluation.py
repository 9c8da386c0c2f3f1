"""evaluate(): a fixed schedule, keys folded per game, tables others can read, clear errors."""

from __future__ import annotations

import json

import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

import marl_bgs
from marl_bgs.cli import main
from marl_bgs.core.actions import MIRROR_MOVE
from marl_bgs.evaluation import GAME_COLUMNS, resolve_maps, wdl_matrix
from marl_bgs.schedule import Schedule
from marl_bgs.systems import host_system, jax_system

GAMES = 16  # eight spawn-swapped pairs over the five test maps


@pytest.fixture(scope="session")
def random_games():
    """Random against random, 16 games at two batch sizes (the runs every test shares)."""
    small = marl_bgs.evaluate(
        "random", "random", games=GAMES, seed=3, batch_size=4, record=range(GAMES), progress=False
    )
    whole = marl_bgs.evaluate(
        "random", "random", games=GAMES, seed=3, batch_size=16, progress=False
    )
    return small, whole


def test_schedule_is_arithmetic():
    s = Schedule((47, 48, 49), games=8, first_seed=10)
    assert [s.game(g) for g in range(4)] == [
        (0, 10, 47, "left"),
        (0, 10, 47, "right"),
        (1, 11, 48, "left"),
        (1, 11, 48, "right"),
    ]
    assert s.game(7) == (3, 13, 47, "right")


def test_rows_follow_the_schedule(random_games):
    small, _ = random_games
    games = small.games
    assert list(games.columns) == list(GAME_COLUMNS)
    assert len(games) == GAMES
    assert games["map_id"].tolist() == [47 + (g // 2) % 5 for g in range(GAMES)]
    assert games["spawn_a"].tolist() == ["left", "right"] * (GAMES // 2)
    assert set(games["result"]) <= {"a", "b", "draw"}
    assert (games["margin"] == games["points_a"] - games["points_b"]).all()
    assert (games["ticks"] > 0).all() and (games["ticks"] <= 300).all()
    won = games["result"] == "a"
    assert ((games["points_a"] > games["points_b"]) | ~won).all()


def test_results_do_not_depend_on_batch_size(random_games):
    small, whole = random_games
    pd.testing.assert_frame_equal(small.games, whole.games)


def test_recording_changes_nothing_and_keeps_every_tick(random_games):
    small, whole = random_games  # `small` recorded every game, `whole` none
    pd.testing.assert_frame_equal(small.games, whole.games)
    assert whole.actions == {}
    for g, acts in small.actions.items():
        assert acts.shape == (small.games.loc[g, "ticks"], 10, 3)
        assert (acts >= 0).all()


def test_the_two_games_of_a_pair_draw_the_same_keys(random_games):
    """Same keys in a mirrored position: every own-frame choice repeats, mirrored on the map."""
    small, _ = random_games
    for p in range(GAMES // 2):
        left, right = small.actions[2 * p], small.actions[2 * p + 1]
        assert left.shape == right.shape
        np.testing.assert_array_equal(MIRROR_MOVE[left[..., 0]], right[..., 0])
        np.testing.assert_array_equal(left[..., 1:], right[..., 1:])


def test_host_and_jax_systems_mix_and_agree():
    """The same policy as a host function and as a JAX function gives the same games."""

    def first_legal_host(inputs):
        return np.argmax(np.asarray(inputs.avail), axis=-1).astype(np.int32)

    def first_legal_jax(key, inputs):
        return jnp.argmax(inputs.avail, axis=-1).astype(jnp.int32)

    host = host_system(first_legal_host, name="first-legal")
    compiled = jax_system(first_legal_jax, name="first-legal")
    kw = dict(maps=[47], games=4, seed=1, batch_size=4, horizon=40, progress=False)
    on_host = marl_bgs.evaluate(host, "random", **kw)
    in_jit = marl_bgs.evaluate(compiled, "random", **kw)
    pd.testing.assert_frame_equal(on_host.games, in_jit.games)


def test_save_writes_tables_other_tools_read(random_games, tmp_path):
    small, _ = random_games
    paths = small.save(tmp_path)
    from_csv = pd.read_csv(paths["csv"])
    from_parquet = pd.read_parquet(paths["parquet"])
    pd.testing.assert_frame_equal(from_parquet, small.games)
    assert from_csv["result"].tolist() == small.games["result"].tolist()
    meta = json.loads(paths["meta"].read_text())
    assert meta["format"] == "marl-bgs/evaluation"
    assert meta["root_seed"] == 3
    assert meta["schedule"]["games"] == GAMES
    assert {"marl_bgs", "jax", "numpy", "device"} <= set(meta["versions"])
    assert meta["counts"]["games"] == GAMES


def test_summary_counts_and_interval(random_games):
    small, _ = random_games
    s = small.summary()
    assert s["wins"] + s["draws"] + s["losses"] == GAMES
    lo, hi = s["margin_ci95"]
    assert lo <= s["margin_mean"] <= hi


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"team_a": "nobody"}, "team_a"),
        ({"team_b": 3}, "team_b"),
        ({"maps": "holdout"}, "maps"),
        ({"maps": [47, 52]}, "maps[1]"),
        ({"games": 3}, "games"),
        ({"games": 0}, "games"),
        ({"games": 2.0}, "games"),
        ({"seed": -1}, "seed"),
        ({"batch_size": 0}, "batch_size"),
        ({"devices": -1}, "devices"),
        ({"devices": 2.0}, "devices"),
        ({"devices": 1 << 20}, "devices"),  # more than this machine has
        ({"record": [99]}, "record"),
        ({"rosters": (["mage"], ["wizard"])}, "wizard"),
    ],
)
def test_bad_input_names_the_field(kwargs, field):
    args = {"team_a": "random", "team_b": "random", "games": 2, "progress": False}
    args.update(kwargs)
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        marl_bgs.evaluate(args.pop("team_a"), args.pop("team_b"), **args)


def test_split_names_resolve():
    assert resolve_maps("test") == (47, 48, 49, 50, 51)
    assert resolve_maps(5) == (5,)
    assert len(resolve_maps("all")) == 52


def test_cli_eval_prints_a_summary_and_saves(tmp_path, capsys):
    rc = main(
        ["eval", "--a", "random", "--b", "random", "--games", str(GAMES), "--seed", "3"]
        + ["--batch-size", "16", "--quiet", "--out", str(tmp_path)]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "margin [95% interval]" in out
    assert (tmp_path / "games.parquet").exists()


def test_cli_rejects_bad_names(capsys):
    assert main(["eval", "--a", "tdm-omega", "--b", "random", "--games", "2"]) == 2
    assert "tdm-omega" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["play", "--seed", "-1"], "--seed: -1 is out of range"),
        (["crossplay", "--systems", "random"], "--systems: cross-play needs at least two"),
        (
            ["scenarios", "--system", "random", "--only", "abc"],
            "--only: 'abc' is not a scenario id",
        ),
        (
            ["scenarios", "--system", "random", "--only", "1,1"],
            "--only: scenario 1 is listed twice",
        ),
        (["scenarios", "--system", "random", "--only", ","], "--only: expected scenario ids"),
    ],
)
def test_cli_refuses_bad_values_naming_the_option(argv, says, capsys):
    """Refused before any game is played: exit 2, the option named (not NumPy's or int()'s
    own words, nor an option the command line does not have)."""
    assert main(argv) == 2
    assert f"marl-bgs: error: {says}" in capsys.readouterr().err


def test_crossplay_gives_every_pair():
    first = jax_system(lambda key, inputs: jnp.argmax(inputs.avail, -1).astype(jnp.int32), "first")
    games, margins = marl_bgs.crossplay(
        ["random", first], maps=[47], games=2, batch_size=2, progress=False
    )
    assert list(margins.index) == ["random", "first"]
    assert margins.loc["random", "first"] == -margins.loc["first", "random"]
    wdl = wdl_matrix(games)
    w, d, loss = (int(x) for x in wdl.loc["random", "first"].split("-"))
    assert w + d + loss == 2


def test_a_recorded_game_becomes_an_exact_replay(random_games):
    small, _ = random_games
    replay = small.replay(3)
    row = small.games.iloc[3]
    final = replay.state_at(-1)
    assert [int(v) for v in final.score] == [row["points_a"], row["points_b"]]
    assert int(final.tick) == row["ticks"]
    from marl_bgs.replay import replay_game

    replay_game(replay, "numpy")  # raises at the first tick that differs


def test_unrecorded_games_have_no_replay(random_games):
    _, whole = random_games
    with pytest.raises(ValueError, match="record"):
        whole.replay(0)
