"""Execute the tutorial notebooks and render them for the site into exports/tutorials/.

    .venv/bin/python scripts/export_tutorials.py            # execute all, write the export
    .venv/bin/python scripts/export_tutorials.py --check    # execute all, exit 1 if stale
    .venv/bin/python scripts/export_tutorials.py --resume   # only notebooks changed since
    .venv/bin/python scripts/export_tutorials.py 03-train-rec-ippo   # only this one

Each notebook in site_src/tutorials/ runs top to bottom in a fresh kernel on the CPU, in a
temporary folder, with the JAX compilation cache of the tests (JAX_COMPILATION_CACHE_DIR,
default ~/.cache/marl_bgs/jax). nbconvert renders it to Markdown (`marl_bgs.site.tutorials`);
the pages, figures and index.json hold nothing that depends on the time or the run's folder,
so a rerun writes the same bytes. Run times are printed, never written.

Files are rewritten only when the new rendering differs from the export (`--check`'s test):
a page whose cpu-float outputs (training numbers, tutorial 3) were recorded on another kind
of CPU is compared without them, so rerunning the export on another machine leaves the
checkout as it was. `--resume` (what scripts/export_all.py runs) executes only notebooks whose
cells changed since their export; naming notebooks executes only those. Either way the
other notebooks keep their exported files and their index entries, each of which records
the CPU and packages of its own run. Needs nbclient,
nbconvert and ipykernel (the `dev` extra) and, for tutorial 3, the `train` extra.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from marl_bgs.site import tutorials  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stems", nargs="*", help="only these notebooks (e.g. 01-first-game)")
    parser.add_argument("--check", action="store_true", help="fail if the export is stale")
    parser.add_argument(
        "--resume", action="store_true", help="execute only notebooks changed since their export"
    )
    parser.add_argument(
        "--timeout", type=int, default=tutorials.CELL_TIMEOUT, help="seconds per cell"
    )
    args = parser.parse_args(argv)
    if args.timeout < 1:
        parser.error(f"--timeout: expected at least 1 second per cell, got {args.timeout}")
    paths = tutorials.notebook_paths(ROOT)
    if args.stems:
        unknown = sorted(set(args.stems) - {p.stem for p in paths})
        if unknown:
            print(f"export_tutorials: no notebook named {', '.join(unknown)}", file=sys.stderr)
            return 2
        paths = [p for p in paths if p.stem in args.stems]
    if args.resume and not args.check:
        changed = {p.stem for p in tutorials.changed_notebooks(ROOT)}
        paths = [p for p in paths if p.stem in changed]
        if not paths:
            print(
                f"{tutorials.EXPORT_DIR.as_posix()}/: every notebook's export is of its current cells"
            )
            return 0
    partial = len(paths) < len(tutorials.notebook_paths(ROOT))
    folder = ROOT / tutorials.EXPORT_DIR
    old = tutorials.existing_files(folder)
    runs = []
    started = time.perf_counter()
    for path in paths:
        print(f"executing {path.relative_to(ROOT)} ...", flush=True)
        run = tutorials.execute(path, timeout=args.timeout)
        print(f"  {run.seconds:.1f} s", flush=True)
        runs.append(run)
    print(f"executed {len(runs)} notebooks in {time.perf_counter() - started:.1f} s")
    new = tutorials.build_files(ROOT, runs, previous=old if partial else None)
    stale, notes = tutorials.stale_files(new, old)
    for note in notes:
        print(f"note: {note}")
    if args.check:
        for name in stale:
            print(
                f"stale: {tutorials.EXPORT_DIR.as_posix()}/{name} (run scripts/export_tutorials.py)"
            )
        return 1 if stale else 0
    if not stale:
        print(f"{tutorials.EXPORT_DIR.as_posix()}/: up to date, nothing written")
        return 0
    _publish(folder, new)
    return 0


def _publish(folder: Path, files: dict[str, bytes]) -> None:
    """Write the files (figures in subfolders) and remove the folder's files nobody writes."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in sorted(p for p in folder.rglob("*") if p.is_file()):
        if old.relative_to(folder).as_posix() not in files:
            old.unlink()
            print(f"removed {tutorials.EXPORT_DIR.as_posix()}/{old.relative_to(folder).as_posix()}")
    for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
        if not any(sub.iterdir()):
            sub.rmdir()
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
    total = sum(len(d) for d in files.values())
    print(f"wrote {len(files)} files to {tutorials.EXPORT_DIR.as_posix()}/ ({total:,} bytes)")


if __name__ == "__main__":
    raise SystemExit(main())
