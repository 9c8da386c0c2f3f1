"""Check every stored line of every scenario for key actions, on the JAX engine.

For each line, every one-agent variant (`marl_bgs.scenarios.verify.variant_lines`: one
living agent's move, or its (target, Ultimate) pair, changed to another legal one at one
tick) is played against the live controller; a *key action* is a (tick, agent, head) whose
every variant fails to win within the line's length. The tests replay a sample of lines;
this script covers all of them (minutes) and writes `exports/scenarios/verification.json`
with the sha256 of each scenario file it read, so a test can tell when it is stale.

    python scripts/verify_scenarios.py          # write the file
    python scripts/verify_scenarios.py --check  # fail if it is missing or stale
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from marl_bgs.scenarios import SCENARIOS
from marl_bgs.scenarios.records import DATA, Scenario
from marl_bgs.scenarios.verify import HEADS, JaxLines, variant_lines

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "exports" / "scenarios" / "verification.json"


def file_hash(scenario: Scenario) -> str:
    return hashlib.sha256((DATA / f"scenario_{scenario.id}.json").read_bytes()).hexdigest()


def line_entries(scenario: Scenario, jax_lines: JaxLines) -> list[dict]:
    """One entry per stored line: its variants, how many fail, and its key actions. Lines
    of one length are played together (a variant is judged at its own line's length)."""
    entries: list[dict | None] = [None] * len(scenario.lines)
    for length in sorted({len(line) for line in scenario.lines}):
        rows = [i for i, line in enumerate(scenario.lines) if len(line) == length]
        parts = [variant_lines(scenario, scenario.lines[i]) for i in rows]
        lines = np.concatenate([p[0] for p in parts])
        results = np.asarray(jax_lines.results(lines), dtype=object)
        start = 0
        for i, (_, where) in zip(rows, parts, strict=True):
            won = results[start : start + len(where)] == "a"
            start += len(where)
            keys = sorted(
                {tuple(w) for w in where.tolist()} - {tuple(w) for w in where[won].tolist()}
            )
            entries[i] = {
                "ticks": length,
                "variants": len(where),
                "failing": int((~won).sum()),
                "key_actions": [{"tick": t, "agent": k, "head": HEADS[h]} for t, k, h in keys],
            }
    return entries  # type: ignore[return-value]


def build(progress: bool = True) -> dict:
    out = {"scenario_sha256": {}, "scenarios": []}
    for s in SCENARIOS:
        began = time.perf_counter()
        lines = line_entries(s, JaxLines(s))
        out["scenario_sha256"][str(s.id)] = file_hash(s)
        out["scenarios"].append({
            "id": s.id,
            "lines": len(lines),
            "lines_with_key_action": sum(bool(e["key_actions"]) for e in lines),
            "variants": sum(e["variants"] for e in lines),
            "failing_variants": sum(e["failing"] for e in lines),
            "per_line": lines,
        })  # fmt: skip
        if progress:
            e = out["scenarios"][-1]
            print(f"scenario {s.id}: {e['lines_with_key_action']}/{e['lines']} lines with a key "
                  f"action, {e['failing_variants']}/{e['variants']} variants fail "
                  f"({time.perf_counter() - began:.0f} s)", flush=True)  # fmt: skip
    return out


def stale() -> str | None:
    """Why the stored file does not describe the scenario files, if it does not."""
    if not OUT.is_file():
        return f"{OUT.relative_to(ROOT)} is missing (run scripts/verify_scenarios.py)"
    stored = json.loads(OUT.read_text())
    for s in SCENARIOS:
        if stored["scenario_sha256"].get(str(s.id)) != file_hash(s):
            return f"verification.json: scenario {s.id}'s file changed since it was checked"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args(argv)
    if args.check:
        reason = stale()
        if reason:
            print(f"stale: {reason}")
        return 1 if reason else 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
