"""Reading and checking `exports/scenarios/`, the files `scripts/export_scenarios.py` writes.

The writer lives in that script (with `records.py`, `verify.py` and `play.py` beside this
module); the reader lives here, next to it, so the two agree on one format and the site
(`marl_bgs/site/scenarios_page.py`) only lays out what this module returns:

- `index.json`: `{"scenarios": [...]}`, one entry per exported scenario (`entries`);
- `scenario_<id>/position.json` and its two replays, `line.json` and `variant.json`
  (`position`, `replay`);
- `results.json` (optional): every System's results as Team A (`results`), with the sha256
  of each scenario file it was played on (`fresh_results`).

Every field the pages print is checked to be of the type they print it as; errors name the
file and the field, and a missing file names the script that writes it. Strings are checked
to be strings only: the pages escape them where they place them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core import checks, classes
from ..core.state import TEAM_SIZE
from ..replay import Replay, load_replay

SCENARIO_DIR = "exports/scenarios"
EXPORT = "scripts/export_scenarios.py"


def read(root: Path, rel: str) -> Any:
    """The JSON file `rel` (under the checkout `root`), or an error naming its writer."""
    path = root / rel
    if not path.is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {EXPORT}` to write it")
    return json.loads(path.read_text(encoding="utf-8"))


def scenario_id(raw: Any, where: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= 8:
        raise ValueError(f"{where}: expected a scenario id 1..8, got {raw!r}")
    return raw


def _whole(raw: Any, where: str, lo: int = 0, hi: int | None = None) -> int:
    """A count or index the pages print: the project's checker, with 0 as the floor."""
    return checks.whole(raw, where, lo, hi)


def class_index(name: Any) -> int:
    """A class named in the index (its `living` teams), as its index in the class table."""
    if name not in classes.CLASS_INDEX:
        raise ValueError(f"{SCENARIO_DIR}/index.json: unknown class {name!r}")
    return classes.CLASS_INDEX[name]


def _action(raw: Any, where: str) -> None:
    """[move, target, ultimate] as the line format holds it."""
    if len(checks.sequence(raw, where)) != 3:
        raise ValueError(f"{where}: expected [move, target, ultimate]")
    for h, (v, hi) in enumerate(zip(raw, (8, 10, 1), strict=True)):
        _whole(v, f"{where}[{h}]", 0, hi)


def check_entry(e: Any, where: str) -> dict:
    """One index entry: every field the pages print is of the type they print it as (the
    strings are escaped where they are used)."""
    if not isinstance(e, dict):
        raise ValueError(f"{where}: expected an object")
    scenario_id(e.get("id"), f"{where}.id")
    for key in ("name", "controller", "briefing"):
        if not isinstance(e.get(key), str):
            raise ValueError(f"{where}.{key}: expected a string")
    for k, skill in enumerate(checks.sequence(e.get("skills"), f"{where}.skills")):
        if not isinstance(skill, str):
            raise ValueError(f"{where}.skills[{k}]: expected a string")
    _whole(e.get("ticks_left"), f"{where}.ticks_left", 1)
    _whole(e.get("lines"), f"{where}.lines", 1)
    if len(checks.sequence(e.get("score"), f"{where}.score")) != 2:
        raise ValueError(f"{where}.score: expected two numbers")
    for k, v in enumerate(e["score"]):
        _whole(v, f"{where}.score[{k}]")
    for k, v in enumerate(checks.sequence(e.get("line_lengths"), f"{where}.line_lengths")):
        _whole(v, f"{where}.line_lengths[{k}]", 1)
    living = checks.sequence(e.get("living"), f"{where}.living")
    if len(living) != 2:
        raise ValueError(f"{where}.living: expected two teams")
    for team in living:
        for name in checks.sequence(team, f"{where}.living[]"):
            class_index(name)
    for t, tick in enumerate(checks.sequence(e.get("shown_line"), f"{where}.shown_line")):
        for k, act in enumerate(checks.sequence(tick, f"{where}.shown_line[{t}]")):
            _action(act, f"{where}.shown_line[{t}][{k}]")
    _check_variant(e.get("variant"), f"{where}.variant")
    _check_search(e.get("search"), f"{where}.search")
    return e


def _check_variant(v: Any, where: str) -> None:
    if not isinstance(v, dict):
        raise ValueError(f"{where}: expected an object")
    _whole(v.get("tick"), f"{where}.tick")
    _whole(v.get("agent"), f"{where}.agent", 0, TEAM_SIZE - 1)
    _whole(v.get("alternatives"), f"{where}.alternatives", 1)
    if v.get("head") not in ("move", "combat"):
        raise ValueError(f"{where}.head: expected 'move' or 'combat'")
    if v.get("variant_result") not in ("b", "draw", None):
        raise ValueError(f"{where}.variant_result: expected 'b', 'draw' or null")
    for key in ("line_action", "variant_action"):
        _action(v.get(key), f"{where}.{key}")


def _check_search(search: Any, where: str) -> None:
    if not isinstance(search, dict):
        raise ValueError(f"{where}: expected an object")
    for key in ("depth", "exhaustive_depth", "samples", "sample_seed"):
        _whole(search.get(key), f"{where}.{key}")
    for key in ("sequences", "nodes"):
        for k, n in enumerate(checks.sequence(search.get(key), f"{where}.{key}")):
            _whole(n, f"{where}.{key}[{k}]")
    for key in ("wins_by_length", "sampled_wins_by_length"):
        wins = search.get(key)
        if not isinstance(wins, dict):
            raise ValueError(f"{where}.{key}: expected an object")
        for length, n in wins.items():
            if not length.isdigit():
                raise ValueError(f"{where}.{key}.{length}: expected a line length")
            _whole(n, f"{where}.{key}.{length}")


def entries(root: Path) -> list[dict]:
    """The scenarios of exports/scenarios/index.json, by id; [] before the first export."""
    path = root / SCENARIO_DIR / "index.json"
    if not path.is_file():
        return []
    doc = read(root, f"{SCENARIO_DIR}/index.json")
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        raise ValueError(f"{SCENARIO_DIR}/index.json: expected {{'scenarios': [...]}}")
    out = []
    for k, e in enumerate(doc["scenarios"]):
        out.append(check_entry(e, f"{SCENARIO_DIR}/index.json: scenarios[{k}]"))
    ids = [e["id"] for e in out]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{SCENARIO_DIR}/index.json: a scenario id is listed twice")
    return sorted(out, key=lambda e: e["id"])


def results(root: Path) -> dict | None:
    """exports/scenarios/results.json, or None when it has not been written."""
    rel = f"{SCENARIO_DIR}/results.json"
    if not (root / rel).is_file():
        return None
    doc = read(root, rel)
    if not isinstance(doc, dict) or not isinstance(doc.get("systems"), dict):
        raise ValueError(f"{rel}: expected an object with 'systems'")
    for key in ("games_per_scenario", "root_seed"):
        _whole(doc.get(key), f"{rel}.{key}")
    for system, rows in doc["systems"].items():
        if not isinstance(rows, list):
            raise ValueError(f"{rel}.systems.{system}: expected a list of rows")
        for k, row in enumerate(rows):
            where = f"{rel}.systems.{system}[{k}]"
            if not isinstance(row, dict):
                raise ValueError(f"{where}: expected an object")
            scenario_id(row.get("scenario"), f"{where}.scenario")
            for key in ("games", "wins", "draws", "losses"):
                _whole(row.get(key), f"{where}.{key}")
            if row.get("reference_wins") is not None:
                _whole(row["reference_wins"], f"{where}.reference_wins")
            p = row.get("fisher_p")
            if p is not None and (isinstance(p, bool) or not isinstance(p, int | float)):
                raise ValueError(f"{where}.fisher_p: expected a number or null")
    return doc


def fresh_results(entry: dict, res: dict) -> bool:
    """Whether results.json was played on this scenario's current file."""
    played = res.get("scenario_sha256", {})
    return isinstance(played, dict) and played.get(str(entry["id"])) == entry.get("file_sha256")


def position(root: Path, sid: int) -> dict:
    """The start position of scenario `sid` (scenario_<id>/position.json)."""
    return read(root, f"{SCENARIO_DIR}/scenario_{sid}/position.json")


def replay(root: Path, sid: int, name: str) -> Replay:
    """One of scenario `sid`'s replays (`line.json` or `variant.json`)."""
    rel = f"{SCENARIO_DIR}/scenario_{sid}/{name}"
    if not (root / rel).is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {EXPORT}` to write it")
    return load_replay(root / rel)
