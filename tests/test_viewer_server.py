"""`marl-bgs view`: serves the viewer and one replay on 127.0.0.1, nothing else."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from marl_bgs.cli import main
from marl_bgs.viewer_server import start_server, viewer_url

REPLAY = Path(__file__).resolve().parent.parent / "exports" / "replays"


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, b""


def test_serves_the_viewer_and_the_replay_only(tmp_path):
    replay = sorted(REPLAY.glob("*.json"))[0]
    server = start_server(replay, 0)
    try:
        port = server.server_address[1]
        url = viewer_url(port, replay, tick=5, view="a")
        assert url.startswith(f"http://127.0.0.1:{port}/web_demo/viewer/index.html?replay=")
        assert url.endswith("#tick=5&view=a")
        status, page = _get(url.split("#")[0])
        assert status == 200 and b"main.js" in page
        status, body = _get(f"http://127.0.0.1:{port}/__replay__/{replay.name}")
        assert status == 200 and body == replay.read_bytes()
        assert _get(f"http://127.0.0.1:{port}/pyproject.toml")[0] == 404
        assert _get(f"http://127.0.0.1:{port}/web_demo/../pyproject.toml")[0] == 404
    finally:
        server.shutdown()


def test_view_refuses_a_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "marl-bgs/replay", "version": 99}')
    assert main(["view", str(bad), "--no-browser"]) == 2
    assert "version" in capsys.readouterr().err
    assert main(["view", str(tmp_path / "missing.json"), "--no-browser"]) == 2


@pytest.mark.parametrize("name", ["pyproject.toml", "marl_bgs/cli.py"])
def test_files_outside_web_demo_are_not_served(name):
    replay = sorted(REPLAY.glob("*.json"))[0]
    server = start_server(replay, 0)
    try:
        assert _get(f"http://127.0.0.1:{server.server_address[1]}/{name}")[0] == 404
    finally:
        server.shutdown()


def test_a_nul_byte_in_the_path_is_a_bad_request():
    """It dropped the connection without an answer."""
    replay = sorted(REPLAY.glob("*.json"))[0]
    server = start_server(replay, 0)
    try:
        port = server.server_address[1]
        for path in ("/web_demo/viewer/index%00.html", "/__replay__/x%00", "/%00"):
            assert _get(f"http://127.0.0.1:{port}{path}")[0] == 400, path
        assert _get(f"http://127.0.0.1:{port}/web_demo/viewer/index.html")[0] == 200
    finally:
        server.shutdown()


def test_the_replay_served_is_the_one_checked_at_start_up(tmp_path):
    """A replay file replaced after start-up was served unchecked: now the bytes read and
    checked at start-up are what the viewer gets."""
    replay = tmp_path / "game.json"
    original = sorted(REPLAY.glob("*.json"))[0].read_bytes()
    replay.write_bytes(original)
    server = start_server(replay, 0)
    try:
        replay.write_text('{"format": "something else"}')
        status, body = _get(f"http://127.0.0.1:{server.server_address[1]}/__replay__/game.json")
        assert status == 200 and body == original
    finally:
        server.shutdown()
