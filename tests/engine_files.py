"""Where the browser engine's files are, and how tests load the export scripts."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BROWSER = ROOT / "exports" / "browser"
NODE = shutil.which("node")


def script(name: str):
    """A module of scripts/ by file name (they import each other as top-level modules)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return module


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
