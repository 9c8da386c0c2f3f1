"""scripts/export_pyodide.py: a NumPy wheel or lock that is not the pinned one stops the
export loudly (exit 2) and is never left to serve; --check reports a stale engine wheel;
the folder is git-ignored. No network: the fetchers are replaced by local writers."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

from tests.engine_files import BROWSER, ROOT, script

ep = script("export_pyodide")


def _lock(numpy_sha: str = ep.NUMPY_SHA256) -> str:
    return json.dumps(
        {"info": {"version": ep.PYODIDE},
         "packages": {"numpy": {"file_name": ep.NUMPY_WHEEL, "sha256": numpy_sha}}}
    )  # fmt: skip


def _fake_fetchers(monkeypatch, wheel: bytes, lock: str) -> None:
    def pyodide(dest):
        for name in ep.CORE_FILES:
            (dest / name).write_text(lock if name == "pyodide-lock.json" else name)

    monkeypatch.setattr(ep, "fetch_pyodide", pyodide)
    monkeypatch.setattr(ep, "fetch_numpy", lambda dest: (dest / ep.NUMPY_WHEEL).write_bytes(wheel))


def test_a_wheel_that_is_not_pyodides_numpy_stops_the_export(tmp_path, monkeypatch, capsys):
    _fake_fetchers(monkeypatch, b"not numpy", _lock())
    assert ep.main(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "HASH MISMATCH" in err and ep.NUMPY_SHA256 in err
    assert not (tmp_path / "pyodide" / ep.NUMPY_WHEEL).exists()
    assert not (tmp_path / "manifest.json").exists()


def test_a_lock_naming_another_hash_stops_the_export(tmp_path, monkeypatch, capsys):
    _fake_fetchers(monkeypatch, b"x", _lock("0" * 64))
    assert ep.main(["--out", str(tmp_path)]) == 2
    assert "packages.numpy" in capsys.readouterr().err


def test_check_passes_when_absent_and_flags_a_stale_engine_wheel(tmp_path, monkeypatch):
    assert ep.main(["--check", "--out", str(tmp_path / "none")]) == 0
    monkeypatch.setattr(ep, "NUMPY_SHA256", hashlib.sha256(b"w").hexdigest())
    _fake_fetchers(monkeypatch, b"w", _lock(ep.NUMPY_SHA256))
    assert ep.main(["--out", str(tmp_path)]) == 0
    assert ep.main(["--check", "--out", str(tmp_path)]) == 0
    assert ep.main(["--out", str(tmp_path)]) == 0  # kept, not fetched again
    wheel = tmp_path / json.loads((tmp_path / "manifest.json").read_text())["engine_wheel"]
    wheel.write_bytes(b"old")
    assert ep.main(["--check", "--out", str(tmp_path)]) == 1


def test_the_fetched_folder_is_ignored_and_verifies():
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "exports/browser/pyodide/pyodide.asm.wasm"], cwd=ROOT
    )
    assert ignored.returncode == 0
    if not (BROWSER / "manifest.json").is_file():
        pytest.skip("exports/browser/ is absent: run scripts/export_pyodide.py")
    ep.check_numpy(BROWSER / "pyodide")  # the real wheel against the real lock and the pin


def test_the_site_build_copies_the_folder_and_the_cdn_setting_matches():
    """The hook copies exports/ as it is, so the fetched files reach the site; the CDN
    setting names the same Pyodide version (the CDN path itself needs the internet, so it is
    not loaded here)."""
    settings = (ROOT / "web_demo" / "engine" / "settings.js").read_text()
    assert 'export const PYODIDE_FROM = "site";' in settings
    assert f"/pyodide/v{ep.PYODIDE}/full/" in settings
    if not (BROWSER / "manifest.json").is_file():
        pytest.skip("exports/browser/ is absent: run scripts/export_pyodide.py")
    from marl_bgs.site import hook

    copied = {
        f.src_uri
        for f in hook._static_files(ROOT, {"site_dir": "/nowhere", "use_directory_urls": True})
    }
    manifest = json.loads((BROWSER / "manifest.json").read_text())
    assert {f"exports/browser/{n}" for n in [*manifest["files"], "manifest.json"]} <= copied
