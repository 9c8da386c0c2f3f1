"""The JAX environment: one game JaxMARL's way, or many games at once with explicit restarts.

    env = marl_bgs.make("tdm", map_id=47)            # one game, a drop-in JaxMARL env
    obs, state = env.reset(key)
    obs, state, reward, done, info = env.step(key, state, actions)  # restarts a finished game

    env = marl_bgs.make("tdm", map_id=47, num_envs=1024)   # many games, our own loops
    obs, state = env.reset(key)
    obs, state, reward, done, info = env.step(key, state, actions)  # finished games stay
    obs, state = env.reset_done(key, state)          # restart only the finished games

With `num_envs=None` (the default) the env is one game that behaves as JaxMARL's
`MultiAgentEnv` does: `step` starts a new game when one ends (the finished game's result
stays in `done`, `reward` and `info`), every `info` leaf has one entry per agent, and when
JaxMARL is installed `make` returns a subclass of its `MultiAgentEnv`
(`marl_bgs.jaxmarl_api`), so its wrappers and baselines run unchanged under `jax.vmap`.
With `num_envs=N` the env holds N games and a finished game stays frozen, its last
observation in `obs` and `info["terminal_obs"]`, until `reset_done` restarts it.

Everything that varies between games (map, rosters, spawn ends, winning score, horizon) is
a value inside the state, so mixing or changing them never recompiles. Actions and
observations are in each agent's own frame: its spawn end is on the left and "east" moves
toward the enemy's end, so one policy serves both ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .core import classes as C
from .core.actions import (
    HEAD_LIMITS,
    HEAD_NAMES,
    MIRROR_FLAT,  # noqa: F401 (importable from here, as before)
    NUM_JOINT,
    NUM_MOVES,
    NUM_TARGETS,
    compass_flat,
    compass_move,
    decode,
    encode,
    encode_pair,
    own_frame_joint,
)
from .core.array_ops import first_index
from .core.checks import (
    FieldTypeError,
    boolean,
    choice,
    number,
    one_or_many,
    sequence,
    thousandths,
    whole,
)
from .core.inputs import TeamInputs
from .core.observation import MAX_TURNED_WALLS, OBS_HIGH, OBS_LOW, OBS_WIDTH, observations
from .core.position import OFFICIAL_ROSTER
from .core.sight import TEAM as TEAM_OF
from .core.sight import (
    Sight,
    compute_sight,
    joint_mask,
    legal_masks,
    sight_lines,
)
from .core.state import (
    AGENT_NAMES,
    MAX_OBSTACLES,
    NUM_SLOTS,
    RESULT_A,
    RESULT_B,
    RESULT_OPEN,
    TEAM_SIZE,
    MapArrays,
    State,
    fresh_state,
    map_arrays,
    obstacle_groups,
    pad_positions,
)
from .core.tick import step as tick_step
from .maps import load_map
from .metrics import (
    PRIORITY_NAMES,
    priority_record,
    priority_start,
    priority_update,
    priority_vector,
)
from .metrics.full import FULL_WIDTH, full_start, full_update
from .positions import parse_position
from .spaces import Box, Discrete, MultiDiscrete


class EnvState(NamedTuple):
    """The state of one game, as `reset` and `step` return it; with `num_envs=N` every leaf
    gains a leading games axis of length N.

    A JAX pytree of arrays: hand it back to `step`, and `jit`, `vmap` or `scan` over it as
    over any pytree. The engine's numbers are exact integers (positions in milli-units,
    health in milli-HP).

    Attributes:
        game: The engine's `State` of all ten slots: `tick`, `score` `(2,)`, `result` (-1
            open, 0 team a won, 1 team b won, 2 draw), `pos` `(10, 2)`, `health` `(10,)`,
            `alive` `(10,)` and the rest, all int32 or bool.
        map: The game's obstacles as fixed-shape arrays, padded to the env's
            `obstacle_capacity` so that every map runs in the same compiled program.
        map_id: `()` int32, the map's id; -1 for a map given inline to `reset_to`.
        sight: Who sees whom at the start of the next tick (computed once per state).
        new_game: `()` bool, True while the game is fresh: (re)started and not yet ticked.
        games_started: `()` int32, games started in this slot so far (an episode counter).
        metrics: int32 running metrics of the game: `(0,)` with `metrics="none"`; the 16
            priority metrics (`marl_bgs.metrics.PRIORITY_NAMES`) with `"priority"`; those,
            then the full accumulator with `"full"`
            (`marl_bgs.metrics.full.full_values(metrics[..., 16:])` gives its columns).
    """

    game: State
    map: MapArrays
    map_id: Any  # () int32, -1 for a map given inline
    sight: Sight  # sight of the current state: the next tick's start-of-tick sight
    new_game: Any  # () bool: the game was just (re)started and has not ticked yet
    games_started: Any  # () int32 games started in this slot (an episode counter)
    # (16,) int32 priority metrics so far (metrics="priority"); with metrics="full" they are
    # followed by the full accumulator (metrics.full.FULL_WIDTH: its columns, then scratch;
    # `metrics.full.full_values(metrics[..., 16:])` gives the columns); else (0,)
    metrics: Any


# Compiled once per env like JaxMARL's base class does (the env itself is the static part).
_jit = partial(jax.jit, static_argnums=(0,))


def pack_map(obstacles: list[dict], where: str, capacity: tuple[int, int, int, int]) -> MapArrays:
    """Map arrays padded to the environment's capacity, shared by all its games: room for
    (boxes, turned walls, pillars, square walls), the last two for the sight test."""
    boxes, polys, pillars, rects = capacity
    try:
        return map_arrays(obstacles, boxes=boxes, polys=polys, pillars=pillars, rects=rects)
    except ValueError as err:
        raise ValueError(
            f"{where}: {err} (raise the environment's obstacle_capacity to fit it)"
        ) from None


def _roster_arrays(rosters: Sequence[tuple[Sequence[str], Sequence[str]]]) -> np.ndarray:
    """Class id per slot, -1 for an empty slot, shape (R, 10)."""
    table = np.full((len(rosters), NUM_SLOTS), -1, np.int32)
    for r, pair in enumerate(rosters):
        for t, team in enumerate(sequence(pair, f"rosters[{r}]", 2, 2)):
            for k, name in enumerate(sequence(team, f"rosters[{r}][{t}]", 1, TEAM_SIZE)):
                table[r, t * TEAM_SIZE + k] = C.CLASS_INDEX[
                    choice(name, f"rosters[{r}][{t}][{k}]", tuple(C.CLASS_INDEX), "class")
                ]
    return table


def _rosters(rosters: Any) -> tuple:
    """`rosters` as a tuple of (team a, team b) class-name tuples: None (the official
    roster), one pair of lists, or a non-empty list of pairs."""
    if rosters is None:
        return ((OFFICIAL_ROSTER, OFFICIAL_ROSTER),)
    pairs = sequence(rosters, "rosters", lo=1)
    flat = [isinstance(t, (list, tuple)) and not any(isinstance(n, (list, tuple)) for n in t)
            for t in pairs]  # fmt: skip
    if len(pairs) == 2 and all(flat):
        pairs = [pairs]  # one pair of teams (flat lists of names)
    _roster_arrays(pairs)  # every entry checked, naming it
    return tuple((tuple(a), tuple(b)) for a, b in pairs)


METRIC_LEVELS = ("none", "priority", "full")
MAX_NUM_ENVS = 1 << 20  # far beyond any device's memory at this state size; a typo guard


def _as_heads(x: Any, lead: tuple[int, ...], where: str) -> Any:
    """One field of actions as heads (*lead, 3): flat `lead` or `lead + (1,)`, or heads
    `lead + (3,)`; any other shape or dtype is refused naming the field.

    The contract: integer arrays of exactly these shapes, every value in range (flat
    0..197; move 0..8, target 0..10, Ultimate 0..1). Concrete actions out of range are
    refused here, naming the field, the place and the value (checked before any cast, so
    an int64 too large for int32 cannot wrap into range). Traced actions (inside an outer
    `jit` or `scan`) cannot be read, so `_step_one` flags them instead
    (`info["invalid_action"]`), and evaluate, seasons and the trainer refuse a batch that
    has any. An in-range but illegal action is the rules' business (it becomes "stay" /
    "no target") and is not an error.
    """
    if not isinstance(x, jax.Array):  # host values: NumPy arrays, lists, Python numbers
        try:
            x = np.asarray(x)
        except (ValueError, TypeError) as err:
            raise ValueError(f"{where}: not an array of whole numbers ({err})") from None
        if x.dtype == object or not np.issubdtype(x.dtype, np.integer):
            raise ValueError(f"{where}: dtype {x.dtype} is not an integer type")
    elif not jnp.issubdtype(x.dtype, jnp.integer):
        raise ValueError(f"{where}: dtype {x.dtype} is not an integer type")
    if x.shape == (*lead, 3):
        _check_range(x, where, HEAD_LIMITS)
        return jnp.asarray(x).astype(jnp.int32)
    if x.shape == (*lead, 1):
        x = x[..., 0]
    elif x.shape != lead:
        raise ValueError(
            f"{where}: shape {x.shape}; expected {lead} or {(*lead, 1)} for flat actions "
            f"(0..{NUM_JOINT - 1}) or {(*lead, 3)} for (move, target, Ultimate) heads"
        )
    _check_range(x, where, None)
    x = jnp.asarray(x).astype(jnp.int32)
    return jnp.stack(decode(x), axis=-1)


def _check_range(x: Any, where: str, limits: tuple[int, ...] | None) -> None:
    """Refuse concrete out-of-range actions, naming the first; traced ones pass (flagged
    later). `limits`: per-head sizes for heads (..., 3), None for flat indices."""
    if isinstance(x, jax.core.Tracer):
        return
    v = np.asarray(x).astype(np.int64)
    high = np.asarray(limits) if limits is not None else NUM_JOINT
    bad = (v < 0) | (v >= high)
    if not bad.any():
        return
    at = tuple(int(i) for i in np.argwhere(bad)[0])
    if limits is not None:
        head, place = HEAD_NAMES[at[-1]], at[:-1]
        raise ValueError(
            f"{where}: {head} {int(v[at])} at index {place} is outside 0..{limits[at[-1]] - 1}"
        )
    raise ValueError(
        f"{where}: flat action {int(v[at])} at index {at} is outside 0..{NUM_JOINT - 1}"
    )


def _nth_legal(key, legal):
    """Per row of `legal` (rows, choices), a uniformly drawn index among its True entries.

    Every row must have one (staying and "no target, no Ultimate" are always legal).
    """
    count = jnp.sum(legal, axis=-1, dtype=jnp.int32)
    nth = jax.random.randint(key, count.shape, 0, count)
    rank = jnp.cumsum(legal, axis=-1, dtype=jnp.int32) - 1
    return first_index(jnp, legal & (rank == nth[:, None]), axis=-1)


class TeamDeathmatch:
    """Team Deathmatch as a JAX environment: one game (JaxMARL's way) or N games at once.

    Build it with `make("tdm", ...)`, which takes the same keyword arguments. There are ten
    agents, `"a0"`..`"a4"` (team a) and `"b0"`..`"b4"` (team b); `reset`, `step` and the
    other methods take and return dicts keyed by these names. Every agent observes 784
    float32 numbers in [-2, 2] (`observation_space`, laid out on the Observation layout
    page) and plays one of 198 flat actions per tick (`action_space`): move (9) x target
    (11) x Ultimate (2), all in the agent's own frame, where its spawn end is on the left.

    Args:
        map_id: A map id (0-51) or a non-empty list of ids; each game draws one of them
            whenever it (re)starts.
        num_envs: None for one game that `step` restarts itself when it ends (JaxMARL's
            contract); N (1 to 2**20) for N games at once, each frozen when it ends until
            `reset_done` restarts it. N becomes the leading axis of every array.
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

    # The space classes; marl_bgs.jaxmarl_api swaps in subclasses of JaxMARL's own.
    space_types: tuple[type, type, type] = (Box, Discrete, MultiDiscrete)

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
        many, is_list = one_or_many(map_id, "map_id")
        where = [f"map_id[{i}]" for i in range(len(many))] if is_list else ["map_id"]
        ids = [whole(m, w, 0, 10**6) for m, w in zip(many, where, strict=True)]
        self.map_ids = tuple(ids)
        obstacles = [load_map(i)["obstacles"] for i in ids]
        self.obstacle_capacity = self._capacity(obstacles, obstacle_capacity)
        self._room = self._sight_room(obstacles, obstacle_capacity, self.obstacle_capacity)
        banks = [
            pack_map(obs, f"map_id {i}", self._room) for i, obs in zip(ids, obstacles, strict=True)
        ]
        self._maps = jax.tree.map(lambda *xs: jnp.asarray(np.stack(xs)), *banks)
        # Sight lines between the spawn pads, per map and spawn-end order (unswapped, swapped):
        # every fresh game looks them up instead of testing 45 lines (exact: same integers).
        ends = (np.asarray([0, 1], np.int32), np.asarray([1, 0], np.int32))
        self._pad_lines = jnp.asarray(
            [[sight_lines(np, pad_positions(e), bank) for e in ends] for bank in banks]
        )
        self.rosters = _rosters(rosters)
        self._rosters = jnp.asarray(_roster_arrays(self.rosters))
        scores, is_list = one_or_many(winning_score, "winning_score")
        scores = [
            whole(v, f"winning_score[{i}]" if is_list else "winning_score", 1, 1000)
            for i, v in enumerate(scores)
        ]
        self._scores = jnp.asarray(scores, jnp.int32)
        self.horizon = whole(horizon, "horizon", 1, 100_000)
        depth = number(red_zone_depth, "red_zone_depth", 0.0, 10.0)
        self.red_zone_depth = thousandths(depth, "red_zone_depth")
        self.num_envs = None if num_envs is None else whole(num_envs, "num_envs", 1, MAX_NUM_ENVS)
        self.swap_spawns = boolean(swap_spawns, "swap_spawns")
        choice(metrics, "metrics", METRIC_LEVELS)
        self.metrics = metrics
        self._metric_width = {"none": 0, "priority": len(PRIORITY_NAMES)}.get(
            metrics, len(PRIORITY_NAMES) + FULL_WIDTH
        )
        self.agents = list(AGENT_NAMES)
        self.num_agents = NUM_SLOTS
        box, discrete, multi = self.space_types
        self.observation_spaces = {a: box(OBS_LOW, OBS_HIGH, (OBS_WIDTH,)) for a in AGENT_NAMES}
        self.action_spaces = {a: discrete(NUM_JOINT) for a in AGENT_NAMES}
        self.head_spaces = {a: multi(HEAD_LIMITS) for a in AGENT_NAMES}

    @staticmethod
    def _capacity(obstacles: list[list[dict]], asked: tuple[int, int] | None) -> tuple[int, int]:
        """Room for boxes and turned walls per game: what the maps need unless asked for.

        It fixes array shapes, so every map that fits runs in the same compiled program;
        smaller room makes every tick cheaper (turned walls are the dearer tests).
        """
        need_boxes = max(len(obstacle_groups(o)[0]) for o in obstacles)
        need_walls = max(len(obstacle_groups(o)[1]) for o in obstacles)
        if asked is None:
            return max(need_boxes, 1), max(need_walls, 1)
        boxes, walls = sequence(asked, "obstacle_capacity", 2, 2)
        boxes = whole(boxes, "obstacle_capacity[0]")
        walls = whole(walls, "obstacle_capacity[1]")
        if not (need_boxes <= boxes <= MAX_OBSTACLES and need_walls <= walls <= MAX_TURNED_WALLS):
            raise ValueError(
                f"obstacle_capacity: {asked!r} must hold the maps' {need_boxes} boxes and "
                f"{need_walls} turned walls, within ({MAX_OBSTACLES}, {MAX_TURNED_WALLS})"
            )
        return int(boxes), int(walls)

    @staticmethod
    def _sight_room(
        obstacles: list[list[dict]], asked: tuple[int, int] | None, capacity: tuple[int, int]
    ) -> tuple[int, int, int, int]:
        """The capacity plus room for the boxes split by shape (pillars, square walls).

        Sized to the maps by default; a capacity asked for serves any map that fits it, so
        either split group then has room for every box.
        """
        boxes = [obstacle_groups(o)[0] for o in obstacles]
        if asked is None:
            pillars = max(max(sum(1 for b in bs if b[2] > 0) for bs in boxes), 1)
            rects = max(max(sum(1 for b in bs if b[2] == 0) for bs in boxes), 1)
        else:
            pillars = rects = capacity[0]
        return capacity[0], capacity[1], pillars, rects

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
        if self.num_envs is None:
            return fn(*args, None) if index_arg else fn(*args)
        if index_arg:
            keys, rest = args[0], args[1:]
            idx = jnp.arange(self.num_envs)
            return jax.vmap(fn, in_axes=(0,) + (0,) * len(rest) + (0,))(keys, *rest, idx)
        return jax.vmap(fn)(*args)

    def _keys(self, key):
        return key if self.num_envs is None else jax.random.split(key, self.num_envs)

    # ---- reset --------------------------------------------------------------------------
    def _new_game(self, key, index) -> EnvState:
        k_map, k_roster, k_score, k_swap = jax.random.split(key, 4)
        mi = jax.random.randint(k_map, (), 0, len(self.map_ids))
        m = jax.tree.map(lambda x: x[mi], self._maps)
        roster = self._rosters[jax.random.randint(k_roster, (), 0, self._rosters.shape[0])]
        win = self._scores[jax.random.randint(k_score, (), 0, self._scores.shape[0])]
        if not self.swap_spawns:
            swap = jnp.asarray(False)
        elif index is None:
            swap = jax.random.bernoulli(k_swap)
        else:
            swap = index % 2 == 1  # half the games, deterministically
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
        count = 1 if self.num_envs is None else self.num_envs
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
        if self.num_envs is None:
            state = states[0]
        elif many:
            state = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
        else:
            state = jax.tree.map(lambda x: jnp.broadcast_to(x, (count,) + x.shape), states[0])
        return self.get_obs(state), state

    @_jit
    def _authored(self, game: State, m: MapArrays, map_id) -> EnvState:
        """One game's env state from a parsed position (compiled: eagerly, its sight test
        dispatched hundreds of small operations)."""
        sight = compute_sight(jnp, game, m)
        started = jnp.asarray(1, jnp.int32)
        return EnvState(
            game, m, map_id, sight, jnp.asarray(True), started, self._fresh_metrics(game)
        )

    # ---- actions ------------------------------------------------------------------------
    def _slots_from(self, actions) -> Any:
        """Actions as (..., 10, 3) heads: a dict per agent or one array over the agents.

        Per agent either a flat index (shape `()` or `(1,)` per game, as JaxMARL's baselines
        send it) or the three heads (shape `(3,)`); the shape decides, and any other shape
        or a non-integer dtype is refused naming the field, never guessed.
        """
        games = () if self.num_envs is None else (self.num_envs,)
        if isinstance(actions, Mapping):
            missing = [a for a in AGENT_NAMES if a not in actions]
            if missing:
                raise ValueError(f"actions: no action for agent {missing[0]!r}")
            unknown = [a for a in actions if a not in AGENT_NAMES]
            if unknown:  # a typo's action would otherwise be dropped without a word
                names = ", ".join(repr(a) for a in unknown)
                raise ValueError(f"actions: unknown agent {names}; agents are a0..a4, b0..b4")
            parts = [_as_heads(actions[a], games, f"actions[{a!r}]") for a in AGENT_NAMES]
            return jnp.stack(parts, axis=-2)
        return _as_heads(actions, (*games, NUM_SLOTS), "actions")

    def _to_absolute(self, game: State, heads):
        """Agent-frame moves to compass moves (mirrored for the right end's agents)."""
        end = game.spawn_end[jnp.asarray(TEAM_OF)]
        return heads.at[:, 0].set(compass_move(jnp, heads[:, 0], end))

    # ---- step ---------------------------------------------------------------------------
    def _step_one(self, s: EnvState, heads):
        # Out-of-range heads only reach here traced (concrete ones were refused): they are
        # flagged per slot in info["invalid_action"] for the caller to refuse, and clipped
        # so that the compiled tick stays in bounds meanwhile.
        limits = jnp.asarray(HEAD_LIMITS)
        was_open = s.game.result == RESULT_OPEN
        invalid = jnp.any((heads < 0) | (heads >= limits), axis=-1) & was_open
        heads = jnp.clip(heads, 0, limits - 1)
        raw = self._to_absolute(s.game, heads)
        game, info = tick_step(jnp, s.game, raw, s.map, s.sight)
        game = jax.tree.map(lambda new, old: jnp.where(was_open, new, old), game, s.game)
        sight = compute_sight(jnp, game, s.map)
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
        if self.num_envs is None:
            out = self._agent_info(s, game, info, was_open)
            out["invalid_action"] = invalid
        else:
            out = {
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
        return self._obs_one(new), new, reward, game.result != RESULT_OPEN, out

    @staticmethod
    def _agent_info(s: EnvState, game: State, info, was_open) -> dict:
        """The single game's info: every leaf shaped (10,), one entry per agent, so that
        JaxMARL's baselines can reshape each to (num_envs * num_agents). The priority
        metrics, one set per game, are in `state.metrics` instead."""
        team = jnp.asarray(TEAM_OF)
        acts = info.actions
        end = game.spawn_end[team]
        flat = encode(compass_move(jnp, acts[:, 0], end), acts[:, 1], acts[:, 2])
        per_agent = (NUM_SLOTS,)
        return {
            "result": jnp.broadcast_to(game.result, per_agent),
            "own_score": game.score[team],
            "enemy_score": game.score[1 - team],
            "tick": jnp.broadcast_to(game.tick, per_agent),
            "killed": info.killed & was_open,
            "new_game": jnp.broadcast_to(s.new_game, per_agent),
            "accepted": jnp.where(was_open, flat, -1).astype(jnp.int32),
        }

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
        if self.num_envs is not None:
            info = dict(info)
            info["terminal_obs"] = obs_d
            info["new_game"] = {a: info["new_game"][..., i] for i, a in enumerate(AGENT_NAMES)}
        return obs_d, state, rewards, dones, info

    def step(
        self, key, state: EnvState, actions, reset_state: EnvState | None = None
    ) -> tuple[dict, EnvState, dict, dict, dict]:
        """One tick of both teams' actions in every game.

        One game (`num_envs=None`): a game that ends is replaced by a new one, drawn from
        `key` or given as `reset_state`, whose observation is returned while `reward`,
        `done` and `info` report the tick that ended it (as JaxMARL does). Many games:
        finished games stay as they are until `reset_done`.

        ```python
        actions = env.sample_actions(key, state)        # {"a0": flat action, ...}
        obs, state, reward, done, info = env.step(key, state, actions)
        ```

        Two compiled calls, `step_env` and the restart, so that stepping with or without
        `reset_state` shares the one costly compilation (inside an outer `jit` or `vmap`
        they fuse into one program).

        Args:
            key (jax.Array | None): A JAX random key that draws the next game when one
                ends (one game only; the tick itself is deterministic). May be None with
                N games, or with `reset_state`.
            state: The games' `EnvState`, from `reset` or the last `step`.
            actions (dict | jax.Array): One action per agent, in the agent's own frame:
                a dict agent name -> action, or one integer array over the ten agents.
                Per agent and game either a flat index 0-197, shaped `()` or `(1,)`, or
                the heads `(move 0-8, target 0-10, Ultimate 0-1)`, shaped `(3,)`; so one
                array is `(10,)`, `(10, 1)` or `(10, 3)`. With N games add a leading N
                axis (`(N,)`, `(N, 10, 3)`, ...). In range but illegal, a move is
                played as "stay" and a (target, Ultimate) pair as "no target, no
                Ultimate", each on its own.
            reset_state (EnvState | None): One game only: the state to restart with when
                the game ends, instead of one drawn from `key`; taken exactly as given.

        Returns:
            obs: Agent name -> observation, float32 `(784,)` (`(N, 784)` for N games).
            state: The `EnvState` after the tick.
            reward: Agent name -> float32 `()` (`(N,)`): +1 to every agent of the team
                that won and -1 to the other team on the tick a game ends with a winner;
                0 otherwise (draws included).
            done: Agent name and `"__all__"` -> bool `()` (`(N,)`): the game is over
                (with N games it stays True while the finished game is frozen).
            info: One game: a dict whose every leaf is `(10,)`, one entry per agent:
                `result` int32 (-1 open, 0 team a won, 1 team b won, 2 draw),
                `own_score` and `enemy_score` int32, `tick` int32, `killed` bool,
                `new_game` bool, `accepted` int32 (the flat action played, -1 if none),
                `invalid_action` bool. N games: `result` `(N,)`, `score` `(N, 2)`,
                `tick` `(N,)` int32; `killed` and `invalid_action` `(N, 10)` bool;
                `accepted` `(N, 10, 3)` int32 compass heads; `metrics` `(N, M)` int32
                (M = 0, 16, or 16 + the full width, by the `metrics` setting); `record`,
                the tick's `TickInfo` (damage, healing, effects, ... by slot);
                `terminal_obs` and `new_game`, dicts per agent of `(N, 784)` float32 and
                `(N,)` bool.

        Raises:
            ValueError: Concrete actions of a wrong shape, a non-integer dtype or a value
                out of range, naming the field, place and value (`actions: flat action
                500 at index (0, 3) is outside 0..197`); a dict without some agent;
                `reset_state` with N games; a None `key` for one game without
                `reset_state`. Traced actions (inside your own `jit`) cannot be read:
                out-of-range ones are flagged in `info["invalid_action"]` instead.
        """
        if self.num_envs is not None:
            if reset_state is not None:
                raise ValueError(
                    "reset_state: only the single-game env (num_envs=None) restarts in step; "
                    "with num_envs games call reset_done"
                )
            return self.step_env(key, state, actions)
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
        """The single game after a tick: a new game if it ended, `reset_state` exactly as
        given (as JaxMARL takes it) or one drawn from `key` that counts on `games_started`."""
        if reset_state is None:
            fresh = self._new_game(jax.random.split(key)[1], None)
            fresh = fresh._replace(games_started=games_started + 1)
        else:
            fresh = reset_state

        def pick(new, old):
            return jnp.where(ended, new, old).astype(old.dtype)

        state = jax.tree.map(pick, fresh, after)
        return jax.tree.map(pick, self._obs_dict(self._obs_one(fresh)), obs), state

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
        k_move, k_pair = jax.random.split(key)
        move = _nth_legal(k_move, masks.move)
        pair = _nth_legal(k_pair, masks.pair.reshape(NUM_SLOTS, -1))
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

    # ---- other views --------------------------------------------------------------------
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
