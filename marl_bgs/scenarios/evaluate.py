"""`evaluate_scenarios`: a System plays Team A in every scenario against its controller.

Each scenario is played `games` times from its position on the compiled JAX engine, in
batches, with the same key folding as `marl_bgs.evaluate` (root seed, then the game's seed
number, then the tick and team), so results do not depend on the batch size. The
controllers draw no random numbers; a System that does (Random, a sampling learner) gets a
different draw in every game. Each scenario's wins are compared with Random's in the same
scenario by a two-sided Fisher's exact test.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.checks import whole
from ..core.state import RESULT_NAMES
from ..outputs import check_new_files, write_atomic
from .records import Scenario

SCENARIO_EVAL_FORMAT = "marl-bgs/scenario-results"
SCENARIO_EVAL_VERSION = 1
RESULT_FILES = ("games.csv", "games.parquet", "table.csv", "meta.json")
REFERENCE = "random"


def fisher_exact(wins_a: int, games_a: int, wins_b: int, games_b: int) -> float:
    """Two-sided Fisher's exact p for the 2x2 table (wins, other results) of two samples:
    the probability, with all margins fixed, of a table no more likely than the one seen.

    Computed exactly with integers (`math.comb`); tables within a relative 1e-7 of the
    observed probability count as equally likely, as SciPy does.

    Args:
        wins_a: Wins in the first sample.
        games_a: Games in the first sample.
        wins_b: Wins in the second sample.
        games_b: Games in the second sample.

    Returns:
        The p value, in (0, 1].

    Raises:
        ValueError: A negative count, or more wins than games.
    """
    for name, v in (("wins_a", wins_a), ("games_a", games_a), ("wins_b", wins_b),
                    ("games_b", games_b)):  # fmt: skip
        whole(v, name, 0)
    if wins_a > games_a or wins_b > games_b:
        raise ValueError("fisher_exact: wins cannot exceed games")
    total_wins, n = wins_a + wins_b, games_a + games_b
    denom = math.comb(n, total_wins)
    if denom == 0:
        return 1.0
    lo, hi = max(0, total_wins - games_b), min(games_a, total_wins)
    weights = {x: math.comb(games_a, x) * math.comb(games_b, total_wins - x)
               for x in range(lo, hi + 1)}  # fmt: skip
    seen = weights[wins_a]
    tail = sum(w for w in weights.values() if w <= seen * (1 + 1e-7))
    return min(1.0, tail / denom)


@dataclass
class ScenarioResult:
    """Games and per-scenario W-D-L of one System as Team A in the scenarios.

    Attributes:
        games: One row per game: `scenario`, `game`, `seed_number`, `system`,
            `controller`, `result` (`"a"`, `"b"`, `"draw"`), `points_a`, `points_b`
            (scored during the game), `final_a`, `final_b` (the score at its end),
            `ticks`.
        table: One row per scenario: `scenario`, `name`, `controller`, `games`, `wins`,
            `draws`, `losses`, `win_rate`, and with a reference `reference_wins` and
            `fisher_p` (two-sided, against Random's wins in the same scenario).
        meta: What repeats the run: format, versions, root seed, games, batch size,
            System, reference, scenario files' ids and names.
    """

    games: pd.DataFrame
    table: pd.DataFrame
    meta: dict = field(default_factory=dict)

    def save(self, out: str | Path, force: bool = False) -> dict[str, Path]:
        """Write games.csv, games.parquet, table.csv and meta.json into `out`.

        Args:
            out: The folder, created if missing.
            force: Replace files of these names that are already there.

        Returns:
            Kind (`"csv"`, `"parquet"`, `"table"`, `"meta"`) -> the path written.

        Raises:
            ValueError: `out` already holds one of these files and `force` is False, or
                cannot be written (naming `out`).
        """
        out = check_new_files(out, RESULT_FILES, force, "out")
        out.mkdir(parents=True, exist_ok=True)
        paths = dict(zip(("csv", "parquet", "table", "meta"), (out / n for n in RESULT_FILES),
                         strict=True))  # fmt: skip
        games, table = self.games, self.table
        write_atomic(paths["csv"], lambda t: games.to_csv(t, index=False, lineterminator="\n"))
        write_atomic(paths["parquet"], lambda t: games.to_parquet(t, index=False))
        write_atomic(paths["table"], lambda t: table.to_csv(t, index=False, lineterminator="\n"))
        meta = json.dumps(self.meta, indent=2, sort_keys=True) + "\n"
        write_atomic(paths["meta"], lambda t: t.write_text(meta))
        return paths


def _play(system, scenario: Scenario, games: int, seed: int, batch_size: int) -> list[dict]:
    import jax

    from ..core.position import OFFICIAL_ROSTER
    from ..metrics import PRIORITY_NAMES
    from ..runner import get_runner
    from ..systems.registry import by_name

    position = scenario.position
    col = {n: i for i, n in enumerate(PRIORITY_NAMES)}
    per_batch = min(batch_size, games)
    # The env's map and rosters only size it: every game starts from the scenario's position.
    runner = get_runner((system, by_name(scenario.controller)), (47,), per_batch,
                        (OFFICIAL_ROSTER, OFFICIAL_ROSTER), int(position["winning_score"]),
                        int(position["horizon"]))  # fmt: skip
    root = jax.random.key(seed)
    rows = []
    start_score = position["score"]
    for start in range(0, games, per_batch):
        batch = list(range(start, min(start + per_batch, games)))
        padded = batch + [batch[-1]] * (per_batch - len(batch))
        metrics, _, bad = runner.run(root, np.asarray(padded), [position] * per_batch, len(batch))
        if bad[: len(batch)].any():
            raise ValueError(f"system: {system.name!r} played an out-of-range action in "
                             f"scenario {scenario.id}")  # fmt: skip
        for g, m in zip(batch, metrics, strict=False):
            # The metrics' points are the score at the game's end, the start's included.
            a, b = int(m[col["points_a"]]), int(m[col["points_b"]])
            rows.append({
                "scenario": scenario.id, "game": g, "seed_number": g, "system": system.name,
                "controller": scenario.controller,
                "result": RESULT_NAMES[int(m[col["result"]])] or "open",
                "points_a": a - start_score[0], "points_b": b - start_score[1],
                "final_a": a, "final_b": b,
                "ticks": int(m[col["ticks"]]) - int(position["tick"]),  # played
            })  # fmt: skip
    return rows


def _table(games: pd.DataFrame, scenarios, reference: pd.DataFrame | None) -> pd.DataFrame:
    rows = []
    for s in scenarios:
        mine = games[games["scenario"] == s.id]["result"]
        row = {
            "scenario": s.id, "name": s.name, "controller": s.controller,
            "games": len(mine), "wins": int((mine == "a").sum()),
            "draws": int((mine == "draw").sum()), "losses": int((mine == "b").sum()),
        }  # fmt: skip
        row["win_rate"] = row["wins"] / row["games"]
        if reference is not None:
            ref = reference[reference["scenario"] == s.id]["result"]
            row["reference_wins"] = int((ref == "a").sum())
            row["fisher_p"] = fisher_exact(row["wins"], row["games"], row["reference_wins"],
                                           len(ref))  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)


def evaluate_scenarios(
    system: Any,
    games: int = 256,
    seed: int = 0,
    *,
    scenarios: Any = None,
    batch_size: int = 128,
    reference: bool = True,
    progress: bool = True,
) -> ScenarioResult:
    """Play a System as Team A in the endgame scenarios, `games` games each.

    ```python
    result = marl_bgs.evaluate_scenarios("tdm-beta", games=256, seed=0)
    result.table[["scenario", "wins", "draws", "losses", "fisher_p"]]
    ```

    Args:
        system: A System or a registered name (as `marl_bgs.evaluate`'s `team_a`).
        games: Games per scenario (1 to 100,000); game g uses seed number g.
        seed: The root seed every random key is folded from.
        scenarios: Scenario ids to play (default: all), or `Scenario` records.
        batch_size: Games at once; it changes speed, never results.
        reference: Also play Random with the same seed and games, and test each
            scenario's wins against Random's (two-sided Fisher's exact test).
        progress: Print one line per scenario.

    Returns:
        A `ScenarioResult`: `games`, `table` and `meta`.

    Raises:
        ValueError: An unknown System or scenario id, or a setting out of range, naming it.
    """
    from ..provenance import versions
    from ..systems.resolve import resolve_system
    from .records import SCENARIOS

    sys_a = resolve_system(system, "system")
    games = whole(games, "games", 1, 100_000)
    seed = whole(seed, "seed", 0, 2**31 - 1)
    batch_size = whole(batch_size, "batch_size", 1, 65_536)
    if scenarios is None:
        chosen = list(SCENARIOS)
    else:
        chosen = []
        for i, s in enumerate(scenarios):
            if isinstance(s, Scenario):
                chosen.append(s)
                continue
            sid = whole(s, f"scenarios[{i}]", 1, len(SCENARIOS))
            chosen.append(SCENARIOS[sid - 1])
        if not chosen:
            raise ValueError("scenarios: expected at least one scenario (or None for all)")
        ids = [c.id for c in chosen]
        twice = next((sid for k, sid in enumerate(ids) if sid in ids[:k]), None)
        if twice is not None:  # its games would be counted twice in the table
            raise ValueError(f"scenarios: scenario {twice} is listed twice")
    rows, ref_rows = [], []
    ref_sys = resolve_system(REFERENCE, "reference") if reference else None
    for s in chosen:
        rows += _play(sys_a, s, games, seed, batch_size)
        if ref_sys is not None:
            ref_rows += (rows[-games:] if sys_a.name == REFERENCE
                         else _play(ref_sys, s, games, seed, batch_size))  # fmt: skip
        if progress:
            done = pd.DataFrame(rows[-games:])["result"].value_counts()
            print(f"scenario {s.id} ({s.name}): {int(done.get('a', 0))} wins, "
                  f"{int(done.get('draw', 0))} draws, {int(done.get('b', 0))} losses", flush=True)  # fmt: skip
    frame = pd.DataFrame(rows)
    ref = pd.DataFrame(ref_rows) if ref_sys is not None else None
    table = _table(frame, chosen, ref)
    meta = {
        "format": SCENARIO_EVAL_FORMAT,
        "version": SCENARIO_EVAL_VERSION,
        "versions": versions(),
        "system": sys_a.name,
        "reference": REFERENCE if reference else None,
        "root_seed": seed,
        "games_per_scenario": games,
        "batch_size": batch_size,
        "scenarios": [{"id": s.id, "name": s.name, "controller": s.controller} for s in chosen],
        "key_folding": "as marl_bgs.evaluate: fold_in(root, use) -> seed number (the game's "
        "number) -> tick -> team",
        "test": "two-sided Fisher's exact test of wins against the reference's wins",
    }
    return ScenarioResult(frame, table, meta)
