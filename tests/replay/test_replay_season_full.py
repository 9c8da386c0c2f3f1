"""scripts/replay_season_full.py replays a season fixture by fixture: shards filling one parts
folder give the same table as one process, and any game that does not repeat is refused."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from tests.script_loader import load_script
from tests.tournament.test_tournament import _spec, fake_evaluate

ROOT = Path(__file__).resolve().parents[2]


def fake_full_evaluate(team_a, team_b, maps, games, seed, first_seed=0, batch_size=128,
                       progress=True, devices=1, metrics="priority"):  # fmt: skip
    """fake_evaluate plus a `full` table whose numbers depend on each game's seed."""
    result = fake_evaluate(team_a, team_b, maps, games, seed, first_seed, batch_size, progress)
    g = result.games
    full = pd.DataFrame({"game": g["game"], "damage": g["seed_number"] * 3 + g["points_a"]})
    assert metrics == "full"
    return SimpleNamespace(games=g, meta=result.meta, full=full)


def _replay_script():
    return load_script("replay_season_full")


@pytest.fixture
def season(tmp_path):
    """A small season (three entrants and a challenger) published with fake games."""
    entrants = tmp_path / "test-season.json"
    entrants.write_text(json.dumps(_spec(challengers=("Star",), size=3)))
    argv = [
        "--season", "test-season", "--entrants", str(entrants), "--games-per-map", "2",
        "--maps", "47,48", "--refits", "20", "--out", str(tmp_path / "out"), "--no-progress",
        "--evaluate", "tests.tournament.test_tournament:fake_evaluate",
    ]  # fmt: skip
    assert load_script("export_season").main(argv) == 0
    return tmp_path


def _args(root: Path, *extra: str) -> list[str]:
    return [
        "--season", "test-season", "--entrants", str(root / "test-season.json"),
        "--out", str(root / "out"), "--no-progress",
        "--evaluate", "tests.replay.test_replay_season_full:fake_full_evaluate", *extra,
    ]  # fmt: skip


def test_shards_and_one_process_write_the_same_table(season, capsys):
    script = _replay_script()
    published = season / "out" / "test-season"
    assert script.main(_args(season)) == 0
    whole = pd.read_parquet(published / "full_metrics.parquet")
    games = pd.read_parquet(published / "games.parquet")
    assert len(whole) == len(games) == 6 * 4  # 3 round-robin fixtures and 3 challenges
    assert list(whole.columns) == ["fixture", "game", "damage"]
    assert (whole[["fixture", "game"]].to_numpy() == games[["fixture", "game"]].to_numpy()).all()
    assert json.loads((published / "full_metrics.json").read_text())["columns"] == 1
    (published / "full_metrics.parquet").unlink()

    parts = season / "parts"
    assert script.main(_args(season, "--parts", str(parts), "--shard", "0/2")) == 0
    assert not (published / "full_metrics.parquet").exists()  # a shard writes parts only
    assert sorted(p.name for p in parts.glob("*.parquet")) == ["000.parquet", "002.parquet",
                                                               "004.parquet"]  # fmt: skip
    assert script.main(_args(season, "--parts", str(parts), "--shard", "1/2")) == 0
    capsys.readouterr()
    assert script.main(_args(season, "--parts", str(parts))) == 0
    assert '"fixtures_replayed": 0' in capsys.readouterr().out  # every part read back
    pd.testing.assert_frame_equal(pd.read_parquet(published / "full_metrics.parquet"), whole)


def test_a_game_that_does_not_repeat_is_refused(season):
    published = season / "out" / "test-season"
    games = pd.read_parquet(published / "games.parquet")
    games.loc[5, "points_a"] += 1  # game 1 of fixture 1
    games.to_parquet(published / "games.parquet", index=False)
    with pytest.raises(SystemExit, match="game 1 of fixture 1 differs in 'points_a'"):
        _replay_script().main(_args(season))
    assert not (published / "full_metrics.parquet").exists()


def test_parts_of_other_games_are_refused(season):
    parts = season / "parts"
    parts.mkdir()
    (parts / "games_sha256.txt").write_text("0" * 64 + "\n")
    with pytest.raises(SystemExit, match="another games.parquet"):
        _replay_script().main(_args(season, "--parts", str(parts)))


def test_a_shard_needs_a_parts_folder(season, capsys):
    with pytest.raises(SystemExit):
        _replay_script().main(_args(season, "--shard", "0/2"))
    assert "--shard needs --parts" in capsys.readouterr().err
