"""The JAX environment's batched core: N games at once, each restarted explicitly.

    env = marl_bgs.make("tdm", map_id=47, num_envs=1024)   # many games, our own loops
    obs, state = env.reset(key)
    obs, state, reward, done, info = env.step(key, state, actions)  # finished games stay
    obs, state = env.reset_done(key, state)          # restart only the finished games

A finished game stays frozen, its last observation in `obs` and `info["terminal_obs"]`,
until `reset_done` restarts it. Without `num_envs`, `make` returns one game that behaves as
JaxMARL's `MultiAgentEnv` does: `SingleGame` (`single_game.py`), a subclass that replaces
the batching and restarts a finished game inside `step`; nothing here branches on it.

Here is the games' life (reset, restart, step); settings are read in `env_settings.py`,
actions in `env_actions.py`, and what a state shows (observations, masks, sampling, learner
inputs) is the base class `EnvViews` (`env_views.py`). Everything that varies between games
(map, rosters, spawn ends, winning score, horizon) is a value inside the state, so mixing
them never recompiles. Actions and observations are in each agent's own frame: its spawn
end is on the left, so one policy serves both ends.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import env_random
from .core.actions import HEAD_LIMITS
from .core.checks import FieldTypeError, boolean, number, thousandths, whole
from .core.known_map import expecting
from .core.sight import TEAM as TEAM_OF
from .core.sight import compute_sight
from .core.state import (
    AGENT_NAMES,
    NUM_SLOTS,
    RESULT_A,
    RESULT_B,
    RESULT_OPEN,
    MapArrays,
    State,
    fresh_state,
)
from .core.tick import step as tick_step
from .env_actions import slots_from, to_compass
from .env_settings import (
    MAX_NUM_ENVS,
    map_bank,
    metric_width,
    pack_map,
    read_rosters,
    roster_table,
    winning_scores,
)
from .env_state import EnvState
from .env_views import EnvViews
from .maps.positions import parse_position
from .metrics import (
    PRIORITY_NAMES,
    priority_record,
    priority_start,
    priority_update,
    priority_vector,
)
from .metrics.full import full_start, full_update

# Compiled once per env like JaxMARL's base class does (the env itself is the static part).
_jit = partial(jax.jit, static_argnums=(0,))


class TeamDeathmatch(EnvViews):
    """Team Deathmatch as a JAX environment: N games at once (one game is its subclass
    `SingleGame`, which `make` returns without `num_envs`).

    Build it with `make("tdm", ...)`, which takes the same keyword arguments. There are ten
    agents, `"a0"`..`"a4"` (team a) and `"b0"`..`"b4"` (team b); `reset`, `step` and the
    other methods take and return dicts keyed by these names. Every agent observes 784
    float32 numbers in [-2, 2] (`observation_space`, laid out on the Observation layout
    page) and plays one of 198 flat actions per tick (`action_space`): move (9) x target
    (11) x Ultimate (2), all in the agent's own frame, where its spawn end is on the left.

    Args:
        map_id: A map id (0-51) or a non-empty list of ids; each game draws one of them
            whenever it (re)starts. With one id, N games run faster while all play that
            map (its obstacles are compiled in as constants; authored maps still work).
        num_envs: N (1 to 2**20) for N games at once, each frozen when it ends until
            `reset_done` restarts it; N becomes the leading axis of every array. None (what
            `make` takes by default) is one game that `step` restarts itself when it ends
            (JaxMARL's contract): the subclass `SingleGame`, which this class refuses to be.
        rosters: The classes of each team's agents: None for the official five
            (mage, warrior, hunter, rogue, priest) on both sides; one pair of lists of 1-5
            class names, `(["mage", "priest"], ["rogue"])`; or a list of such pairs, one
            drawn per game. A team with fewer than five leaves its last slots empty.
        winning_score: Points that win a game (1-1000), or a list to draw from per game.
        horizon: Ticks before an open game ends as a draw (1-100,000).
        swap_spawns: Whether team a starts at the right end in some games: with one game
            on a fair coin per game, with N games in every odd-numbered game. False keeps
            team a on the left.
        red_zone_depth: Depth in map units (0-10) of each end's Red Zone: an agent killed
            within it, near its own spawn edge, gives the enemy 2 points instead of 1.
        metrics: `"none"`, `"priority"` (the 16 priority metrics per game, kept in
            `state.metrics` and, with N games, `info["metrics"]`) or `"full"` (also the
            who-did-what-to-whom accumulator of `marl_bgs.metrics.full`).
        obstacle_capacity: `(boxes, turned walls)` of room per game, at most (32, 8);
            None sizes it to the maps given. Room for more lets `reset_to` place larger
            inline maps; less makes every tick cheaper.

    Raises:
        FieldTypeError: A setting of the wrong type, naming it: `map_id: expected a whole
            number, got 47.0`. It is a `TypeError` and also a `ValueError`.
        ValueError: A setting out of range or unknown, naming it: `map: no map with id
            99`, `rosters[0][1][0]: unknown class 'paladin'; known: mage, ...`,
            `horizon: 0 is out of range [1, 100000]`, or an `obstacle_capacity` too small
            for the maps.
    """

    def __init__(
        self,
        map_id: int | Sequence[int] = 47,
        num_envs: int | None = None,
        rosters: Any = None,
        winning_score: int | Sequence[int] = 20,
        horizon: int = 300,
        swap_spawns: bool = True,
        red_zone_depth: float = 5,
        metrics: str = "none",
        obstacle_capacity: tuple[int, int] | None = None,
    ) -> None:
        bank = map_bank(map_id, obstacle_capacity)
        self.map_ids, self.obstacle_capacity, self._room = bank.map_ids, bank.capacity, bank.room
        self._maps, self._pad_lines = bank.maps, bank.pad_lines
        # With one map, a tick's batch rules read it as constants while every game plays it
        # (`core.known_map`); they check that at run time, so authored maps still work.
        one = len(self.map_ids) == 1
        self._map_type = expecting(jax.tree.map(lambda a: a[0], bank.maps)) if one else None
        self.rosters = read_rosters(rosters)
        self._rosters = jnp.asarray(roster_table(self.rosters))
        self._scores = jnp.asarray(winning_scores(winning_score), jnp.int32)
        self.horizon = whole(horizon, "horizon", 1, 100_000)
        depth = number(red_zone_depth, "red_zone_depth", 0.0, 10.0)
        self.red_zone_depth = thousandths(depth, "red_zone_depth")
        self.num_envs = self._games(num_envs)
        self.swap_spawns = boolean(swap_spawns, "swap_spawns")
        self._metric_width = metric_width(metrics)
        self.metrics = metrics
        self._spaces()

    # ---- the hooks SingleGame replaces ---------------------------------------------------
    def _games(self, num_envs: Any) -> int | None:
        """The `num_envs` setting, checked."""
        if num_envs is None:
            raise ValueError(
                "num_envs: TeamDeathmatch holds N games (1 to 2**20); for one game call "
                "make('tdm') without num_envs (marl_bgs.single_game.SingleGame)"
            )
        return whole(num_envs, "num_envs", 1, MAX_NUM_ENVS)

    @property
    def _games_shape(self) -> tuple[int, ...]:
        """The games axes every array leads with."""
        return (self.num_envs,)

    def _swap(self, key, index):
        """Whether a fresh game swaps the spawn ends: every odd-numbered game of the batch."""
        del key  # half the games, deterministically
        return index % 2 == 1

    def _gathered(self, states: list[EnvState], many: bool) -> EnvState:
        """`reset_to`'s games as one state: one per game, or one for every game."""
        if many:
            return jax.tree.map(lambda *xs: jnp.stack(xs), *states)
        shape = self._games_shape
        return jax.tree.map(lambda x: jnp.broadcast_to(x, shape + x.shape), states[0])

    def _step_info(self, s: EnvState, game: State, info, was_open, invalid, metrics) -> dict:
        """One game's info of a batch, as `step` documents it."""
        return {
            "result": game.result,
            "score": game.score,
            "tick": game.tick,
            "killed": info.killed & was_open,
            "new_game": jnp.broadcast_to(s.new_game, (NUM_SLOTS,)),
            "accepted": jnp.where(was_open, info.actions, 0),
            "invalid_action": invalid,  # (10,) an out-of-range action (traced only)
            "metrics": metrics,
            # The tick record (damage, healing, deaths, points... by slot), zero for a
            # game that had already ended: learners' rewards read who did what to whom
            # here. Unused outputs cost nothing inside an outer jit (they are pruned).
            "record": jax.tree.map(lambda x: jnp.where(was_open, x, 0).astype(x.dtype), info),
        }

    def _tick_info(self, info: dict, obs: dict) -> dict:
        """The batch's info after the tick: the last observations and new-game flags added."""
        info = dict(info)
        info["terminal_obs"] = obs
        info["new_game"] = {a: info["new_game"][..., i] for i, a in enumerate(AGENT_NAMES)}
        return info

    # ---- reset --------------------------------------------------------------------------
    def _new_game(self, key, index) -> EnvState:
        k_map, k_roster, k_score, k_swap = env_random.split(key, 4)
        mi = env_random.randint(k_map, (), 0, len(self.map_ids))
        m = jax.tree.map(lambda x: x[mi], self._maps)
        roster = self._rosters[env_random.randint(k_roster, (), 0, self._rosters.shape[0])]
        win = self._scores[env_random.randint(k_score, (), 0, self._scores.shape[0])]
        swap = self._swap(k_swap, index) if self.swap_spawns else jnp.asarray(False)
        spawn_end = jnp.where(swap, jnp.asarray([1, 0], jnp.int32), jnp.asarray([0, 1], jnp.int32))
        present = roster >= 0
        cls = jnp.maximum(roster, 0)
        game = fresh_state(jnp, cls, present, spawn_end, self.horizon, win, self.red_zone_depth)
        map_id = jnp.asarray(self.map_ids, jnp.int32)[mi]
        sight = compute_sight(jnp, game, m, self._pad_lines[mi, swap.astype(jnp.int32)])
        return self._wrap(game, m, map_id, sight, jnp.asarray(0, jnp.int32))

    def _wrap(self, game, m, map_id, sight, started) -> EnvState:
        return EnvState(
            game, m, map_id, sight, jnp.asarray(True), started + 1, self._fresh_metrics(game)
        )

    def _fresh_metrics(self, game: State):
        if not self._metric_width:
            return jnp.zeros(0, jnp.int32)
        priority = priority_start(jnp, game)
        if self.metrics == "priority":
            return priority_vector(jnp, priority)
        return jnp.concatenate([priority_vector(jnp, priority), full_start(jnp, priority)])

    @_jit
    def reset(self, key) -> tuple[dict, EnvState]:
        """Start every game afresh: a map, rosters and winning score drawn for each.

        ```python
        obs, state = env.reset(jax.random.key(0))
        obs["a0"].shape   # (784,) for one game, (N, 784) for num_envs=N
        ```

        Args:
            key (jax.Array): A JAX random key (`jax.random.key(seed)`); with N games it
                is split into one key per game.

        Returns:
            obs: Agent name (`"a0"`..`"b4"`) -> its observation, float32 of shape `(784,)`
                for one game, `(N, 784)` for `num_envs=N`.
            state: The games' `EnvState` (every leaf with a leading N axis for N games).
        """
        state = self._batched(self._new_game, self._keys(key), index_arg=True)
        return self._obs_dict(self._batched(self._obs_one, state)), state

    @_jit
    def reset_done(self, key, state: EnvState) -> tuple[dict, EnvState]:
        """Restart the finished games only; running games are returned untouched.

        Meant for `num_envs=N`, where `step` leaves a finished game frozen. A restarted
        game draws a fresh map, roster and winning score and counts one more in
        `state.games_started`; `state.new_game` marks it.

        Args:
            key (jax.Array): A JAX random key, split into one key per game.
            state: The games' `EnvState`, as the last `step` returned it.

        Returns:
            obs: Agent name -> observation, float32 `(N, 784)`: a restarted game's first
                observation, the running games' current one.
            state: The `EnvState` with the finished games replaced.
        """
        fresh = self._batched(self._new_game, self._keys(key), index_arg=True)
        fresh = fresh._replace(games_started=state.games_started + 1)
        finished = state.game.result != RESULT_OPEN

        def pick(new, old):
            mask = finished.reshape(finished.shape + (1,) * (new.ndim - finished.ndim))
            return jnp.where(mask, new, old)

        state = jax.tree.map(pick, fresh, state)
        return self._obs_dict(self._batched(self._obs_one, state)), state

    def reset_to(self, key, positions: dict | Sequence[dict]) -> tuple[dict, EnvState]:
        """Start games from authored positions: one for all games, or one per game.

        A position (`"marl-bgs/position"`, see `marl_bgs.core.position.starting_position`)
        spells out a whole game: map (an id or inline obstacles), every agent's class,
        place, health and effects, the score and the settings. Nothing is drawn.

        Args:
            key (jax.Array | None): Unused (positions are complete); kept for the JaxMARL
                call shape.
            positions: One position dict for every game, or a list of exactly N (one per
                game; a list of one for a single game).

        Returns:
            obs: Agent name -> observation, float32 `(784,)`, or `(N, 784)` for N games.
            state: The `EnvState` of the positions; `map_id` is -1 for an inline map.

        Raises:
            ValueError: A list whose length is not the number of games, or a position
                that does not parse, naming the field (`positions[3]: teams[0].agents[2].health: ...`),
                or an inline map larger than the env's `obstacle_capacity`.
            FieldTypeError: A field of the wrong type, named the same way.
        """
        del key  # positions are complete; nothing is drawn
        many = not isinstance(positions, dict)
        items = list(positions) if many else [positions]
        count = math.prod(self._games_shape)
        if many and len(items) != count:
            raise ValueError(f"positions: {len(items)} given for {count} games")
        states = []
        for i, p in enumerate(items):
            where = f"positions[{i}]" if many else "position"
            try:
                parsed = parse_position(p)
            except ValueError as err:
                kind = FieldTypeError if isinstance(err, TypeError) else ValueError
                raise kind(f"{where}: {err}") from None
            m = pack_map(parsed.obstacles, f"{where}.map", self._room)
            map_id = parsed.map_ref if isinstance(parsed.map_ref, int) else -1
            states.append(self._authored(parsed.state, m, np.int32(map_id)))
        state = self._gathered(states, many)
        return self.get_obs(state), state

    @_jit
    def _authored(self, game: State, m: MapArrays, map_id) -> EnvState:
        """One game's env state from a parsed position (compiled: eagerly, its sight test
        dispatched hundreds of small operations)."""
        return self._wrap(game, m, map_id, compute_sight(jnp, game, m), jnp.asarray(0, jnp.int32))

    # ---- step ---------------------------------------------------------------------------
    def _slots_from(self, actions) -> Any:
        """Actions as (*games, 10, 3) heads (`env_actions.slots_from`)."""
        return slots_from(actions, self._games_shape)

    def _step_one(self, s: EnvState, heads):
        # Out-of-range heads only reach here traced (concrete ones were refused): they are
        # flagged per slot in info["invalid_action"] for the caller to refuse, and clipped
        # so that the compiled tick stays in bounds meanwhile.
        limits = jnp.asarray(HEAD_LIMITS)
        was_open = s.game.result == RESULT_OPEN
        invalid = jnp.any((heads < 0) | (heads >= limits), axis=-1) & was_open
        heads = jnp.clip(heads, 0, limits - 1)
        raw = to_compass(s.game, heads)
        m = s.map if self._map_type is None else self._map_type(*s.map)
        game, info = tick_step(jnp, s.game, raw, m, s.sight)
        game = jax.tree.map(lambda new, old: jnp.where(was_open, new, old), game, s.game)
        sight = compute_sight(jnp, game, m)
        metrics = s.metrics
        if self._metric_width:
            p = len(PRIORITY_NAMES)
            priority = priority_update(jnp, priority_record(s.metrics[:p]), info, game, was_open)
            metrics = priority_vector(jnp, priority)
            if self.metrics == "full":
                full = full_update(
                    jnp, s.metrics[p:], priority, s.game, raw, info, game, s.sight.dist_sq,
                    was_open,
                )  # fmt: skip
                metrics = jnp.concatenate([metrics, full])
        new = s._replace(game=game, sight=sight, new_game=jnp.asarray(False), metrics=metrics)
        ended = was_open & (game.result != RESULT_OPEN)
        team = jnp.asarray(TEAM_OF)
        sign = jnp.where(
            game.result == RESULT_A, 1.0, jnp.where(game.result == RESULT_B, -1.0, 0.0)
        )
        reward = jnp.where(ended, jnp.where(team == 0, sign, -sign), 0.0).astype(jnp.float32)
        out = self._step_info(s, game, info, was_open, invalid, metrics)
        return self._obs_one(new), new, reward, game.result != RESULT_OPEN, out

    def step_env(self, key, state: EnvState, actions) -> tuple[dict, EnvState, dict, dict, dict]:
        """One tick of every game; a finished game stays as it is (no restart).

        JaxMARL's name for the step without the automatic restart; `step` with N games is
        this. The actions are read into heads first, so that every action form (and a
        `None` key) runs the same compiled tick.

        Args:
            key (jax.Array | None): Unused: a tick is deterministic given the actions.
            state: The games' `EnvState`.
            actions (dict | jax.Array): As in `step`.

        Returns:
            obs: As in `step`.
            state: As in `step`.
            reward: As in `step`.
            done: As in `step`.
            info: As in `step`.

        Raises:
            ValueError: Actions of a wrong shape, dtype or range, as in `step`.
        """
        del key  # transitions are deterministic
        return self._tick(state, self._slots_from(actions))

    @_jit
    def _tick(self, state: EnvState, heads) -> tuple[dict, EnvState, dict, dict, dict]:
        obs, state, reward, done, info = self._batched(self._step_one, state, heads)
        obs_d = self._obs_dict(obs)
        rewards = {a: reward[..., i] for i, a in enumerate(AGENT_NAMES)}
        dones = {a: done for a in AGENT_NAMES}
        dones["__all__"] = done
        return obs_d, state, rewards, dones, self._tick_info(info, obs_d)

    def step(
        self, key, state: EnvState, actions, reset_state: EnvState | None = None
    ) -> tuple[dict, EnvState, dict, dict, dict]:
        """One tick of both teams' actions in every game; finished games stay as they are
        until `reset_done` (one game, `SingleGame.step`, restarts them instead).

        ```python
        actions = env.sample_actions(key, state)        # {"a0": (N,) flat actions, ...}
        obs, state, reward, done, info = env.step(key, state, actions)
        obs, state = env.reset_done(key, state)
        ```

        Args:
            key (jax.Array | None): Unused (the tick is deterministic); may be None.
            state: The games' `EnvState`, from `reset` or the last `step`.
            actions (dict | jax.Array): One action per agent and game, in the agent's own
                frame: a dict agent name -> action, or one integer array over the ten
                agents. Per agent and game either a flat index 0-197, shaped `(N,)` or
                `(N, 1)`, or the heads `(move 0-8, target 0-10, Ultimate 0-1)`, shaped
                `(N, 3)`; so one array is `(N, 10)`, `(N, 10, 1)` or `(N, 10, 3)`. In
                range but illegal, a move is played as "stay" and a (target, Ultimate)
                pair as "no target, no Ultimate", each on its own.
            reset_state (EnvState | None): Refused here (only the single game restarts in
                `step`); kept for the JaxMARL call shape.

        Returns:
            obs: Agent name -> observation, float32 `(N, 784)`.
            state: The `EnvState` after the tick.
            reward: Agent name -> float32 `(N,)`: +1 to every agent of the team that won
                and -1 to the other team on the tick a game ends with a winner; 0
                otherwise (draws included).
            done: Agent name and `"__all__"` -> bool `(N,)`: the game is over (it stays
                True while the finished game is frozen).
            info: `result` `(N,)` int32 (-1 open, 0 team a won, 1 team b won, 2 draw),
                `score` `(N, 2)`, `tick` `(N,)` int32; `killed` and `invalid_action`
                `(N, 10)` bool; `accepted` `(N, 10, 3)` int32 compass heads; `metrics`
                `(N, M)` int32 (M = 0, 16, or 16 + the full width, by the `metrics`
                setting); `record`, the tick's `TickInfo` (damage, healing, effects, ...
                by slot); `terminal_obs` and `new_game`, dicts per agent of `(N, 784)`
                float32 and `(N,)` bool.

        Raises:
            ValueError: Concrete actions of a wrong shape, a non-integer dtype or a value
                out of range, naming the field, place and value (`actions: flat action
                500 at index (0, 3) is outside 0..197`); a dict without some agent; a
                `reset_state`. Traced actions (inside your own `jit`) cannot be read:
                out-of-range ones are flagged in `info["invalid_action"]` instead.
        """
        if reset_state is not None:
            raise ValueError(
                "reset_state: only the single-game env (num_envs=None) restarts in step; "
                "with num_envs games call reset_done"
            )
        return self.step_env(key, state, actions)
