"""Load a file under scripts/ (or benchmarks/) as a module, for tests that call its
functions directly."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
BENCHMARKS = SCRIPTS.parent / "benchmarks"


def load_script(name: str, module_name: str | None = None, folder: Path = SCRIPTS) -> ModuleType:
    """<folder>/<name>.py (scripts/ unless told) as a fresh module (neither folder is a
    package; while it loads, its folder is on the path, since some of its files import
    each other as top-level modules)."""
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location(module_name or name, folder / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    return module
