"""Evaluation: two Systems (any mix per slot) over a fixed schedule of spawn-swapped pairs.

Every random key is folded from the root seed, the use (memory start or actions), the game's
seed number, the tick (action keys only) and the team, so a game's course depends on nothing
else: not on how many games run at once, nor in which order, nor on which other games share
its batch. The two games of a pair share map and seed number and swap ends, so they draw the
same keys.

    result = marl_bgs.evaluate("tdm-alpha", "random", maps="test", games=200, seed=0)
    result.games          # pandas DataFrame, one row per game
    result.save("results/")  # games.csv, games.parquet, meta.json
"""

from __future__ import annotations

import json
import math
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from .core.checks import FieldTypeError, choice, sequence, whole
from .core.classes import CLASS_NAMES
from .core.events import agent_name
from .core.position import OFFICIAL_ROSTER, starting_position
from .core.state import NUM_SLOTS, RESULT_NAMES, SPAWN_END_NAMES, TEAM_SIZE
from .maps import NUM_MAPS, SPLITS
from .metrics import PRIORITY_NAMES, priority_record
from .metrics.columns import GAME_COLUMNS, MILLI_COLUMNS
from .outputs import check_new_files, write_atomic
from .sharding import device_count, game_mesh, games_sharding, replicate, round_up, split_games
from .systems.base import System, check_jax_actions
from .systems.registry import by_name

EVAL_FORMAT = "marl-bgs/evaluation"
EVAL_VERSION = 1
USE_MEMORY = 0  # key use: a System's memory at a game's start
USE_ACTIONS = 1  # key use: a System's actions at one tick
MAX_GAMES = 1_000_000


# ---- inputs ----------------------------------------------------------------------------------
def resolve_system(spec: Any, where: str) -> System:
    """A System from a System, a registered name, an LLM (`"llm:MODEL@http://host:port/v1"`,
    see `marl_bgs.llm`), a trained run (`{"checkpoint": folder,
    "step": n, "greedy": false}`, step and greedy optional), an exported actor
    (`{"weights": "policy.npz", "greedy": false}`), or five of them (one per slot).

    Args:
        spec: The System in any of the forms above (`evaluate`'s `team_a` and `team_b`).
        where: The field to name in errors (`"team_a"`).

    Returns:
        The `System`; five specs become one per-slot `marl_bgs.systems.team`.

    Raises:
        ValueError: An unknown name or a spec of no known form, naming `where`.
    """
    if isinstance(spec, System):
        return spec
    if isinstance(spec, dict) and "weights" in spec:
        from .learn.policy import system_from_weights_spec

        return system_from_weights_spec(spec, where)
    if isinstance(spec, dict) and "checkpoint" in spec:
        from .learn.policy import system_from_spec

        return system_from_spec(spec, where)
    if isinstance(spec, str) and spec.startswith("llm:"):
        from .llm.system import system_from_spec

        try:
            return system_from_spec(spec)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{where}: {err}") from None
    if isinstance(spec, str):
        try:
            return by_name(spec)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    if isinstance(spec, (list, tuple)) and len(spec) == TEAM_SIZE:
        from .systems.mix import team

        members = [resolve_system(s, f"{where}[{k}]") for k, s in enumerate(spec)]
        return team(*members, name="|".join(m.name for m in members))
    raise ValueError(
        f"{where}: expected a System, a system name, {{'checkpoint': run folder}}, "
        f"{{'weights': policy .npz}} or "
        f"{TEAM_SIZE} of them (one per slot), got {spec!r}"
    )


def resolve_maps(maps: Any) -> tuple[int, ...]:
    """Map ids from a split name ("test", "validation", ...), "all", an id, or a list of ids.

    Args:
        maps: `"curriculum"`, `"training"`, `"validation"`, `"test"`, `"all"`, one map id
            (0-51) or a non-empty list of ids.

    Returns:
        The map ids, in the order given (a split's in increasing order).

    Raises:
        ValueError: An unknown split name, an empty list, or an id out of range.
        FieldTypeError: An id that is not a whole number.
    """
    if isinstance(maps, str):
        if maps == "all":
            return tuple(range(NUM_MAPS))
        if maps in SPLITS:
            return SPLITS[maps]
        raise ValueError(f"maps: unknown split {maps!r}; use one of {', '.join(SPLITS)} or 'all'")
    ids = [maps] if isinstance(maps, (int, np.integer)) else maps
    if not isinstance(ids, (list, tuple)) or not ids:
        raise ValueError(f"maps: expected a split name, a map id or a list of ids, got {maps!r}")
    out = []
    for i, m in enumerate(ids):
        out.append(whole(m, f"maps[{i}]", 0, NUM_MAPS - 1))
    return tuple(out)


@dataclass(frozen=True)
class Schedule:
    """Which map, seed number and ends each game gets: no randomness, only arithmetic.

    Pair p plays map `maps[p % len(maps)]` with seed number `first_seed + p`; its game 2p has
    team a on the left end and game 2p+1 on the right.

    Attributes:
        maps: The map ids, cycled over the pairs.
        games: How many games (an even number).
        first_seed: The seed number of pair 0.
    """

    maps: tuple[int, ...]
    games: int
    first_seed: int = 0

    def game(self, g: int) -> tuple[int, int, int, str]:
        """Where game `g` stands in the schedule.

        Args:
            g: The game's number, 0 to `games - 1`.

        Returns:
            pair: The game's pair, `g // 2`.
            seed_number: `first_seed + pair`.
            map_id: The pair's map.
            spawn_a: Team a's end, `"left"` (even g) or `"right"` (odd g).
        """
        pair = g // 2
        return (
            pair,
            self.first_seed + pair,
            self.maps[pair % len(self.maps)],
            SPAWN_END_NAMES[g % 2],
        )

    def as_dict(self) -> dict:
        """The schedule as plain JSON, with its rule in words (stored in `meta.json`).

        Returns:
            `maps`, `games`, `pairs`, `first_seed` and `rule`.
        """
        return {
            "maps": list(self.maps),
            "games": self.games,
            "pairs": self.games // 2,
            "first_seed": self.first_seed,
            "rule": "pair p plays maps[p % len(maps)] with seed number first_seed + p; "
            "game 2p puts team a on the left end, game 2p+1 on the right",
        }


# ---- keys ------------------------------------------------------------------------------------
def memory_key(root, seed_number, team: int):
    """The key a team's System starts a game's memory from.

    Args:
        root (jax.Array): The evaluation's root key, `jax.random.key(seed)`.
        seed_number (int | jax.Array): The game's seed number (shared by a spawn-swapped
            pair).
        team: 0 for team a's System, 1 for team b's.

    Returns:
        (jax.Array): `fold_in(fold_in(fold_in(root, 0), seed_number), team)`.
    """
    return jax.random.fold_in(
        jax.random.fold_in(jax.random.fold_in(root, USE_MEMORY), seed_number), team
    )


def action_key(root, seed_number, tick, team: int):
    """The key a team's System draws its actions from at one tick of one game.

    Args:
        root (jax.Array): The evaluation's root key, `jax.random.key(seed)`.
        seed_number (int | jax.Array): The game's seed number.
        tick (int | jax.Array): The tick (0 for the first).
        team: 0 for team a's System, 1 for team b's.

    Returns:
        (jax.Array): `root` folded with 1 (actions), the seed number, the tick, the team.
    """
    k = jax.random.fold_in(jax.random.fold_in(root, USE_ACTIONS), seed_number)
    return jax.random.fold_in(jax.random.fold_in(k, tick), team)


# ---- running ---------------------------------------------------------------------------------
def _positions(schedule: Schedule, games: Sequence[int], rosters, horizon, winning_score):
    out = []
    for g in games:
        _, _, map_id, spawn_a = schedule.game(g)
        ends = (spawn_a, SPAWN_END_NAMES[1 - SPAWN_END_NAMES.index(spawn_a)])
        out.append(
            starting_position(
                map_id,
                rosters=rosters,
                spawn_ends=ends,
                horizon=horizon,
                winning_score=winning_score,
            )
        )
    return out


class _BatchRunner:
    """Plays a batch of games to their ends; compiled once per (Systems, batch size, maps).

    With a `mesh` (`marl_bgs.sharding.game_mesh`), every per-game array (the env state, the
    seed numbers, the memories and actions derived from them, the action trail) is split
    along the mesh's games axis and the root key replicated; the compiled loop is the same
    program, partitioned by XLA. Each game's arithmetic is untouched, so the results are
    those of one device.
    """

    def __init__(self, env, systems: tuple[System, System], mesh=None) -> None:
        self.env = env
        self.systems = systems
        self.mesh = mesh
        self.on_host = any(s.on_host for s in systems)
        self.last_reports: list = [None, None]  # host Systems' `report` of the last batch
        if not self.on_host:
            self._run = jax.jit(self._run_compiled)
        else:
            self._inputs = jax.jit(env.teams_inputs)
            self._step = jax.jit(self._step_host)
            self._acts = [
                None if s.on_host else jax.jit(self._jax_act(s, t)) for t, s in enumerate(systems)
            ]

    def _init_memories(self, root, seeds):
        mems = []
        for t, system in enumerate(self.systems):
            if system.on_host:
                mems.append(system.init(None))
            else:
                keys = jax.vmap(lambda n, t=t: memory_key(root, n, t))(seeds)
                mems.append(jax.vmap(system.init)(keys))
        return mems

    @staticmethod
    def _jax_act(system: System, team: int):
        def act(root, seeds, ticks, inputs, memory):
            keys = jax.vmap(lambda n, k: action_key(root, n, k, team))(seeds, ticks)
            actions, memory = jax.vmap(system.act)(keys, inputs, memory)
            return check_jax_actions(actions, seeds.shape[0], system, f"team_{'ab'[team]}"), memory

        return act

    def _actions_dict(self, acts_by_team) -> dict:
        return {
            agent_name(t * TEAM_SIZE + s): acts_by_team[t][..., s]
            for t in range(2)
            for s in range(TEAM_SIZE)
        }

    def _placed(self, tree):
        """`tree`'s per-game leaves split over the mesh (the rest replicated); as is without."""
        if self.mesh is None:
            return tree
        return split_games(tree, self.mesh, self.env.num_envs)

    def _run_compiled(self, root, seeds, state):
        env = self.env
        mems = tuple(self._init_memories(root, seeds))
        trail = jnp.full((env.horizon, seeds.shape[0], NUM_SLOTS, 3), -1, jnp.int32)
        if self.mesh is not None:  # the trail's games axis (1) split like the games
            trail = jax.lax.with_sharding_constraint(trail, games_sharding(self.mesh, 1))
        acts = [self._jax_act(s, t) for t, s in enumerate(self.systems)]

        def cond(carry):
            state, _, _, _, t = carry
            return jnp.any(state.game.result < 0) & (t < env.horizon)

        def body(carry):
            state, mems, trail, bad, t = carry
            inputs = env.teams_inputs(state)
            outs = [
                acts[team](root, seeds, state.game.tick, inputs[team], mems[team])
                for team in range(2)
            ]
            actions = self._actions_dict([o[0] for o in outs])
            _, state, _, _, info = env.step(None, state, actions)
            trail = trail.at[t].set(info["accepted"])
            bad = bad | info["invalid_action"]
            return state, tuple(o[1] for o in outs), trail, bad, t + 1

        bad = jnp.zeros((seeds.shape[0], NUM_SLOTS), bool)
        state, _, trail, bad, _ = jax.lax.while_loop(
            cond, body, (state, mems, trail, bad, jnp.int32(0))
        )
        return state, trail, bad

    def _step_host(self, state, actions):
        _, state, _, _, info = self.env.step(None, state, actions)
        return state, info["accepted"], info["invalid_action"]

    def _run_on_host(self, root, seeds, state, real: int | None = None):
        """The loop with host Systems in it. Only the first `real` games (the rest pad a
        short last batch and are dropped) are shown to host Systems, so that an LLM or a
        human is never asked about a copy; theirs stay put in the padding."""
        mems = self._init_memories(root, seeds)
        n = seeds.shape[0]
        real = n if real is None else real
        trail = np.full((self.env.horizon, seeds.shape[0], NUM_SLOTS, 3), -1, np.int32)
        bad = np.zeros((seeds.shape[0], NUM_SLOTS), bool)
        for t in range(self.env.horizon):
            if not bool(jnp.any(state.game.result < 0)):
                break
            inputs = self._inputs(state)
            acts = []
            for team, system in enumerate(self.systems):
                if system.on_host:
                    host_inputs = type(inputs[team])(*(np.asarray(x)[:real] for x in inputs[team]))
                    a, mems[team] = system.act(None, host_inputs, mems[team])
                    a = np.concatenate([a, np.zeros((n - real, TEAM_SIZE), np.int32)])
                    acts.append(self._placed(jnp.asarray(a)))
                else:
                    a, mems[team] = self._acts[team](
                        root, seeds, state.game.tick, inputs[team], mems[team]
                    )
                    acts.append(a)
            state, accepted, invalid = self._step(state, self._actions_dict(acts))
            trail[t] = np.asarray(accepted)
            bad |= np.asarray(invalid)
        self.last_reports = [
            s.report(m) if s.on_host and s.report is not None else None
            for s, m in zip(self.systems, mems, strict=True)
        ]
        return state, trail, bad

    def play(self, root, seeds: np.ndarray, positions: list[dict], real: int | None = None):
        """The batch's final env state, accepted-action trail and (games, 10) flags of
        out-of-range actions, where they were computed (`real`: how many of the games are
        not padding; host Systems play only those)."""
        self.last_reports = [None, None]
        _, state = self.env.reset_to(jax.random.key(0), positions)
        seeds = jnp.asarray(seeds, jnp.int32)
        if self.mesh is not None:
            root = replicate(root, self.mesh)
            seeds, state = self._placed((seeds, state))
        if self.on_host:
            return self._run_on_host(root, seeds, state, real)
        return self._run(root, seeds, state)

    def run(self, root, seeds: np.ndarray, positions: list[dict], real: int | None = None):
        state, trail, bad = self.play(root, seeds, positions, real)
        return np.asarray(state.metrics), np.asarray(trail), np.asarray(bad)


def refuse_invalid(bad: np.ndarray, games: Sequence[int], systems) -> None:
    """Refuse a batch in which a System played an out-of-range action (`bad`: (games, 10)
    flags from the env), naming the System, the game and the agent: its results would be
    games it did not choose, so they are never kept or rated."""
    if not bad.any():
        return
    g, slot = (int(i) for i in np.argwhere(bad)[0])
    team = slot // TEAM_SIZE
    raise ValueError(
        f"team_{'ab'[team]}: System {systems[team].name!r} played an out-of-range action "
        f"(game {games[g]}, agent {agent_name(slot)}); actions must be flat indices 0..197 "
        f"in the agent's own frame, {int(bad.sum())} such in this batch"
    )


_RUNNERS: dict[tuple, _BatchRunner] = {}
EVAL_FILES = ("games.csv", "games.parquet", "meta.json")  # what `EvalResult.save` writes
LLM_FILES = ("llm.csv", "llm.parquet")  # ... and these when an LLM side played
FULL_FILES = ("full.parquet",)  # ... and this with full metrics (too wide for CSV)
CROSSPLAY_FILES = ("games.csv", "games.parquet", "margins.csv")
MAX_CACHED_RUNNERS = 16
# A compiled runner holds about 4,000 memory mappings on a CPU (XLA's code and buffers), and
# Linux lets a process have 65,530 (vm.max_map_count): a season's shard crashed in LLVM
# ("Cannot allocate memory") after 14 fixtures. Runners are dropped, oldest first, while the
# process holds more than this share of the kernel's limit.
MAP_BUDGET_SHARE = 0.7
# ... and while it holds more than this share of the machine's memory: a runner's compiled
# program takes hundreds of MB, and tutorial 4's crossplay kernel grew to 10 GB on a 24 GB
# machine (the kernel killed it) with 16 runners kept.
MEMORY_BUDGET_SHARE = 0.25


def memory_map_limit() -> int:
    """The kernel's limit on one process's memory mappings (Linux's default elsewhere)."""
    try:
        return int(Path("/proc/sys/vm/max_map_count").read_text())
    except (OSError, ValueError):
        return 65_530


def _map_budget() -> int:
    return int(MAP_BUDGET_SHARE * memory_map_limit())


def memory_maps() -> int | None:
    """How many memory mappings this process holds (None where /proc is not there); every
    loaded XLA CPU program holds a few dozen."""
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


def clear_runners() -> None:
    """Drop every cached runner and its compiled code (replay_season_full calls this after
    each fixture: no later fixture plays the same pair)."""
    import gc

    _RUNNERS.clear()
    gc.collect()


def runner_key(
    systems, map_ids, num_envs, rosters, winning_score, horizon, mesh=None, metrics="priority"
) -> tuple:
    """The runner cache's key (`mesh`: None for one device, else its devices' ids)."""
    devices = None if mesh is None else tuple(int(d.id) for d in mesh.devices.flat)
    return (systems, map_ids, num_envs, rosters, winning_score, horizon, devices, metrics)


def resident_bytes() -> int:
    """This process's resident memory (0 where /proc is not there)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def machine_memory() -> int:
    """The machine's physical memory in bytes (a huge number where it cannot be read, so
    that no budget derived from it ever binds)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError):
        return 1 << 62


def _memory_budget() -> int:
    return int(MEMORY_BUDGET_SHARE * machine_memory())


def return_freed_memory() -> None:
    """Hand the allocator's freed pages back to the kernel (glibc keeps them otherwise, and
    the process would not shrink after dropping compiled programs)."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _within_map_budget() -> None:
    """Drop the oldest runners while the process holds more mappings, or more memory, than
    its budget."""
    import gc

    budget, memory = _map_budget(), _memory_budget()
    while _RUNNERS and ((memory_maps() or 0) > budget or resident_bytes() > memory):
        _RUNNERS.pop(next(iter(_RUNNERS)))
        gc.collect()
        return_freed_memory()


def _runner(
    systems, map_ids, num_envs, rosters, winning_score, horizon, mesh=None, metrics="priority"
) -> _BatchRunner:
    """A runner per (Systems, maps, batch size, ..., devices, metrics level), kept so that
    its compilation is reused."""
    from .env import make

    key = runner_key(systems, map_ids, num_envs, rosters, winning_score, horizon, mesh, metrics)
    if key not in _RUNNERS:
        if len(_RUNNERS) >= MAX_CACHED_RUNNERS:
            _RUNNERS.pop(next(iter(_RUNNERS)))
        _within_map_budget()
        env = make(
            "tdm",
            map_id=list(map_ids),
            num_envs=num_envs,
            rosters=[rosters],
            winning_score=winning_score,
            horizon=horizon,
            metrics=metrics,
        )
        _RUNNERS[key] = _BatchRunner(env, systems, mesh)
    return _RUNNERS[key]


# ---- results ---------------------------------------------------------------------------------
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
        position = _positions(
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


def cpu_model() -> str:
    """The CPU's model name (Linux), else what `platform` knows: provenance, because a
    learned System's float32 games can differ between kinds of CPU."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _versions() -> dict:
    from . import __version__

    out = {"marl_bgs": __version__, "numpy": np.__version__, "pandas": pd.__version__}
    out["python"] = platform.python_version()
    out["jax"] = jax.__version__
    out["jax_backend"] = jax.default_backend()
    out["device"] = str(jax.devices()[0].device_kind)
    return out


def _rows(schedule, metrics, games, names, rosters) -> list[dict]:
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


def evaluate(
    team_a: Any,
    team_b: Any,
    maps: Any = "test",
    games: int = 200,
    seed: int = 0,
    *,
    first_seed: int = 0,
    rosters: tuple[Sequence[str], Sequence[str]] | None = None,
    winning_score: int = 20,
    horizon: int = 300,
    batch_size: int = 64,
    record: Sequence[int] = (),
    progress: bool = True,
    devices: int = 1,
    metrics: str = "priority",
) -> EvalResult:
    """Play `games` games (an even number: spawn-swapped pairs) of team a against team b.

    `team_a`/`team_b` are Systems, registered names, or five of either (one per slot); host
    and JAX Systems mix freely (a host System makes the loop run tick by tick on the host).
    `record` lists games whose accepted actions are kept, for replays. The games' results
    do not depend on `batch_size`.

    `devices` splits each batch of games over this process's devices with `jax.sharding`
    (`marl_bgs.sharding`): 1 (the default) runs on one, 0 on all local devices, N on the
    first N. Every result (the games table, recorded actions, metadata) is identical to one
    device's. A batch that does not split evenly is padded up to the next multiple of the
    device count with copies of its last game, whose results are dropped, as evaluate
    already does for a short last batch (so `batch_size` 6 on 4 devices plays 8 at once).

    `metrics="full"` also records the full metrics of every game (`result.full`: 2,994
    who-did-what-to-whom columns, see `marl_bgs.metrics.full`); the games are the same.

    ```python
    result = marl_bgs.evaluate("tdm-alpha", "random", maps="test", games=20, seed=0)
    result.summary()["wins"]      # team a's (tdm-alpha's) wins
    result.save("results/")       # games.csv, games.parquet, meta.json
    ```

    Args:
        team_a: Team a's System: a `System`, a registered name (`"random"`,
            `"tdm-alpha"`, `"tdm-beta"`, `"tdm-gamma"`), `"llm:MODEL@URL"`,
            `{"checkpoint": run folder}`, `{"weights": "policy.npz"}`, or a list of five
            of these, one per slot.
        team_b: Team b's System, in the same forms.
        maps: A split name (`"test"`, `"validation"`, `"training"`, `"curriculum"`),
            `"all"`, one map id or a list of ids; pairs cycle over them.
        games: How many games, even (2 to 1,000,000): `games // 2` spawn-swapped pairs.
        seed: The root seed (0 to 2**31 - 1) every random key is folded from.
        first_seed: The seed number of the first pair; later pairs count up from it.
        rosters: Class names per team, `(["mage", ...], [...])` of 1-5 each; None for
            the official five a side.
        winning_score: Points that win a game.
        horizon: Ticks before a game ends as a draw.
        batch_size: Games run at once (1-65,536); it changes speed and memory, never
            results.
        record: Game numbers whose accepted actions are kept, for `EvalResult.replay`.
        progress: Show a progress bar.
        devices: Local devices a batch is split over: 1, 0 for all, or N.
        metrics: `"priority"` (the games table) or `"full"` (also `result.full`).

    Returns:
        The `EvalResult`: `games` (one row per game), `meta`, recorded `actions`, and
            `llm` and `full` tables where they apply.

    Raises:
        ValueError: A setting out of range or unknown, naming it (`games: 7 is odd;
            games come in spawn-swapped pairs`, `team_b: system: unknown name ...`,
            `rosters[1][0]: unknown class ...`), a settings combination no position can
            hold, or a System that played an out-of-range action (naming it, the game and
            the agent).
        FieldTypeError: A setting of the wrong type, naming it.
    """
    sys_a = resolve_system(team_a, "team_a")
    sys_b = resolve_system(team_b, "team_b")
    map_ids = resolve_maps(maps)
    games = whole(games, "games", 2, MAX_GAMES)
    if games % 2:
        raise ValueError(f"games: {games} is odd; games come in spawn-swapped pairs")
    seed = whole(seed, "seed", 0, 2**31 - 1)
    first_seed = whole(first_seed, "first_seed", 0, 2**31 - 1 - games // 2)
    batch_size = whole(batch_size, "batch_size", 1, 65_536)
    metrics_level = choice(metrics, "metrics", ("priority", "full"))
    mesh = _mesh(devices)
    rosters = (OFFICIAL_ROSTER, OFFICIAL_ROSTER) if rosters is None else rosters
    teams = sequence(rosters, "rosters", 2, 2)  # two lists of class names, one per team
    rosters = tuple(
        tuple(choice(c, f"rosters[{t}][{k}]", CLASS_NAMES, "class") for k, c in enumerate(
            sequence(team, f"rosters[{t}]", 1, TEAM_SIZE)))
        for t, team in enumerate(teams)
    )  # fmt: skip
    if isinstance(record, (range, np.ndarray)):
        record = list(record)
    record = sorted(
        {whole(g, f"record[{i}]", 0, games - 1) for i, g in enumerate(sequence(record, "record"))}
    )
    schedule = Schedule(map_ids, games, first_seed)
    from .positions import parse_position

    parse_position(_positions(schedule, [0], rosters, horizon, winning_score)[0])  # fail early

    per_batch = min(batch_size, games)
    runner = _runner(
        (sys_a, sys_b),
        tuple(dict.fromkeys(map_ids)),
        per_batch if mesh is None else round_up(per_batch, mesh),
        rosters,
        winning_score,
        horizon,
        mesh,
        metrics_level,
    )
    env = runner.env
    root = jax.random.key(seed)
    all_metrics: list[np.ndarray] = []
    kept: dict[int, np.ndarray] = {}
    llm_rows: list[dict] = []
    bar = _progress(games, progress, f"{sys_a.name} vs {sys_b.name}")
    for start in range(0, games, env.num_envs):
        batch = list(range(start, min(start + env.num_envs, games)))
        padded = batch + [batch[-1]] * (env.num_envs - len(batch))
        seeds = np.asarray([schedule.game(g)[1] for g in padded])
        metrics, trail, bad = runner.run(
            root, seeds, _positions(schedule, padded, rosters, horizon, winning_score), len(batch)
        )
        refuse_invalid(bad[: len(batch)], batch, (sys_a, sys_b))
        all_metrics.append(metrics[: len(batch)])
        for team, (system, report) in enumerate(
            zip((sys_a, sys_b), runner.last_reports, strict=True)
        ):
            for i, g in enumerate(batch if report is not None else ()):
                for row in report[i]:  # padded copies (past len(batch)) are dropped
                    llm_rows.append({"game": g, "side": "ab"[team], "system": system.name, **row})
        for i, g in enumerate(batch):
            if g in record:
                ticks = int(priority_record(metrics[i]).ticks)
                kept[g] = trail[:ticks, i].copy()
        bar.update(len(batch))
    bar.close()
    rows = _rows(
        schedule, np.concatenate(all_metrics), range(games), (sys_a.name, sys_b.name), rosters
    )
    frame = pd.DataFrame(rows, columns=list(GAME_COLUMNS))
    full = pd.DataFrame()
    if metrics_level == "full":
        from .metrics.full import FULL_NAMES, full_values

        values = full_values(np.concatenate(all_metrics)[:, len(PRIORITY_NAMES) :])
        full = pd.DataFrame(values, columns=list(FULL_NAMES))
        full.insert(0, "game", np.arange(games))
    meta = {
        "format": EVAL_FORMAT,
        "version": EVAL_VERSION,
        "versions": _versions(),
        "root_seed": seed,
        "schedule": schedule.as_dict(),
        "systems": {"a": sys_a.name, "b": sys_b.name},
        "rosters": {"a": list(rosters[0]), "b": list(rosters[1])},
        "winning_score": winning_score,
        "horizon": horizon,
        "key_folding": "fold_in(root, use) -> seed number -> tick -> team (0 = team a's "
        "System, 1 = team b's), use 0 = memory start (no tick), 1 = actions",
        "counts": summarize(frame),
        "recorded_games": record,
        "metrics": metrics_level,
    }
    llm = pd.DataFrame(llm_rows)
    if len(llm):
        from .llm.stats import side_totals

        meta["llm"] = side_totals(llm)
    return EvalResult(frame, meta, kept, llm, full)


def _mesh(devices: Any):
    """The games mesh for `devices` (see `evaluate`), or None where it holds one device."""
    if device_count(devices) == 1:
        return None
    mesh = game_mesh(devices, local=True)
    return mesh if mesh.devices.size > 1 else None


def _progress(total: int, enabled: bool, label: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not enabled, desc=label, unit="game", leave=False)


def crossplay(
    systems: Sequence[Any],
    maps: Any = "test",
    games: int = 40,
    seed: int = 0,
    *,
    include_self: bool = False,
    batch_size: int = 64,
    progress: bool = True,
    devices: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every unordered pair of Systems: returns (all games, matrix of mean margins).

    Each pairing is one `evaluate` call with the same seed, so every pairing sees the same
    schedule (common random numbers). The matrix holds the row System's mean points margin
    against the column System; `wdl_matrix(all_games)` gives the W-D-L counts.

    Args:
        systems: Two or more Systems in any form `evaluate` takes, with distinct names.
        maps: As in `evaluate`.
        games: Games per pairing (even).
        seed: The root seed, the same for every pairing.
        include_self: Also play each System against itself (the diagonal).
        batch_size: As in `evaluate`.
        progress: Show a progress bar per pairing.
        devices: As in `evaluate`.

    Returns:
        all_games: Every pairing's games table, concatenated (`system_a` is the earlier
            System in `systems`).
        margins: Square table, index and columns the System names: the row System's
            mean points margin against the column System (NaN where not played).

    Raises:
        FieldTypeError: `systems` is not a list.
        ValueError: Fewer than two Systems (one with `include_self`), two with the same
            name, or a setting `evaluate` refuses.
    """
    if isinstance(systems, (str, System)) or not isinstance(systems, (list, tuple)):
        raise FieldTypeError(f"systems: expected a list of Systems or names, got {systems!r}")
    if len(systems) < (1 if include_self else 2):
        raise ValueError(
            f"systems: cross-play needs at least two Systems (or include_self=True), got "
            f"{len(systems)}"
        )
    resolved = [resolve_system(s, f"systems[{i}]") for i, s in enumerate(systems)]
    names = [s.name for s in resolved]
    if len(set(names)) != len(names):
        raise ValueError(f"systems: names must differ, got {names}")
    frames = []
    n = len(resolved)
    margin = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i if include_self else i + 1, n):
            res = evaluate(
                resolved[i],
                resolved[j],
                maps=maps,
                games=games,
                seed=seed,
                batch_size=batch_size,
                progress=progress,
                devices=devices,
            )
            frames.append(res.games)
            s = res.summary()
            margin[i, j] = s["margin_mean"]
            margin[j, i] = -s["margin_mean"]
    all_games = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return all_games, pd.DataFrame(margin, index=names, columns=names)


def wdl_matrix(all_games: pd.DataFrame) -> pd.DataFrame:
    """W-D-L of each row System against each column System, from crossplay's games.

    Args:
        all_games: The games table `crossplay` returns (or several `evaluate` tables).

    Returns:
        Square table of `"W-D-L"` strings, index and columns the System names in
            sorted order; empty where two Systems did not meet.

    Raises:
        KeyError: A table without the `system_a`, `system_b` or `result` column (an
            empty crossplay's table has none).
    """
    names = sorted(set(all_games["system_a"]) | set(all_games["system_b"]))
    out = pd.DataFrame("", index=names, columns=names)
    for (a, b), grp in all_games.groupby(["system_a", "system_b"]):
        w = int((grp["result"] == "a").sum())
        d = int((grp["result"] == "draw").sum())
        losses = int((grp["result"] == "b").sum())
        out.loc[a, b] = f"{w}-{d}-{losses}"
        out.loc[b, a] = f"{losses}-{d}-{w}"
    return out
