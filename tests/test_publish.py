"""Export folders are written as a whole and checked byte for byte."""

from __future__ import annotations

from marl_bgs.site.publish import export_main, publish, stale_files


def test_publish_writes_the_files_and_removes_left_overs(tmp_path, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "old.json").write_bytes(b"{}")
    (folder / "notes.txt").write_bytes(b"kept: not the export's kind")
    publish(folder, {"a.json": b"[1]", "index.json": b"[]"}, "out")
    assert sorted(p.name for p in folder.iterdir()) == ["a.json", "index.json", "notes.txt"]
    assert "removed out/old.json" in capsys.readouterr().out
    assert stale_files(folder, {"a.json": b"[1]", "index.json": b"[]"}) == []


def test_stale_files_reports_changed_missing_and_left_over(tmp_path):
    folder = tmp_path / "out"
    publish(folder, {"a.json": b"[1]", "b.json": b"[2]", "extra.json": b"[3]"}, "out")
    (folder / "a.json").write_bytes(b"[9]")
    (folder / "b.json").unlink()
    wanted = {"a.json": b"[1]", "b.json": b"[2]"}
    assert stale_files(folder, wanted) == ["a.json", "b.json", "extra.json"]
    assert stale_files(tmp_path / "missing", wanted) == ["a.json", "b.json"]


def test_export_main_checks_with_stored_versions_and_writes_without(tmp_path, capsys):
    folder = tmp_path / "out"
    seen = []

    def build(stored):
        seen.append(stored)
        return {"x.json": b"[1]"}

    def run(argv):
        return export_main(
            argv, "test", build, lambda: {"x.json": "v1"}, lambda: folder, "out", "s"
        )

    assert run(["--check"]) == 1 and "stale: out/x.json (run s)" in capsys.readouterr().out
    assert run([]) == 0 and (folder / "x.json").read_bytes() == b"[1]"
    assert run(["--check"]) == 0
    assert seen == [{"x.json": "v1"}, None, {"x.json": "v1"}]
