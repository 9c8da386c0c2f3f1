"""The small typed checks a replay's reader uses: the project's one checker
(`core.checks`), raising `ReplayError` (a wrong type: `ReplayTypeError`, still a
`TypeError`) with the same messages as everywhere else, each naming the field."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import checks
from ..core.checks import FieldTypeError
from .fields import MAX_TEXT, ReplayError, ReplayTypeError


def show(value: Any) -> str:
    """`value`'s repr for a message, cut to 40 characters."""
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _replay_errors(check: Callable) -> Callable:
    """A `core.checks` check whose refusals are ReplayErrors (a wrong type is a
    `ReplayTypeError`, still a TypeError), with the same messages as everywhere else."""

    @functools.wraps(check)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return check(*args, **kwargs)
        except FieldTypeError as err:
            raise ReplayTypeError(str(err)) from None
        except ValueError as err:
            raise ReplayError(str(err)) from None

    return run


whole = _replay_errors(checks.whole)
number = _replay_errors(checks.number)
_string = _replay_errors(checks.string)
_fields = _replay_errors(checks.fields)
_sequence = _replay_errors(checks.sequence)


def text(value: Any, where: str, limit: int = MAX_TEXT) -> str:
    """A string of at most `limit` characters."""
    return _string(value, where, limit)


def json_object(value: Any, where: str, required: tuple, optional: tuple = ()) -> dict:
    """An object with every `required` field, perhaps some `optional` ones, and no other."""
    return _fields(value, where, required, optional, word="field")


def json_list(value: Any, where: str, length: int | None = None, most: int | None = None) -> list:
    """A list of exactly `length` items, else of at most `most` (None: any number)."""
    if length is not None:
        return _sequence(value, where, length, length)
    return _sequence(value, where, 0, most)


def int_array(value: Any, where: str, shape: tuple[int, ...], lo: int, hi: int) -> np.ndarray:
    """Nested lists of whole numbers of exactly `shape`, each in [lo, hi], as int64."""

    def fast(v: Any, depth: int) -> bool:
        if not isinstance(v, list) or len(v) != shape[depth]:
            return False
        if depth == len(shape) - 1:
            return all(type(x) is int and lo <= x <= hi for x in v)
        return all(fast(x, depth + 1) for x in v)

    def slow(v: Any, path: str, depth: int) -> None:
        if depth == len(shape):
            whole(v, path, lo, hi)
            return
        json_list(v, path, shape[depth])
        for i, x in enumerate(v):
            slow(x, f"{path}[{i}]", depth + 1)

    if not shape:
        return np.asarray(whole(value, where, lo, hi), np.int64)
    if not fast(value, 0):
        slow(value, where, 0)
    return np.asarray(value, np.int64).reshape(shape)
