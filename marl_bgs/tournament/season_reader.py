"""The one reader and checker of a season's JSON files: each file read strictly and built
into its typed record (`season_records`), every error naming the file and the field.

Shared by scripts/export_season.py (which checks what it writes) and the site's leaderboard
pages.
"""

from __future__ import annotations

import functools
from dataclasses import MISSING, fields, is_dataclass
from pathlib import Path
from types import UnionType
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from ..core import checks
from .season_records import (
    LEADERBOARD_FORMAT,
    LEADERBOARD_VERSION,
    PROVENANCE_FORMAT,
    Leaderboard,
    Provenance,
    Timing,
)

EXPORT_SCRIPT = "scripts/export_season.py"  # writes every file of a season's folder
T = TypeVar("T")


def read_record(kind: Any, value: Any, where: str) -> Any:
    """`value` (parsed JSON) checked against the type `kind` and built into it: a record
    class of `season_records`, `int`, `float`, `str`, `bool`, `X | None`, `tuple[X, ...]`,
    `dict[str, X]` or `Any` (kept as it is). Every error names the field
    (`where.table[1].elo`)."""
    if kind is Any:
        return value
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return read_record(inner, value, where)
    if origin is tuple:
        items = checks.sequence(value, where)
        return tuple(read_record(args[0], v, f"{where}[{k}]") for k, v in enumerate(items))
    if origin is dict:
        items = checks.mapping(value, where)
        return {
            checks.string(k, where): read_record(args[1], v, f"{where}.{k}")
            for k, v in items.items()
        }
    if kind is int:
        return checks.whole(value, where)
    if kind is float:
        return checks.number(value, where)
    if kind is str:
        return checks.string(value, where)
    if kind is bool:
        return checks.boolean(value, where)
    if is_dataclass(kind):
        data = checks.mapping(value, where)
        hints = _hints(kind)
        out = {}
        for f in fields(kind):
            if f.name in data:
                out[f.name] = read_record(hints[f.name], data[f.name], f"{where}.{f.name}")
            elif f.default is MISSING and f.default_factory is MISSING:
                raise ValueError(f"{where}.{f.name}: missing")
        return kind(**out)
    raise TypeError(f"read_record: no reader for {kind!r}")


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return get_type_hints(kind)


def read_json(path: Path, rel: str, kind: type[T], fmt: str | None = None) -> T:
    """One JSON file read strictly (`core.checks.strict_json`) and checked as `kind`; `fmt`:
    the `format` it must name. Errors name `rel` and the field."""
    if not path.is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {EXPORT_SCRIPT}` to write it")
    data = checks.strict_json(path.read_bytes(), rel)
    if fmt is not None:
        got = checks.mapping(data, rel).get("format")
        if got != fmt:
            raise ValueError(f"{rel}.format: expected {fmt!r}, got {got!r}")
    return read_record(kind, data, rel)


def read_leaderboard(path: Path, rel: str) -> Leaderboard:
    """`leaderboard.json`, checked: its format and version, every field's type, and a square
    matchup table."""
    board = read_json(path, rel, Leaderboard, LEADERBOARD_FORMAT)
    if board.version != LEADERBOARD_VERSION:
        raise ValueError(f"{rel}.version: expected {LEADERBOARD_VERSION}, got {board.version!r}")
    n = len(board.matchups.entrants)
    if len(board.matchups.cells) != n:
        where = f"{rel}.matchups.cells"
        raise ValueError(f"{where}: expected {n} rows, got {len(board.matchups.cells)}")
    for i, line in enumerate(board.matchups.cells):
        if len(line) != n:
            where = f"{rel}.matchups.cells[{i}]"
            raise ValueError(f"{where}: expected {n} cells, got {len(line)}")
    return board


def read_provenance(path: Path, rel: str) -> Provenance:
    """`provenance.json`, checked."""
    return read_json(path, rel, Provenance, PROVENANCE_FORMAT)


def read_timing(path: Path, rel: str) -> Timing:
    """`timing.json`, checked."""
    return read_json(path, rel, Timing)
