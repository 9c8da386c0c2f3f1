"""A local web server for the replay viewer: `marl-bgs view REPLAY` serves and opens it.

It binds 127.0.0.1 only, serves the viewer's own files, and the one replay asked for under
a fixed address, so nothing else on the disk is reachable through it.
"""

from __future__ import annotations

import functools
import http.server
import io
import threading
from pathlib import Path
from urllib.parse import quote, unquote

REPLAY_ROUTE = "/__replay__/"


def web_root() -> Path:
    """The folder holding `web_demo/` (a checkout, or the copy inside the wheel)."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent, here / "_web"):
        if (candidate / "web_demo" / "viewer" / "index.html").is_file():
            return candidate
    raise FileNotFoundError("the replay viewer's files (web_demo/viewer/) were not found")


class ViewerHandler(http.server.SimpleHTTPRequestHandler):
    replay_path: Path = Path()
    # The replay as it was checked at start-up, served as is; None: no replay here (the
    # battle client's server), so the route answers 404 like any path outside web_demo/.
    replay_bytes: bytes | None = None

    def send_head(self):  # noqa: ANN201 (the base class's own signature)
        """A NUL byte in the path is a bad request (answered 400, not a dropped connection);
        the replay's route serves the bytes checked at start-up, not what the file holds
        now (it may have been replaced since)."""
        clean = unquote(self.path.split("?", 1)[0].split("#", 1)[0])
        if "\x00" in clean:
            self.send_error(400, "a NUL byte in the path")
            return None
        if clean.startswith(REPLAY_ROUTE):
            if self.replay_bytes is None:
                self.send_error(404, "no replay is served here")
                return None
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(self.replay_path)))
            self.send_header("Content-Length", str(len(self.replay_bytes)))
            self.end_headers()
            return io.BytesIO(self.replay_bytes)
        return super().send_head()

    def translate_path(self, path: str) -> str:
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


def start_server(
    replay: Path, port: int = 0, data: bytes | None = None
) -> http.server.ThreadingHTTPServer:
    """Serve the viewer and `replay` on 127.0.0.1 in a background thread (port 0: any free).

    `data` is the replay's bytes as the caller checked them (`load_replay`); without it the
    file is read now. Either way those bytes are what the viewer gets, however the file
    changes later."""
    data = replay.read_bytes() if data is None else data
    fields = {"replay_path": replay.resolve(), "replay_bytes": data}
    handler = type("ReplayHandler", (ViewerHandler,), fields)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(web_root()))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
