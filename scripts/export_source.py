"""Build the source distribution the website serves, byte for byte reproducibly.

    .venv/bin/python scripts/export_source.py            # write exports/source/
    .venv/bin/python scripts/export_source.py --check    # exit 1 if a built one is stale

`exports/source/marl-bgs-VERSION.tar.gz` holds every file git tracks in this checkout (the
package, maps, entrants, scripts, tests, the site's sources and the committed exports),
under one folder `marl-bgs-VERSION/`, so a visitor can download what the site was built
from and run the README's two commands in it. Members are sorted, dated 1980-01-01, owned by
nobody in particular (uid 0, no names) with fixed permissions, and the gzip header has no
time or file name, so the same commit gives the same bytes on any machine.

Like the browser engine, it is built, not committed (`/exports/source/` is git-ignored):
every commit would leave a committed copy stale. A checkout without git cannot list its
tracked files: the script says so instead of guessing (`--skip-without-git`, which
scripts/export_all.py passes, builds nothing there and succeeds).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "exports" / "source"
MANIFEST = "index.json"
FORMAT = "marl-bgs/source-index"
EPOCH = 315532800  # 1980-01-01, as the engine wheel dates its entries


def version(root: Path = ROOT) -> str:
    """The package version, read from the checkout's marl_bgs/version.py."""
    import ast

    for node in ast.parse((root / "marl_bgs" / "version.py").read_text()).body:
        names = [getattr(t, "id", None) for t in getattr(node, "targets", [])]
        if isinstance(node, ast.Assign) and names == ["__version__"]:
            return str(ast.literal_eval(node.value))
    raise SystemExit(f"export_source: {root}/marl_bgs/version.py has no __version__ line")


def is_git_checkout(root: Path = ROOT) -> bool:
    try:
        done = subprocess.run(["git", "ls-files", "--error-unmatch", "pyproject.toml"],
                              cwd=root, capture_output=True)  # fmt: skip
    except OSError:
        return False
    return done.returncode == 0


def tracked_files(root: Path = ROOT) -> list[str]:
    """Every file git tracks in `root`, sorted; a checkout without git is refused."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        raise SystemExit(
            f"export_source: {root} is not a git checkout (git ls-files failed: {err}); the "
            "source distribution lists the tracked files"
        ) from None
    names = sorted(n for n in listed.decode("utf-8").split("\0") if n)
    return [n for n in names if (root / n).is_file()]  # a deleted, uncommitted file is left out


def build(root: Path = ROOT, names: list[str] | None = None) -> tuple[str, bytes]:
    """The archive's file name and bytes (`names`: `tracked_files(root)`, when already listed)."""
    top = f"marl-bgs-{version(root)}"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in tracked_files(root) if names is None else names:
            path = root / name
            info = tarfile.TarInfo(f"{top}/{name}")
            data = path.read_bytes()
            info.size, info.mtime = len(data), EPOCH
            info.mode = 0o755 if path.stat().st_mode & 0o100 else 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return f"{top}.tar.gz", packed.getvalue()


def manifest(name: str, data: bytes, files: int) -> bytes:
    """What the Home page reads: the archive's name, size, file count and SHA-256."""
    doc = {"format": FORMAT, "version": 1, "file": name, "bytes": len(data), "files": files,
           "sha256": hashlib.sha256(data).hexdigest()}  # fmt: skip
    return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 if a built archive is stale")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--skip-without-git", action="store_true",
                   help="exit 0, building nothing, where this is not a git checkout (such as "
                   "an unpacked source archive)")  # fmt: skip
    args = p.parse_args(argv)
    if args.skip_without_git and not is_git_checkout():
        print(f"export_source: {ROOT} is not a git checkout; no source archive built")
        return 0
    if args.check and not (args.out / MANIFEST).is_file():
        print(f"export_source: {args.out} not built (it is built, not committed); nothing to check")
        return 0
    names = tracked_files()
    name, data = build(names=names)
    files = {name: data, MANIFEST: manifest(name, data, len(names))}
    if args.check:
        stale = [n for n, b in files.items()
                 if not (args.out / n).is_file() or (args.out / n).read_bytes() != b]  # fmt: skip
        extra = sorted(p.name for p in args.out.glob("*") if p.name not in files)
        if stale or extra:
            print(f"export_source: stale or missing {stale}, left over {extra}; run "
                  "scripts/export_source.py", file=sys.stderr)  # fmt: skip
            return 1
        print(f"export_source: {args.out / name} is current")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*"):
        if old.name not in files:
            old.unlink()
    for n, b in files.items():
        (args.out / n).write_bytes(b)
    print(f"wrote {args.out / name} ({len(data) / 2**20:.1f} MiB, {len(names)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
