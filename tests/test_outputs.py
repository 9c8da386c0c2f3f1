"""Results are never lost or overwritten by accident (issue 18, part 3): output folders are
checked before any game is played, an existing result is replaced only with force, and
files are written whole or not at all."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from marl_bgs import cli, evaluation
from marl_bgs.evaluation import EvalResult
from marl_bgs.outputs import check_new_files, write_atomic

ROOT = Path(__file__).resolve().parent.parent


def small_result() -> EvalResult:
    return EvalResult(pd.DataFrame({"game": [0, 1], "margin": [1, -1]}), {"note": "x"})


def test_save_refuses_a_folder_that_holds_results(tmp_path):
    first = small_result().save(tmp_path / "r")
    before = first["csv"].read_bytes()
    with pytest.raises(ValueError, match=r"out: .*r already holds games\.csv, games\.parquet, "
                       r"meta\.json; choose another folder or pass force"):  # fmt: skip
        small_result().save(tmp_path / "r")
    assert first["csv"].read_bytes() == before
    other = EvalResult(pd.DataFrame({"game": [5], "margin": [0]}), {"note": "y"})
    other.save(tmp_path / "r", force=True)
    assert json.loads(first["meta"].read_text()) == {"note": "y"}
    assert not list((tmp_path / "r").glob(".*tmp"))  # no temporary file left behind


def test_save_refuses_a_file_and_an_unwritable_place(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match=r"out: .*f is a file, not a folder"):
        small_result().save(tmp_path / "f")
    with pytest.raises(ValueError, match=r"out: .*f is a file"):  # under a file: not a folder
        check_new_files(tmp_path / "f", ["a"], False, "out")
    with pytest.raises(ValueError, match=r"out: expected a folder path, got 3"):
        check_new_files(3, ["a"], False, "out")


def test_a_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text("old")

    def half(tmp: Path) -> None:
        tmp.write_text("new, half writ")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomic(path, half)
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv"]


@pytest.mark.parametrize("command", [
    ["eval", "--a", "random", "--b", "random", "--games", "2"],
    ["crossplay", "--systems", "random,tdm-alpha", "--games", "2"],
])  # fmt: skip
def test_cli_refuses_an_existing_out_before_playing(tmp_path, monkeypatch, capsys, command):
    (tmp_path / "games.csv").write_text("earlier results")

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before --out was checked")

    monkeypatch.setattr(evaluation, "evaluate", no_games)
    monkeypatch.setattr(evaluation, "crossplay", no_games)
    assert cli.main([*command, "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--out:" in err and "already holds games.csv" in err and "--force" in err
    assert (tmp_path / "games.csv").read_text() == "earlier results"


def test_cli_force_replaces(tmp_path, monkeypatch):
    (tmp_path / "games.csv").write_text("earlier results")
    monkeypatch.setattr(EvalResult, "summary", lambda self: {
        "games": 2, "wins": 1, "draws": 0, "losses": 1, "win_rate_decisive": 0.5,
        "margin_mean": 0.0, "margin_ci95": [-1.0, 1.0]})  # fmt: skip
    result = small_result()
    result.meta = {"systems": {"a": "random", "b": "random"}, "schedule": {"maps": [47]}}
    monkeypatch.setattr(evaluation, "evaluate", lambda *a, **k: result)
    command = ["eval", "--a", "random", "--b", "random", "--games", "2", "--quiet"]
    assert cli.main([*command, "--out", str(tmp_path), "--force"]) == 0
    assert pd.read_csv(tmp_path / "games.csv")["game"].tolist() == [0, 1]


def test_export_season_never_replaces_another_entrants_files_season(tmp_path):
    published = tmp_path / "out" / "season0"
    published.mkdir(parents=True)
    shutil.copy(ROOT / "exports" / "seasons" / "season0" / "provenance.json", published)
    mine = json.loads((ROOT / "seasons" / "season0.json").read_text())
    mine["entrants"] = mine["entrants"][:2]  # another field under the same season name
    mine["challengers"] = []
    entrants = tmp_path / "mine.json"
    entrants.write_text(json.dumps(mine))
    done = subprocess.run(
        [sys.executable, "scripts/export_season.py", "--entrants", str(entrants),
         "--out", str(tmp_path / "out"), "--evaluate", "tests.test_outputs:no_games",
         "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode != 0
    assert "season0" in done.stderr and "another entrants file" in done.stderr, done.stderr
    assert "--force" in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in published.iterdir()) == ["provenance.json"]


def no_games(*args, **kwargs):
    raise AssertionError("export_season played a game before checking --out")


def broken_loader(**kwargs):
    raise RuntimeError("checkpoint shards missing")


def test_export_season_names_the_entrant_whose_loader_fails(tmp_path):
    spec = {
        "format": "marl-bgs/entrants", "version": 1, "season": "trial",
        "entrants": [
            {"name": "Random", "type": "scripted", "load": {"system": "random"}},
            {"name": "Broken One", "type": "learned",
             "load": {"entry_point": "tests.test_outputs:broken_loader"}},
        ],
    }  # fmt: skip
    entrants = tmp_path / "trial.json"
    entrants.write_text(json.dumps(spec))
    done = subprocess.run(
        [sys.executable, "scripts/export_season.py", "--season", "trial", "--entrants",
         str(entrants), "--out", str(tmp_path / "out"), "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "entrant 'Broken One': load.entry_point: tests.test_outputs:broken_loader raised " \
           "RuntimeError: checkpoint shards missing" in done.stderr  # fmt: skip
