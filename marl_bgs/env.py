"""The JAX environment: many games at once, JaxMARL-style calls, explicit restarts.

    env = marl_bgs.make("tdm", map_id=47, num_envs=1024)
    obs, state = env.reset(key)
    obs, state, reward, done, info = env.step(key, state, actions)
    obs, state = env.reset_done(key, state)          # restart only the finished games

Everything that varies between games (map, rosters, spawn ends, winning score, horizon) is
a value inside the state, so mixing or changing them never recompiles. Actions and
observations are in each agent's own frame: its spawn end is on the left and "east" moves
toward the enemy's end, so one policy serves both ends. With `num_envs=None` the env is a
single game, for an outside `jax.vmap`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .core import classes as C
from .core.events import agent_name
from .core.geometry import first_index
from .core.observe import (
    NUM_JOINT,
    NUM_MOVES,
    NUM_TARGETS,
    Sight,
    compute_sight,
    legal_masks,
    sight_lines,
)
from .core.observe import TEAM as TEAM_OF
from .core.position import OFFICIAL_ROSTER, parse_position
from .core.state import (
    LEFT,
    MAX_OBSTACLES,
    NUM_SLOTS,
    PAD_MILLI,
    RESULT_A,
    RESULT_B,
    RESULT_OPEN,
    TEAM_SIZE,
    MapArrays,
    State,
    map_arrays,
    obstacle_groups,
    pad_positions,
)
from .core.tick import step as tick_step
from .core.views import MAX_TURNED_WALLS, MIRROR_MOVE, OBS_WIDTH, observations
from .maps import load_map
from .metrics import PRIORITY_NAMES, priority_update
from .systems.base import TeamInputs

AGENTS = tuple(agent_name(i) for i in range(NUM_SLOTS))
# Joint index permutation that mirrors the move part: flat = (move * 11 + target) * 2 + ult.
_FLAT = np.arange(NUM_JOINT)
MIRROR_FLAT = (MIRROR_MOVE[_FLAT // 22] * 22 + _FLAT % 22).astype(np.int32)


class EnvState(NamedTuple):
    """One game (or a batch: every leaf gains a leading games axis)."""

    game: State
    map: MapArrays
    map_id: Any  # () int32, -1 for a map given inline
    sight: Sight  # sight of the current state: the next tick's start-of-tick sight
    new_game: Any  # () bool: the game was just (re)started and has not ticked yet
    games_started: Any  # () int32 games started in this slot (an episode counter)
    metrics: Any  # (16,) int32 priority metrics so far (metrics="priority"), else (0,)


@dataclass(frozen=True)
class Box:
    low: float
    high: float
    shape: tuple[int, ...]
    dtype: Any


@dataclass(frozen=True)
class Discrete:
    n: int
    dtype: Any = jnp.int32


@dataclass(frozen=True)
class MultiDiscrete:
    nvec: tuple[int, ...]
    dtype: Any = jnp.int32


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
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"rosters[{r}]: expected two lists of class names, one per team")
        for t, team in enumerate(pair):
            if not isinstance(team, (list, tuple)) or not 1 <= len(team) <= TEAM_SIZE:
                raise ValueError(f"rosters[{r}][{t}]: expected 1 to {TEAM_SIZE} class names")
            for k, name in enumerate(team):
                if name not in C.CLASS_INDEX:
                    raise ValueError(f"rosters[{r}][{t}][{k}]: unknown class {name!r}")
                table[r, t * TEAM_SIZE + k] = C.CLASS_INDEX[name]
    return table


def _nth_legal(key, legal):
    """Per row of `legal` (rows, choices), a uniformly drawn index among its True entries.

    Every row must have one (staying and "no target, no Ultimate" are always legal).
    """
    count = jnp.sum(legal, axis=-1, dtype=jnp.int32)
    nth = jax.random.randint(key, count.shape, 0, count)
    rank = jnp.cumsum(legal, axis=-1, dtype=jnp.int32) - 1
    return first_index(jnp, legal & (rank == nth[:, None]), axis=-1)


class TeamDeathmatch:
    """Team Deathmatch as a JAX environment; see the module docstring."""

    def __init__(
        self,
        map_id: int | Sequence[int] = 47,
        num_envs: int | None = 1,
        rosters: Any = None,
        winning_score: int | Sequence[int] = 20,
        horizon: int = 300,
        swap_spawns: bool = True,
        red_zone_depth: float = 5,
        metrics: str = "none",
        obstacle_capacity: tuple[int, int] | None = None,
    ) -> None:
        ids = [map_id] if isinstance(map_id, int) else list(map_id)
        if not ids:
            raise ValueError("map_id: give a map id or a non-empty list of ids")
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
        if rosters is None:
            rosters = [(OFFICIAL_ROSTER, OFFICIAL_ROSTER)]
        elif len(rosters) == 2 and all(isinstance(n, str) for n in rosters[0]):
            rosters = [rosters]
        self.rosters = tuple((tuple(a), tuple(b)) for a, b in rosters)
        self._rosters = jnp.asarray(_roster_arrays(self.rosters))
        scores = [winning_score] if isinstance(winning_score, int) else list(winning_score)
        for s in scores:
            if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 1000:
                raise ValueError(f"winning_score: {s!r} must be a whole number in [1, 1000]")
        self._scores = jnp.asarray(scores, jnp.int32)
        if isinstance(horizon, bool) or not isinstance(horizon, int) or not 1 <= horizon <= 100_000:
            raise ValueError(f"horizon: {horizon!r} must be a whole number in [1, 100000]")
        self.horizon = horizon
        if not 0 <= red_zone_depth <= 10:
            raise ValueError(f"red_zone_depth: {red_zone_depth!r} must lie in [0, 10]")
        self.red_zone_depth = int(round(red_zone_depth * 1000))
        if num_envs is not None and (
            isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1
        ):
            raise ValueError(f"num_envs: {num_envs!r} must be a positive whole number or None")
        self.num_envs = num_envs
        self.swap_spawns = bool(swap_spawns)
        if metrics not in ("none", "priority"):
            raise ValueError(f"metrics: {metrics!r} must be 'none' or 'priority'")
        self.metrics = metrics
        self._metric_width = len(PRIORITY_NAMES) if metrics == "priority" else 0
        self.agents = AGENTS
        self.num_agents = NUM_SLOTS
        self.observation_spaces = {a: Box(-2.0, 2.0, (OBS_WIDTH,), jnp.float32) for a in AGENTS}
        self.action_spaces = {a: Discrete(NUM_JOINT) for a in AGENTS}
        self.head_spaces = {a: MultiDiscrete((NUM_MOVES, NUM_TARGETS, 2)) for a in AGENTS}

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
        boxes, walls = asked
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

    # ---- spaces -------------------------------------------------------------------------
    def observation_space(self, agent: str = "a0") -> Box:
        return self.observation_spaces[agent]

    def action_space(self, agent: str = "a0") -> Discrete:
        return self.action_spaces[agent]

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
        pads = jnp.asarray(PAD_MILLI)[spawn_end].reshape(NUM_SLOTS, 2)
        game = State(
            tick=jnp.asarray(0, jnp.int32),
            horizon=jnp.asarray(self.horizon, jnp.int32),
            winning_score=win,
            red_zone_depth=jnp.asarray(self.red_zone_depth, jnp.int32),
            score=jnp.zeros(2, jnp.int32),
            spawn_end=spawn_end,
            wave_clock=jnp.full(2, C.RESPAWN_PERIOD, jnp.int32),
            result=jnp.asarray(RESULT_OPEN, jnp.int32),
            present=present,
            alive=present,
            cls=cls,
            pos=pads,
            health=jnp.where(present, jnp.asarray(C.MAX_HEALTH_MILLI)[cls], 0),
            ultimate_cooldown=jnp.zeros(NUM_SLOTS, jnp.int32),
            shield=jnp.zeros(NUM_SLOTS, jnp.int32),
            out_of_combat=jnp.zeros(NUM_SLOTS, jnp.int32),
            effects=jnp.zeros((NUM_SLOTS, C.NUM_EFFECTS), jnp.int32),
            last_action=jnp.full((NUM_SLOTS, 3), -1, jnp.int32),
        )
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
        head = jnp.stack([game.result, game.score[0], game.score[1]]).astype(jnp.int32)
        return jnp.concatenate([head, jnp.zeros(12, jnp.int32), game.tick[None].astype(jnp.int32)])

    def _obs_one(self, s: EnvState):
        return observations(jnp, s.game, s.map, s.sight)

    def _obs_dict(self, obs):
        return {a: obs[..., i, :] for i, a in enumerate(AGENTS)}

    def reset(self, key) -> tuple[dict, EnvState]:
        """Start every game afresh: a map, rosters and winning score drawn for each."""
        state = self._batched(self._new_game, self._keys(key), index_arg=True)
        return self._obs_dict(self._batched(self._obs_one, state)), state

    def reset_done(self, key, state: EnvState) -> tuple[dict, EnvState]:
        """Restart the finished games only; running games are returned untouched."""
        fresh = self._batched(self._new_game, self._keys(key), index_arg=True)
        fresh = fresh._replace(games_started=state.games_started + 1)
        finished = state.game.result != RESULT_OPEN

        def pick(new, old):
            mask = finished.reshape(finished.shape + (1,) * (new.ndim - finished.ndim))
            return jnp.where(mask, new, old)

        state = jax.tree.map(pick, fresh, state)
        return self._obs_dict(self._batched(self._obs_one, state)), state

    def reset_to(self, key, positions: dict | Sequence[dict]) -> tuple[dict, EnvState]:
        """Start games from authored positions: one for all games, or one per game."""
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
                raise ValueError(f"{where}: {err}") from None
            m = pack_map(parsed.obstacles, f"{where}.map", self._room)
            map_id = parsed.map_ref if isinstance(parsed.map_ref, int) else -1
            states.append(
                EnvState(
                    jax.tree.map(jnp.asarray, parsed.state),
                    jax.tree.map(jnp.asarray, m),
                    jnp.asarray(map_id, jnp.int32),
                    compute_sight(jnp, parsed.state, m),
                    jnp.asarray(True),
                    jnp.asarray(1, jnp.int32),
                    self._fresh_metrics(jax.tree.map(jnp.asarray, parsed.state)),
                )
            )
        if self.num_envs is None:
            state = states[0]
        elif many:
            state = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
        else:
            state = jax.tree.map(lambda x: jnp.broadcast_to(x, (count,) + x.shape), states[0])
        return self._obs_dict(self._batched(self._obs_one, state)), state

    # ---- actions ------------------------------------------------------------------------
    def _slots_from(self, actions) -> Any:
        """Actions as (..., 10, 3) heads from a dict per agent or an array, flat or heads."""
        if isinstance(actions, dict):
            missing = [a for a in AGENTS if a not in actions]
            if missing:
                raise ValueError(f"actions: no action for agent {missing[0]!r}")
            parts = [jnp.asarray(actions[a]) for a in AGENTS]
            flat_form = parts[0].ndim == (0 if self.num_envs is None else 1)
            arr = jnp.stack(parts, axis=-1 if flat_form else -2)
        else:
            arr = jnp.asarray(actions)
            flat_form = arr.ndim == (1 if self.num_envs is None else 2)
        if flat_form:
            arr = jnp.stack([arr // 22, (arr // 2) % NUM_TARGETS, arr % 2], axis=-1)
        return arr.astype(jnp.int32)

    def _to_absolute(self, game: State, heads):
        """Agent-frame moves to compass moves (mirrored for the right end's agents)."""
        end = game.spawn_end[jnp.asarray(TEAM_OF)]
        move = jnp.where(end == LEFT, heads[:, 0], jnp.asarray(MIRROR_MOVE)[heads[:, 0]])
        return heads.at[:, 0].set(move)

    # ---- step ---------------------------------------------------------------------------
    def _step_one(self, s: EnvState, heads):
        heads = jnp.clip(heads, 0, jnp.asarray([NUM_MOVES - 1, NUM_TARGETS - 1, 1]))
        was_open = s.game.result == RESULT_OPEN
        game, info = tick_step(jnp, s.game, self._to_absolute(s.game, heads), s.map, s.sight)
        game = jax.tree.map(lambda new, old: jnp.where(was_open, new, old), game, s.game)
        sight = compute_sight(jnp, game, s.map)
        metrics = s.metrics
        if self._metric_width:
            metrics = priority_update(jnp, s.metrics, info, game, was_open)
        new = s._replace(game=game, sight=sight, new_game=jnp.asarray(False), metrics=metrics)
        ended = was_open & (game.result != RESULT_OPEN)
        team = jnp.asarray(TEAM_OF)
        sign = jnp.where(
            game.result == RESULT_A, 1.0, jnp.where(game.result == RESULT_B, -1.0, 0.0)
        )
        reward = jnp.where(ended, jnp.where(team == 0, sign, -sign), 0.0).astype(jnp.float32)
        out = {
            "result": game.result,
            "score": game.score,
            "tick": game.tick,
            "killed": info.killed & was_open,
            "new_game": jnp.broadcast_to(s.new_game, (NUM_SLOTS,)),
            "accepted": jnp.where(was_open, info.actions, 0),
            "metrics": metrics,
        }
        return self._obs_one(new), new, reward, game.result != RESULT_OPEN, out

    def step(self, key, state: EnvState, actions) -> tuple[dict, EnvState, dict, dict, dict]:
        """One tick of every game; finished games stay as they are until `reset_done`."""
        del key  # transitions are deterministic
        heads = self._slots_from(actions)
        obs, state, reward, done, info = self._batched(self._step_one, state, heads)
        obs_d = self._obs_dict(obs)
        rewards = {a: reward[..., i] for i, a in enumerate(AGENTS)}
        dones = {a: done for a in AGENTS}
        dones["__all__"] = done
        info = dict(info)
        info["terminal_obs"] = obs_d
        info["new_game"] = {a: info["new_game"][..., i] for i, a in enumerate(AGENTS)}
        return obs_d, state, rewards, dones, info

    # ---- masks and sampling -------------------------------------------------------------
    def _joint_one(self, s: EnvState):
        """Legal flat actions per slot in each agent's own frame, (10, 198)."""
        masks = legal_masks(jnp, s.game, s.sight)
        joint = (masks.move[:, :, None, None] & masks.pair[:, None, :, :]).reshape(NUM_SLOTS, -1)
        end = s.game.spawn_end[jnp.asarray(TEAM_OF)]
        return jnp.where((end == LEFT)[:, None], joint, joint[:, jnp.asarray(MIRROR_FLAT)])

    def get_avail_actions(self, state: EnvState) -> dict:
        """Exact masks of the 198 joint choices per agent, in its own frame."""
        joint = self._batched(self._joint_one, state)
        return {a: joint[..., i, :] for i, a in enumerate(AGENTS)}

    def get_avail_heads(self, state: EnvState) -> dict:
        """Per-head masks per agent: (move 9, target 11, ultimate 2), in its own frame."""
        joint = self._batched(self._joint_one, state).reshape(
            (*state.game.tick.shape, NUM_SLOTS, NUM_MOVES, NUM_TARGETS, 2)
        )
        move = joint.any(axis=(-1, -2))
        target = joint.any(axis=(-1, -3))
        ult = joint.any(axis=(-2, -3))
        return {
            a: (move[..., i, :], target[..., i, :], ult[..., i, :]) for i, a in enumerate(AGENTS)
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
        flat = (move * (NUM_TARGETS * 2) + pair).astype(jnp.int32)
        end = s.game.spawn_end[jnp.asarray(TEAM_OF)]
        return jnp.where(end == LEFT, flat, jnp.asarray(MIRROR_FLAT)[flat])

    def sample_actions(self, key, state: EnvState) -> dict:
        """Uniform over each agent's legal joint choices: a flat action per agent."""
        flat = self._batched(self._sample_one, self._keys(key), state)
        return {a: flat[..., i] for i, a in enumerate(AGENTS)}

    # ---- other views --------------------------------------------------------------------
    def world_state(self, state: EnvState):
        """Everything, for a centralized critic: (games, 2 teams, OBS_WIDTH) in each team's
        frame, as its first slot would see it with nothing hidden."""

        def one(s: EnvState):
            living = s.game.present & s.game.alive
            everyone = jnp.broadcast_to(living[None, :], (NUM_SLOTS, NUM_SLOTS))
            oracle = s.sight._replace(team_sees=everyone)
            return observations(jnp, s.game, s.map, oracle)[jnp.asarray([0, TEAM_SIZE])]

        return self._batched(one, state)

    def team_inputs(self, state: EnvState, team: int) -> TeamInputs:
        """Only what a team's agents may see: their observations, masks, roster and flags."""
        if team not in (0, 1):
            raise ValueError(f"team: must be 0 or 1, got {team!r}")
        rows = slice(team * TEAM_SIZE, (team + 1) * TEAM_SIZE)
        return TeamInputs(
            obs=self._batched(self._obs_one, state)[..., rows, :],
            avail=self._batched(self._joint_one, state)[..., rows, :],
            present=state.game.present[..., rows],
            alive=state.game.alive[..., rows] & state.game.present[..., rows],
            classes=state.game.cls[..., rows],
            new_game=state.new_game,
        )

    def new_game(self, state: EnvState) -> dict:
        """Per agent: the observation is the first of a new game (reset recurrent memory)."""
        return {a: state.new_game for a in AGENTS}


def make(name: str = "tdm", **kwargs: Any) -> TeamDeathmatch:
    """Create an environment by name ("tdm" is Team Deathmatch)."""
    if name != "tdm":
        raise ValueError(f"name: unknown environment {name!r}; available: 'tdm'")
    return TeamDeathmatch(**kwargs)
