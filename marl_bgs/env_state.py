"""`EnvState`, the environment's state pytree.

It lives apart from the env classes so that every part of the environment (the views in
`env_views.py`, the batched core in `env.py`, the single game in `single_game.py`) and the
learners that carry states through their loops can name it without importing the others.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .core.sight import Sight
from .core.state import MapArrays, State


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
