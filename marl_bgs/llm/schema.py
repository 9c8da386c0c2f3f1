"""The reply format: a strict JSON schema listing only this tick's legal names, and the check.

A reply is accepted only when it is exactly one JSON object `{"move": ..., "combat": ...}`
whose two names form a legal pair of the agent's menu. Anything else is rejected with a
failure kind; nothing is guessed from prose, code fences or near-miss names, so a counted
legal reply is one the model actually gave.
"""

from __future__ import annotations

import json
from typing import Any

from .view import Menu

SCHEMA_NAME = "marl_bgs_action"
# Failure kinds, in the order they are tested; the last two come from the transport.
REPLY_FAILURES = ("cut_off", "empty", "unparsable", "illegal")
TRANSPORT_FAILURES = ("timeout", "server_error")
FAILURE_KINDS = REPLY_FAILURES + TRANSPORT_FAILURES
FAILURE_MEANING = {
    "cut_off": 'the server stopped at the token limit (finish_reason "length"), whatever the '
    "text so far",
    "empty": "no content, or only blank space",
    "unparsable": "not exactly one JSON object with the two string fields move and combat "
    "(prose around it, code fences, extra or repeated keys, text after it)",
    "illegal": "a name that is not on this tick's legal menu, or a pair the mask forbids",
    "timeout": "no reply within the client's timeout (a socket wait longer than `timeout`)",
    "server_error": "an HTTP status other than 200, a refused or broken connection, or a "
    "body that is not a chat completion",
}


class ReplyRejected(ValueError):
    """A reply that is not a legal action; `kind` is one of `REPLY_FAILURES`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def reply_schema(menu: Menu) -> dict:
    """The JSON schema of a reply: two required strings whose enums are the legal names."""
    return {
        "type": "object",
        "properties": {
            "move": {"type": "string", "enum": list(menu.moves)},
            "combat": {"type": "string", "enum": list(menu.combats)},
        },
        "required": ["move", "combat"],
        "additionalProperties": False,
    }


def response_format(menu: Menu) -> dict:
    """The Chat Completions `response_format` asking the server to enforce the schema."""
    return {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": reply_schema(menu)},
    }


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ReplyRejected("unparsable", "the reply repeats a key")
    return dict(pairs)


def parse_reply(content: Any, finish_reason: Any, menu: Menu) -> int:
    """The flat action of a legal reply, or `ReplyRejected` saying why it is not one."""
    if finish_reason == "length":
        raise ReplyRejected("cut_off", "the reply was cut off at the token limit")
    if content is None or (isinstance(content, str) and not content.strip()):
        raise ReplyRejected("empty", "the reply was empty")
    if not isinstance(content, str):
        raise ReplyRejected("unparsable", "the reply content is not text")
    try:
        value = json.loads(content, object_pairs_hook=_no_duplicates)
    except ReplyRejected:
        raise
    except (ValueError, RecursionError) as err:  # bad JSON, deep nesting, a huge integer
        why = getattr(err, "msg", type(err).__name__)
        raise ReplyRejected("unparsable", f"the reply is not one JSON object ({why})") from None
    if not isinstance(value, dict) or set(value) != {"move", "combat"}:
        raise ReplyRejected("unparsable", 'the reply must be {"move": ..., "combat": ...} only')
    move, combat = value["move"], value["combat"]
    if not isinstance(move, str) or not isinstance(combat, str):
        raise ReplyRejected("unparsable", "move and combat must be strings")
    if move not in menu.moves:
        raise ReplyRejected("illegal", f"move {move!r} is not legal now")
    if combat not in menu.combats:
        raise ReplyRejected("illegal", f"combat {combat!r} is not legal now")
    if (move, combat) not in menu.flat:
        raise ReplyRejected("illegal", f"move {move!r} with combat {combat!r} is not legal now")
    return menu.flat[(move, combat)]
