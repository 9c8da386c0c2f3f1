"""The Sight Lab's committed data (exports/sight/) is what its script writes from today's
engine and maps: a renamed module or a changed sight rule makes it stale, and this fails."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location(
        "export_sight_vectors", ROOT / "scripts" / "export_sight_vectors.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sight_lab_exports_are_fresh(capsys):
    assert _script().main(["--check"]) == 0, capsys.readouterr().out


def test_the_check_finds_a_stale_file(tmp_path, capsys):
    script = _script()
    assert script.main(["--out", str(tmp_path)]) == 0
    vectors = tmp_path / "vectors.json"
    vectors.write_text(vectors.read_text().replace("core.sight", "core.observe"))
    assert script.main(["--check", "--out", str(tmp_path)]) == 1
    assert "vectors.json" in capsys.readouterr().out
