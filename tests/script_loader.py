"""Load a file under scripts/ as a module, for tests that call its functions directly."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name: str, module_name: str | None = None) -> ModuleType:
    """scripts/<name>.py as a fresh module (scripts are not a package; while it loads,
    scripts/ is on the path, since some import each other as top-level modules)."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location(module_name or name, SCRIPTS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module
