"""The entrant card's budget comes from the run's logs, so a resumed run adds up right."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[2]


def _script():
    return load_script("publish_entrant")


def _run(folder: Path) -> Path:
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"algo": "ff-ippo", "seed": 3}))
    pd.DataFrame(
        {"update": [1, 2, 3], "steps": [100, 200, 300], "seconds": [30.0, 2.0, 4.0],
         "steps_per_s": [3.3, 50.0, 25.0]}
    ).to_csv(folder / "updates.csv", index=False)  # fmt: skip
    pd.DataFrame({"update": [0, 2], "seconds": [10.0, 1.5], "best": [False, True]}).to_csv(
        folder / "validation.csv", index=False
    )
    return folder


def test_the_budget_adds_the_logged_update_and_check_times(tmp_path):
    run = _run(tmp_path / "run")
    facts = _script().budget(run, {"kind": "best validation margin"})
    assert facts["updates"] == 3 and facts["game_steps"] == 300
    assert facts["updates_wall_s"] == 36.0  # 30 + 2 + 4
    assert facts["validation_wall_s"] == 11.5
    assert facts["run_wall_s"] == 47.5
    assert facts["median_steps_per_s"] == 25.0
    (run / "validation.csv").unlink()  # a run that never validated
    assert _script().budget(run, {})["run_wall_s"] == 36.0
    # updates played again after a stop (trainer.RunLog.keep_until) count as well
    (run / "updates_replayed.jsonl").write_text('{"update": 3, "seconds": 5.5}\n')
    facts = _script().budget(run, {})
    assert (facts["updates_wall_s"], facts["replayed_updates"]) == (41.5, 1)


def test_card_only_refuses_results_of_another_test(tmp_path):
    script = _script()
    out = tmp_path / "entrant"
    out.mkdir()
    with pytest.raises(SystemExit, match="cannot read"):
        script.saved_results(out, 0, ["random"], 200)
    rows = [{"opponent": "random", "games": 200, "wins": 0, "losses": 3}]
    (out / "test_results.json").write_text(json.dumps({"seed": 0, "results": rows}))
    again = script.saved_results(out, 0, ["random"], 200)
    assert again == [{**rows[0], "decisive_win_share": 0.0, "decisive_win_share_95": [0.0, 0.5615]}]
    with pytest.raises(SystemExit, match="--seed 1"):
        script.saved_results(out, 1, ["random"], 200)
    with pytest.raises(SystemExit, match="--games 100"):
        script.saved_results(out, 0, ["random"], 100)
    with pytest.raises(SystemExit, match="other opponents"):
        script.saved_results(out, 0, ["random", "tdm-alpha"], 200)


@pytest.mark.parametrize("wins, losses", [(0, 160), (200, 0), (0, 1), (7, 3)])
def test_wilson_bounds_stay_inside_zero_and_one(wins, losses):
    lo, hi = _script().wilson(wins, wins + losses)
    assert 0.0 <= lo <= wins / (wins + losses) <= hi <= 1.0
    assert str(round(lo, 4)) != "-0.0"


def test_a_staged_recipe_must_chain_its_runs_by_init_from(tmp_path):
    script = _script()
    bc, kick = _run(tmp_path / "bc"), _run(tmp_path / "kick")
    assert script.check_stages([bc]) == []
    assert "kick's init_from is ''" in script.check_stages([bc, kick])[0]
    cfg = {"algo": "kickstart", "seed": 0, "init_from": str(tmp_path / "elsewhere")}
    (kick / "config.json").write_text(json.dumps(cfg))
    assert "not the run before it" in script.check_stages([bc, kick])[0]
    (kick / "config.json").write_text(json.dumps({**cfg, "init_from": str(bc)}))
    assert script.check_stages([bc, kick]) == []


def test_a_stage_line_says_what_the_teacher_did():
    teaching = {"teacher": "tdm-alpha", "kick_weight": 1.0, "kick_floor": 0.05,
                "kick_until": 0.5, "teacher_plays": 1.0, "teacher_plays_floor": 0.0,
                "teacher_plays_until": 0.6, "ppo_weight": 0.0}  # fmt: skip
    facts = {"algo": "bc", "folder": "stages/1-bc", "teaching": teaching, "game_steps": 6029312,
             "updates": 2944, "run_wall_s": 7200.0, "median_steps_per_s": 900.0}  # fmt: skip
    line = _script().stage_line(1, facts)
    assert line == (
        "1. `bc` (`stages/1-bc/`): 6,029,312 game steps in 2,944 updates, 2.00 h logged, "
        "median 900 steps/s; teacher tdm-alpha (weight 1 to 0.05 by 50% of the stage; it "
        "plays 100% of Team A's games, falling to 0% by 60%; PPO term x0)."
    )


def test_the_card_says_when_the_actor_reads_the_scripted_teams_steering():
    script = _script()
    assert script.inputs_lines({"algo": "rec-ippo"}) == []
    bc = {"nav_inputs": True, "teacher": "tdm-alpha", "kick_weight": 1.0, "ppo_weight": 0.0,
          "teacher_plays": 1.0, "teacher_plays_floor": 0.0, "teacher_plays_until": 0.6,
          "init_from": ""}  # fmt: skip
    text = " ".join(script.inputs_lines(bc))
    assert "TDM-Alpha's score for each of its nine moves" in text
    assert "Teacher: tdm-alpha (imitation weight 1, PPO term x0;" in text
    assert "100% of Team A's games, falling to 0% by 60% of the run" in text
    # a later stage's card lists its teacher per stage instead
    later = " ".join(script.inputs_lines({**bc, "init_from": "runs/bc"}))
    assert "Teacher:" not in later and "nine moves" in later


def test_recipes_are_one_file_per_stage_checked_before_anything_is_written(tmp_path, capsys):
    script = _script()
    bc, kick = _run(tmp_path / "bc"), _run(tmp_path / "kick")
    for run in (bc, kick):
        (run / "checkpoints").mkdir()
    (kick / "config.json").write_text(json.dumps({"algo": "kickstart", "init_from": str(bc)}))
    recipe = tmp_path / "bc.toml"
    recipe.write_text('algo = "bc"\n')
    out = tmp_path / "entrant"
    base = ["--run", str(kick), "--out", str(out), "--earlier", str(bc)]
    for extra, says in (
        (["--recipe", str(recipe)], "--recipe: expected one file per run (2), got 1"),
        (["--recipe", str(recipe), str(tmp_path / "gone.toml")], "--recipe[1]: "),
    ):
        with pytest.raises(SystemExit) as stop:
            script.main(base + extra)
        assert stop.value.code == 2 and says in capsys.readouterr().err
    assert not out.exists()
