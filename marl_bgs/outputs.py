"""Where results are written: checked before any work, never overwritten by accident,
and written whole or not at all.

A command that plays games for minutes and then cannot save them has lost them, and a save
that silently replaces an earlier results folder loses those. So every writer of results
calls `check_new_files` before it starts (naming the option at fault) and writes each file
through `write_atomic` (a temporary file in the same folder, then one rename), so that a
crash mid-write leaves the old file or the new one, never half of either.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _folder_problem(folder: Any) -> str | None:
    """Why `folder` cannot be written into (not a path, a file, or under a folder we may not
    write), or None."""
    if not isinstance(folder, (str, os.PathLike)) or not str(folder):
        return f"expected a folder path, got {folder!r}"
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        return f"{folder} is a file, not a folder"
    probe = folder
    while not probe.exists():  # the nearest existing folder must let us create the rest
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        return f"cannot write under {probe}"
    return None


def check_folder(folder: Any, field: str) -> Path:
    """`folder` checked as a place to write into, before any work: refused, naming `field`,
    if it is not a path, is a file, or cannot be created or written."""
    problem = _folder_problem(folder)
    if problem is not None:
        raise ValueError(f"{field}: {problem}")
    return Path(folder)


def folder_argument(text: str) -> Path:
    """`check_folder` for argparse's `type=`: a bad output folder is a usage error naming
    its option (argparse adds the name)."""
    import argparse

    problem = _folder_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return Path(text)


def check_new_files(folder: str | Path, names: Sequence[str], force: bool, field: str) -> Path:
    """The folder `folder` checked as a place to write `names` into: refused if it is a
    file, cannot be created or written, or (unless `force`) already holds one of them."""
    folder = check_folder(folder, field)
    existing = [n for n in names if (folder / n).exists()]
    if existing and not force:
        raise ValueError(
            f"{field}: {folder} already holds {', '.join(existing)}; choose another folder "
            "or pass force (--force) to replace them"
        )
    return folder


def write_atomic(path: Path, write: Callable[[Path], object]) -> Path:
    """`write(tmp)` writes the whole file to a temporary name beside `path`, which then
    replaces `path` in one rename."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
