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


def check_new_files(folder: str | Path, names: Sequence[str], force: bool, field: str) -> Path:
    """The folder `folder` checked as a place to write `names` into: refused if it is a
    file, cannot be created or written, or (unless `force`) already holds one of them."""
    if not isinstance(folder, (str, os.PathLike)) or not str(folder):
        raise ValueError(f"{field}: expected a folder path, got {folder!r}")
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{field}: {folder} is a file, not a folder")
    existing = [n for n in names if (folder / n).exists()]
    if existing and not force:
        raise ValueError(
            f"{field}: {folder} already holds {', '.join(existing)}; choose another folder "
            "or pass force (--force) to replace them"
        )
    probe = folder
    while not probe.exists():  # the nearest existing folder must let us create the rest
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"{field}: cannot write under {probe}")
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
