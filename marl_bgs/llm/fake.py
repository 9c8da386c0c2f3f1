"""A fake OpenAI-compatible chat server on 127.0.0.1, for tests and the overhead benchmark.

It answers `POST .../chat/completions` from scripted behaviours, reading the legal names from
the prompt as a model would, and records every request body and the peak number of requests
in flight. It is real HTTP (`http.server`), so the client is tested end to end. Every wait is
bounded: a slow reply sleeps at most `slow_seconds` and wakes as soon as the server closes,
and `close()` joins every handler thread.

    with FakeChatServer("legal") as server:
        system = llm_system("fake", server.base_url)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BEHAVIOURS = (
    "legal",  # a legal move and combat read from the prompt, as compact JSON
    "padded",  # the same legal reply padded with spaces and line breaks (still valid JSON)
    "illegal",  # a move name that is not on the menu
    "broken",  # JSON cut short, finish_reason "stop"
    "prose",  # a sentence around a legal JSON object (must not be guessed from)
    "cut_off",  # a partial reply with finish_reason "length"
    "empty",  # an empty reply
    "slow",  # a legal reply after `slow_seconds` (past a client's timeout)
    "http_500",  # an HTTP 500 error
)
Script = str | list[str] | Callable[[dict, int], str]


def legal_names(body: dict) -> tuple[list[str], list[str]]:
    """The legal moves and combat names listed in the request's latest view."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") != "user" or not isinstance(message.get("content"), str):
            continue
        moves = combats = None
        for line in message["content"].splitlines():
            if line.startswith("Legal moves: "):
                moves = line[len("Legal moves: ") :].split(", ")
            elif line.startswith("Legal combat: "):
                combats = line[len("Legal combat: ") :].split(", ")
        if moves and combats:
            return moves, combats
    return ["stay"], ["no_combat"]


def legal_choice(body: dict) -> dict:
    """East if it can, attacking the first enemy it may hit with its Basic: a simple player."""
    moves, combats = legal_names(body)
    move = "east" if "east" in moves else moves[0]
    attacks = [c for c in combats if c.startswith("enemy_") and c.endswith("_basic")]
    return {"move": move, "combat": attacks[0] if attacks else combats[0]}


def _compact(value: dict) -> str:
    return json.dumps(value, separators=(",", ":"))


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins every handler thread
    block_on_close = True
    allow_reuse_address = True
    request_queue_size = 128  # a full tick connects at once; a short backlog drops SYNs (1 s retry)


class FakeChatServer:
    """The fake server; `script` is one behaviour, a list used in turn, or a function of
    (request body, request number) returning one."""

    def __init__(
        self,
        script: Script = "legal",
        *,
        delay: float = 0.0,
        slow_seconds: float = 5.0,
        usage: bool = True,
    ) -> None:
        self.script = script
        self.delay = delay
        self.slow_seconds = slow_seconds
        self.usage = usage
        self.requests: list[dict] = []
        self.behaviours: list[str] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._check(script)
        self._httpd = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @staticmethod
    def _check(script: Script) -> None:
        names = [script] if isinstance(script, str) else script if isinstance(script, list) else []
        for name in names:
            if name not in BEHAVIOURS:
                raise ValueError(f"script: unknown behaviour {name!r}; known: {BEHAVIOURS}")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _pick(self, body: dict, n: int) -> str:
        if isinstance(self.script, str):
            return self.script
        if isinstance(self.script, list):
            return self.script[n % len(self.script)]
        name = self.script(body, n)
        self._check(name)
        return name

    def answer(self, body: dict) -> tuple[int, dict | None]:
        """(HTTP status, completion) for one request; counts it in flight meanwhile."""
        with self._lock:
            n = len(self.requests)
            self.requests.append(body)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            behaviour = self._pick(body, n)
            with self._lock:
                self.behaviours.append(behaviour)
            if self.delay:
                self._stop.wait(self.delay)
            return self._reply(behaviour, body)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _reply(self, behaviour: str, body: dict) -> tuple[int, dict | None]:
        if behaviour == "http_500":
            return 500, None
        if behaviour == "slow":
            self._stop.wait(self.slow_seconds)
        choice = legal_choice(body)
        finish = "stop"
        content = {
            "legal": _compact(choice),
            "slow": _compact(choice),
            "padded": json.dumps(choice, indent=2) + "\n\n  ",
            "illegal": _compact({**choice, "move": "teleport"}),
            "broken": _compact(choice)[:-6],
            "prose": f"I will go {choice['move']}. {_compact(choice)}",
            "cut_off": '{"move":"' + choice["move"] + '",' + " " * 40,
            "empty": "",
        }[behaviour]
        if behaviour == "cut_off":
            finish = "length"
        doc: dict[str, Any] = {
            "id": "fake",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                }
            ],
        }
        if self.usage:
            prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
            doc["usage"] = {
                "prompt_tokens": prompt // 4,
                "completion_tokens": max(1, len(content) // 4),
                "total_tokens": prompt // 4 + max(1, len(content) // 4),
            }
        return 200, doc

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": "not found"})
                try:
                    body = json.loads(raw)
                except ValueError:
                    return self._send(400, {"error": "bad JSON"})
                status, doc = server.answer(body)
                self._send(status, doc if doc is not None else {"error": "scripted failure"})

            def _send(self, status: int, doc: dict) -> None:
                data = json.dumps(doc).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a timeout); nothing to answer

        return Handler

    def close(self) -> None:
        """Wake any slow reply, stop serving and join every thread."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> FakeChatServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def main(argv: list[str] | None = None) -> int:
    """Serve until standard input closes (so a parent process bounds its life): prints the
    base URL on the first line. `python -m marl_bgs.llm.fake --script legal`."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="a fake OpenAI-compatible chat server")
    parser.add_argument("--script", default="legal", choices=BEHAVIOURS)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each reply")
    args = parser.parse_args(argv)
    with FakeChatServer(args.script, delay=args.delay) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
