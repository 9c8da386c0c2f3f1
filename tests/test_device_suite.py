"""benchmarks/device_suite.py, the prepared run for a GPU machine (issue 47), at its toy size
on this CPU: every part runs and writes its figures; a spent time budget skips parts and
says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("optax")

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "benchmarks" / "device_suite.py"


def _suite(out: Path, *more: str) -> dict:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(SUITE), "--out", str(out), *more], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def test_the_smoke_run_measures_every_part(tmp_path):
    got = _suite(tmp_path / "suite.json", "--smoke")
    assert got["smoke"] and got["devices"] and got["jax"]
    (env,) = got["env"]
    assert env["games"] == 64 and env["tdm_steps_per_s"] > 0
    if env["smax_steps_per_s"] is not None:  # JaxMARL installed (the dev extra has it)
        assert env["ratio_tdm_to_smax"] == env["tdm_steps_per_s"] / env["smax_steps_per_s"]
    (train,) = got["train"]
    assert train["algo"] == "ff-ippo" and train["steps_per_s"] > 0
    fixture = got["fixture"]
    assert fixture["systems"] == ["Nav-DAgger 0", "TDM-Alpha"]
    assert fixture["games"] == fixture["identical_games"] == 8  # the same games twice
    assert "--xla_gpu_deterministic_ops=true" in fixture["xla_flags"]


def test_a_spent_budget_skips_the_parts_and_says_so(tmp_path):
    got = _suite(tmp_path / "suite.json", "--smoke", "--budget-s", "0", "--algos", "qmix")
    assert got["env"] == [{"games": 64, "skipped": "time budget spent"}]
    assert got["train"] == [{"algo": "qmix", "skipped": "time budget spent"}]
    assert got["fixture"] == {"skipped": "time budget spent"}
