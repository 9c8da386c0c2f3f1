"""Find a scenario's winning lines with the solver and write them into its file.

The position, name, briefing, skills and controller are authored; the lines and the
`search` record are the solver's (`marl_bgs.scenarios.search.solve`): every legal joint
action of Team A while a level fits `--max-children`, then `--samples` random legal
sequences. Each line found is replayed on the NumPy engine before it is written; a line
that does not win there stops the script (the engines must agree).

    python scripts/solve_scenarios.py 2                  # re-solve scenario 2 in place
    python scripts/solve_scenarios.py --draft draft.json  # a new scenario from a draft
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from marl_bgs.core.checks import strict_json
from marl_bgs.scenarios.records import DATA, read_scenario
from marl_bgs.scenarios.search import solve
from marl_bgs.scenarios.verify import from_flat, numpy_result


def write(doc: dict, path: Path) -> None:
    """One line per winning line, so that a diff shows which lines changed."""
    lines = doc.pop("lines")
    text = json.dumps(doc, indent=2)
    body = ",\n".join("    " + json.dumps(line, separators=(",", ":")) for line in lines)
    text = text[:-2] + ',\n  "lines": [\n' + body + "\n  ]\n}\n"
    read_scenario(json.loads(text), path.name)  # never write a file the reader refuses
    path.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "id", nargs="?", type=int, help="re-solve marl_bgs/scenarios/data/scenario_<id>.json"
    )
    parser.add_argument("--draft", help="a scenario document without lines and search")
    parser.add_argument("--max-children", type=int, default=60_000)
    parser.add_argument("--samples", type=int, default=16_384)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=int, default=64, help="lines written at most")
    parser.add_argument(
        "--force", action="store_true", help="let a --draft replace the scenario of its id"
    )
    args = parser.parse_args()
    if (args.id is None) == (args.draft is None):
        parser.error("give a scenario id or --draft")
    for flag, value, least in (("--max-children", args.max_children, 0),
                               ("--samples", args.samples, 0), ("--keep", args.keep, 1)):  # fmt: skip
        if value < least:
            parser.error(f"{flag}: expected at least {least}, got {value}")
    source = Path(args.draft) if args.draft else DATA / f"scenario_{args.id}.json"
    if not source.is_file():
        parser.error(f"{'--draft' if args.draft else 'id'}: no file at {source}")
    try:
        doc = strict_json(source.read_bytes(), source.name)
    except ValueError as err:
        parser.error(str(err))
    missing = [
        k for k in ("id", "position", "controller") if not isinstance(doc, dict) or k not in doc
    ]
    if missing:
        parser.error(f"{source.name}: not a scenario document (no {', '.join(missing)})")
    position, controller = doc["position"], doc["controller"]
    if args.draft and (DATA / f"scenario_{doc['id']}.json").exists() and not args.force:
        parser.error(f"--draft: scenario {doc['id']} exists; pass --force to replace it")
    depth = int(position["horizon"]) - int(position["tick"])
    began = time.perf_counter()
    report = solve(position, controller, depth, max_children=args.max_children,
                   samples=args.samples, seed=args.seed, keep=args.keep)  # fmt: skip
    agents = len(position["teams"][0]["agents"])
    lines = [from_flat(np.asarray(flat), agents) for flat in report.lines]
    if not lines:
        print(f"no winning line found: {report.as_dict(depth, args.seed)}")
        return 1
    doc["lines"] = lines
    doc["search"] = report.as_dict(depth, args.seed)
    draft = read_scenario(dict(doc, format="marl-bgs/scenario", version=1), source.name)
    for i, line in enumerate(lines):
        if numpy_result(draft, line) != "a":
            print(f"line {i} wins on JAX but not on NumPy: {line}")
            return 1
    out = DATA / f"scenario_{draft.id}.json"
    write(doc, out)
    print(f"wrote {out}: {len(lines)} lines, lengths {sorted({len(x) for x in lines})}, "
          f"search {doc['search']}, {time.perf_counter() - began:.0f} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
