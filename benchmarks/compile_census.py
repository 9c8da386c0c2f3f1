"""Where the test suite's compile time goes: a pytest plugin that logs every JAX compile
event with the test that caused it, and a report of the log.

A cold run of the suite (an empty compile cache) spends most of its time compiling; the
per-test durations pytest prints do not say which part. Run the suite with the plugin,
then the report:

    PYTHONPATH=benchmarks .venv/bin/python -m pytest -p compile_census
    .venv/bin/python benchmarks/compile_census.py

The plugin appends one JSON line per event to `<folder>/census-<xdist worker>.jsonl`
(folder: `MARL_BGS_CENSUS_DIR`, default benchmarks/results/compile_census): JAX's trace,
lowering and XLA-compile durations with the jitted function's name, and each persistent
cache hit. The report sums them per test file and per function, lists the large programs
compiled more than once by one test (an in-process compile JAX could have reused), and
writes the totals as JSON. Programs compiled in subprocesses (the 4-device and
two-process tests, the tutorials' kernels) are not seen.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter, defaultdict
from pathlib import Path

TRACE = "/jax/core/compile/jaxpr_trace_duration"
LOWER = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE = "/jax/core/compile/backend_compile_duration"
CACHE_HIT = "/jax/compilation_cache/cache_hits"
CACHE_ASKED = "/jax/compilation_cache/compile_requests_use_cache"
DEFAULT_DIR = Path("benchmarks/results/compile_census")
KINDS = ("trace", "lower", "compile", "cache_hit")


# ---- the plugin -------------------------------------------------------------------------------
_current = ["<collection>"]
_log: list = []  # the open log file, once the first event comes


def _write(record: dict) -> None:
    if not _log:
        folder = Path(os.environ.get("MARL_BGS_CENSUS_DIR", DEFAULT_DIR))
        folder.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _log.append(open(folder / f"census-{worker}.jsonl", "a", buffering=1))  # noqa: SIM115
    _log[0].write(json.dumps(record) + "\n")


def _on_duration(event: str, seconds: float, **kw) -> None:
    if event in (TRACE, LOWER, COMPILE):
        _write({"t": time.time(), "test": _current[0], "event": event, "s": seconds,
                "fun": kw.get("fun_name")})  # fmt: skip


def _on_event(event: str, **kw) -> None:
    if event in (CACHE_HIT, CACHE_ASKED):
        _write({"t": time.time(), "test": _current[0], "event": event})


def pytest_configure(config) -> None:
    try:
        from jax import monitoring
    except ImportError:  # nothing compiles without JAX
        return
    monitoring.register_event_duration_secs_listener(_on_duration)
    monitoring.register_event_listener(_on_event)


def pytest_runtest_logstart(nodeid: str, location) -> None:
    _current[0] = nodeid


# ---- the report -------------------------------------------------------------------------------
def read_events(folder: Path) -> list[dict]:
    """Every logged event, each worker's in order of time, tagged with its worker."""
    events = []
    for path in sorted(folder.glob("census-*.jsonl")):
        worker = path.stem.removeprefix("census-")
        with path.open() as lines:
            for number, line in enumerate(lines, 1):
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    raise ValueError(f"{path}:{number}: not a JSON line") from None
                events.append({**record, "worker": worker})
    events.sort(key=lambda r: (r["worker"], r["t"]))
    return events


def tally(events: list[dict]) -> tuple[dict, dict, list]:
    """Seconds and counts per test file and per function; a compile that followed a cache
    hit (the cache's read, not XLA) counts as `cache_hit`. Also the large programs (over
    5 s) one test compiled more than once."""
    files: dict = defaultdict(Counter)
    functions: dict = defaultdict(Counter)
    big: dict = defaultdict(list)
    hit = {}
    for r in events:
        if r["event"] in (CACHE_HIT, CACHE_ASKED):
            hit[r["worker"]] = r["event"] == CACHE_HIT
            continue
        if r["event"] not in (TRACE, LOWER, COMPILE):
            continue
        kind = {TRACE: "trace", LOWER: "lower"}.get(r["event"])
        if kind is None:
            kind = "cache_hit" if hit.pop(r["worker"], False) else "compile"
            if kind == "compile" and r["s"] > 5:
                big[(r["test"], r["fun"])].append(r["s"])
        where = r["test"].split("::")[0]
        for table, key in ((files, where), (functions, r["fun"] or "?")):
            table[key][kind] += r["s"]
            table[key][kind + "_n"] += 1
    repeats = [
        {"test": test, "function": fun, "compiles": len(s), "seconds": round(sum(s), 1)}
        for (test, fun), s in big.items()
        if len(s) > 1
    ]
    return files, functions, sorted(repeats, key=lambda r: -r["seconds"])


def _table(title: str, rows: dict, top: int) -> list[str]:
    def total(c: Counter) -> float:
        return sum(c[k] for k in KINDS)

    out = [f"{title:58s} {'trace':>7s} {'lower':>7s} {'compile':>8s} {'(n)':>6s} {'hits':>6s}"]
    for name, c in sorted(rows.items(), key=lambda kv: -total(kv[1]))[:top]:
        out.append(f"{name[:58]:58s} {c['trace']:7.1f} {c['lower']:7.1f} {c['compile']:8.1f} "
                   f"{c['compile_n']:6d} {c['cache_hit']:6.1f}")  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="?", default=DEFAULT_DIR)
    parser.add_argument("--top", type=int, default=25, help="rows per table")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/compile_census.json"))
    args = parser.parse_args()
    if not sorted(args.folder.glob("census-*.jsonl")):
        parser.error(f"folder: no census-*.jsonl in {args.folder} (run pytest -p compile_census)")
    files, functions, repeats = tally(read_events(args.folder))
    sums = Counter()
    for c in files.values():
        sums.update(c)
    print(f"all: trace {sums['trace']:.0f} s, lowering {sums['lower']:.0f} s, XLA "
          f"{sums['compile']:.0f} s in {sums['compile_n']} compiles, cache reads "
          f"{sums['cache_hit']:.0f} s in {sums['cache_hit_n']}")  # fmt: skip
    print("\n".join(["", *_table("test file", files, args.top)]))
    print("\n".join(["", *_table("jitted function", functions, args.top)]))
    print("\nlarge programs one test compiled more than once:")
    for r in repeats:
        print(f"  {r['compiles']}x {r['function']} {r['seconds']:.0f} s  {r['test']}")
    from report import write_report

    seconds = {k: round(sums[k], 1) for k in KINDS}
    counts = {k: sums[k + "_n"] for k in KINDS}
    by_file = {f: {k: round(c[k], 1) for k in KINDS} for f, c in sorted(files.items())}
    write_report(args.out, {"benchmark": "compile_census", "seconds": seconds,
                            "counts": counts, "files": by_file, "repeats": repeats})  # fmt: skip


if __name__ == "__main__":
    main()
