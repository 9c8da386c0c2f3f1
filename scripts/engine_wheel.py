"""Build the engine-only wheel the browser installs into Pyodide, byte for byte reproducibly.

    .venv/bin/python scripts/engine_wheel.py --out exports/browser

The wheel (`marl_bgs_engine-VERSION-py3-none-any.whl`) holds the rules (`marl_bgs/core`),
`Game`, the maps and their 52 files, replays, metrics, the Systems that play on NumPy
(`systems/numpy_play.py`, scripted opponents over `xp`), the BattleClient's sessions
(`battle_games.py`) and the learned entrant's policy `.npz` with its NumPy forward pass. It leaves out everything that
imports JAX, pandas, pyarrow or tqdm at play time (env, evaluation, learn, tournament, the
CLI, the site). Entries are sorted, dated 1980-01-01 and written with fixed permissions, so
the same sources give the same bytes on any machine (the tests rebuild it and compare).

It is built, not committed: every change to the rules would leave a committed copy stale,
and the Pyodide files it goes beside are fetched into the same ignored folder anyway.
"""

from __future__ import annotations

import argparse
import ast
import base64
import hashlib
import re
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = "marl_bgs_engine"
# Modules of marl_bgs that the browser needs; whole folders are taken as every *.py in them.
MODULES = (
    "__init__.py",
    "battle_games.py",
    "browser_api.py",
    "game.py",
    "maps/",
    "random_play.py",
    "version.py",
    "core/",
    "metrics/",
    "replay/",
    "systems/__init__.py",
    "systems/base.py",
    "systems/beta.py",
    "systems/gamma.py",
    "systems/mix.py",
    "systems/navigator.py",
    "systems/numpy_play.py",
    "systems/pathing.py",
    "systems/percept.py",
    "systems/random.py",
    "systems/scripted.py",
    "systems/tactics.py",
    # The learned entrant's NumPy forward pass (no JAX on import) and what its package needs.
    "learn/__init__.py",
    "learn/actor_view.py",
    "learn/config.py",
    "learn/config_checks.py",
    "learn/config_files.py",
    "learn/curriculum.py",
    "learn/logits.py",
    "learn/npz_policy.py",
    "learn/registry.py",
    "learn/unit_net.py",
    "systems/registry.py",
)


def entrants(root: Path = ROOT) -> tuple[str, ...]:
    """The learned entrants the browser can play: `ENTRANTS` of the checkout's
    marl_bgs/battle_games.py (its one list; read from the file, since `root` may be another
    checkout than the one imported). Each seasons/entrants/NAME/policy.npz is carried as
    marl_bgs/_entrants/NAME.npz, where battle_games.py finds it."""
    path = root / "marl_bgs" / "battle_games.py"
    for node in ast.parse(path.read_text()).body:
        names = [getattr(t, "id", None) for t in getattr(node, "targets", [])]
        if isinstance(node, ast.Assign) and names == ["ENTRANTS"]:
            return tuple(ast.literal_eval(node.value))
    raise ValueError(f"engine wheel: {path} has no ENTRANTS = (...) line")


DATE = (1980, 1, 1, 0, 0, 0)


def version(root: Path = ROOT) -> str:
    """The package version, read from pyproject.toml (the one place it is written)."""
    text = (root / "pyproject.toml").read_text()
    found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if found is None:
        raise ValueError('pyproject.toml: no `version = "..."` line in [project]')
    return found.group(1)


def wheel_name(root: Path = ROOT) -> str:
    return f"{DIST}-{version(root)}-py3-none-any.whl"


def contents(root: Path = ROOT) -> dict[str, bytes]:
    """Archive path -> bytes, for the modules and map files (not yet the dist-info)."""
    out: dict[str, bytes] = {}
    pkg = root / "marl_bgs"
    for entry in MODULES:
        paths = sorted((pkg / entry).glob("*.py")) if entry.endswith("/") else [pkg / entry]
        for path in paths:
            if not path.is_file():
                raise FileNotFoundError(f"engine wheel: {path} is missing")
            out[f"marl_bgs/{path.relative_to(pkg).as_posix()}"] = path.read_bytes()
    maps = sorted((root / "maps").glob("*.json"))
    if not maps:
        raise FileNotFoundError(f"engine wheel: no map files in {root / 'maps'}")
    for path in maps:
        out[f"marl_bgs/_map_files/{path.name}"] = path.read_bytes()
    for name in entrants(root):
        path = root / "seasons" / "entrants" / name / "policy.npz"
        if not path.is_file():
            raise FileNotFoundError(f"engine wheel: {path} is missing")
        out[f"marl_bgs/_entrants/{name}.npz"] = path.read_bytes()
    return out


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def wheel_bytes(root: Path = ROOT) -> dict[str, bytes]:
    """Every archive entry, the dist-info included, in the order they are written."""
    ver = version(root)
    info = f"{DIST}-{ver}.dist-info"
    files = contents(root)
    files[f"{info}/METADATA"] = (
        "Metadata-Version: 2.1\n"
        f"Name: marl-bgs-engine\nVersion: {ver}\n"
        "Summary: MARL-BattleGrounds' NumPy engine alone, for Pyodide in the browser\n"
        "Requires-Python: >=3.11\nRequires-Dist: numpy>=1.26\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: marl-bgs scripts/engine_wheel.py\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{info}/top_level.txt"] = b"marl_bgs\n"
    record = "".join(f"{p},{_record_hash(b)},{len(b)}\n" for p, b in files.items())
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    return files


def build_wheel(out_dir: Path, root: Path = ROOT) -> Path:
    """Write the wheel into `out_dir` (only when its bytes changed); returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / wheel_name(root)
    data = wheel_bytes(root)
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for name, blob in data.items():
            zi = zipfile.ZipInfo(name, DATE)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            zi.create_system = 3  # Unix, whatever machine builds it
            zf.writestr(zi, blob, compresslevel=9)
    fresh = tmp.read_bytes()
    if path.is_file() and path.read_bytes() == fresh:
        tmp.unlink()
    else:
        tmp.replace(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "exports" / "browser")
    args = parser.parse_args(argv)
    # This script imports nothing of marl_bgs (it may build another checkout's wheel), so
    # it checks its folder itself rather than through marl_bgs.outputs.check_folder.
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out: {args.out} is a file, not a folder")
    path = build_wheel(args.out)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
