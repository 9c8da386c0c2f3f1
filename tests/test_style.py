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


def test_test_parameters_do_not_depend_on_the_clock():
    """pytest-xdist stops the whole run when its workers collect different test ids, and a
    gzip header made at collection time holds the current second: every `gzip.compress` in
    the tests must fix its `mtime`."""
    offenders = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "gzip.compress(" in line and "mtime=" not in line:
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert not offenders, "gzip.compress without mtime=0:\n" + "\n".join(offenders)
