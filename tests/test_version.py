"""`marl_bgs.version` is importable on its own and names the version pyproject.toml ships."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_version_module_matches_pyproject():
    from marl_bgs import __version__
    from marl_bgs.version import __version__ as own

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert own == __version__ == project["version"]


def test_reading_the_version_imports_neither_numpy_nor_jax():
    code = (
        "import sys\n"
        "from marl_bgs.version import __version__\n"
        "print(__version__, sorted(k for k in sys.modules if k.startswith(('numpy', 'jax'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(" ", 1)[1].strip() == "[]"
