"""Seasons: entrants files, the fixed schedule, challengers, resuming, and repeatable exports.

Games come from a fast stand-in for `marl_bgs.evaluate` with the same contract (one row per
game, spawn-swapped pairs, pair p on maps[p % len(maps)] with seed number first_seed + p),
whose outcomes follow known strengths; one test plays real games (random vs TDM-Alpha).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from marl_bgs.systems.base import System
from marl_bgs.tournament.entrants import build_system, load_entrants, parse_entrants
from marl_bgs.tournament.schedule import challenge, round_robin, seed_base_after
from marl_bgs.tournament.season import planned_fixtures, play_shard, run_season
from tests.script_loader import load_script

GAMES_NOT_A_FUNCTION = 3  # a name that --evaluate may not point at (not callable)

ROOT = Path(__file__).resolve().parents[2]
STRENGTH = {"weak": 1000.0, "mid": 1200.0, "strong": 1400.0, "star": 1600.0}
NU = 0.3


def fake_system(label: str) -> System:
    """A System that only carries a name (the stand-in evaluate reads its strength)."""
    return System(label, act=None, init=None)


def fake_evaluate(
    team_a, team_b, maps, games, seed, first_seed=0, batch_size=128, progress=True, devices=1
):
    """marl_bgs.evaluate's contract, with outcomes drawn from STRENGTH and draw rate NU."""
    rows = []
    for g in range(games):
        pair = g // 2
        number = first_seed + pair
        rng = np.random.default_rng([seed, number, g % 2, len(team_a.name), len(team_b.name)])
        x = (STRENGTH[team_a.name] - STRENGTH[team_b.name]) * math.log(10) / 400
        w, lo = math.exp(x / 2), math.exp(-x / 2)
        result = rng.choice(["a", "draw", "b"], p=np.array([w, NU, lo]) / (w + lo + NU))
        pa, pb = {"a": (20, 12), "b": (9, 20), "draw": (15, 15)}[result]
        rows.append(
            {
                "game": g,
                "pair": pair,
                "seed_number": number,
                "map_id": maps[pair % len(maps)],
                "spawn_a": ("left", "right")[g % 2],
                "system_a": team_a.name,
                "system_b": team_b.name,
                "result": result,
                "points_a": pa,
                "points_b": pb,
                "margin": pa - pb,
                "kills_a": pa // 2,
                "kills_b": pb // 2,
                "deaths_a": pb // 2,
                "deaths_b": pa // 2,
                "ticks": 200,
            }
        )
    meta = {"versions": {"fake": 1}, "root_seed": seed, "counts": {"games": games}}
    return SimpleNamespace(games=pd.DataFrame(rows), meta=meta)


def _entry(name: str, label: str, kind: str = "learned") -> dict:
    return {
        "name": name,
        "type": kind,
        "load": {
            "entry_point": "tests.tournament.test_tournament:fake_system",
            "kwargs": {"label": label},
        },
    }


def _spec(challengers=(), size=9, names=("Weak", "Mid", "Strong")) -> dict:
    return {
        "format": "marl-bgs/entrants",
        "version": 1,
        "season": "test-season",
        "field_size": size,
        "entrants": [_entry(n, n.lower()) for n in names],
        "challengers": [_entry(n, n.lower()) for n in challengers],
    }


# ---- entrants file ---------------------------------------------------------------------------
def test_season0_file_is_valid():
    spec = load_entrants(ROOT / "seasons" / "season0.json")
    assert spec.season == "season0" and spec.field_size == 9
    scripted = ["TDM-Alpha", "TDM-Beta", "TDM-Gamma"]
    learned = ["Rec-IPPO", "Rec-MAPPO", "FF-IPPO", "FF-MAPPO", "QMIX", "PQN-VDN"]
    assert [e.name for e in spec.entrants] == scripted + [f"{m} 500k" for m in learned]
    assert all(e.load.keys() == {"system"} for e in spec.entrants[:3])
    assert [e.name for e in spec.challengers] == ["Random", "Nav-DAgger 0"]
    # Each learned entrant's policy file sits in the repository, beside its training record.
    for entrant in [*spec.entrants[3:], *spec.challengers[1:]]:
        assert entrant.type == "learned" and entrant.load.keys() == {"weights"}
        policy = ROOT / "seasons" / entrant.load["weights"]
        assert policy.is_file() and policy.stat().st_size < 5 * 2**20, entrant.name
        for name in ("config.json", "train.toml", "training.json", "updates.csv",
                     "validation.csv", "test_results.json", "README.md"):  # fmt: skip
            assert (policy.parent / name).is_file(), (entrant.name, name)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(format="x"), "format"),
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.update(season="Season 0"), "season"),
        (lambda d: d.update(field_size=1), "field_size"),
        (lambda d: d.update(colour="red"), "entrants file"),
        (lambda d: d["entrants"][1].update(type="wizard"), "entrants[1].type"),
        (lambda d: d["entrants"][0].update(name=""), "entrants[0].name"),
        (
            lambda d: d["entrants"][2].update(load={"system": "x", "entry_point": "a:b"}),
            "entrants[2].load",
        ),
        (
            lambda d: d["entrants"][2].update(load={"entry_point": "no colon"}),
            "entrants[2].load.entry_point",
        ),
        (lambda d: d["entrants"][1].update(name="weak"), "entrants[1].name"),
        (lambda d: d.update(entrants=d["entrants"][:1]), "entrants"),
        (lambda d: d.update(field_size=2), "entrants"),
    ],
)
def test_bad_entrants_name_the_field(change, field):
    data = _spec()
    change(data)
    with pytest.raises(ValueError, match="^" + re.escape(field) + ":"):
        parse_entrants(data)


def test_entry_point_loads_a_system_without_code_changes():
    spec = parse_entrants(_spec())
    assert build_system(spec.entrants[2]).name == "strong"
    bad = _beside_weak("B", "tests.tournament.test_tournament:_spec")
    with pytest.raises(ValueError, match="not a System"):
        build_system(bad)


def _beside_weak(name: str, entry_point: str):
    """The second entrant of a two-entrant spec whose first is a plain fake: `name`,
    loaded from `entry_point`."""
    raw = {"name": name, "type": "learned", "load": {"entry_point": entry_point}}
    return parse_entrants({**_spec(), "entrants": [_entry("A", "weak"), raw]}).entrants[1]


# ---- schedule --------------------------------------------------------------------------------
def test_round_robin_seed_numbers_are_unique_and_fixed():
    maps = (47, 48, 49, 50, 51)
    fixtures = round_robin(["A", "B", "C", "D"], maps, 40)
    assert len(fixtures) == 6 and all(f.games == 200 for f in fixtures)
    assert [(f.entrant_a, f.entrant_b) for f in fixtures] == [
        ("A", "B"),
        ("A", "C"),
        ("A", "D"),
        ("B", "C"),
        ("B", "D"),
        ("C", "D"),
    ]
    numbers = [f.first_seed + p for f in fixtures for p in range(f.pairs)]
    assert len(numbers) == len(set(numbers)) == 600
    assert fixtures == round_robin(["A", "B", "C", "D"], maps, 40)  # no randomness
    with pytest.raises(ValueError, match="games_per_map"):
        round_robin(["A", "B"], maps, 3)
    seats = challenge("E", ["A", "B"], maps, 40, 6, seed_base_after(fixtures))
    assert [f.first_seed for f in seats] == [600, 700]


# ---- seasons ---------------------------------------------------------------------------------
def test_season_games_follow_the_schedule(tmp_path):
    spec = parse_entrants(_spec())
    res = run_season(
        spec, [47, 48], 4, seed=5, store=tmp_path, evaluate_fn=fake_evaluate, progress=False
    )
    g = res.games
    assert len(g) == 3 * 8
    assert g.groupby("seed_number").size().eq(2).all()  # each seed number: one pair
    assert set(g.groupby(["fixture", "map_id"]).size()) == {4}
    pairs = g.groupby("seed_number")["spawn_a"].apply(sorted)
    assert all(p == ["left", "right"] for p in pairs)
    assert res.field == ["Weak", "Mid", "Strong"]


def test_challengers_enter_only_above_the_lowest_member(tmp_path):
    spec = parse_entrants(_spec(challengers=("Star", "Weak2"), size=3))
    STRENGTH["weak2"] = 900.0
    try:
        res = run_season(
            spec, [47], 40, seed=1, store=tmp_path, evaluate_fn=fake_evaluate, progress=False
        )
    finally:
        del STRENGTH["weak2"]
    star, weak2 = res.admissions
    assert star["admitted"] and star["replaced"] == "Weak"
    assert not weak2["admitted"]
    assert res.field == ["Star", "Mid", "Strong"]
    assert set(res.games["entrant_a"]) >= {"Star", "Weak2"}  # every result kept
    # both challengers met seat s on the same seed numbers
    ch = res.games[res.games["stage"] == "challenge"]
    firsts = ch.groupby(["entrant_a", "fixture"])["seed_number"].min()
    assert list(firsts["Star"]) == list(firsts["Weak2"])


def test_resume_reads_saved_fixtures_and_replays_changed_ones(tmp_path):
    spec = parse_entrants(_spec())
    calls = []

    def counting(*args, **kw):
        calls.append(kw["first_seed"])
        return fake_evaluate(*args, **kw)

    first = run_season(spec, [47], 4, seed=2, store=tmp_path, evaluate_fn=counting, progress=False)
    again = run_season(
        spec, [47], 4, seed=2, store=tmp_path, resume=True, evaluate_fn=counting, progress=False
    )
    assert len(calls) == 3 and again.resumed == [0, 1, 2]
    pd.testing.assert_frame_equal(first.games, again.games)
    run_season(
        spec, [47], 4, seed=3, store=tmp_path, resume=True, evaluate_fn=counting, progress=False
    )
    assert len(calls) == 6  # a new root seed matches no saved fixture


def test_shards_play_the_planned_fixtures_once_and_a_resume_plays_only_the_rest(tmp_path):
    """Two shards fill one store with the round robin and the first challenger's fixtures;
    the publishing run then plays only the later challenger, and its games equal a run
    that played everything in one process."""
    spec = parse_entrants(_spec(challengers=("Star", "Weak2"), size=3))
    STRENGTH["weak2"] = 900.0
    calls = []

    def counting(*args, **kw):
        calls.append((args[0].name, args[1].name, kw["first_seed"]))
        return fake_evaluate(*args, **kw)

    try:
        plan = planned_fixtures(spec, [47], 4)
        assert [f.index for f in plan] == list(range(6))  # 3 round-robin games + 3 for Star
        assert {f.entrant_a for f in plan[3:]} == {"Star"}
        store = tmp_path / "store"
        kw = dict(games_per_map=4, seed=2, store=store, evaluate_fn=counting, progress=False)
        first = play_shard(spec, [47], 0, 2, **kw)
        second = play_shard(spec, [47], 1, 2, **kw)
        assert sorted(first) == [0, 2, 4] and sorted(second) == [1, 3, 5]
        assert set(first.values()) == set(second.values()) == {"played"}
        assert len(calls) == 6 and len(set(calls)) == 6
        assert play_shard(spec, [47], 1, 2, **kw) == {1: "resumed", 3: "resumed", 5: "resumed"}
        assert len(calls) == 6
        sharded = run_season(spec, [47], 4, seed=2, store=store, resume=True,
                             evaluate_fn=counting, progress=False)  # fmt: skip
        assert sharded.resumed == [0, 1, 2, 3, 4, 5]
        assert {c[0] for c in calls[6:]} == {"weak2"} and len(calls) == 9
        whole_run = run_season(spec, [47], 4, seed=2, store=tmp_path / "one",
                               evaluate_fn=fake_evaluate, progress=False)  # fmt: skip
    finally:
        del STRENGTH["weak2"]
    pd.testing.assert_frame_equal(sharded.games, whole_run.games)
    assert sharded.admissions == whole_run.admissions and sharded.field == whole_run.field


@pytest.mark.parametrize(
    "shard, shards, store, field",
    [(2, 2, "s", "shard"), (-1, 2, "s", "shard"), (0, 0, "s", "shards"), (0, 2, "", "store")],
)
def test_a_bad_shard_is_refused_naming_the_field(tmp_path, shard, shards, store, field):
    spec = parse_entrants(_spec())
    folder = tmp_path / store if store else ""
    with pytest.raises(ValueError, match=field):
        play_shard(spec, [47], shard, shards, 4, store=folder, evaluate_fn=fake_evaluate,
                   progress=False)  # fmt: skip
    assert not list(tmp_path.iterdir())  # refused before any game or folder


def test_export_shards_then_resume_publishes_the_season(tmp_path, capsys):
    entrants = tmp_path / "test-season.json"
    entrants.write_text(json.dumps(_spec()))
    argv = [
        "--season", "test-season", "--entrants", str(entrants), "--games-per-map", "2",
        "--maps", "47", "--refits", "50", "--seed", "3", "--out", str(tmp_path / "out"),
        "--no-progress", "--evaluate", "tests.tournament.test_tournament:fake_evaluate",
    ]  # fmt: skip
    script = _script()
    assert script.main([*argv, "--shard", "0/2"]) == 0
    assert script.main([*argv, "--shard", "1/2"]) == 0
    season = tmp_path / "out" / "test-season"
    assert len(list((season / "fixtures").glob("*.parquet"))) == 3
    assert not (season / "leaderboard.json").exists()  # a shard publishes nothing
    assert "fixtures [1] of 3 planned" in capsys.readouterr().out
    assert script.main([*argv, "--resume"]) == 0
    timing = json.loads((season / "timing.json").read_text())
    assert timing["resumed_fixtures"] == [0, 1, 2]
    for bad in ("2/2", "1", "a/b", "0/0"):
        with pytest.raises(SystemExit) as exit_info:
            script.main([*argv, "--shard", bad])
        assert exit_info.value.code == 2
        assert "expected I/N" in capsys.readouterr().err


def test_export_season_refuses_bad_paths_and_options_with_exit_2(tmp_path, capsys):
    """Usage errors are one line and exit 2 (exit 1 is --check's "stale"), before any game."""
    (tmp_path / "afile").write_text("")
    script = _script()
    base = ["--evaluate", "tests.tournament.test_tournament:fake_evaluate", "--no-progress"]
    cases = [
        (["--out", str(tmp_path / "afile")], "--out: "),
        (["--out", str(tmp_path / "o"), "--store", str(tmp_path / "afile")], "--store: "),
        (["--out", str(tmp_path / "o"), "--maps", "nosuch"], "--maps: expected a split name"),
        (["--out", str(tmp_path / "o"), "--check", "--shard", "0/2"], "--shard: a shard plays"),
    ]
    for extra, says in cases:
        assert script.main([*base, *extra]) == 2, extra
        assert f"export_season: error: {says}" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("tests.tournament.test_tournament", "expected 'module:function'"),
        (":fake_evaluate", "expected 'module:function'"),
        ("tests.no_such_module:fake_evaluate", "module 'tests.no_such_module' does not import"),
        ("tests.tournament.test_tournament:no_such_function", "has no function 'no_such_function'"),
        ("tests.tournament.test_tournament:GAMES_NOT_A_FUNCTION", "has no function"),
    ],
)
def test_a_bad_evaluate_option_is_a_usage_error_naming_it(tmp_path, capsys, value, says):
    """Both season scripts read --evaluate with `function_argument`: exit 2, the option
    named, before anything is played or written."""
    for script in (_script(), load_script("replay_season_full", "replay_season_full_args")):
        with pytest.raises(SystemExit) as exit_info:
            script.main(["--out", str(tmp_path / "out"), "--evaluate", value])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert "argument --evaluate" in err and says in err
    assert not (tmp_path / "out").exists()


def test_a_fixture_without_a_decisive_game_is_saved_and_resumed(tmp_path):
    """evaluate's decisive-win rate is NaN when every game is drawn; the saved record holds
    null (strict JSON), so a resume reads it back instead of refusing the file."""

    def all_drawn(*args, **kw):
        out = fake_evaluate(*args, **kw)
        return SimpleNamespace(games=out.games, meta={**out.meta, "win_rate": float("nan")})

    spec = parse_entrants(_spec())
    first = run_season(spec, [47], 2, seed=4, store=tmp_path, evaluate_fn=all_drawn,
                       progress=False)  # fmt: skip
    saved = sorted(tmp_path.glob("*.json"))
    assert saved and all('"win_rate": null' in p.read_text() for p in saved)
    again = run_season(spec, [47], 2, seed=4, store=tmp_path, resume=True,
                       evaluate_fn=all_drawn, progress=False)  # fmt: skip
    assert again.resumed == [0, 1, 2]
    assert again.metas == first.metas and first.metas[0]["win_rate"] is None


def test_season_devices_reach_evaluate_and_bad_ones_are_refused(tmp_path):
    """Seasons play through evaluate, so `devices` is passed on to every fixture's call
    (tests/test_game_sharding.py shows evaluate's games are those of one device)."""
    spec = parse_entrants(_spec())
    seen = []

    def spying(*args, **kw):
        seen.append(kw["devices"])
        return fake_evaluate(*args, **kw)

    run_season(spec, [47], 4, seed=2, evaluate_fn=spying, progress=False, devices=4)
    assert seen == [4, 4, 4]
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="devices"):
            run_season(spec, [47], 4, evaluate_fn=spying, progress=False, devices=bad)
    assert len(seen) == 3  # refused before any game


def _script():
    return load_script("export_season")


def test_export_is_byte_identical_across_runs(tmp_path):
    entrants = tmp_path / "test-season.json"
    entrants.write_text(json.dumps(_spec()))
    script = _script()
    outs = []
    for run in ("one", "two"):
        out = tmp_path / run
        argv = [
            "--season",
            "test-season",
            "--entrants",
            str(entrants),
            "--games-per-map",
            "4",
            "--maps",
            "47,48",
            "--refits",
            "200",
            "--seed",
            "3",
            "--out",
            str(out),
            "--store",
            str(tmp_path / f"store-{run}"),
            "--no-progress",
            "--evaluate",
            "tests.tournament.test_tournament:fake_evaluate",
        ]
        assert script.main(argv) == 0
        outs.append(out / "test-season")
    files = sorted(p.name for p in outs[0].iterdir())
    for name in (
        "games.csv",
        "games.parquet",
        "ratings.json",
        "ratings.csv",
        "leaderboard.json",
        "provenance.json",
        "timing.json",
        "matchup_heatmap.svg",
        "per_map_forest.svg",
        "heterogeneity.svg",
        "heterogeneity.png",
        "per_map_wdl.svg",
        "per_map_wdl.png",
    ):
        assert name in files
    assert files == sorted(p.name for p in outs[1].iterdir())
    for name in files:
        if name != "timing.json":  # wall time lives there alone
            assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    board = json.loads((outs[0] / "leaderboard.json").read_text())
    assert [r["name"] for r in board["table"]] == ["Strong", "Mid", "Weak"]
    assert board["season_facts"]["games"] == 24
    assert board["rating"]["strata"] == 6  # three pairings on two maps
    assert 0 <= board["rating"]["strata_all_alike"] <= 6
    assert len(board["per_map"]["ratings"]) == 6
    assert {r["entrant"] for r in board["heterogeneity"]["entrants"]} == {"Weak", "Mid", "Strong"}
    index = json.loads((tmp_path / "one" / "index.json").read_text())
    assert index["seasons"][0]["folder"] == "test-season"


def test_export_of_a_one_map_season(tmp_path, capsys):
    """One map: no between-map spread to estimate, so Q's p is null (not NaN) in the JSON."""
    entrants = tmp_path / "test-season.json"
    entrants.write_text(json.dumps(_spec()))
    argv = [
        "--season",
        "test-season",
        "--entrants",
        str(entrants),
        "--games-per-map",
        "6",
        "--maps",
        "47",
        "--refits",
        "20",
        "--out",
        str(tmp_path),
        "--store",
        str(tmp_path / "store"),
        "--no-progress",
        "--evaluate",
        "tests.tournament.test_tournament:fake_evaluate",
    ]
    assert _script().main(argv) == 0
    board = json.loads((tmp_path / "test-season" / "leaderboard.json").read_text())
    assert all(r["p"] is None and r["df"] == 0 for r in board["heterogeneity"]["entrants"])
    assert _script().main([*argv, "--refits", "1"]) == 2  # the last --refits wins
    assert "export_season: error: --refits: " in capsys.readouterr().err


def _small_season(tmp_path: Path) -> tuple[Path, list[str]]:
    """An entrants file of three fake entrants and export_season's arguments for it (one
    map, two games a pairing, published under tmp_path)."""
    entrants = tmp_path / "test-season.json"
    entrants.write_text(json.dumps(_spec()))
    argv = [
        "--season", "test-season", "--entrants", str(entrants), "--games-per-map", "2",
        "--maps", "47", "--refits", "50", "--seed", "3", "--out", str(tmp_path),
        "--no-progress", "--evaluate", "tests.tournament.test_tournament:fake_evaluate",
    ]  # fmt: skip
    return entrants, argv


def test_a_resume_that_plays_nothing_keeps_the_playing_runs_timing(tmp_path):
    """The README's main command refits Season 0 from its saved games: every tracked file,
    timing.json included, must stay as it was (only a run that plays games rewrites it)."""
    entrants, argv = _small_season(tmp_path)
    assert _script().main(argv) == 0
    timing = tmp_path / "test-season" / "timing.json"
    played = json.loads(timing.read_text())
    assert played["resumed_fixtures"] == []
    before = timing.read_bytes()
    assert _script().main([*argv, "--resume"]) == 0
    assert timing.read_bytes() == before
    timing.unlink()  # no timing kept yet: a resumed run writes its own
    assert _script().main([*argv, "--resume"]) == 0
    assert json.loads(timing.read_text())["resumed_fixtures"] == [0, 1, 2]


def test_a_season_published_over_another_writes_its_own_timing(tmp_path):
    """A new season whose fixtures were all played by shards (so the publishing run resumes
    every one) replaces the old season's timing.json instead of keeping it."""
    entrants, argv = _small_season(tmp_path)
    assert _script().main(argv) == 0
    timing = tmp_path / "test-season" / "timing.json"
    old = json.loads(timing.read_text())
    entrants.write_text(json.dumps(_spec(names=("Weak", "Mid", "Strong", "Star"))))
    assert _script().main([*argv, "--force", "--shard", "0/1"]) == 0
    assert _script().main([*argv, "--force", "--resume"]) == 0
    new = json.loads(timing.read_text())
    assert new != old and sorted(new["fixture_seconds"], key=int) == [str(i) for i in range(6)]
    assert new["resumed_fixtures"] == list(range(6))
    before = timing.read_bytes()
    assert _script().main([*argv, "--force", "--resume"]) == 0
    assert timing.read_bytes() == before  # and a rerun keeps it


def test_a_rerun_that_plays_the_same_games_again_changes_no_file(tmp_path):
    """Every generated file is byte-identical on a rerun, also one that plays every game
    again (no --resume): the saved fixtures keep their records and play times, and
    timing.json stays the one of the run that first played the games. New games (another
    root seed) still write their own."""
    entrants = tmp_path / "test-season.json"
    entrants.write_text(json.dumps(_spec()))
    argv = [
        "--season", "test-season", "--entrants", str(entrants), "--games-per-map", "2",
        "--maps", "47,48", "--refits", "50", "--out", str(tmp_path / "out"),
        "--no-progress", "--evaluate", "tests.tournament.test_tournament:fake_evaluate",
    ]  # fmt: skip

    def snapshot() -> dict[str, bytes]:
        base = tmp_path / "out"
        return {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*.*")}

    assert _script().main([*argv, "--seed", "3"]) == 0
    first = snapshot()
    assert "test-season/timing.json" in first and "test-season/per_map_wdl.svg" in first
    assert any(name.startswith("test-season/fixtures/") for name in first)
    assert _script().main([*argv, "--seed", "3"]) == 0  # plays every game again
    assert snapshot() == first
    assert _script().main([*argv, "--seed", "4"]) == 0  # other games: new files and times
    changed = {k for k, v in snapshot().items() if first.get(k) != v}
    assert "test-season/games.csv" in changed and "test-season/timing.json" in changed


def test_a_fixture_played_again_identically_is_not_rewritten(tmp_path):
    spec = parse_entrants(_spec())
    run_season(spec, [47], 2, seed=1, store=tmp_path, evaluate_fn=fake_evaluate, progress=False)
    saved = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    again = run_season(
        spec, [47], 2, seed=1, store=tmp_path, evaluate_fn=fake_evaluate, progress=False
    )
    assert again.repeated == [0, 1, 2] and again.resumed == []
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == saved
    record = tmp_path / sorted(n for n in saved if n.endswith(".json"))[0]
    record.write_text(record.read_text().replace('"fake": 1', '"fake": 2'))  # other metadata
    third = run_season(
        spec, [47], 2, seed=1, store=tmp_path, evaluate_fn=fake_evaluate, progress=False
    )
    assert third.repeated == [1, 2] and '"fake": 1' in record.read_text()  # written afresh


@pytest.mark.slow
def test_real_games_export_identically_twice(tmp_path):
    """Real evaluate: two Random entrants, 2 games a test map (it shares test_evaluation's
    compiled random-vs-random loop at 4 games a batch), exported twice: identical files."""
    entrants = tmp_path / "tiny.json"
    random = {"type": "scripted", "load": {"system": "random"}}
    data = {
        "format": "marl-bgs/entrants",
        "version": 1,
        "season": "tiny",
        "entrants": [{"name": "Random A", **random}, {"name": "Random B", **random}],
    }
    entrants.write_text(json.dumps(data))
    script = _script()
    outs = []
    for run in ("one", "two"):
        argv = [
            "--season",
            "tiny",
            "--entrants",
            str(entrants),
            "--games-per-map",
            "2",
            "--refits",
            "50",
            "--batch-size",
            "4",
            "--out",
            str(tmp_path / run),
            "--store",
            str(tmp_path / f"store-{run}"),
            "--no-progress",
        ]
        assert script.main(argv) == 0
        outs.append(tmp_path / run / "tiny")
    games = pd.read_parquet(outs[0] / "games.parquet")
    assert len(games) == 10 and games["seed_number"].tolist() == [p // 2 for p in range(10)]
    assert set(games["system_a"]) == {"random"} and set(games["entrant_b"]) == {"Random B"}
    board = json.loads((outs[0] / "leaderboard.json").read_text())
    assert board["table"][0]["elo_low"] <= board["table"][0]["elo"] <= board["table"][0]["elo_high"]
    for name in sorted(p.name for p in outs[0].iterdir()):
        if name != "timing.json":
            assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name


def _spoil_record(edit):
    def spoil(path):
        record = json.loads(path.read_text())
        edit(record)
        path.write_text(json.dumps(record))

    return spoil


def _spoil_games(edit):
    def spoil(path):
        edit(pd.read_parquet(path)).to_parquet(path, index=False)

    return spoil


STORE_SPOILS = [
    ("json", lambda p: p.write_text("{not json"), r"000-\S+\.json: not valid JSON"),
    ("json", lambda p: p.write_text("[]"), r"000-\S+\.json: not a saved fixture record"),
    ("json", lambda p: p.write_text('{"key": 1, "key": 2, "meta": {}}'), r"the key 'key' appears twice"),
    ("json", _spoil_record(lambda r: r.update(meta=[])), r"not a saved fixture record"),
    ("json", _spoil_record(lambda r: r.update(seconds=-1)), r"\.json: seconds: -1 must be at least 0"),
    ("json", _spoil_record(lambda r: r.update(seconds="5")), r"\.json: seconds: expected a number"),
    ("parquet", lambda p: p.write_bytes(b"PAR1 not really"), r"000-\S+\.parquet: not a readable Parquet file"),
    ("parquet", lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]), r"\.parquet: not a readable Parquet"),
    ("parquet", _spoil_games(lambda g: g.iloc[:2]), r"\.parquet: holds 2 games, fixture 0 has 4"),
    ("parquet", _spoil_games(lambda g: g.drop(columns="stage")), r"\.parquet: column 'stage' is missing"),
    ("parquet", _spoil_games(lambda g: g.assign(entrant_b="Star")), r"\.parquet: column 'entrant_b' is not 'Mid'"),
]  # fmt: skip


@pytest.mark.parametrize("suffix,spoil,message", STORE_SPOILS)
def test_resume_refuses_a_corrupt_saved_fixture_naming_the_file(tmp_path, suffix, spoil, message):
    spec = parse_entrants(_spec())
    run_season(spec, [47], 4, seed=2, store=tmp_path, evaluate_fn=fake_evaluate, progress=False)
    (path,) = tmp_path.glob(f"000-*.{suffix}")
    spoil(path)
    with pytest.raises(ValueError, match=message):
        run_season(
            spec, [47], 4, seed=2, store=tmp_path, resume=True, evaluate_fn=fake_evaluate,
            progress=False,
        )  # fmt: skip


def test_saved_fixtures_leave_no_temporary_files(tmp_path):
    spec = parse_entrants(_spec())
    run_season(spec, [47], 4, seed=2, store=tmp_path, evaluate_fn=fake_evaluate, progress=False)
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json"] * 3 + [".parquet"] * 3


def test_entrants_files_are_read_strictly(tmp_path):
    from marl_bgs.core.checks import FieldTypeError

    path = tmp_path / "entrants.json"
    path.write_text(json.dumps(_spec()).replace('"season"', '"season": "x", "season"', 1))
    with pytest.raises(
        ValueError, match=r"entrants file .*entrants\.json: the key 'season' appears twice"
    ):
        load_entrants(path)
    path.write_text(json.dumps({**_spec(), "field_size": 4.0}))
    with pytest.raises(FieldTypeError, match=r"^field_size: expected a whole number, got 4\.0"):
        load_entrants(path)
    path.write_text(json.dumps({**_spec(), "entrants": "all"}))
    with pytest.raises(FieldTypeError, match=r"^entrants: expected a list of entrants"):
        load_entrants(path)
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ValueError, match=r"byte-order mark"):
        load_entrants(path)


def wrong_shape_host(**_kw):
    """A host System that answers with the wrong shape (for the test below)."""
    from marl_bgs.systems.base import host_system

    return host_system(lambda inputs: np.zeros(3, np.int32), name="sloppy")


def test_a_host_entrant_that_answers_wrongly_is_named():
    """The refusal names the entrant (it said only "host system")."""
    from marl_bgs.systems.base import TeamInputs

    system = build_system(
        _beside_weak("Sloppy Bot", "tests.tournament.test_tournament:wrong_shape_host")
    )
    inputs = TeamInputs(*(np.zeros((2, 5)) for _ in TeamInputs._fields))
    message = r"^entrant 'Sloppy Bot': host system 'sloppy': expected actions of shape \(2, 5\)"
    with pytest.raises(ValueError, match=message):
        system.act(None, inputs, None)
