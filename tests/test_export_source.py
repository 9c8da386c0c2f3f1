"""The source archive the Home page offers (scripts/export_source.py): every tracked file
under one folder, the same bytes every time, and a check that tells a stale copy."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "ls-files", "pyproject.toml"], cwd=ROOT, capture_output=True).returncode
    != 0,
    reason="needs a git checkout",
)


@pytest.fixture(scope="module")
def script():
    return load_script("export_source", "export_source_test")


def test_the_archive_holds_every_tracked_file_the_same_bytes_each_time(script):
    name, data = script.build()
    assert (name, data) == script.build()
    assert name == f"marl-bgs-{script.version()}.tar.gz"
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    top = name.removesuffix(".tar.gz")
    assert names == [f"{top}/{n}" for n in script.tracked_files()]
    assert f"{top}/pyproject.toml" in names and f"{top}/marl_bgs/game.py" in names
    assert {m.mtime for m in members} == {script.EPOCH} and {m.uid for m in members} == {0}
    assert data[4:8] == b"\0\0\0\0"  # no time in the gzip header


def test_check_passes_when_fresh_fails_when_stale_and_skips_when_never_built(script, tmp_path,
                                                                             capsys):  # fmt: skip
    out = tmp_path / "source"
    assert script.main(["--check", "--out", str(out)]) == 0  # not built: nothing to check
    assert script.main(["--out", str(out)]) == 0
    doc = json.loads((out / "index.json").read_text())
    assert doc["format"] == "marl-bgs/source-index" and doc["files"] == len(script.tracked_files())
    assert (out / doc["file"]).stat().st_size == doc["bytes"]
    assert script.main(["--check", "--out", str(out)]) == 0
    (out / doc["file"]).write_bytes(b"old")
    (out / "left-over.tar.gz").write_bytes(b"")
    capsys.readouterr()
    assert script.main(["--check", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert doc["file"] in err and "left-over.tar.gz" in err


def test_outside_a_git_checkout_it_says_so_or_skips_when_asked(script, tmp_path, monkeypatch,
                                                               capsys):  # fmt: skip
    with pytest.raises(SystemExit, match="is not a git checkout"):
        script.tracked_files(tmp_path)
    assert script.is_git_checkout(tmp_path) is False and script.is_git_checkout() is True
    monkeypatch.setattr(script, "is_git_checkout", lambda root=None: False)
    out = tmp_path / "source"
    assert script.main(["--skip-without-git", "--out", str(out)]) == 0
    assert "no source archive built" in capsys.readouterr().out and not out.exists()
