"""One game that behaves as a JaxMARL environment: what `make("tdm")` builds without
`num_envs`.

The batched core (`env.TeamDeathmatch`) holds N games, each frozen when it ends until
`reset_done`. JaxMARL's contract is one game per env (the caller `jax.vmap`s it) whose
`step` starts a new game when one ends, with every `info` leaf shaped per agent. This
subclass is that contract, and the only place it lives: it replaces the core's hooks (no
games axis, a fair coin for the spawn ends, per-agent info) and restarts inside `step`.
With JaxMARL installed, `make` returns `jaxmarl_api.JaxMARLTeamDeathmatch`, this class
with JaxMARL's `MultiAgentEnv` as a further base.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from .core.actions import own_frame_flat
from .core.sight import TEAM as TEAM_OF
from .core.state import NUM_SLOTS, State
from .env import TeamDeathmatch
from .env_state import EnvState

# Compiled once per env like JaxMARL's base class does (the env itself is the static part).
_jit = partial(jax.jit, static_argnums=(0,))


class SingleGame(TeamDeathmatch):
    """Team Deathmatch, one game, restarted inside `step` as JaxMARL's environments are.

    Build it with `make("tdm", ...)` without `num_envs`; it takes `TeamDeathmatch`'s
    settings, `num_envs` None. Every array has no games axis: `obs["a0"]` is `(784,)`.
    """

    # ---- the core's hooks, for one game --------------------------------------------------
    def _games(self, num_envs: Any) -> None:
        if num_envs is not None:
            raise ValueError(
                f"num_envs: the single game takes None, got {num_envs!r}; "
                "make('tdm', num_envs=N) gives N games"
            )
        return None

    @property
    def _games_shape(self) -> tuple[int, ...]:
        return ()

    def _batched(self, fn, *args, index_arg: bool = False):
        return fn(*args, None) if index_arg else fn(*args)

    def _keys(self, key):
        # The key itself, never split(key, 1): one game draws exactly what it always drew.
        return key

    def _swap(self, key, index):
        """A fair coin per game (a batch swaps every odd-numbered game instead)."""
        del index  # None: there is no batch to count in
        return jax.random.bernoulli(key)

    def _gathered(self, states: list[EnvState], many: bool) -> EnvState:
        return states[0]

    def _step_info(self, s: EnvState, game: State, info, was_open, invalid, metrics) -> dict:
        """The single game's info: every leaf shaped (10,), one entry per agent, so that
        JaxMARL's baselines can reshape each to (num_envs * num_agents). The priority
        metrics, one set per game, are in `state.metrics` instead."""
        del metrics
        team = jnp.asarray(TEAM_OF)
        flat = own_frame_flat(jnp, info.actions, game.spawn_end[team])
        per_agent = (NUM_SLOTS,)
        return {
            "result": jnp.broadcast_to(game.result, per_agent),
            "own_score": game.score[team],
            "enemy_score": game.score[1 - team],
            "tick": jnp.broadcast_to(game.tick, per_agent),
            "killed": info.killed & was_open,
            "new_game": jnp.broadcast_to(s.new_game, per_agent),
            "accepted": jnp.where(was_open, flat, -1).astype(jnp.int32),
            "invalid_action": invalid,
        }

    def _tick_info(self, info: dict, obs: dict) -> dict:
        return info

    # ---- step, with the restart ----------------------------------------------------------
    def step(
        self, key, state: EnvState, actions, reset_state: EnvState | None = None
    ) -> tuple[dict, EnvState, dict, dict, dict]:
        """One tick of both teams' actions; a game that ends is replaced by a new one.

        The new game is drawn from `key` or given as `reset_state`; its observation and
        state are returned while `reward`, `done` and `info` report the tick that ended the
        old one (as JaxMARL does). `step_env` is the tick without the restart.

        ```python
        actions = env.sample_actions(key, state)        # {"a0": flat action, ...}
        obs, state, reward, done, info = env.step(key, state, actions)
        ```

        Two compiled calls, `step_env` and the restart, so that stepping with or without
        `reset_state` shares the one costly compilation (inside an outer `jit` or `vmap`
        they fuse into one program).

        Args:
            key (jax.Array | None): A JAX random key that draws the next game when one
                ends (the tick itself is deterministic); may be None with `reset_state`.
            state: The game's `EnvState`, from `reset` or the last `step`.
            actions (dict | jax.Array): One action per agent, in the agent's own frame:
                a dict agent name -> action, or one integer array over the ten agents.
                Per agent either a flat index 0-197, shaped `()` or `(1,)`, or the heads
                `(move 0-8, target 0-10, Ultimate 0-1)`, shaped `(3,)`; so one array is
                `(10,)`, `(10, 1)` or `(10, 3)`. In range but illegal, a move is played
                as "stay" and a (target, Ultimate) pair as "no target, no Ultimate", each
                on its own.
            reset_state (EnvState | None): The state to restart with when the game ends,
                instead of one drawn from `key`; taken exactly as given.

        Returns:
            obs: Agent name -> observation, float32 `(784,)`.
            state: The `EnvState` after the tick (a new game's if it ended).
            reward: Agent name -> float32 `()`: +1 to every agent of the team that won
                and -1 to the other team on the tick a game ends with a winner; 0
                otherwise (draws included).
            done: Agent name and `"__all__"` -> bool `()`: the game ended on this tick.
            info: A dict whose every leaf is `(10,)`, one entry per agent: `result` int32
                (-1 open, 0 team a won, 1 team b won, 2 draw), `own_score` and
                `enemy_score` int32, `tick` int32, `killed` bool, `new_game` bool,
                `accepted` int32 (the flat action played, -1 if none), `invalid_action`
                bool.

        Raises:
            ValueError: Concrete actions of a wrong shape, a non-integer dtype or a value
                out of range, naming the field, place and value (`actions: flat action
                500 at index (3,) is outside 0..197`); a dict without some agent; a None
                `key` without `reset_state`. Traced actions (inside your own `jit`) cannot
                be read: out-of-range ones are flagged in `info["invalid_action"]` instead.
        """
        if reset_state is None and key is None:
            raise ValueError(
                "key: the single-game env draws the next game from it (or pass reset_state)"
            )
        obs, after, reward, done, info = self.step_env(key, state, actions)
        obs, after = self._restart(
            key, state.games_started, done["__all__"], obs, after, reset_state
        )
        return obs, after, reward, done, info

    @_jit
    def _restart(self, key, games_started, ended, obs: dict, after: EnvState, reset_state):
        """The game after a tick: a new game if it ended, `reset_state` exactly as given
        (as JaxMARL takes it) or one drawn from `key` that counts on `games_started`."""
        if reset_state is None:
            fresh = self._new_game(jax.random.split(key)[1], None)
            fresh = fresh._replace(games_started=games_started + 1)
        else:
            fresh = reset_state

        def pick(new, old):
            return jnp.where(ended, new, old).astype(old.dtype)

        state = jax.tree.map(pick, fresh, after)
        return jax.tree.map(pick, self._obs_dict(self._obs_one(fresh)), obs), state
