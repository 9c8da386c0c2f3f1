"""What an evaluation returns and writes: one row per game (`EvalResult.games`), the metadata
that repeats it, recorded games for replays, and its W-D-L and margin summary.

The files (`EVAL_FILES`, and `LLM_FILES`/`FULL_FILES` where they apply) are what
`marl-bgs evaluate --out` and `EvalResult.save` write; tournaments and the site read them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .core.state import RESULT_NAMES, SPAWN_END_NAMES
from .metrics import PRIORITY_NAMES, priority_record
from .metrics.columns import MILLI_COLUMNS
from .outputs import check_new_files, write_atomic
from .schedule import Schedule, starting_positions

EVAL_FORMAT = "marl-bgs/evaluation"
EVAL_VERSION = 1
EVAL_FILES = ("games.csv", "games.parquet", "meta.json")  # what `EvalResult.save` writes
LLM_FILES = ("llm.csv", "llm.parquet")  # ... and these when an LLM side played
FULL_FILES = ("full.parquet",)  # ... and this with full metrics (too wide for CSV)
CROSSPLAY_FILES = ("games.csv", "games.parquet", "margins.csv")


@dataclass
class EvalResult:
    """One row per game, the metadata needed to repeat or pool it, and any recorded games.

    Attributes:
        games: One row per game: the schedule (`game`, `pair`, `seed_number`, `map_id`,
            `spawn_a`, `spawn_b`, `system_a`, `system_b`, `roster_a`, `roster_b`), then
            `result` (`"a"`, `"b"` or `"draw"`), `points_a`, `points_b`, `margin`
            (a's points minus b's) and the other priority metrics (kills, deaths, damage
            dealt and useful healing in health points, Ultimates used, Red Zone deaths,
            ticks).
        meta: What repeats the run: format and version, package versions, root seed,
            schedule, Systems, rosters, winning score, horizon, key folding, W-D-L
            counts, recorded games, metrics level.
        actions: Recorded game -> its accepted actions, int32 `(T, 10, 3)` (for `replay`).
        llm: One row per game, side and LLM agent (request counts, tokens, times); empty
            without an LLM side.
        full: With `metrics="full"`, one row per game: `game`, then the columns of
            `marl_bgs.metrics.full.FULL_NAMES`; else empty.
    """

    games: pd.DataFrame
    meta: dict
    actions: dict[int, np.ndarray] = field(default_factory=dict)  # game -> accepted (T, 10, 3)
    # One row per game, side and LLM agent (empty without an LLM side): request counts by
    # outcome, tokens and times (marl_bgs.llm.stats); kept apart from `games` so that its
    # columns stay the same for every System.
    llm: pd.DataFrame = field(default_factory=pd.DataFrame)
    # One row per game of full metrics (`metrics="full"`): `game`, then the columns of
    # `marl_bgs.metrics.full.FULL_NAMES`; empty at the priority level.
    full: pd.DataFrame = field(default_factory=pd.DataFrame)

    def summary(self) -> dict:
        """Team a's wins, draws and losses, and its mean margin with a 95% interval.

        The interval treats spawn-swapped pairs as the independent units (normal
        approximation over per-pair mean margins).

        Returns:
            As `summarize` gives it: `games`, `wins`, `draws`, `losses`,
                `win_rate_decisive`, `margin_mean`, `margin_ci95`.
        """
        return summarize(self.games)

    def save(self, out: str | Path, force: bool = False) -> dict[str, Path]:
        """Write games.csv, games.parquet and meta.json into the folder `out`, and llm.csv
        and llm.parquet when an LLM side played; a folder that already holds any of them
        is refused unless `force` (each file is written whole, then renamed into place).

        Also full.parquet with full metrics.

        Args:
            out: The folder, created if missing.
            force: Replace files of these names that are already there.

        Returns:
            Kind (`"csv"`, `"parquet"`, `"meta"`, `"llm_csv"`, `"llm_parquet"`, `"full"`)
                -> the path written.

        Raises:
            ValueError: `out` is a file or cannot be written, or already holds one of
                these files and `force` is False (naming `out`).
        """
        out = check_new_files(out, EVAL_FILES + LLM_FILES + FULL_FILES, force, "out")
        out.mkdir(parents=True, exist_ok=True)
        paths = {
            kind: out / name
            for kind, name in zip(("csv", "parquet", "meta"), EVAL_FILES, strict=True)
        }
        write_atomic(paths["csv"], lambda t: self.games.to_csv(t, index=False, lineterminator="\n"))
        write_atomic(paths["parquet"], lambda t: self.games.to_parquet(t, index=False))
        meta = json.dumps(self.meta, indent=2, sort_keys=True) + "\n"
        write_atomic(paths["meta"], lambda t: t.write_text(meta))
        if len(self.llm):
            paths["llm_csv"], paths["llm_parquet"] = (out / n for n in LLM_FILES)
            llm = self.llm
            write_atomic(
                paths["llm_csv"], lambda t: llm.to_csv(t, index=False, lineterminator="\n")
            )
            write_atomic(paths["llm_parquet"], lambda t: llm.to_parquet(t, index=False))
        if len(self.full):
            paths["full"] = out / FULL_FILES[0]
            full = self.full
            write_atomic(paths["full"], lambda t: full.to_parquet(t, index=False))
        return paths

    def replay(self, game: int):
        """Recorded game `game` as a replay: its actions re-run on the NumPy engine.

        Both engines play bit-identical games, so the re-run is the game that was played;
        the result and points are checked against the game's row all the same.

        Args:
            game: The game's number; it must have been listed in `evaluate`'s `record`.

        Returns:
            (marl_bgs.replay.Replay): The game as a `Replay`, ready to `save` and view.

        Raises:
            ValueError: The game was not recorded.
            RuntimeError: The re-run does not reproduce the recorded score.
        """
        from .game import Game
        from .replay import record_game

        if game not in self.actions:
            raise ValueError(f"game: {game} was not recorded; pass record=[{game}] to evaluate")
        sched = self.meta["schedule"]
        schedule = Schedule(tuple(sched["maps"]), sched["games"], sched["first_seed"])
        rosters = (tuple(self.meta["rosters"]["a"]), tuple(self.meta["rosters"]["b"]))
        position = starting_positions(
            schedule, [game], rosters, self.meta["horizon"], self.meta["winning_score"]
        )[0]
        trail = self.actions[game]
        row = self.games.loc[self.games["game"] == game].iloc[0]
        ticks = iter(range(len(trail)))
        replay = record_game(
            Game(position, backend="numpy"),
            lambda g: trail[next(ticks)],
            (row["system_a"], row["system_b"]),
            {"root": self.meta["root_seed"], "game": int(row["seed_number"])},
            title=f"{row['system_a']} vs {row['system_b']}, map {row['map_id']}, game {game}",
        )
        final = replay.state_at(-1)
        if [int(v) for v in final.score] != [int(row["points_a"]), int(row["points_b"])]:
            raise RuntimeError(f"game {game}: the re-run does not reproduce the recorded score")
        if len(self.llm) and (self.llm["game"] == game).any():
            from dataclasses import replace

            from .llm.stats import replay_llm

            replay = replace(replay, llm=replay_llm(self.llm[self.llm["game"] == game]))
        return replay


def summarize(games: pd.DataFrame) -> dict:
    """Team a's W-D-L and mean points margin, with a 95% interval over spawn-swapped pairs.

    Args:
        games: A games table as `evaluate` returns it (`result`, `pair`, `margin`).

    Returns:
        `games`, `wins`, `draws`, `losses` (team a's), `win_rate_decisive` (wins over
            wins + losses; NaN without any), `margin_mean` (mean over pairs of the pair's
            mean margin) and `margin_ci95` (`[low, high]`, normal approximation; NaN with
            fewer than two pairs).

    Raises:
        KeyError: A table without the `result`, `pair` or `margin` column.
    """
    wins = int((games["result"] == "a").sum())
    draws = int((games["result"] == "draw").sum())
    losses = int((games["result"] == "b").sum())
    per_pair = games.groupby("pair")["margin"].mean().to_numpy(dtype=float)
    mean = float(per_pair.mean()) if len(per_pair) else float("nan")
    half = (
        1.96 * float(per_pair.std(ddof=1)) / math.sqrt(len(per_pair))
        if len(per_pair) > 1
        else float("nan")
    )
    decisive = wins + losses
    return {
        "games": int(len(games)),
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate_decisive": wins / decisive if decisive else float("nan"),
        "margin_mean": mean,
        "margin_ci95": [mean - half, mean + half],
    }


def game_rows(schedule, metrics, games, names, rosters) -> list[dict]:
    """The games table's rows (`GAME_COLUMNS`) from each game's priority metrics vector."""
    rows = []
    for g, vector in zip(games, metrics, strict=True):
        m = priority_record(vector)
        pair, seed_number, map_id, spawn_a = schedule.game(g)
        row = {
            "game": g,
            "pair": pair,
            "seed_number": seed_number,
            "map_id": map_id,
            "spawn_a": spawn_a,
            "spawn_b": SPAWN_END_NAMES[1 - SPAWN_END_NAMES.index(spawn_a)],
            "system_a": names[0],
            "system_b": names[1],
            "roster_a": ",".join(rosters[0]),
            "roster_b": ",".join(rosters[1]),
            "result": RESULT_NAMES[int(m.result)] or "open",
        }
        for name in PRIORITY_NAMES[1:]:
            row[name] = int(getattr(m, name))
        for name in MILLI_COLUMNS:
            row[name] = row[name] / 1000  # milli-HP to health points, exact to 3 decimals
        row["margin"] = row["points_a"] - row["points_b"]
        rows.append(row)
    return rows
