"""A folder of generated files written as a whole: the export is exactly its files.

Export scripts build every file in memory (name -> bytes), then either write them, removing
the folder's files of the same kind that the export no longer makes, or, with `--check`,
list what differs, is missing or is left over, so a test fails when the folder is stale.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any


def stale_files(folder: Path, files: dict[str, bytes], pattern: str = "*.json") -> list[str]:
    """Names that differ from `files` or are missing, then `pattern` files nobody writes."""
    stale = [
        name
        for name, data in files.items()
        if not (folder / name).is_file() or (folder / name).read_bytes() != data
    ]
    left_over = sorted(p.name for p in folder.glob(pattern) if p.name not in files)
    return stale + left_over  # a missing folder globs to nothing


def publish(folder: Path, files: dict[str, bytes], label: str, pattern: str = "*.json") -> None:
    """Write `files` into `folder` and remove its other `pattern` files."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in sorted(folder.glob(pattern)):
        if old.name not in files:
            old.unlink()
            print(f"removed {label}/{old.name} (the export no longer makes it)")
    for name, data in files.items():
        (folder / name).write_bytes(data)
    total = sum(len(data) for data in files.values())
    print(f"wrote {len(files)} files to {label}/ ({total:,} bytes)")


def export_main(
    argv: list[str] | None,
    description: str,
    build: Callable[[dict[str, Any] | None], dict[str, bytes]],
    stored_versions: Callable[[], dict[str, Any]],
    folder: Callable[[], Path],
    label: str,
    script: str,
) -> int:
    """The command line of an export: write the files, or with --check report stale ones.

    `folder` is called, not passed, so that tests may point a script's folder elsewhere.
    A check rebuilds with the stored files' versions, so a newer package alone is not stale.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="fail if the files are stale")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files(folder(), build(stored_versions()))
        for name in stale:
            print(f"stale: {label}/{name} (run {script})")
        return 1 if stale else 0
    publish(folder(), build(None), label)
    return 0
