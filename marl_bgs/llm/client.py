"""A minimal OpenAI-compatible Chat Completions client over plain HTTP (`http.client`).

Why not the `openai` package: it is not a dependency of this project, and one POST per
request is all that is needed. Plain HTTP also gives exact control over what is sent (the
request body is the JSON we build, nothing added, so a test can read it back from a fake
server) and over timeouts (one socket timeout per request, no hidden retries: a retry would
change what is counted). It works unchanged against vLLM, llama.cpp's server, SGLang or any
other endpoint that speaks `POST {base_url}/chat/completions`.
"""

from __future__ import annotations

import http.client
import json
import ssl
import time
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from ..core.checks import number

MAX_RESPONSE_BYTES = 4_000_000  # a chat completion of a few tokens is far smaller


class ChatReply(NamedTuple):
    """The first choice of one completion, its token counts (None when not reported) and
    the request's wall time."""

    content: str | None
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    seconds: float


class ChatError(RuntimeError):
    """A request that produced no completion; `kind` is "timeout" or "server_error"."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def check_base_url(base_url: Any) -> tuple[str, str, int, str]:
    """(scheme, host, port, path prefix) of an `http(s)://host[:port]/v1` address."""
    if not isinstance(base_url, str):
        raise TypeError(
            f"base_url: expected a string such as http://127.0.0.1:8001/v1, got {base_url!r}"
        )
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url: expected http(s)://host[:port]/path, got {base_url!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"base_url: must not hold a query or fragment, got {base_url!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ValueError(f"base_url: bad port in {base_url!r}") from None
    return parts.scheme, parts.hostname, port, parts.path.rstrip("/")


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class ChatClient:
    """POSTs chat completions to one endpoint; safe to share between threads (each request
    opens its own connection)."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        self.scheme, self.host, self.port, self.prefix = check_base_url(base_url)
        if api_key is not None and not isinstance(api_key, str):
            raise TypeError("api_key: expected a string or None")
        if not number(timeout, "timeout") > 0:
            raise ValueError(f"timeout: expected seconds > 0, got {timeout!r}")
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = float(timeout)

    def _connection(self) -> http.client.HTTPConnection:
        if self.scheme == "https":
            return http.client.HTTPSConnection(
                self.host, self.port, timeout=self.timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def complete(self, body: dict) -> ChatReply:
        """Send one request body (the caller builds it whole) and read the first choice."""
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        start = time.perf_counter()
        conn = self._connection()
        try:
            conn.request("POST", f"{self.prefix}/chat/completions", body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read(MAX_RESPONSE_BYTES + 1)
            status = resp.status
        except TimeoutError:
            raise ChatError("timeout", f"no reply within {self.timeout:g} s") from None
        except (OSError, http.client.HTTPException) as err:
            raise ChatError("server_error", f"request failed: {err}") from None
        finally:
            conn.close()
        seconds = time.perf_counter() - start
        if status != 200:
            text = raw[:200].decode("utf-8", "replace")
            raise ChatError("server_error", f"HTTP {status}: {text}")
        if len(raw) > MAX_RESPONSE_BYTES:
            raise ChatError("server_error", "the response is too large")
        return _read_completion(raw, seconds)


def _read_completion(raw: bytes, seconds: float) -> ChatReply:
    try:
        doc = json.loads(raw)
        choice = doc["choices"][0]
        message = choice["message"]
        content = message.get("content")
        finish = choice.get("finish_reason")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
        raise ChatError("server_error", "the response is not a chat completion") from None
    usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
    return ChatReply(
        content,
        finish if isinstance(finish, str) else None,
        _int_or_none(usage.get("prompt_tokens")),
        _int_or_none(usage.get("completion_tokens")),
        seconds,
    )
