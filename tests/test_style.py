"""Ruff's format and lint pass on the whole project (the style the brief asks for)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_format():
    out = ruff("format", "--check", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_lint():
    out = ruff("check", ".")
    assert out.returncode == 0, out.stdout + out.stderr
