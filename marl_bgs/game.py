"""A referee for one game, on the NumPy engine or the JAX engine, with the same answers.

The NumPy backend imports no JAX, so this module runs in Pyodide in the browser.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import cache
from typing import Any, Literal

import numpy as np

from .core.actions import HEAD_LIMITS, HEAD_NAMES, MIRROR_FLAT, NUM_JOINT, decode
from .core.checks import FieldTypeError, plain_json
from .core.events import agent_name, tick_events
from .core.inputs import TeamInputs
from .core.observation import observations
from .core.position import position_dict
from .core.sight import (
    compute_sight,
    head_masks,
    joint_mask,
    legal_masks,
)
from .core.state import LEFT, NUM_SLOTS, RESULT_NAMES, RESULT_OPEN, TEAM_SIZE, State
from .core.tick import TickInfo
from .core.tick import step as tick_step
from .maps.positions import parse_position

_HEAD_LIMITS = np.asarray(HEAD_LIMITS)
_NO_ACTION = (0, 0, 0)  # an empty slot's row in `encode_actions`


def _checked_slots(slots) -> np.ndarray:
    """`step_slots`' input as a (10, 3) int32 array, or a ValueError naming the slot."""
    arr = np.asarray(slots)
    if arr.shape != (NUM_SLOTS, 3):
        raise ValueError(f"slots: expected shape (10, 3) (move, target, ultimate per slot), "
                         f"got {arr.shape}")  # fmt: skip
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"slots: dtype {arr.dtype} is not an integer type")
    bad = (arr < 0) | (arr >= _HEAD_LIMITS)
    if bad.any():
        slot, head = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"slots[{slot}] ({agent_name(slot)}): {HEAD_NAMES[head]} {int(arr[slot, head])} "
            f"is outside 0..{_HEAD_LIMITS[head] - 1}"
        )
    return arr.astype(np.int32, copy=False)


Backend = Literal["numpy", "jax"]


@cache
def _jax_step():
    import jax
    import jax.numpy as jnp

    return jax.jit(lambda state, actions, m: tick_step(jnp, state, actions, m))


class Game:
    """One game from an authored position; `step` plays one tick of both teams' actions.

    A referee on the host, for tests, tools and the browser: no batching, no compilation
    on the NumPy engine. Both engines give bit-identical games.

    ```python
    from marl_bgs.core.position import starting_position
    from marl_bgs.game import Game

    game = Game(starting_position(47))          # map 47, the official 5 v 5
    while not game.done:
        events = game.step([[(0, 0, 0)] * 5, [(0, 0, 0)] * 5])   # everyone stays
    game.result                                  # "draw" after 300 ticks
    ```

    Args:
        position: A position document (`"marl-bgs/position"`): the map, every agent and
            the settings, as `marl_bgs.core.position.starting_position` writes one or
            `state_dict` returns it. It is copied, never changed.
        backend: `"numpy"` (no JAX needed; runs in Pyodide) or `"jax"` (each tick
            compiled once with `jax.jit`).

    Raises:
        ValueError: An unknown backend, or a position that does not parse, naming the
            field (`teams[0].agents[2].health: ...`).
        FieldTypeError: A position field of the wrong type, named the same way.

    Attributes:
        state: The engine's `State` now (exact integers: milli-units, milli-HP).
        backend: The engine it runs on.
        map_ref: The position's map: an id, or the inline map.
        obstacles: The map's obstacles (checked dicts).
        sizes: Agents per team, `[team a, team b]`.
    """

    def __init__(self, position: dict, backend: Backend = "numpy") -> None:
        if backend not in ("numpy", "jax"):
            raise ValueError(f"backend: must be 'numpy' or 'jax', got {backend!r}")
        parsed = parse_position(copy.deepcopy(plain_json(position, "position")))
        self.backend = backend
        self.map_ref = parsed.map_ref
        self.obstacles = parsed.obstacles
        self.map_arrays = parsed.map_arrays
        self.state: State = parsed.state
        self._sight_of: State | None = None
        self._sight_cache = None
        self._masks_of: State | None = None
        self._masks_cache = None
        self._obs_of: State | None = None
        self._obs_cache = None
        self.start_tick = int(parsed.state.tick)
        self.sizes = [
            int(parsed.state.present[t * TEAM_SIZE : (t + 1) * TEAM_SIZE].sum()) for t in range(2)
        ]

    @classmethod
    def from_state(cls, state: State, map_ref: Any, backend: Backend = "numpy") -> Game:
        """A game that continues from an engine `State` exactly as it is, empty slots
        included (a replay's frame, say), on the map `map_ref`.

        The state is checked as a position is (it is written as one and parsed), then kept
        bit for bit: fields a position does not spell out for empty slots stay as given.

        Args:
            state: The `State` to continue from (NumPy or JAX arrays).
            map_ref: The map: an id, or `{"obstacles": [...]}`.
            backend: `"numpy"` or `"jax"`.

        Returns:
            The `Game`, its `state` equal to `state` (as NumPy arrays).

        Raises:
            ValueError: A state no position can describe, or an unknown backend.
        """
        state = State(*(np.asarray(x) for x in state))
        game = cls(position_dict(state, map_ref), backend=backend)
        game.state = state
        return game

    @property
    def done(self) -> bool:
        """Whether the game is over (a team reached the winning score, or the horizon)."""
        return int(self.state.result) != RESULT_OPEN

    @property
    def result(self) -> str | None:
        """None while the game runs, then `"a"`, `"b"` (the winning team) or `"draw"`."""
        return RESULT_NAMES[int(self.state.result)]

    def state_dict(self) -> dict:
        """The current state as a position document, which `Game` or `reset_to` can start from.

        Returns:
            A `"marl-bgs/position"` dict with every field spelled out.
        """
        return position_dict(self.state, copy.deepcopy(self.map_ref))

    def _sight(self):
        """Start-of-tick sight of the current state, computed once and shared."""
        if self._sight_of is not self.state:
            self._sight_cache = compute_sight(np, self.state, self.map_arrays)
            self._sight_of = self.state
        return self._sight_cache

    def _masks(self):
        """Legal masks of the current state, computed once and shared (the tick uses them
        too)."""
        if self._masks_of is not self.state:
            self._masks_cache = legal_masks(np, self.state, self._sight())
            self._masks_of = self.state
        return self._masks_cache

    def _observations(self) -> np.ndarray:
        """Every slot's observation of the current state, computed once and shared by both
        teams' `team_inputs` (a System on either side, an env serving both teams)."""
        if self._obs_of is not self.state:
            self._obs_cache = observations(np, self.state, self.map_arrays, self._sight())
            self._obs_of = self.state
        return self._obs_cache

    def legal_actions(self) -> np.ndarray:
        """Exact joint masks, shape (2, 5, 198).

        Returns:
            bool `(2, 5, 198)`: per team and team slot, which flat actions are legal, in
                the compass frame (team a's agents' own frame only when it is on the left;
                `team_inputs` gives each agent's own frame).
        """
        return joint_mask(self._masks()).reshape(2, TEAM_SIZE, -1)

    def legal_heads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-head masks, shapes (2, 5, 9), (2, 5, 11) and (2, 5, 2).

        Returns:
            move: bool `(2, 5, 9)`, the legal moves per team and slot (compass frame).
            target: bool `(2, 5, 11)`, the targets some legal action uses.
            ultimate: bool `(2, 5, 2)`, whether the Ultimate can be withheld / used.
        """
        return tuple(h.reshape(2, TEAM_SIZE, -1) for h in head_masks(self._masks()))

    def team_inputs(self, team: int) -> TeamInputs:
        """What one team may see, in each agent's own frame: what a System's `act` gets.

        The same inputs as `env.team_inputs` gives for one game, so a System written over
        `xp` plays here on NumPy exactly as it plays compiled.

        Args:
            team: 0 for team a, 1 for team b.

        Returns:
            NumPy `TeamInputs`: `obs` float32 `(5, 784)`, `avail` bool `(5, 198)`,
                `present` and `alive` bool `(5,)`, `classes` int32 `(5,)`, `new_game`
                bool `()`.

        Raises:
            ValueError: A team other than 0 or 1.
        """
        if team not in (0, 1):
            raise ValueError(f"team: must be 0 or 1, got {team!r}")
        rows = slice(team * TEAM_SIZE, (team + 1) * TEAM_SIZE)
        joint = joint_mask(self._masks())[rows]
        if int(self.state.spawn_end[team]) != LEFT:
            joint = joint[:, MIRROR_FLAT]
        return TeamInputs(
            obs=self._observations()[rows],
            avail=joint,
            present=self.state.present[rows],
            alive=self.state.alive[rows] & self.state.present[rows],
            classes=self.state.cls[rows],
            new_game=np.asarray(int(self.state.tick) == self.start_tick),
        )

    def slots_from_flat(self, flat_a: np.ndarray, flat_b: np.ndarray) -> np.ndarray:
        """Both teams' flat own-frame actions (5 each) as compass actions per slot, (10, 3).

        Args:
            flat_a: Team a's five flat actions (0..197, its agents' own frame).
            flat_b: Team b's five flat actions.

        Returns:
            int32 `(10, 3)`: (move, target, Ultimate) per slot in the compass frame, for
                `step_slots`.

        Raises:
            ValueError: Not five actions for a team, one outside 0..197, or one that is not
                a whole number (197.9 is refused, not cut to 197).
        """
        out = np.zeros((NUM_SLOTS, 3), np.int32)
        for t, given in enumerate((flat_a, flat_b)):
            where = f"flat_{'ab'[t]}"
            raw = np.asarray(given)
            if raw.dtype == bool or not np.issubdtype(raw.dtype, np.integer):
                raise FieldTypeError(f"{where}: expected whole numbers, got dtype {raw.dtype}")
            if raw.shape != (TEAM_SIZE,) or raw.min() < 0 or raw.max() >= NUM_JOINT:
                raise ValueError(f"{where}: expected 5 flat actions in 0..197")
            flat = raw.astype(np.int32)
            if int(self.state.spawn_end[t]) != LEFT:
                flat = MIRROR_FLAT[flat]
            heads = np.stack(decode(flat), axis=1)
            out[t * TEAM_SIZE : (t + 1) * TEAM_SIZE] = heads
        return out

    def encode_actions(self, actions: Sequence[Sequence[Sequence[int]]]) -> np.ndarray:
        """Check `[[team 0 actions], [team 1 actions]]` and lay them out over the 10 slots.

        Args:
            actions: Two lists, one per team, of one `(move, target, ultimate)` per agent
                present (compass frame: move 0-8, target 0-10, Ultimate 0 or 1).

        Returns:
            int32 `(10, 3)`, one row per slot (zeros for empty slots).

        Raises:
            ValueError: A wrong count or shape, or a value out of range, naming the place
                (`actions[1][2][0]: 9 is outside 0..8`).
        """
        if not isinstance(actions, (list, tuple)) or len(actions) != 2:
            raise ValueError("actions: expected a list of two lists, one per team")
        # Rows as Python lists, one array at the end: a row written into an array costs
        # about what a whole small array operation does (this runs every tick).
        rows = [_NO_ACTION] * NUM_SLOTS
        limits = HEAD_LIMITS
        for t, team_actions in enumerate(actions):
            if not isinstance(team_actions, (list, tuple)) or len(team_actions) != self.sizes[t]:
                raise ValueError(
                    f"actions[{t}]: expected {self.sizes[t]} actions, one per agent of the team"
                )
            for k, act in enumerate(team_actions):
                if not isinstance(act, (list, tuple, np.ndarray)) or len(act) != 3:
                    raise ValueError(f"actions[{t}][{k}]: expected (move, target, ultimate)")
                row = []
                for h, (v, limit) in enumerate(zip(act, limits, strict=True)):
                    # A plain int (`type` is exactly int: not a bool) needs no further check.
                    if type(v) is not int and (
                        isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))
                    ):
                        raise ValueError(
                            f"actions[{t}][{k}][{h}]: expected a whole number, got {v!r}"
                        )
                    value = int(v)
                    if not 0 <= value < limit:
                        raise ValueError(
                            f"actions[{t}][{k}][{h}]: {value} is outside 0..{limit - 1}"
                        )
                    row.append(value)
                rows[t * TEAM_SIZE + k] = row
        return np.array(rows, np.int32)

    def step(self, actions: Sequence[Sequence[Sequence[int]]]) -> list[dict]:
        """Play one tick; returns its events. Raises if the game is over or actions are bad.

        Args:
            actions: Two lists, one per team, of one `(move, target, ultimate)` per agent
                present, in the compass frame, as `encode_actions` takes them.

        Returns:
            The tick's events, dicts with a `"kind"` (`"damage"`, `"heal"`, `"death"`,
                `"respawn"`, `"game_end"`, ...) and its fields, as replays store them.

        Raises:
            ValueError: Bad actions, naming the place (see `encode_actions`).
            RuntimeError: The game is already over.
        """
        before = self.state
        info = self.step_slots(self.encode_actions(actions))
        return tick_events(before, info, self.state)

    def step_slots(self, slots: np.ndarray) -> TickInfo:
        """One tick from actions already laid out per slot, shape (10, 3) of whole numbers
        (move 0..8, target 0..10, Ultimate 0..1, compass frame); returns its info.

        Out-of-range values are refused naming the slot (an in-range illegal action is the
        rules' business: it becomes "stay" / "no target").

        Args:
            slots: Integer `(10, 3)`, one (move, target, Ultimate) row per slot.

        Returns:
            The tick's `TickInfo` (NumPy): the accepted actions, damage and healing by
                slot, effects, deaths, points, respawns.

        Raises:
            ValueError: A wrong shape or dtype, or a value out of range, naming the slot.
            RuntimeError: The game is already over.
        """
        if self.done:
            raise RuntimeError("the game is finished; no more ticks can be played")
        slots = _checked_slots(slots)
        if self.backend == "numpy":
            self.state, info = tick_step(
                np, self.state, slots, self.map_arrays, self._sight(), self._masks()
            )
            return info
        new_state, info = _jax_step()(self.state, slots, self.map_arrays)
        self.state = State(*(np.asarray(x) for x in new_state))
        return TickInfo(*(np.asarray(x) for x in info))
