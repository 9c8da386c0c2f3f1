"""Callers' actions read into (move, target, Ultimate) heads, or refused naming the field.

`step` takes actions in several forms (a dict per agent or one array; flat indices or heads)
and every form must reach the same compiled tick as the same int32 heads. Reading them is
host-side checking, apart from `env.py`'s games so that the contract sits in one place:
integer arrays of exactly the documented shapes, every value in range (flat 0..197; move
0..8, target 0..10, Ultimate 0..1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .core.actions import HEAD_LIMITS, HEAD_NAMES, NUM_JOINT, compass_move, decode
from .core.sight import TEAM as TEAM_OF
from .core.state import AGENT_NAMES, NUM_SLOTS, State


def slots_from(actions: Any, games: tuple[int, ...]) -> Any:
    """Actions as (*games, 10, 3) heads: a dict per agent or one array over the agents.

    Per agent either a flat index (shape `games` or `games + (1,)`, as JaxMARL's baselines
    send it) or the three heads (shape `games + (3,)`); the shape decides, and any other
    shape or a non-integer dtype is refused naming the field, never guessed. `games` is `()`
    for one game, `(N,)` for N.
    """
    if isinstance(actions, Mapping):
        missing = [a for a in AGENT_NAMES if a not in actions]
        if missing:
            raise ValueError(f"actions: no action for agent {missing[0]!r}")
        unknown = [a for a in actions if a not in AGENT_NAMES]
        if unknown:  # a typo's action would otherwise be dropped without a word
            names = ", ".join(repr(a) for a in unknown)
            raise ValueError(f"actions: unknown agent {names}; agents are a0..a4, b0..b4")
        parts = [as_heads(actions[a], games, f"actions[{a!r}]") for a in AGENT_NAMES]
        return jnp.stack(parts, axis=-2)
    return as_heads(actions, (*games, NUM_SLOTS), "actions")


def as_heads(x: Any, lead: tuple[int, ...], where: str) -> Any:
    """One field of actions as heads (*lead, 3): flat `lead` or `lead + (1,)`, or heads
    `lead + (3,)`; any other shape or dtype is refused naming the field.

    Concrete actions out of range are refused here, naming the field, the place and the
    value (checked before any cast, so an int64 too large for int32 cannot wrap into
    range). Traced actions (inside an outer `jit` or `scan`) cannot be read, so the tick
    flags them instead (`info["invalid_action"]`), and evaluate, seasons and the trainer
    refuse a batch that has any. An in-range but illegal action is the rules' business (it
    becomes "stay" / "no target") and is not an error.
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
        check_range(x, where, HEAD_LIMITS)
        return jnp.asarray(x).astype(jnp.int32)
    if x.shape == (*lead, 1):
        x = x[..., 0]
    elif x.shape != lead:
        raise ValueError(
            f"{where}: shape {x.shape}; expected {lead} or {(*lead, 1)} for flat actions "
            f"(0..{NUM_JOINT - 1}) or {(*lead, 3)} for (move, target, Ultimate) heads"
        )
    check_range(x, where, None)
    x = jnp.asarray(x).astype(jnp.int32)
    return jnp.stack(decode(x), axis=-1)


def check_range(x: Any, where: str, limits: tuple[int, ...] | None) -> None:
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


def to_compass(game: State, heads: Any) -> Any:
    """One game's agent-frame heads (10, 3) with compass moves (mirrored for the agents
    whose spawn end is the right one)."""
    end = game.spawn_end[jnp.asarray(TEAM_OF)]
    return heads.at[:, 0].set(compass_move(jnp, heads[:, 0], end))
