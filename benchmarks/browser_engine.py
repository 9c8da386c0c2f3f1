"""The NumPy engine in CPython and in Pyodide (under Node), side by side in one run.

For each (and for headless Chromium when Playwright and /usr/bin/chromium are there):
ticks per second of one game of random legal actions (wall, and CPU: CPython's
`process_time`; under Node the Node process's `cpuUsage`, since Pyodide's `process_time` is
always 0; none in Chromium), and the scripted opponents' time per decision. For
Pyodide also the load time (Pyodide, NumPy and the engine wheel, from local files) and the
bytes a page downloads (every file of exports/browser/, raw and gzipped). Needs node and
scripts/export_pyodide.py's files.

    python benchmarks/browser_engine.py --out benchmarks/results/browser_engine.json
    python benchmarks/browser_engine.py --full-fingerprint   # all 50 golden games in Pyodide
    python benchmarks/browser_engine.py --no-chromium        # CPython and Node only
    python benchmarks/browser_engine.py --no-chromium --browser /tmp/other/browser

`--browser` takes another folder laid out as exports/browser/ (say, the same Pyodide with
the engine wheel of another checkout, from scripts/engine_wheel.py and a manifest naming
it), so that two engines can be timed in Node one after the other.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import browser_chromium
import browser_loop
from report import run_facts, write_report

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BROWSER = ROOT / "exports" / "browser"
RUNNER = ROOT / "web_demo" / "engine" / "tests" / "node_run.mjs"
SYSTEMS = ["tdm-alpha", "tdm-beta", "tdm-gamma"]


def in_node(snippet: str, files: list[Path]) -> tuple[dict, float]:
    """Run a Python snippet in Pyodide under Node; its JSON answer and the load time (s)."""
    node = shutil.which("node")
    if node is None or not (BROWSER / "manifest.json").is_file():
        sys.exit("needs node and exports/browser/ (run scripts/export_pyodide.py)")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snippet.py"
        path.write_text(snippet)
        done = subprocess.run([node, str(RUNNER), str(BROWSER), str(path), *map(str, files)],
                              capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"node failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return json.loads(out["answer"]), out["load_ms"] / 1000


def side_by_side(
    script: Path, doc: str, measure: Callable[[int, int], dict], ticks_default: int
) -> tuple[argparse.Namespace, dict]:
    """A benchmark `script`'s arguments (--ticks, --seed, --no-node, --out), and its
    `measure(ticks, seed)` run in this CPython and, in the same run unless --no-node, in
    Pyodide under Node (the script's own `measure`, by module name): (arguments, columns)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=ticks_default)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-node", action="store_true", help="CPython only")
    parser.add_argument("--out", type=Path, default=HERE / "results" / f"{script.stem}.json")
    args = parser.parse_args()
    columns = {"CPython": measure(args.ticks, args.seed)}
    if not args.no_node:
        snippet = (
            f"import json, {script.stem} as m\njson.dumps(m.measure({args.ticks}, {args.seed}))"
        )
        columns["Pyodide/Node"], _ = in_node(snippet, [script])
    return args, columns


def downloads() -> dict:
    """What a page fetches to start the engine: every file in the manifest, raw and gzipped."""
    manifest = json.loads((BROWSER / "manifest.json").read_text())
    raw = sum(v["bytes"] for v in manifest["files"].values())
    zipped = sum(len(gzip.compress((BROWSER / n).read_bytes(), 6)) for n in manifest["files"])
    return {"files": len(manifest["files"]), "bytes": raw, "gzip_bytes": zipped}


def full_fingerprint() -> dict:
    golden = json.loads((HERE / "golden_fingerprint.json").read_text())
    snippet = (f"import fingerprint, json, time\nt = time.perf_counter()\n"
               f"_, h = fingerprint.play_numpy({golden['games']}, {golden['ticks']}, {golden['seed']})\n"
               "json.dumps({'hash': h, 'seconds': time.perf_counter() - t})")  # fmt: skip
    got, _ = in_node(snippet, [HERE / "fingerprint.py"])
    ok = got["hash"] == golden["numpy_engine"]
    print(f"Pyodide full fingerprint ({golden['games']} games) in {got['seconds']:.0f} s: "
          f"{'matches' if ok else 'DIFFERS from'} golden numpy_engine")  # fmt: skip
    return {"matches": ok, **got}


def main() -> None:
    global BROWSER
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=600)
    parser.add_argument("--decision-ticks", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--full-fingerprint", action="store_true")
    parser.add_argument("--no-chromium", action="store_true")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "browser_engine.json")
    parser.add_argument("--browser", type=Path, default=None,
                        help="a folder laid out as exports/browser/ (the default)")  # fmt: skip
    args = parser.parse_args()
    if args.browser is not None:
        BROWSER = args.browser.resolve()
    begin = time.perf_counter()
    cpython = browser_loop.run(args.ticks, args.decision_ticks, args.seed, SYSTEMS)
    snippet = ("import browser_loop, json\njson.dumps(browser_loop.run("
               f"{args.ticks}, {args.decision_ticks}, {args.seed}, {SYSTEMS!r}))")  # fmt: skip
    pyodide, load_s = in_node(snippet, [HERE / "browser_loop.py"])
    dl = downloads()
    chromium = None
    if not args.no_chromium and browser_chromium.available():
        chromium = browser_chromium.run(args.ticks, args.decision_ticks, args.seed, SYSTEMS)
    columns = [("CPython", cpython, None), ("Pyodide/Node", pyodide, load_s)]
    if chromium is not None:
        columns.append(("Pyodide/Chromium", chromium["loop"], chromium["load_s"]))
    table = [("engine ticks/s (wall)", [c["engine"]["ticks_per_s"] for _, c, _ in columns]),
             ("engine ticks/s (CPU)", [c["engine"]["ticks_per_cpu_s"] for _, c, _ in columns])]  # fmt: skip
    for i, name in enumerate(SYSTEMS):
        for key, label in (("median_ms", "median"), ("p95_ms", "p95"),
                           ("cpu_median_ms", "CPU median")):  # fmt: skip
            table.append((f"{name} ms/decision ({label})",
                          [c["decisions"][i].get(key) for _, c, _ in columns]))  # fmt: skip
    table.append(("load s (Pyodide + NumPy + wheel)", [ls for _, _, ls in columns]))
    print(f"{'':34}" + "".join(f"{name:>18}" for name, _, _ in columns))
    for label, values in table:
        cells = "".join(f"{'-' if v is None else f'{v:.1f}':>18}" for v in values)
        print(f"{label:34}{cells}")
    if chromium is not None and chromium["outside"]:
        print(f"WARNING: Chromium requested outside 127.0.0.1: {chromium['outside']}")
    print(f"bytes a page downloads: {dl['bytes']:,} in {dl['files']} files "
          f"({dl['gzip_bytes']:,} gzipped)")  # fmt: skip
    result = {"benchmark": "browser_engine", **run_facts(), "node": _node_version(),
              "pyodide": json.loads((BROWSER / "manifest.json").read_text())["pyodide"],
              "ticks": args.ticks, "decision_ticks": args.decision_ticks, "seed": args.seed,
              "cpython": cpython, "pyodide_node": pyodide, "load_s": load_s, "download": dl,
              "pyodide_chromium": chromium,
              "python": platform.python_version()}  # fmt: skip
    if args.full_fingerprint:
        result["full_fingerprint"] = full_fingerprint()
    result["seconds"] = time.perf_counter() - begin
    write_report(args.out, result)


def _node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
