"""`marl-bgs client`: the BattleClient page on 127.0.0.1, backed by the Python engine.

    marl-bgs client --map 47 --human a0,a1 --vs tdm-beta

The page is the browser's own (`web_demo/play/`, opened with `?engine=local`); instead of
Pyodide it talks to this server's small JSON API, which runs the same `marl_bgs.battle_games`
sessions on CPython, so any System plays beside or against the humans: the registered ones
(on NumPy, deciding exactly as compiled), a trained run folder or a policy `.npz` (JAX),
or a System object passed to `start_client`. Finished games are saved as replays.

The server binds 127.0.0.1 only and serves `web_demo/` and `/api/`; any other path, and
any path that leaves `web_demo/` (`..`, links), is answered 404.

API (JSON in and out; errors are `{"error": message}` with status 400):
    GET  /api/config                  catalog (maps, classes, who may play) and defaults
    POST /api/new        {spec}       -> {"id": n}   (spec as marl_bgs.battle_games.Session)
    GET  /api/view?id=n&who=a         the last tick as team a saw it, with its legal actions
    POST /api/step?id=n&who=a  {"a0": [move, target, ultimate], ...}  -> the next view
    GET  /api/replay?id=n             the game as a marl-bgs/replay file
    POST /api/close?id=n
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

from .battle_games import HUMAN, Battles, Decider, numpy_decider, numpy_labels
from .core.state import AGENT_NAMES
from .game import Game
from .viewer_server import ViewerHandler, web_root

PLAY_PAGE = "/web_demo/play/index.html?engine=local"
MAX_BODY = 2_000_000


class SystemDecider:
    """Any `marl_bgs.systems` System playing one team of one game on the host: JAX Systems
    are compiled once (`jax.jit` of `act`), host Systems get a games axis of one."""

    def __init__(self, label: str, system: Any, seed: int) -> None:
        self.name = label
        self.system = system
        if system.on_host:
            self.key = None
            self.memory = system.init(None)
            self._act = system.act
        else:
            import jax

            self.key = jax.random.key(seed)
            self.memory = system.init(jax.random.fold_in(self.key, 0))
            self._act = _jitted(system)
        self.tick = 1

    def decide(self, game: Game, team: int) -> np.ndarray:
        inputs = game.team_inputs(team)
        if self.system.on_host:
            batched = type(inputs)(*(np.asarray(x)[None] for x in inputs))
            acts, self.memory = self._act(None, batched, self.memory)
            return np.asarray(acts)[0]
        import jax

        key = jax.random.fold_in(self.key, self.tick)
        self.tick += 1
        acts, self.memory = self._act(key, inputs, self.memory)
        return np.asarray(acts)


@functools.cache
def _jitted(system: Any) -> Any:
    import jax

    return jax.jit(system.act)


def resolve_spec(text: str, flag: str = "--vs") -> tuple[str, Any]:
    """A command-line System: a registered name, a run folder, or a policy `.npz`.
    Returns (label, spec) where spec is a name (played on NumPy) or a System; errors name
    `flag`."""
    if text in numpy_labels():
        return text, text
    from .systems.resolve import system_from_text

    system = system_from_text(text, flag)
    return system.name, system


def make_battles(extra: dict[str, Any] | None = None) -> Battles:
    """Sessions that play the registered Systems on NumPy and `extra` (label -> System)."""
    extra = dict(extra or {})

    def factory(label: str, seed: int) -> Decider:
        if label in extra and not isinstance(extra[label], str):
            return SystemDecider(label, extra[label], seed)
        return numpy_decider(label, seed)

    return Battles(factory, numpy_labels() + [k for k in extra if k not in numpy_labels()])


def default_spec(
    map_id: int,
    humans: list[str],
    vs: str,
    mates: str | None,
    winning_score: int,
    horizon: int,
    rosters: list[list[str]] | None,
) -> dict:
    """The page's starting settings from the command line's."""
    for name in humans:
        if name not in AGENT_NAMES:
            raise ValueError(f"--human: {name!r} is not a slot (a0..a4, b0..b4)")
    human_teams = {h[0] for h in humans}
    controllers = []
    for name in AGENT_NAMES:
        if name in humans:
            controllers.append(HUMAN)
        elif name[0] in human_teams and mates is not None:
            controllers.append(mates)
        else:
            controllers.append(vs)
    out = {
        "map": map_id,
        "controllers": controllers,
        "winning_score": winning_score,
        "horizon": horizon,
    }
    if rosters is not None:
        out["rosters"] = rosters
    return out


class ClientHandler(ViewerHandler):
    """Serves web_demo/ (as `marl-bgs view` does) and the JSON API under /api/."""

    battles: Battles
    defaults: dict
    out_dir: Path | None
    lock: threading.Lock

    def list_directory(self, path):  # noqa: ANN001 (http.server's signature)
        """No folder listings: only files are served."""
        del path
        self.send_error(404, "File not found")
        return None

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value).encode())

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        if parts.path in ("/", "/play", "/play/"):
            self.send_response(302)
            self.send_header("Location", PLAY_PAGE)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if parts.path.startswith("/api/"):
            self._api("GET", parts)
            return
        super().do_GET()

    def do_POST(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        if not parts.path.startswith("/api/"):
            self._json(404, {"error": "not found"})
            return
        self._api("POST", parts)

    def _body(self) -> str:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError(f"request: larger than {MAX_BODY} bytes")
        return self.rfile.read(length).decode("utf-8")

    def _api(self, method: str, parts: Any) -> None:
        route = parts.path[len("/api/") :]
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        try:
            with self.lock:
                status, body, kind = self._route(method, route, query)
        except (ValueError, RuntimeError) as err:
            self._json(400, {"error": str(err)})
            return
        self._send(status, body, kind)

    def _id(self, query: dict) -> int:
        try:
            return int(query.get("id", ""))
        except ValueError:
            raise ValueError(f"id: expected a game id, got {query.get('id')!r}") from None

    def _route(self, method: str, route: str, query: dict) -> tuple[int, bytes, str]:
        b = self.battles
        kind = "application/json"
        if method == "GET" and route == "config":
            config = {"catalog": json.loads(b.catalog()), "defaults": self.defaults}
            return 200, json.dumps(config).encode(), kind
        if method == "POST" and route == "new":
            return 200, json.dumps({"id": b.new(self._body())}).encode(), kind
        if method == "GET" and route == "view":
            sid = self._id(query)
            return 200, self._with_saved(sid, b.view(sid, query.get("who", "auto"))), kind
        if method == "POST" and route == "step":
            sid = self._id(query)
            return (
                200,
                self._with_saved(sid, b.step(sid, self._body(), query.get("who", "auto"))),
                kind,
            )
        if method == "GET" and route == "replay":
            return 200, b.replay_text(self._id(query)).encode(), kind
        if method == "POST" and route == "close":
            b.close(self._id(query))
            return 200, b"{}", kind
        return 404, json.dumps({"error": f"no API route {method} /api/{route}"}).encode(), kind

    def _with_saved(self, sid: int, view_text: str) -> bytes:
        """A finished game is written to the output folder once; the view says where."""
        view = json.loads(view_text)
        session = self.battles.get(sid)
        if view["done"] and self.out_dir is not None:
            path = getattr(session, "saved_to", None)
            if path is None:
                self.out_dir.mkdir(parents=True, exist_ok=True)
                stamp = time.strftime("%Y%m%d-%H%M%S")
                path = self.out_dir / f"battle-{stamp}-{sid}.json"
                session.replay().save(path)
                session.saved_to = path
            view["saved"] = str(path)
        return json.dumps(view).encode()


def start_client(
    battles: Battles,
    defaults: dict,
    out_dir: Path | None,
    port: int = 0,
) -> http.server.ThreadingHTTPServer:
    """Serve the page and the API on 127.0.0.1 in a background thread (port 0: any free)."""
    handler = type(
        "BattleClientHandler",
        (ClientHandler,),
        {
            "battles": battles,
            "defaults": defaults,
            "out_dir": out_dir,
            "lock": threading.Lock(),
            "replay_path": web_root() / "__not_served__",  # no replay route here
        },
    )
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(web_root()))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
