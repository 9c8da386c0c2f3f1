"""The compiled batch runner: plays a batch of scheduled games to their ends, and the cache
that keeps one compiled runner per (Systems, maps, batch size, settings, devices).

`evaluate` (`evaluation.py`), the validation panel of training (`learn/validation.py`, which
passes the actor's parameters into the compiled loop) and the scenario runs
(`scenarios/evaluate.py`) all play their games here. Keys come from `schedule.py`, so a
game's course does not depend on its batch.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .core.events import agent_name
from .core.state import NUM_SLOTS, TEAM_SIZE
from .distributed import run_together, to_host
from .game_sharding import games_sharding, replicate, split_games
from .memory_budget import over_budget, return_freed_memory
from .schedule import action_key, memory_key
from .systems.base import System, check_jax_actions

MAX_CACHED_RUNNERS = 16
RUNNERS: dict[tuple, BatchRunner] = {}  # runner_key -> runner, oldest first


class BatchRunner:
    """Plays a batch of games to their ends; compiled once per (Systems, batch size, maps).

    With a `mesh` (`marl_bgs.game_sharding.game_mesh`), every per-game array (the env state, the
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
            self._loop = jax.jit(self._run_compiled)
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

    def _run(self, root, seeds, state):
        """The compiled loop over the placed games (on many processes, started together)."""
        return run_together(self._loop, root, seeds, state)

    def run(self, root, seeds: np.ndarray, positions: list[dict], real: int | None = None):
        """`play`'s metrics, trail and flags as NumPy arrays, whole on every process (games
        split over many processes' devices are gathered)."""
        state, trail, bad = self.play(root, seeds, positions, real)
        return to_host(state.metrics), to_host(trail), to_host(bad)


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


# ---- the cache ---------------------------------------------------------------------------------
def clear_runners() -> None:
    """Drop every cached runner and its compiled code (replay_season_full calls this after
    each fixture: no later fixture plays the same pair)."""
    RUNNERS.clear()
    gc.collect()


def runner_key(
    systems, map_ids, num_envs, rosters, winning_score, horizon, mesh=None, metrics="priority"
) -> tuple:
    """The runner cache's key (`mesh`: None for one device, else its devices' ids)."""
    devices = None if mesh is None else tuple(int(d.id) for d in mesh.devices.flat)
    return (systems, map_ids, num_envs, rosters, winning_score, horizon, devices, metrics)


def drop_while_over_budget() -> None:
    """Drop the oldest runners while the process holds more mappings, or more memory, than
    its budget (`memory_budget.py`)."""
    while RUNNERS and over_budget():
        RUNNERS.pop(next(iter(RUNNERS)))
        gc.collect()
        return_freed_memory()


def get_runner(
    systems, map_ids, num_envs, rosters, winning_score, horizon, mesh=None, metrics="priority"
) -> BatchRunner:
    """A runner per (Systems, maps, batch size, ..., devices, metrics level), kept so that
    its compilation is reused."""
    from .registration import make

    key = runner_key(systems, map_ids, num_envs, rosters, winning_score, horizon, mesh, metrics)
    if key not in RUNNERS:
        if len(RUNNERS) >= MAX_CACHED_RUNNERS:
            RUNNERS.pop(next(iter(RUNNERS)))
        drop_while_over_budget()
        env = make(
            "tdm",
            map_id=list(map_ids),
            num_envs=num_envs,
            rosters=[rosters],
            winning_score=winning_score,
            horizon=horizon,
            metrics=metrics,
        )
        RUNNERS[key] = BatchRunner(env, systems, mesh)
    return RUNNERS[key]
