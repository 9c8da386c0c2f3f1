"""Where the browser engine's files are, and how tests load the export scripts."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from .script_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
BROWSER = ROOT / "exports" / "browser"
NODE = shutil.which("node")


def script(name: str):
    """A module of scripts/ by file name (`load_script`)."""
    return load_script(name)


_refreshed: list[bool] = []


def need_fetched_files() -> None:
    """Skip, saying how to get them, when scripts/export_pyodide.py has not run here; else
    rebuild the engine wheel from this checkout (once per process), so that Node and
    Chromium test these sources, not an earlier build (the fetched files are kept)."""
    if not (BROWSER / "manifest.json").is_file():
        pytest.skip(
            "exports/browser/ is absent: run `.venv/bin/python scripts/export_pyodide.py` "
            "(needs npm; .ci/run does it)"
        )
    if not _refreshed:
        script("export_pyodide").export(BROWSER)
        _refreshed.append(True)


def run_from_wheel(tmp_path: Path, code: str, timeout: int) -> tuple[list[str], Any]:
    """Build the engine wheel, unpack it into tmp_path/site and run `code` in a fresh
    interpreter with that folder as its argument; (the wheel's file names, the process)."""
    with zipfile.ZipFile(script("engine_wheel").build_wheel(tmp_path / "whl")) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path / "site")
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "site")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=timeout,
    )
    return names, done
