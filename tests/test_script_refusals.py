"""Scripts under scripts/ refuse bad arguments with one line naming the option and exit 2,
before they write anything (each run is a fresh process, as a user runs them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["scripts/make_maps.py", "--check", "999"], "ids: no map design for 999"),
        (["scripts/solve_scenarios.py", "999"], "id: no file at"),
        (["scripts/solve_scenarios.py", "1", "--keep", "0"], "--keep: expected at least 1"),
        (["scripts/solve_scenarios.py", "--draft", "{draft}"], "scenario 1 exists; pass --force"),
        (["scripts/train_baselines.py", "--steps", "-1", "--runs", "{tmp}/runs"], "--steps: "),
        (["scripts/publish_entrant.py", "--run", "{tmp}/none", "--out", "{tmp}/o"], "--run: "),
        (["scripts/export_atlas.py", "--out", "{tmp}/afile"], "--out: "),
        (["scripts/export_tutorials.py", "--timeout", "0"], "--timeout: "),
        (["scripts/replay_season_full.py", "--batch-size", "0"], "--batch-size: "),
        (
            ["scripts/compare_networks.py", "--recipe", "{tmp}/none.toml", "--runs", "{tmp}/r"],
            "--recipe: config: no file",
        ),
        (
            [
                "scripts/publish_entrant.py",
                "--run",
                "{tmp}/none",
                "--out",
                "{tmp}/o",
                "--earlier",
                "{tmp}/gone",
            ],
            "--run: ",
        ),
    ],
)
def test_a_bad_argument_is_refused_before_anything_is_written(tmp_path, argv, says):
    (tmp_path / "afile").write_text("")
    draft = tmp_path / "draft.json"
    draft.write_text('{"id": 1, "position": {}, "controller": "tdm-alpha"}')
    argv = [a.format(tmp=tmp_path, draft=draft) for a in argv]
    done = _run(*argv)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "draft.json"]
