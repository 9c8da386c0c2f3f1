"""What the agents see and may do: their names and spaces, and what a state shows, read
without changing it (observations, legal-action masks, uniform legal sampling, the critic's
world state, each team's inputs).

`EnvViews` is the base class of `TeamDeathmatch` (`env.py`), which adds the settings and
the games' life (reset, step). Every view is written for one game and mapped over the env's
games by `_batched`, the one batching rule all methods go through: `jax.vmap` over
`num_envs` games here, a plain call in the single game (`single_game.py` overrides
`_batched` and `_keys`).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from . import env_random
from .core.actions import (
    HEAD_LIMITS,
    NUM_JOINT,
    NUM_MOVES,
    NUM_TARGETS,
    compass_flat,
    encode_pair,
    own_frame_joint,
)
from .core.array_ops import first_index, row_bits
from .core.inputs import TeamInputs
from .core.observation import OBS_HIGH, OBS_LOW, OBS_WIDTH, observations
from .core.sight import TEAM as TEAM_OF
from .core.sight import joint_mask, legal_masks
from .core.state import AGENT_NAMES, NUM_SLOTS, TEAM_SIZE
from .env_state import EnvState
from .spaces import Box, Discrete, MultiDiscrete

# Compiled once per env like JaxMARL's base class does (the env itself is the static part).
_jit = partial(jax.jit, static_argnums=(0,))


def nth_legal(key, legal):
    """Per row of `legal` (rows, choices), a uniformly drawn index among its True entries.

    Every row must have one (staying and "no target, no Ultimate" are always legal). Rows
    of up to 32 choices find the drawn entry by halving the row's bits (five population
    counts), not by a cumulative sum over the row (XLA's sum over a window per entry).
    """
    count = jnp.sum(legal, axis=-1, dtype=jnp.int32)
    nth = env_random.randint(key, count.shape, 0, count)
    width = legal.shape[-1]
    if width > 32:
        rank = jnp.cumsum(legal, axis=-1, dtype=jnp.int32) - 1
        return first_index(jnp, legal & (rank == nth[:, None]), axis=-1)
    bits = row_bits(jnp, legal)
    start = jnp.zeros(count.shape, jnp.uint32)  # the drawn entry is at start or after it
    left = nth.astype(jnp.uint32)  # how many True entries from start come before it
    for half in (16, 8, 4, 2, 1):
        below = jax.lax.population_count(jnp.right_shift(bits, start) & np.uint32(2**half - 1))
        past = left >= below  # not among the next `half` entries: skip them
        left = jnp.where(past, left - below, left)
        start = jnp.where(past, start + half, start)
    return start.astype(jnp.int32)


class EnvViews:
    """The env's agents and spaces, and its read-only views of a state (each one game's
    function mapped over the games).

    Attributes:
        num_envs: The number of games (set by `TeamDeathmatch`); None in the single game.
    """

    num_envs: int | None
    # The space classes; marl_bgs.jaxmarl_api swaps in subclasses of JaxMARL's own.
    space_types: tuple[type, type, type] = (Box, Discrete, MultiDiscrete)

    def _spaces(self) -> None:
        """The agents and their spaces, as JaxMARL's environments hold them."""
        self.agents = list(AGENT_NAMES)
        self.num_agents = NUM_SLOTS
        box, discrete, multi = self.space_types
        self.observation_spaces = {a: box(OBS_LOW, OBS_HIGH, (OBS_WIDTH,)) for a in AGENT_NAMES}
        self.action_spaces = {a: discrete(NUM_JOINT) for a in AGENT_NAMES}
        self.head_spaces = {a: multi(HEAD_LIMITS) for a in AGENT_NAMES}

    # ---- names and spaces ---------------------------------------------------------------
    @property
    def name(self) -> str:
        """The id `make` takes."""
        return "tdm"

    @property
    def agent_classes(self) -> dict[str, list[str]]:
        """Agents grouped by team (classes are drawn per game, so they cannot group agents)."""
        return {"team_a": list(AGENT_NAMES[:TEAM_SIZE]), "team_b": list(AGENT_NAMES[TEAM_SIZE:])}

    def _agent(self, agent: str) -> str:
        if agent not in self.observation_spaces:
            raise ValueError(f"agent: unknown agent {agent!r}; the agents are {list(AGENT_NAMES)}")
        return agent

    def observation_space(self, agent: str = "a0") -> Box:
        """Every agent's observation: OBS_WIDTH float32 numbers in [OBS_LOW, OBS_HIGH].

        Args:
            agent: An agent's name, `"a0"`..`"b4"`; all ten share the same space.

        Returns:
            A `Box` of shape `(784,)`, dtype float32, bounds -2 and 2.

        Raises:
            ValueError: An unknown agent name.
        """
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent: str = "a0") -> Discrete:
        """Every agent's flat action: one of 198 (move, target, Ultimate) choices.

        A flat action `f` is the heads `(f // 22, (f // 2) % 11, f % 2)`: move 0-8,
        target 0-10, Ultimate 0-1, in the agent's own frame.

        Args:
            agent: An agent's name, `"a0"`..`"b4"`; all ten share the same space.

        Returns:
            A `Discrete` space of 198 choices.

        Raises:
            ValueError: An unknown agent name.
        """
        return self.action_spaces[self._agent(agent)]

    # ---- batching -----------------------------------------------------------------------
    def _batched(self, fn, *args, index_arg: bool = False):
        """`fn` of one game over every game (`index_arg`: also the game's index, last)."""
        if index_arg:
            keys, rest = args[0], args[1:]
            idx = jnp.arange(self.num_envs)
            return jax.vmap(fn, in_axes=(0,) + (0,) * len(rest) + (0,))(keys, *rest, idx)
        return jax.vmap(fn)(*args)

    def _keys(self, key):
        """One key per game."""
        return env_random.split(key, self.num_envs)

    # ---- observations -------------------------------------------------------------------
    def _obs_one(self, s: EnvState):
        return observations(jnp, s.game, s.map, s.sight)

    def _obs_dict(self, obs):
        return {a: obs[..., i, :] for i, a in enumerate(AGENT_NAMES)}

    @_jit
    def get_obs(self, state: EnvState) -> dict:
        """Every agent's observation of the state, as `reset` and `step` return it.

        Args:
            state: The env state, one game or N.

        Returns:
            Agent name -> observation, `(784,)` float32 (`(N, 784)` with N games).
        """
        return self._obs_dict(self._batched(self._obs_one, state))

    # ---- masks and sampling -------------------------------------------------------------
    def _joint_one(self, s: EnvState):
        """Legal flat actions per slot in each agent's own frame, (10, 198)."""
        masks = legal_masks(jnp, s.game, s.sight)
        joint = joint_mask(masks)
        end = s.game.spawn_end[jnp.asarray(TEAM_OF)]
        return own_frame_joint(jnp, joint, end)

    @_jit
    def get_avail_actions(self, state: EnvState) -> dict:
        """Exact masks of the 198 joint choices per agent, in its own frame.

        Args:
            state: The games' `EnvState`.

        Returns:
            Agent name -> bool `(198,)` (`(N, 198)` for N games), True where the flat
                action is legal; "stay, no target, no Ultimate" (0) always is.
        """
        joint = self._batched(self._joint_one, state)
        return {a: joint[..., i, :] for i, a in enumerate(AGENT_NAMES)}

    @_jit
    def get_avail_heads(self, state: EnvState) -> dict:
        """Per-head masks per agent: (move 9, target 11, ultimate 2), in its own frame.

        Args:
            state: The games' `EnvState`.

        Returns:
            Agent name -> a tuple of three bool masks, `(9,)`, `(11,)` and `(2,)` (each
                with a leading N axis for N games), True where some legal joint action
                uses that value.
        """
        joint = self._batched(self._joint_one, state).reshape(
            (*state.game.tick.shape, NUM_SLOTS, NUM_MOVES, NUM_TARGETS, 2)
        )
        move = joint.any(axis=(-1, -2))
        target = joint.any(axis=(-1, -3))
        ult = joint.any(axis=(-2, -3))
        return {
            a: (move[..., i, :], target[..., i, :], ult[..., i, :])
            for i, a in enumerate(AGENT_NAMES)
        }

    def _sample_one(self, key, s: EnvState):
        """Uniform legal flat actions per slot, in each agent's own frame.

        The joint mask is a product (legal moves x legal target-Ultimate pairs), so drawing a
        legal move and a legal pair independently is uniform over the legal joint choices.
        Each is one random whole number below its count of legal choices, read as "the
        r-th legal one": two draws per agent, where a Gumbel draw over every choice would
        spend 31 random numbers and 62 logarithms.
        """
        masks = legal_masks(jnp, s.game, s.sight)
        k_move, k_pair = env_random.split(key, 2)
        move = nth_legal(k_move, masks.move)
        pair = nth_legal(k_pair, masks.pair.reshape(NUM_SLOTS, -1))
        flat = encode_pair(move, pair).astype(jnp.int32)
        end = s.game.spawn_end[jnp.asarray(TEAM_OF)]
        return compass_flat(jnp, flat, end)

    @_jit
    def sample_actions(self, key, state: EnvState) -> dict:
        """Uniform over each agent's legal joint choices: a flat action per agent.

        Args:
            key (jax.Array): A JAX random key.
            state: The games' `EnvState`.

        Returns:
            Agent name -> int32 flat action in 0..197, shape `()` (`(N,)` for N games),
                ready for `step`.
        """
        flat = self._batched(self._sample_one, self._keys(key), state)
        return {a: flat[..., i] for i, a in enumerate(AGENT_NAMES)}

    # ---- learner inputs -----------------------------------------------------------------
    @_jit
    def world_state(self, state: EnvState):
        """Everything, for a centralized critic: (games, 2 teams, OBS_WIDTH) in each team's
        frame, as its first slot would see it with nothing hidden.

        Args:
            state: The games' `EnvState`.

        Returns:
            (jax.Array): float32 `(2, 784)` for one game, `(N, 2, 784)` for N games: row 0
                in team a's frame, row 1 in team b's.
        """

        def one(s: EnvState):
            living = s.game.present & s.game.alive
            everyone = jnp.broadcast_to(living[None, :], (NUM_SLOTS, NUM_SLOTS))
            oracle = s.sight._replace(team_sees=everyone)
            return observations(jnp, s.game, s.map, oracle)[jnp.asarray([0, TEAM_SIZE])]

        return self._batched(one, state)

    def team_inputs(self, state: EnvState, team: int) -> TeamInputs:
        """Only what a team's agents may see: their observations, masks, roster and flags.

        These are the inputs a System's `act` receives (see `marl_bgs.systems`).

        Args:
            state: The games' `EnvState`.
            team: 0 for team a, 1 for team b.

        Returns:
            The team's `TeamInputs`: `obs` float32 `(5, 784)`, `avail` bool `(5, 198)`,
                `present`, `alive` bool `(5,)`, `classes` int32 `(5,)`, `new_game` bool
                `()`; each with a leading N axis for N games.

        Raises:
            ValueError: A team other than 0 or 1.
        """
        if team not in (0, 1):
            raise ValueError(f"team: must be 0 or 1, got {team!r}")
        return self.teams_inputs(state)[team]

    def teams_inputs(self, state: EnvState) -> tuple[TeamInputs, TeamInputs]:
        """Both teams' `team_inputs` from one pass over the ten slots: where both teams act
        in one tick, the observations and masks are computed once, not once per team.

        Args:
            state: The games' `EnvState`.

        Returns:
            team_a: Team a's `TeamInputs`, shaped as `team_inputs` gives them.
            team_b: Team b's `TeamInputs`.
        """
        obs = self._batched(self._obs_one, state)
        joint = self._batched(self._joint_one, state)
        present, alive = state.game.present, state.game.alive & state.game.present

        def team(t: int) -> TeamInputs:
            rows = slice(t * TEAM_SIZE, (t + 1) * TEAM_SIZE)
            return TeamInputs(
                obs=obs[..., rows, :],
                avail=joint[..., rows, :],
                present=present[..., rows],
                alive=alive[..., rows],
                classes=state.game.cls[..., rows],
                new_game=state.new_game,
            )

        return team(0), team(1)

    def new_game(self, state: EnvState) -> dict:
        """Per agent: the observation is the first of a new game (reset recurrent memory).

        Args:
            state: The games' `EnvState`.

        Returns:
            Agent name -> bool `()` (`(N,)` for N games), `state.new_game` for every agent.
        """
        return {a: state.new_game for a in AGENT_NAMES}
