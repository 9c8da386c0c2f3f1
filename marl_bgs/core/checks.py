"""One checker for every reader of input and every public option: each error names the
field, and its type says what was wrong.

A value of the wrong type raises `FieldTypeError`, a `TypeError` that is also a
`ValueError` (so callers that catch `ValueError`, as the CLI and older code do, still
catch it); a value of the right type that is out of range or unknown raises `ValueError`.
`where` is the field's path as the user wrote it (`rosters[0][2]`, `--out`, `map_id`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np


class FieldTypeError(TypeError, ValueError):
    """A field holds a value of the wrong type."""


def _name(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def whole(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    """A whole number within [lo, hi] (either bound may be left open; NumPy integers too);
    booleans and floats are refused, even 47.0, since a float id or count is a mistake
    somewhere upstream."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise FieldTypeError(f"{where}: expected a whole number, got {_name(value)}")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if hi is None:
            raise ValueError(f"{where}: {_name(value)} must be at least {lo}")
        if lo is None:
            raise ValueError(f"{where}: {_name(value)} must be at most {hi}")
        raise ValueError(f"{where}: {_name(value)} is out of range [{lo}, {hi}]")
    return value


def number(value: Any, where: str, lo: float | None = None, hi: float | None = None) -> float:
    """A finite number, optionally within [lo, hi]; booleans, strings, NaN and infinities
    are rejected."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise FieldTypeError(f"{where}: expected a number, got {_name(value)}")
    if isinstance(value, (int, np.integer)) and abs(int(value)) > 2**53:
        raise ValueError(f"{where}: {_name(int(value))} is too large")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{where}: must be finite, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if hi is None:
            raise ValueError(f"{where}: {value:g} must be at least {lo:g}")
        if lo is None:
            raise ValueError(f"{where}: {value:g} must be at most {hi:g}")
        raise ValueError(f"{where}: {value:g} must lie in [{lo:g}, {hi:g}]")
    return value


def thousandths(value: float, where: str) -> int:
    """A number (already checked finite) as whole thousandths, the engine's grid; finer
    values are rejected, not rounded (a fourth decimal would be silently lost)."""
    scaled = value * 1000
    near = round(scaled)
    if abs(scaled - near) > 1e-6 * max(1.0, abs(scaled)):
        raise ValueError(f"{where}: {value} has more than three decimals (the grid is 0.001)")
    return int(near)


def boolean(value: Any, where: str) -> bool:
    """True or False exactly: the string "false" is not False."""
    if not isinstance(value, (bool, np.bool_)):
        raise FieldTypeError(f"{where}: expected true or false, got {_name(value)}")
    return bool(value)


def choice(value: Any, where: str, options: Sequence[str], what: str = "value") -> str:
    """One of the named options (`what` names their kind in the message: "class")."""
    if not isinstance(value, str):
        raise FieldTypeError(f"{where}: expected one of {', '.join(options)}, got {_name(value)}")
    if value not in options:
        raise ValueError(f"{where}: unknown {what} {_name(value)}; known: {', '.join(options)}")
    return value


def sequence(value: Any, where: str, lo: int = 0, hi: int | None = None) -> list:
    """A list or tuple (not a string, mapping or set) of lo..hi items."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise FieldTypeError(f"{where}: expected a list, got {_name(value)}")
    if len(value) < lo or (hi is not None and len(value) > hi):
        span = f"{lo}" if hi == lo else f"{lo} to {hi}" if hi is not None else f"at least {lo}"
        raise ValueError(f"{where}: expected {span} items, got {len(value)}")
    return list(value)


def string(value: Any, where: str, most: int | None = None) -> str:
    """A string of at most `most` characters."""
    if not isinstance(value, str):
        raise FieldTypeError(f"{where}: expected a string, got {_name(value)}")
    if most is not None and len(value) > most:
        raise ValueError(f"{where}: longer than {most} characters")
    return value


def mapping(value: Any, where: str) -> dict:
    """An object (a dict)."""
    if not isinstance(value, dict):
        raise FieldTypeError(f"{where}: expected an object, got {_name(value)}")
    return value


def fields(
    value: Any, where: str, required: Sequence[str], optional: Sequence[str] = (), word="key"
) -> dict:
    """An object (dict) holding every `required` key and no key outside `required` and
    `optional`; `word` names a key in messages ("key", or "field" in replays)."""
    mapping(value, where)
    for key in value:
        if key not in required and key not in optional:
            raise ValueError(f"{where}.{key}: unknown {word}")
    for key in required:
        if key not in value:
            raise ValueError(f"{where}.{key}: required")
    return value


def one_or_many(value: Any, where: str) -> tuple[list, bool]:
    """A single value or a non-empty list of them, as (items, was_a_list); each item's
    own check is the caller's (named `where[i]` for a list)."""
    if isinstance(value, (list, tuple)):
        return sequence(value, where, lo=1), True
    return [value], False


def plain_json(value: Any, where: str, max_depth: int = 24, max_items: int = 1_000_000) -> Any:
    """Refuse a structure too deep or too large to be a file this project reads (a deep
    nesting would otherwise end in a RecursionError inside a copy or a reader), walking it
    without recursion."""
    stack, seen = [(value, 0)], 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if depth > max_depth:
            raise ValueError(f"{where}: nested more than {max_depth} levels deep")
        if seen > max_items:
            raise ValueError(f"{where}: more than {max_items} values")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((v, depth + 1) for v in item)
    return value


class _Constant(str):
    """NaN or Infinity, kept as a marker so that its place can be named."""


def _constant_field(text: str) -> str | None:
    """Where the first NaN or Infinity of a JSON text stands (`obstacles[3].theta`), read
    again with constants kept as markers; None if the text cannot be read that way."""

    def find(node: Any, path: str) -> str | None:
        if isinstance(node, _Constant):
            return path or "(the document)"
        if isinstance(node, (dict, list)):
            for key, value in node.items() if isinstance(node, dict) else enumerate(node):
                step = f"[{key}]" if isinstance(key, int) else (f".{key}" if path else key)
                found = find(value, path + step)
                if found:
                    return found
        return None

    try:
        return find(json.loads(text, parse_constant=_Constant), "")
    except (ValueError, RecursionError):
        return None


def strict_json(data: bytes | str, where: str, error: type[ValueError] = ValueError) -> Any:
    """JSON text as a Python document, strictly: UTF-8 only (a UTF-16 file or a byte-order
    mark is named, not misread), no key twice in one object (else the second would win
    silently), no NaN or Infinity, no nesting deep enough to exhaust the parser; every
    refusal is `error` naming `where`."""
    if isinstance(data, (bytes, bytearray)):
        if data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:3] == b"\xef\xbb\xbf":
            raise error(f"{where}: starts with a byte-order mark; save it as UTF-8 without one")
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as err:
            raise error(f"{where}: not UTF-8 text (byte {err.start})") from None

    class Refused(Exception):  # raised by the hooks below, turned into `error` outside
        pass

    def no_constants(name: str) -> Any:
        raise Refused(f"{name} is not allowed (numbers must be finite)")

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
        out: dict = {}
        for key, value in pairs:
            if key in out:
                raise Refused(f"the key {_name(key)} appears twice in one object")
            out[key] = value
        return out

    try:
        return json.loads(data, parse_constant=no_constants, object_pairs_hook=no_duplicates)
    except Refused as why:
        field = _constant_field(data) if "is not allowed" in str(why) else None
        raise error(f"{where}: {field + ': ' if field else ''}{why}") from None
    except json.JSONDecodeError as err:
        raise error(
            f"{where}: not valid JSON ({err.msg} at line {err.lineno}, column {err.colno};"
            " a truncated file ends early)"
        ) from None
    except RecursionError:
        raise error(f"{where}: nested too deeply") from None
    except ValueError as err:  # e.g. an integer with thousands of digits
        raise error(f"{where}: {err}") from None
