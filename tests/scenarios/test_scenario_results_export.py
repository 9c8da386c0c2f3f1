"""scripts/export_scenarios.py --results reads back every player whose published games were
played on the same inputs, and plays only the others (in shards, into a parts folder)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "exports" / "scenarios"


@pytest.fixture
def script(tmp_path, monkeypatch):
    module = load_script("export_scenarios", "export_scenarios_results")
    out = tmp_path / "scenarios"
    out.mkdir()
    for name in ("results.json", "results_games.csv"):
        shutil.copy(PUBLISHED / name, out / name)
    monkeypatch.setattr(module, "OUT", out)
    return module


def _refuse(*args, **kwargs):
    raise AssertionError("nothing should be played")


def test_unchanged_players_are_read_back_byte_for_byte(script, monkeypatch):
    import marl_bgs.scenarios

    monkeypatch.setattr(marl_bgs.scenarios, "evaluate_scenarios", _refuse)
    files = script.results_files()
    for name, data in files.items():
        assert data == (PUBLISHED / name).read_bytes(), name


def test_a_new_learned_entrant_is_played_in_a_shard_then_assembled(script, monkeypatch, tmp_path):
    import marl_bgs.scenarios

    stored = script._players()
    weights = ROOT / "seasons" / "entrants" / "ff-ippo-500k" / "policy.npz"
    before = script.learned_entrants()
    monkeypatch.setattr(script, "learned_entrants", lambda: {**before, "New 1": weights})
    calls = []

    def fake(system, games, seed, batch_size, reference):
        calls.append(system)
        n = len(script.SCENARIOS)
        rows = [{"scenario": s.id, "wins": 1, "games": games} for s in script.SCENARIOS]
        frame = pd.DataFrame({"scenario": [s.id for s in script.SCENARIOS for _ in range(games)],
                              "game": list(range(games)) * n, "system": "npz:policy"})  # fmt: skip
        return SimpleNamespace(table=pd.DataFrame(rows), games=frame,
                               meta={"versions": {"fake": 1}})  # fmt: skip

    monkeypatch.setattr(marl_bgs.scenarios, "evaluate_scenarios", fake)
    parts = tmp_path / "parts"
    assert script.results_files(parts, (1, 2)) is None and calls == []  # shard 1 has no one
    assert script.results_files(parts, (0, 2)) is None
    assert calls == [{"weights": str(weights), "greedy": False}]
    assert sorted(p.name for p in parts.iterdir()) == ["new-1.csv", "new-1.json"]
    files = script.results_files(parts)
    assert len(calls) == 1  # read back from the part
    doc = json.loads(files["results.json"])
    assert set(doc["systems"]) == {key for key, _, _ in stored} | {"New 1"}
    assert doc["learned"]["New 1"]["weights"] == "seasons/entrants/ff-ippo-500k/policy.npz"
    games = pd.read_csv(pd.io.common.BytesIO(files["results_games.csv"]))
    assert (games["system"] == "New 1").sum() == script.RESULT_GAMES * len(script.SCENARIOS)
    assert "npz:policy" not in set(games["system"])


def test_a_changed_scenario_file_means_every_player_plays_again(script, monkeypatch):
    stored = json.loads((script.OUT / "results.json").read_text())
    stored["scenario_sha256"]["1"] = "0" * 64
    (script.OUT / "results.json").write_text(json.dumps(stored))
    assert all(
        script._stored_player(k, ident, script._published()) is None
        for k, _, ident in script._players()
    )


def test_a_shard_needs_results_and_parts(script, capsys):
    with pytest.raises(SystemExit):
        script.main(["--shard", "0/2"])
    assert "--shard needs --results and --parts" in capsys.readouterr().err


def test_plays_is_read_from_the_weights_and_an_older_record_without_it_is_reused(script):
    entrants = script.learned_entrants()
    assert script.plays(entrants["QMIX 500k"]) == "argmax_q"
    assert script.plays(entrants["Rec-IPPO 500k"]) == "samples"
    stored = json.loads((script.OUT / "results.json").read_text())
    for record in stored["learned"].values():
        record.pop("plays", None)
    (script.OUT / "results.json").write_text(json.dumps(stored))
    key, _, identity = next(p for p in script._players() if p[0] == "QMIX 500k")
    assert script._stored_player(key, identity, script._published()) is not None
    other = {**identity, "learned": {**identity["learned"], "weights_sha256": "0" * 64}}
    assert script._stored_player(key, other, script._published()) is None
