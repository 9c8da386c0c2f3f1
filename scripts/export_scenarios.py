"""Write exports/scenarios/: what the Scenarios pages show, from the scenario files.

Per scenario (`scenario_<id>/`): a replay of its first winning line and one of the failing
one-agent variant at its first key action, both played on the NumPy engine against the
controller's own decision code; `index.json` describes every scenario (briefing, skills,
start, lines and their lengths, key actions, the variant, the solver's coverage).

The results table (every System as Team A, 256 games per scenario, on the JAX engine:
`results.json` with its provenance, `results_games.csv` with every game) is slower (minutes,
mostly compiling) and is written only with `--results`; it records the sha256 of each
scenario file it played, so a check can tell when it has gone stale.

    python scripts/export_scenarios.py            # index and replays
    python scripts/export_scenarios.py --results  # also the results table
    # players already published with the same inputs are read back, not played; the rest
    # over two processes, then assembled:
    python scripts/export_scenarios.py --results --parts P --shard 0/2 &
    python scripts/export_scenarios.py --results --parts P --shard 1/2
    python scripts/export_scenarios.py --results --parts P
    python scripts/export_scenarios.py --check    # fail if a file differs or is stale
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from marl_bgs import Game
from marl_bgs.replay import load_replay, record_game
from marl_bgs.scenarios import SCENARIOS
from marl_bgs.scenarios.play_lines import Table
from marl_bgs.scenarios.records import DATA, Scenario
from marl_bgs.scenarios.verify import HEADS, from_flat, numpy_result, to_flat, variant_lines
from marl_bgs.tournament.script_options import shard_argument

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "exports" / "scenarios"
RESULT_SYSTEMS = ("random", "tdm-alpha", "tdm-beta", "tdm-gamma")
# Season 0's learned challengers also play Team A, by their entrant name, acting as in the
# season (policy learners sample, Q-learners play their best legal action); the list is read
# from the season file, not repeated here.
SEASON_FILE = ROOT / "seasons" / "season0.json"
RESULT_GAMES, RESULT_SEED = 256, 20261203
# Written by --results and by scripts/verify_scenarios.py, never removed as strays here.
OWN_ELSEWHERE = ("results.json", "verification.json")
LABELS = {"tdm-alpha": "TDM-Alpha", "tdm-beta": "TDM-Beta", "tdm-gamma": "TDM-Gamma"}


def file_hash(scenario: Scenario) -> str:
    return hashlib.sha256((DATA / f"scenario_{scenario.id}.json").read_bytes()).hexdigest()


def learned_entrants() -> dict[str, Path]:
    """Season 0's learned challengers: entrant name -> its policy `.npz`."""
    spec = json.loads(SEASON_FILE.read_text())
    return {
        e["name"]: SEASON_FILE.parent / e["load"]["weights"]
        for e in spec.get("challengers", []) + spec.get("entrants", [])
        if e.get("type") == "learned"
    }


def weights_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def plays(path: Path) -> str:
    """How the policy in `path` picks actions when not asked to be greedy, for the table's
    readers (a Q-network has no distribution to sample)."""
    from marl_bgs.learn.npz_policy import NumpyPolicy

    return "argmax_q" if NumpyPolicy.load(path).q_values else "samples"


def line_replay(scenario: Scenario, flat: np.ndarray, title: str):
    """A line (flat actions per tick) against the controller, recorded as a replay."""
    table = Table.start(scenario.position, scenario.controller)
    game: Game = table.game
    sizes = game.sizes
    ticks = iter(range(len(flat)))

    def choose(g: Game) -> list:
        t = next(ticks, None)
        own = flat[t] if t is not None else np.zeros(5, np.int32)
        replies = table.replies()
        table.memory = table._next_memory
        slots = g.slots_from_flat(own, replies)
        return [[tuple(int(v) for v in slots[k]) for k in range(sizes[0])],
                [tuple(int(v) for v in slots[5 + k]) for k in range(sizes[1])]]  # fmt: skip

    return record_game(
        game, choose, ("line", scenario.controller), None, title=title,
        max_ticks=len(flat),
    )  # fmt: skip


def key_variant(scenario: Scenario) -> dict:
    """The first key action of the first line (by tick, agent, then move before combat)
    whose every alternative fails on the NumPy engine, and the alternative shown: the
    first that loses, else the first that draws."""
    line = scenario.lines[0]
    flat = to_flat(line)
    lines, where = variant_lines(scenario, line)
    agents = len(line[0])
    for t, k, h in dict.fromkeys(map(tuple, where.tolist())):
        rows = np.flatnonzero((where == (t, k, h)).all(axis=1))
        results = []
        for r in rows:
            results.append(numpy_result(scenario, from_flat(lines[r], agents)))
            if results[-1] == "a":
                break
        else:
            pick = next((r for r, res in zip(rows, results, strict=True) if res == "b"), rows[0])
            return {
                "tick": t, "agent": k, "head": HEADS[h], "alternatives": len(rows),
                "line_action": from_flat(flat[t : t + 1], agents)[0][k],
                "variant_action": from_flat(lines[pick][t : t + 1], agents)[0][k],
                "variant_result": results[list(rows).index(pick)],
                "flat": lines[pick],
            }  # fmt: skip
    raise ValueError(f"scenario {scenario.id}: its first line has no key action")


def scenario_entry(scenario: Scenario, variants: dict) -> dict:
    position = scenario.position
    return {
        "id": scenario.id,
        "name": scenario.name,
        "controller": scenario.controller,
        "briefing": scenario.briefing,
        "skills": list(scenario.skills),
        "ticks_left": scenario.ticks_left,
        "score": list(position["score"]),
        "living": [scenario.living(0), scenario.living(1)],
        "lines": len(scenario.lines),
        "line_lengths": sorted({len(line) for line in scenario.lines}),
        "search": scenario.search,
        "shown_line": [list(map(list, tick)) for tick in scenario.lines[0]],
        "variant": {k: v for k, v in variants.items() if k != "flat"},
        "file_sha256": file_hash(scenario),
    }


def replays(scenario: Scenario, variant: dict, versions: dict) -> dict[str, bytes]:
    """The shown line and its failing variant as replay files (bytes, reproducible; with
    the package versions of the stored files when checking, so a newer NumPy alone is not
    stale)."""
    name = f"Scenario {scenario.id}: {scenario.name}"
    made = {
        "line.json": line_replay(scenario, to_flat(scenario.lines[0]), f"{name}, a winning line"),
        "variant.json": line_replay(scenario, np.asarray(variant["flat"]),
                                    f"{name}, one action changed"),
    }  # fmt: skip
    out = {}
    for file, replay in made.items():
        key = f"scenario_{scenario.id}/{file}"
        out[key] = (replay.with_versions(versions[key]) if key in versions else replay).to_bytes()
    return out


def stored_versions() -> dict[str, dict]:
    out = {}
    for path in sorted(OUT.glob("scenario_*/*.json")):
        if path.name == "position.json":
            continue
        try:
            out[f"{path.parent.name}/{path.name}"] = load_replay(path).versions
        except ValueError:
            pass  # unreadable: the byte comparison reports it
    return out


def build(versions: dict | None = None) -> dict[str, bytes]:
    """Every exported file but the results table, by path under exports/scenarios/."""
    files: dict[str, bytes] = {}
    index = []
    for s in SCENARIOS:
        variant = key_variant(s)
        files.update(replays(s, variant, versions or {}))
        files[f"scenario_{s.id}/position.json"] = (json.dumps(s.position, indent=1) + "\n").encode()
        index.append(scenario_entry(s, variant))
    files["index.json"] = (json.dumps({"scenarios": index}, indent=1) + "\n").encode()
    return files


def _players() -> list[tuple[str, object, dict]]:
    """(result key, the System or spec to play, what must match for saved games to be
    reused) for RESULT_SYSTEMS, then Season 0's learned entrants."""
    setting = {"games_per_scenario": RESULT_GAMES, "root_seed": RESULT_SEED, "batch_size": 128,
               "scenario_sha256": {str(s.id): file_hash(s) for s in SCENARIOS}}  # fmt: skip
    players = [(name, name, {**setting, "system": name}) for name in RESULT_SYSTEMS]
    for name, path in learned_entrants().items():
        learned = {"weights": str(path.relative_to(ROOT)), "weights_sha256": weights_hash(path),
                   "greedy": False, "plays": plays(path)}  # fmt: skip
        spec = {"weights": str(path), "greedy": False}
        players.append((name, spec, {**setting, "system": name, "learned": learned}))
    return players


def _same_learned(stored: dict | None, learned: dict) -> bool:
    """Whether stored games were played by these weights the same way; "plays" follows from
    the weights (their hash is compared), so a record written before it existed still counts."""
    if not isinstance(stored, dict):
        return False
    drop = {"plays"}
    return {k: v for k, v in stored.items() if k not in drop} == {
        k: v for k, v in learned.items() if k not in drop
    }


def _published():
    """The published results.json (parsed) and results_games.csv (a frame), or None."""
    import pandas as pd

    path, games_path = OUT / "results.json", OUT / "results_games.csv"
    if not (path.is_file() and games_path.is_file()):
        return None
    return json.loads(path.read_text()), pd.read_csv(games_path)


def _stored_player(key: str, identity: dict, published):
    """The published table rows and games of `key` (from `_published()`) when they were
    played with exactly this identity (same scenario files, seed, games and weights), else
    None."""
    if published is None:
        return None
    stored, games = published
    same = all(stored.get(k) == identity[k] for k in
               ("games_per_scenario", "root_seed", "batch_size", "scenario_sha256"))  # fmt: skip
    if not same or key not in stored.get("systems", {}):
        return None
    if "learned" in identity and not _same_learned(stored.get("learned", {}).get(key),
                                                    identity["learned"]):  # fmt: skip
        return None
    games = games[games["system"] == key].reset_index(drop=True)
    if len(games) != RESULT_GAMES * len(SCENARIOS):
        return None
    return stored["systems"][key], games, stored.get("versions")


def _part_paths(parts: Path, key: str) -> tuple[Path, Path]:
    slug = "".join(c if c.isalnum() else "-" for c in key.lower())
    return parts / f"{slug}.json", parts / f"{slug}.csv"


def _part_player(parts: Path | None, key: str, identity: dict):
    """A player's results saved by a --parts run with this very identity, else None."""
    import pandas as pd

    if parts is None:
        return None
    meta_path, games_path = _part_paths(parts, key)
    if not (meta_path.is_file() and games_path.is_file()):
        return None
    meta = json.loads(meta_path.read_text())
    if meta.get("identity") != identity:
        return None
    return meta["table"], pd.read_csv(games_path), meta["versions"]


def _play_player(key: str, system, identity: dict, parts: Path | None):
    from marl_bgs.scenarios import evaluate_scenarios

    result = evaluate_scenarios(system, games=RESULT_GAMES, seed=RESULT_SEED,
                                batch_size=128, reference=key != "random")  # fmt: skip
    table = json.loads(result.table.to_json(orient="records"))
    # The result key, not the System's own name: every weights file is "npz:policy".
    games = result.games.assign(system=key)
    versions = result.meta["versions"]
    if parts is not None:
        parts.mkdir(parents=True, exist_ok=True)
        meta_path, games_path = _part_paths(parts, key)
        games.to_csv(games_path, index=False, lineterminator="\n")
        meta = {"identity": identity, "table": table, "versions": versions}
        meta_path.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return table, games, versions


def results_files(
    parts: Path | None = None, shard: tuple[int, int] | None = None
) -> dict[str, bytes] | None:
    """Every System of RESULT_SYSTEMS and every learned entrant of Season 0 as Team A in
    every scenario (the JAX engine): the summary with its provenance, and every game's row
    (CSV, `system` holding the result key).

    A player whose published games were played with the same scenario files, seed, games
    and weights is read back, not played again; so is one found in `parts` (a folder that
    shards fill side by side: `shard=(i, n)` plays only every n-th player still to play,
    from the i-th, saves it there and returns None)."""
    import pandas as pd

    players = _players()
    published = _published()
    found = {}
    for key, _, identity in players:
        found[key] = _stored_player(key, identity, published) or _part_player(parts, key, identity)
    if shard is not None:
        todo = [p for p in players if found[p[0]] is None][shard[0] :: shard[1]]
        for key, system, identity in todo:
            _play_player(key, system, identity, parts)
        print(f"scenario results: played {[p[0] for p in todo]} into {parts}")
        return None
    played_versions = None
    for key, system, identity in players:
        if found[key] is None:
            found[key] = _play_player(key, system, identity, parts)
            played_versions = found[key][2]
    first = players[0][2]
    out = {k: first[k] for k in ("games_per_scenario", "root_seed", "batch_size",
                                  "scenario_sha256")}  # fmt: skip
    out |= {"engine": "jax", "systems": {}, "learned": {}}
    for key, _, identity in players:
        out["systems"][key] = found[key][0]
        if "learned" in identity:
            out["learned"][key] = identity["learned"]
    out["versions"] = played_versions or found[players[-1][0]][2]
    table = pd.concat([found[key][1] for key, _, _ in players], ignore_index=True)
    return {
        "results.json": (json.dumps(out, indent=1, sort_keys=True) + "\n").encode(),
        "results_games.csv": table.to_csv(index=False, lineterminator="\n").encode(),
    }


def stale_results() -> str | None:
    """Why the stored results table no longer describes the scenario files, if it does not."""
    path = OUT / "results.json"
    if not path.is_file():
        return f"{path.relative_to(ROOT)} is missing (run with --results)"
    stored = json.loads(path.read_text())
    for s in SCENARIOS:
        if stored["scenario_sha256"].get(str(s.id)) != file_hash(s):
            return f"results.json: scenario {s.id}'s file changed since its results were played"
    played = stored.get("learned", {})
    for name, path in learned_entrants().items():
        if name not in played:
            return f"results.json: the learned entrant {name!r} has not played the scenarios"
        if played[name].get("weights_sha256") != weights_hash(path):
            return f"results.json: {name!r}'s weights changed since its results were played"
    return None


def stale(files: dict[str, bytes]) -> list[str]:
    """Paths that differ or are missing, then files under the folder nobody writes."""
    bad = [
        n for n, data in files.items() if not (OUT / n).is_file() or (OUT / n).read_bytes() != data
    ]
    known = set(files) | set(OWN_ELSEWHERE)
    extra = sorted(str(p.relative_to(OUT)) for p in OUT.rglob("*.json")
                   if str(p.relative_to(OUT)) not in known)  # fmt: skip
    return bad + extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", action="store_true", help="also the results table")
    parser.add_argument(
        "--parts", type=Path, help="with --results: keep each player's results here (resumable)"
    )
    parser.add_argument(
        "--shard",
        type=shard_argument,
        help="I/N, with --results and --parts: play only every N-th player still to play, "
        "into --parts (write nothing else)",
    )
    parser.add_argument("--check", action="store_true", help="fail if a file is stale")
    args = parser.parse_args(argv)
    if args.shard and not (args.results and args.parts):
        parser.error("--shard needs --results and --parts")
    if args.shard:
        results_files(args.parts, args.shard)
        return 0
    if args.check:
        problems = stale(build(stored_versions()))
        reason = stale_results()
        for name in problems:
            print(f"stale: exports/scenarios/{name} (run scripts/export_scenarios.py)")
        if reason:
            print(f"stale: {reason}")
        return 1 if problems or reason else 0
    files = build(stored_versions())
    for old in OUT.rglob("*.json") if OUT.is_dir() else ():
        name = str(old.relative_to(OUT))
        if name not in files and name not in OWN_ELSEWHERE:
            old.unlink()
            print(f"removed exports/scenarios/{name} (the export no longer makes it)")
    for name, data in files.items():
        path = OUT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
    if args.results:
        for name, data in results_files(args.parts).items():
            (OUT / name).write_bytes(data)
    reason = stale_results()
    print(f"exports/scenarios: {len(files)} files" + (f"; {reason}" if reason else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
