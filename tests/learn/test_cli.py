"""`marl-bgs train` and `marl-bgs plot`: a tiny run from a settings file, its plots, and
bad options refused with the option named."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("jax")
pytest.importorskip("optax")
pytest.importorskip("orbax.checkpoint")
pytest.importorskip("matplotlib")

from marl_bgs.cli import main  # noqa: E402
from tests.learn.test_trainer import TINY  # noqa: E402
from tests.learn.test_validation import PANEL  # noqa: E402


def _toml(settings: list[str]) -> str:
    table = dict(s.split("=", 1) for s in settings)  # later settings win
    return "".join(f"{k} = {v}\n" for k, v in table.items())


def test_train_then_plot(tmp_path, capsys):
    cfg = tmp_path / "tiny.toml"
    settings = [s for s in [*TINY, *PANEL] if not s.startswith("total_steps")]
    cfg.write_text(_toml(settings))  # total_steps comes from the command line
    run = tmp_path / "runs" / "cli"
    argv = ["train", "--algo", "rec-ippo", "--config", str(cfg), "--out", str(run),
            "total_steps=32", "validate_every=0.5", "--quiet"]  # fmt: skip
    assert main(argv) == 0
    assert "4 updates, 32 game steps" in capsys.readouterr().out
    saved = json.loads((run / "config.json").read_text())
    assert saved["algo"] == "rec-ippo" and saved["num_envs"] == 2 and saved["out"] == str(run)
    assert (run / "validation.csv").exists() and (run / "best").is_dir()
    assert (run / "plots" / "training.png").stat().st_size > 1000  # train draws them
    assert main(["plot", str(run), "--out", str(tmp_path / "figs")]) == 0
    for name in ("training.png", "validation.png"):
        assert (tmp_path / "figs" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # A finished run is refused without --resume; --resume on it has nothing left to do.
    assert main(argv) == 2
    assert "out" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    # Checkpoints of another network are refused naming the run, not in orbax's words alone.
    assert main([*argv, "--resume", "hidden=16"]) == 2
    err = capsys.readouterr().err
    assert "resume: checkpoint: step 4 in" in err
    assert "is float32[8, 198] where these settings make float32[16, 198]" in err


def test_yaml_settings(tmp_path):
    pytest.importorskip("yaml")
    from marl_bgs.learn.config_files import load_config

    path = tmp_path / "c.yaml"
    path.write_text("num_envs: 4\nmaps: [0, 1]\nvalidation_opponents: [random]\n")
    cfg = load_config(path, ["hidden=8"], algo="ff-mappo")
    assert (cfg.num_envs, cfg.maps, cfg.hidden, cfg.reward_form) == (4, (0, 1), 8, "team")
    assert cfg.validation_opponents == ("random",)


@pytest.mark.parametrize(
    "argv, named",
    [
        (["train", "--algo", "rec-ippo", "--bogus"], "--bogus"),
        (["train", "--algo", "ppo2"], "--algo"),
        (["train", "--algo", "rec-ippo", "no_such_key=1"], "no_such_key"),
        (["train", "--algo", "rec-ippo", "num_envs=many"], "num_envs"),
        (["train", "--algo", "rec-ippo", "num_envs"], "num_envs"),
        (["train", "--config", "missing.toml"], "config"),
        (["train", "--algo", "ff-ippo", "--out", "nowhere", "--resume"], "--resume"),
        (["plot", "no/such/run"], "run"),
        (["train", "--algo", "rec-ippo", 'algo=["x"]'], "config.algo: expected an algorithm"),
        (["train", "--algo", "rec-ippo", "maps=all"], "use one of curriculum, training or"),
    ],
)
def test_bad_options_are_refused(argv, named, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own refusals
        code = exit_.code
    assert code == 2
    assert named in capsys.readouterr().err


def test_train_refuses_an_out_that_is_a_file_or_holds_no_checkpoint_to_resume(tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    assert main(["train", "--algo", "ff-ippo", "--out", str(tmp_path / "afile")]) == 2
    assert "--out: " in capsys.readouterr().err
    (tmp_path / "empty" / "checkpoints").mkdir(parents=True)  # no step saved in it
    assert main(["train", "--algo", "ff-ippo", "--out", str(tmp_path / "empty"), "--resume"]) == 2
    assert "--resume: no checkpoints in" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("log", "says"),
    [
        ('{"update": 1, "loss": 0.5}', "updates.jsonl line 1: expected a number of 'steps'"),
        ("[1, 2]", "updates.jsonl line 1: expected an object, got list"),
        ('{"steps": 2}\n{"steps": ', "updates.jsonl line 2: not JSON"),
    ],
)
def test_plot_refuses_a_damaged_log_naming_the_file_and_line(tmp_path, capsys, log, says):
    run = tmp_path / "run"
    run.mkdir()
    (run / "updates.jsonl").write_text(log + "\n")
    assert main(["plot", str(run)]) == 2
    assert f"marl-bgs: error: run: {says}" in capsys.readouterr().err
    assert not (run / "plots").exists() or not any((run / "plots").iterdir())


def test_plot_refuses_an_out_that_is_a_file(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "updates.jsonl").write_text('{"steps": 2, "loss": 0.5}\n')
    (tmp_path / "afile").write_text("")
    assert main(["plot", str(run), "--out", str(tmp_path / "afile")]) == 2
    assert "out: " in capsys.readouterr().err
