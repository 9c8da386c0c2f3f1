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
from tests.test_learn_trainer import TINY  # noqa: E402
from tests.test_learn_validation import PANEL  # noqa: E402


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


def test_yaml_settings(tmp_path):
    pytest.importorskip("yaml")
    from marl_bgs.learn.config import load_config

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
