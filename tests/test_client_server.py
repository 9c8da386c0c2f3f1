"""`marl-bgs client`: the BattleClient's local JSON API on the Python engine (marl_bgs/client_server.py
over marl_bgs/battle_games.py). A whole game through the API and through the page in Chromium
(the same page as the browser's, `?engine=local`), legal-only human actions, the team's
view hiding what it cannot see, replays saved to disk that replay identically, a JAX
System (the learned entrant's policy) in a slot, and a server that refuses every path
outside what it serves."""

from __future__ import annotations

import http.client
import json
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from marl_bgs import battle_games
from marl_bgs.cli import main
from marl_bgs.client_server import default_spec, make_battles, resolve_spec, start_client
from marl_bgs.replay import load_replay, replay_game
from marl_bgs.replay.view import visible_masks

from .browser import CHROMIUM
from .play_helpers import (
    check_against_engine,
    download_replay,
    play_by_keyboard,
    set_up,
    wait_state,
)

ROOT = Path(__file__).resolve().parent.parent
ENTRANT = ROOT / "seasons" / "entrants" / "ppo-rec-ippo-0" / "policy.npz"
SPEC = {
    "map": 47,
    "rosters": [["mage", "priest"], ["warrior"]],
    "controllers": ["human", "tdm-beta", None, None, None, "tdm-alpha", None, None, None, None],
    "winning_score": 3,
    "horizon": 25,
}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    out = tmp_path_factory.mktemp("battles")
    defaults = default_spec(47, ["a0"], "tdm-alpha", None, 3, 30, None)
    server = start_client(make_battles(), defaults, out, 0)
    yield f"127.0.0.1:{server.server_address[1]}", out
    server.shutdown()
    server.server_close()


def _request(host: str, method: str, path: str, body=None) -> tuple[int, bytes, dict]:
    """A raw request (the path is sent exactly as given, `..` and all)."""
    conn = http.client.HTTPConnection(host, timeout=30)
    data = (
        None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    )
    conn.request(method, path, body=data)
    resp = conn.getresponse()
    out = resp.status, resp.read(), dict(resp.getheaders())
    conn.close()
    return out


def _api(host: str, method: str, path: str, body=None):
    status, data, _ = _request(host, method, "/api/" + path, body)
    return status, json.loads(data)


@pytest.mark.parametrize(
    "path",
    [
        "/pyproject.toml",
        "/marl_bgs/cli.py",
        "/exports/browser/manifest.json",
        "/web_demo/../pyproject.toml",
        "/web_demo/play/../../README.md",
        "/web_demo/%2e%2e/pyproject.toml",
        "/web_demo/%2E%2E/marl_bgs/client_server.py",
        "/web_demo/..%2fpyproject.toml",
        "//etc/passwd",
        "/etc/passwd",
        "/web_demo/../../../../etc/passwd",
        "/__replay__/x.json",
        "/__replay__/",
        "/web_demo/",
    ],
)
def test_the_server_refuses_paths_outside_what_it_serves(client, path):
    host, _ = client
    status, body, _ = _request(host, "GET", path)
    assert status == 404, (path, body[:80])
    assert b"[project]" not in body and b"root:" not in body


def test_the_server_serves_the_page_and_points_at_it(client):
    host, _ = client
    assert _request(host, "GET", "/web_demo/play/play.js")[0] == 200
    assert _request(host, "GET", "/web_demo/viewer/render.js")[0] == 200
    status, _, headers = _request(host, "GET", "/")
    assert status == 302 and headers["Location"] == "/web_demo/play/index.html?engine=local"
    assert _request(host, "POST", "/web_demo/play/play.js", b"{}")[0] == 404
    status, body = _api(host, "GET", "nothing")
    assert status == 404 and "no API route" in body["error"]
    status, config = _api(host, "GET", "config")
    assert status == 200 and config["defaults"]["controllers"][:2] == ["human", "tdm-alpha"]
    assert config["catalog"]["systems"][0] == "human" and len(config["catalog"]["maps"]) == 52


def test_a_whole_game_through_the_api_is_saved_and_replays(client):
    host, out = client
    status, body = _api(host, "POST", "new", {**SPEC, "horizon": "long"})
    assert status == 400 and body["error"] == "horizon: expected a whole number, got 'long'"
    status, body = _api(host, "POST", "new", {**SPEC, "controllers": ["llm"] + [None] * 9})
    assert status == 400 and body["error"].startswith("controllers[0] (a0): 'llm' is not one of")
    status, body = _api(host, "POST", "new", SPEC)
    sid = body["id"]
    status, view = _api(host, "GET", f"view?id={sid}&who=a")
    assert status == 200 and [h["slot"] for h in view["humans"]] == ["a0"]
    illegal = next(f for f in range(198) if f not in view["humans"][0]["legal"])
    act = [illegal // 22, (illegal // 2) % 11, illegal % 2]
    status, body = _api(host, "POST", f"step?id={sid}&who=a", {"a0": act})
    assert status == 400 and body["error"] == f"actions.a0: {act} is not a legal action now"
    status, body = _api(host, "POST", f"step?id={sid}&who=a", {"a1": [0, 0, 0]})
    assert status == 400 and "not human agents" in body["error"]
    windows = []
    while not view["done"]:
        legal = view["humans"][0]["legal"]
        f = max(legal)
        status, view = _api(
            host, "POST", f"step?id={sid}&who=a", {"a0": [f // 22, (f // 2) % 11, f % 2]}
        )
        assert status == 200, view
        windows.append(view["window"])
    saved = Path(view["saved"])
    assert saved.parent == out and saved.is_file()
    status, text, _ = _request(host, "GET", f"/api/replay?id={sid}")
    assert text == saved.read_bytes()
    replay = load_replay(saved)
    assert replay.systems[:2] == ["human", "tdm-beta"] and replay.systems[5] == "tdm-alpha"
    assert replay_game(replay, "numpy") == replay.ticks == len(windows) == 25
    # Each window is the full game's tick as team a saw it, nothing more.
    vis = visible_masks(replay.frames, replay.sight, "a")
    for t, win in enumerate(windows):
        assert win["view"]["of"] == "a"
        for s in np.flatnonzero(~vis[t + 1] & replay.frames["present"][t + 1].astype(bool)):
            assert win["frames"]["pos"][1][s] == [0, 0] and win["frames"]["health"][1][s] == 0
        names = {f"b{s - 5}" for s in np.flatnonzero(~vis[t])}
        for e in win["events"][0]:
            assert not names & {e.get("source"), e.get("target"), *e.get("by", [])}
    assert _api(host, "POST", f"step?id={sid}&who=a", {})[1]["error"].startswith(
        "the game is finished"
    )


def test_a_jax_system_plays_a_slot_through_the_client(tmp_path):
    label, system = resolve_spec(str(ENTRANT))
    assert label == "npz:policy" and not isinstance(system, str)
    battles = make_battles({label: system})
    spec = {**SPEC, "controllers": ["human", label, None, None, None, label] + [None] * 4}
    sid = battles.new(json.dumps({**spec, "horizon": 6}))
    view = json.loads(battles.view(sid, "a"))
    while not view["done"]:
        view = json.loads(battles.step(sid, json.dumps({"a0": [0, 0, 0]}), "a"))
    replay = load_replay(battles.replay_text(sid).encode())
    assert replay.systems[1] == replay.systems[5] == label
    assert replay_game(replay, "numpy") == 6
    assert np.any(replay.actions[:, 5] != 0)  # the learned policy moved


def test_the_command_refuses_bad_settings_before_serving(capsys):
    assert main(["client", "--human", "c9", "--no-browser", "--port", "0"]) == 2
    assert "--human: 'c9' is not a slot" in capsys.readouterr().err
    assert main(["client", "--vs", "tdm-delta", "--no-browser", "--port", "0"]) == 2
    assert "--vs: 'tdm-delta' is not a registered System" in capsys.readouterr().err
    assert main(["client", "--mates", "tdm-delta", "--no-browser", "--port", "0"]) == 2
    assert "--mates: " in capsys.readouterr().err
    for port in ("-1", "70000"):
        assert main(["client", "--no-browser", "--port", port]) == 2
        assert f"--port: {port} is out of range [0, 65535]" in capsys.readouterr().err


def test_the_command_refuses_a_busy_port_and_an_out_that_is_a_file(tmp_path, capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        assert main(["client", "--no-browser", "--port", port]) == 2
        assert f"--port: cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    (tmp_path / "afile").write_text("")
    argv = ["client", "--no-browser", "--port", "0", "--out", str(tmp_path / "afile")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--out: " in err and "is a file, not a folder" in err


def test_the_browser_module_and_the_client_share_one_session_api():
    sid = battle_games.new_session(json.dumps({**SPEC, "horizon": 3}))
    view = json.loads(battle_games.view(sid, "auto"))
    assert view["window"]["view"]["of"] == "a" and view["human_teams"] == ["a"]
    assert (
        json.loads(battle_games.browser_catalog())["systems"]
        == json.loads(make_battles().catalog())["systems"]
    )
    battle_games.close_session(sid)


@pytest.mark.skipif(
    shutil.which(CHROMIUM) is None and not Path(CHROMIUM).exists(), reason="no Chromium"
)
def test_the_page_plays_a_whole_game_against_the_local_api(browser, client, tmp_path):
    pytest.importorskip("playwright.sync_api")
    host, out = client
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"http://{host}/")
    assert urlsplit(page.url).query == "engine=local"
    wait_state(page, "setup")
    assert page.text_content(".bgp-status").startswith("Engine: the Python engine")
    set_up(page, sizes=(1, 1), classes=(("hunter",), ("mage",)), winning_score=3, horizon=30)
    records = play_by_keyboard(page)
    assert wait_state(page, "over") == "over"
    saved = page.text_content(".bgp-saved").split(": ", 1)[1]
    path = download_replay(page, tmp_path)
    assert Path(saved).parent == out and Path(saved).read_bytes() == path.read_bytes()
    check_against_engine(path, records)
    assert [u for u in requests if not u.startswith(f"http://{host}/")] == []
    assert errors == []
    context.close()
