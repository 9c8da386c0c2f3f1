"""A local web server for the replay viewer: `marl-bgs view REPLAY` serves and opens it.

It binds 127.0.0.1 only, serves the viewer's own files, and the one replay asked for under
a fixed address, so nothing else on the disk is reachable through it.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import quote

REPLAY_ROUTE = "/__replay__/"


def web_root() -> Path:
    """The folder holding `web_demo/` (a checkout, or the copy inside the wheel)."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent, here / "_web"):
        if (candidate / "web_demo" / "viewer" / "index.html").is_file():
            return candidate
    raise FileNotFoundError("the replay viewer's files (web_demo/viewer/) were not found")


class _Handler(http.server.SimpleHTTPRequestHandler):
    replay_path: Path = Path()

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        if clean.startswith(REPLAY_ROUTE):
            return str(self.replay_path)
        served = Path(super().translate_path(path)).resolve()
        allowed = (Path(self.directory) / "web_demo").resolve()
        if not served.is_relative_to(allowed):
            return str(Path(self.directory) / "__not_served__")
        return str(served)

    def log_message(self, format: str, *args) -> None:  # keep the terminal quiet
        del format, args


def viewer_url(port: int, replay: Path, tick: int | None = None, view: str | None = None) -> str:
    url = f"http://127.0.0.1:{port}/web_demo/viewer/index.html?replay={REPLAY_ROUTE}"
    url += quote(replay.name)
    parts = [f"tick={tick}"] if tick is not None else []
    parts += [f"view={quote(view)}"] if view else []
    return url + ("#" + "&".join(parts) if parts else "")


def start_server(replay: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """Serve the viewer and `replay` on 127.0.0.1 in a background thread (port 0: any free)."""
    handler = type("ReplayHandler", (_Handler,), {"replay_path": replay.resolve()})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(web_root()))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
