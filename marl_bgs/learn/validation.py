"""Routine validation checks and the choice of the best one (section S6.3).

At update 0 and after every `validate_every` of training, the current actor plays a fixed
panel with `marl_bgs.evaluate`: each opponent in `validation_opponents` on every map in
`validation_maps`, `validation_games` spawn-swapped games per map and opponent, from the same
root seed at every check (so checks differ only by the weights). The check's point margin
is our points minus theirs per game, averaged within each map-and-opponent cell, the cells
weighted equally; kills, deaths and wins/draws/losses stand beside it, since a team that
avoids fights can score a deceptively good margin. One row per check goes to
validation.csv / validation.jsonl in the run folder (the jsonl row also holds every cell).

The actor is a JAX System (`actor_system`) that samples from the policy, with its own
recurrent memory reset at each game's start. Its parameters are an argument of the
compiled game loop, not constants baked into it, so every check after the first reuses
the compiled program: `PanelRunner` is evaluate's `runner.BatchRunner` with the parameters
passed in, and `Validator` plays evaluate's schedule on it (`evaluation.play_schedule`).
"""

from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.state import TEAM_SIZE
from ..distributed import run_together
from ..evaluation import play_schedule
from ..game_sharding import batch_mesh, round_up
from ..runner import BatchRunner, get_runner
from ..schedule import Schedule
from ..systems.base import System
from ..systems.registry import by_name
from .actor_view import ActorView
from .config import TrainConfig
from .networks import Networks
from .registry import acts_greedily

VALIDATION_COLUMNS = (
    "update", "steps", "margin", "kills", "deaths", "games", "wins", "draws", "losses",
    "win_share", "best", "seconds",
)  # fmt: skip


# ---- the schedule -------------------------------------------------------------------------
def validation_updates(cfg: TrainConfig) -> list[int]:
    """Updates after which a check runs: 0, every `validate_every` of the run, and the end."""
    if not cfg.validate_every:
        return []
    n = cfg.num_updates
    k = int(math.floor(1.0 / cfg.validate_every + 1e-9))
    marks = {0, n}
    marks.update(min(n, max(1, round(i * cfg.validate_every * n))) for i in range(1, k + 1))
    return sorted(marks)


# ---- the actor as a System ------------------------------------------------------------------
class _Params:
    """Where the actor System finds its parameters while the game loop is traced."""

    value: Any = None


def actor_system(nets: Networks, params: Any, name: str = "learner", greedy: bool = False,
                 view: ActorView | None = None) -> System:  # fmt: skip
    """A JAX System sampling the actor's actions (`greedy`: the best legal one, as a
    Q-network plays); `params` is a pytree or a `_Params` holder read at trace time
    (`PanelRunner` fills it with the loop's argument). With a steering `view` the memory
    is the pair (recurrent memory, steering memory)."""
    import jax
    import jax.numpy as jnp

    view = view or ActorView()

    def init(key):
        del key
        memory = jnp.zeros((TEAM_SIZE, nets.memory_width), jnp.float32)
        return (memory, view.init()) if view.nav else memory

    def act(key, inputs, memory):
        p = params.value if isinstance(params, _Params) else params
        memory, nav = memory if view.nav else (memory, None)
        x, nav = view.read(inputs, nav)
        reset = jnp.broadcast_to(inputs.new_game, inputs.present.shape)
        memory, logits = nets.actor.apply(p, memory, x, inputs.avail, reset)
        if greedy:
            actions = jnp.argmax(logits, axis=-1).astype(jnp.int32)
        else:
            actions = jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)
        if view.nav:
            return actions, (memory, view.moved(inputs, nav, actions))
        return actions, memory

    return System(name, act, init)


class PanelRunner(BatchRunner):
    """evaluate's batch runner with the actor's parameters as an argument of the loop.

    With a `mesh` the games are split over its devices as evaluate splits them, and the
    parameters are replicated."""

    def __init__(self, env, systems, holder: _Params, mesh=None) -> None:
        import jax

        super().__init__(env, systems, mesh)
        self.holder = holder
        self.params: Any = None
        self.calls = 0
        self._run_params = jax.jit(self._traced)
        self._run = self._run_with_params  # what `play` calls once the games are placed

    def _traced(self, params, root, seeds, state):
        self.holder.value = params
        try:
            return self._run_compiled(root, seeds, state)
        finally:
            self.holder.value = None

    def _run_with_params(self, root, seeds, state):
        from ..game_sharding import replicate

        self.calls += 1
        params = self.params if self.mesh is None else replicate(self.params, self.mesh)
        return run_together(self._run_params, params, root, seeds, state)


# ---- scoring ----------------------------------------------------------------------------------
def panel_summary(games: pd.DataFrame) -> dict:
    """A check's numbers from evaluate's games (team a = the learner, `system_b` = opponent).

    margin: mean over (map, opponent) cells of the cell's mean points margin; kills,
    deaths: per game, averaged the same way; wins/draws/losses: counts over all games.
    """
    cells = []
    for (opp, map_id), g in games.groupby(["system_b", "map_id"], sort=True):
        cells.append({
            "opponent": opp, "map_id": int(map_id), "games": int(len(g)),
            "margin": float(g["margin"].mean()),
            "kills": float(g["kills_a"].mean()), "deaths": float(g["deaths_a"].mean()),
            "wins": int((g["result"] == "a").sum()), "draws": int((g["result"] == "draw").sum()),
            "losses": int((g["result"] == "b").sum()),
        })  # fmt: skip
    frame = pd.DataFrame(cells)
    out: dict[str, Any] = {
        "margin": float(frame["margin"].mean()),
        "kills": float(frame["kills"].mean()),
        "deaths": float(frame["deaths"].mean()),
        "games": int(len(games)),
        "wins": int(frame["wins"].sum()),
        "draws": int(frame["draws"].sum()),
        "losses": int(frame["losses"].sum()),
    }
    out["win_share"] = out["wins"] / out["games"]
    for opp, g in frame.groupby("opponent", sort=False):
        out[f"margin[{opp}]"] = float(g["margin"].mean())
        out[f"kills[{opp}]"] = float(g["kills"].mean())
        out[f"deaths[{opp}]"] = float(g["deaths"].mean())
        out[f"wins[{opp}]"] = int(g["wins"].sum())
    out["cells"] = cells
    return out


# ---- the checks of one run --------------------------------------------------------------------
class Validator:
    """Plays the panel for one config; reuses its compiled loops across checks."""

    def __init__(self, cfg: TrainConfig, nets: Networks) -> None:
        self.cfg = cfg
        self.holder = _Params()
        greedy = acts_greedily(cfg.algo)  # a Q-network acts greedily over legal actions
        view = ActorView(getattr(cfg, "nav_inputs", False))
        self.system = actor_system(nets, self.holder, name=f"{cfg.algo}", greedy=greedy,
                                   view=view)  # fmt: skip
        self.opponents = [by_name(n) for n in cfg.validation_opponents]
        settings = cfg.game_settings()
        self.rosters = settings["rosters"][0]
        self.winning_score = settings["winning_score"]
        self.horizon = settings["horizon"]
        self.maps = tuple(cfg.validation_maps)
        self.games = cfg.validation_games * len(self.maps)  # pair p plays maps[p % len]
        # The training run's devices: evaluate splits the panel's games over them (a batch
        # that does not divide is padded, as evaluate pads it).
        self.mesh = batch_mesh(cfg.devices)
        self.batch = self.games if self.mesh is None else round_up(self.games, self.mesh)
        self.runners: dict[str, PanelRunner] = {}

    def _runner(self, opponent: System) -> PanelRunner:
        if opponent.name not in self.runners:
            plain = get_runner(
                (self.system, opponent), self.maps, self.batch, self.rosters,
                self.winning_score, self.horizon, self.mesh,
            )  # fmt: skip
            self.runners[opponent.name] = PanelRunner(
                plain.env, plain.systems, self.holder, self.mesh
            )
        return self.runners[opponent.name]

    def play(self, actor_params: Any, record: bool = False) -> pd.DataFrame:
        """Every game of the panel for these parameters (evaluate's table, all opponents);
        with `record`, each game's accepted actions go to `last_actions[opponent][game]`."""
        frames = []
        self.last_actions: dict[str, dict[int, np.ndarray]] = {}
        for opponent in self.opponents:
            runner = self._runner(opponent)
            runner.params = actor_params
            schedule = Schedule(self.maps, self.games)
            result = play_schedule(
                runner, schedule, self.rosters, seed=self.cfg.validation_seed,
                winning_score=self.winning_score, horizon=self.horizon,
                record=range(self.games) if record else (),
            )  # fmt: skip
            self.last_actions[opponent.name] = result.actions
            frames.append(result.games)
        return pd.concat(frames, ignore_index=True)

    def check(self, actor_params: Any) -> tuple[dict, pd.DataFrame]:
        begin = time.perf_counter()
        games = self.play(actor_params)
        summary = panel_summary(games)
        summary["seconds"] = time.perf_counter() - begin
        return summary, games


_VALIDATORS: dict[tuple, Validator] = {}


def validator_for(cfg: TrainConfig, nets: Networks) -> Validator:
    """A cached Validator: runs with the same networks and panel share compiled loops."""
    settings = cfg.game_settings()
    key = (
        cfg.algo, cfg.hidden, cfg.recurrent, getattr(cfg, "critic", None),
        getattr(cfg, "layer_norm", False), getattr(cfg, "network", "mlp"),
        getattr(cfg, "embed", 0), settings["rosters"][0],
        settings["winning_score"], settings["horizon"], cfg.validation_opponents,
        cfg.validation_maps, cfg.validation_games, cfg.validation_seed, cfg.devices,
    )  # fmt: skip
    if key not in _VALIDATORS:
        _VALIDATORS[key] = Validator(cfg, nets)
    return _VALIDATORS[key]


class ValidationLog:
    """validation.csv / validation.jsonl (one row per check) and validation_games.csv."""

    def __init__(self, folder: Path) -> None:
        self.csv_path = folder / "validation.csv"
        self.json_path = folder / "validation.jsonl"
        self.games_path = folder / "validation_games.csv"

    def rows(self) -> list[dict]:
        if not self.json_path.exists():
            return []
        return [json.loads(line) for line in self.json_path.read_text().splitlines() if line]

    def rows_until(self, update: int) -> list[dict]:
        """The checks up to `update` (what a run resumed from that update keeps)."""
        return [r for r in self.rows() if r["update"] <= update]

    def keep(self, rows: list[dict], update: int) -> None:
        """Write the files again with `rows` (`rows_until(update)`) and the games of those
        checks only: a resumed run plays the later checks again."""
        for path in (self.csv_path, self.json_path):
            path.unlink(missing_ok=True)
        if self.games_path.exists():
            games = pd.read_csv(self.games_path)
            games[games["update"] <= update].to_csv(self.games_path, index=False)
        for r in rows:
            self._append(r)

    def _append(self, row: dict) -> None:
        flat = {k: v for k, v in row.items() if k != "cells"}
        columns = list(VALIDATION_COLUMNS) + sorted(k for k in flat if k not in VALIDATION_COLUMNS)
        new = not self.csv_path.exists()
        if not new:
            with self.csv_path.open() as f:
                columns = next(csv.reader(f))
        with self.csv_path.open("a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(columns)
            w.writerow([flat.get(c, "") for c in columns])
        with self.json_path.open("a") as f:
            f.write(json.dumps(row) + "\n")

    def write(self, row: dict, games: pd.DataFrame) -> None:
        self._append(row)
        games = games.assign(update=row["update"])
        games.to_csv(self.games_path, mode="a", header=not self.games_path.exists(), index=False)


def best_of(rows: list[dict]) -> dict | None:
    """The check with the highest margin, update 0 excluded (the earliest on a tie)."""
    eligible = [r for r in rows if r["update"] > 0]
    return max(eligible, key=lambda r: (r["margin"], -r["update"])) if eligible else None


__all__ = [
    "Validator", "ValidationLog", "actor_system", "best_of", "panel_summary",
    "validation_updates", "validator_for",
]  # fmt: skip
