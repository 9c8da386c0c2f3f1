"""Small decision pieces the three scripted opponents share (array code over `xp`).

Each opponent scores every legal (target, Ultimate) pair and every legal move its own way;
these helpers turn such scores into the flat action (move * 22 + target * 2 + ultimate) and
pick the team's target point for pathing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import classes
from ..core.actions import NUM_MOVES, NUM_PAIRS, NUM_TARGETS, NUM_ULTIMATE, encode_pair
from ..core.state import TEAM_SIZE
from .percept import Percept

F32 = np.float32


def legal_pairs(inputs_avail: Any) -> Any:
    """(5, 11, 2): which (target, Ultimate) pairs some move allows (masks are a product)."""
    return inputs_avail.reshape(TEAM_SIZE, NUM_MOVES, NUM_TARGETS, NUM_ULTIMATE).any(axis=1)


def legal_moves(inputs_avail: Any) -> Any:
    """(5, 9): which moves some pair allows."""
    return inputs_avail.reshape(TEAM_SIZE, NUM_MOVES, NUM_PAIRS).any(axis=2)


def best_pair(xp: Any, basic: Any, ult: Any, pair_ok: Any) -> Any:
    """Highest-scoring legal pair from per-code scores (5, 11) for Basic and Ultimate.

    Pair (no target, no Ultimate) scores 0, so a negative score means "rather do nothing".
    """
    score = xp.stack([basic, ult], axis=-1)
    score = xp.where(pair_ok, score, F32(-1.0))
    nothing = (xp.arange(NUM_TARGETS) == 0)[None, :, None] & (xp.arange(NUM_ULTIMATE) == 0)
    score = xp.where(nothing, F32(0.0), score)
    score = xp.round(score * F32(1000.0))  # NumPy and XLA break near-ties alike
    return xp.argmax(score.reshape(TEAM_SIZE, NUM_PAIRS), axis=1)


def flat_action(xp: Any, move: Any, pair: Any) -> Any:
    return encode_pair(move, pair).astype(xp.int32)


def speeds(xp: Any, cls: Any) -> Any:
    """Each agent's base speed per tick (slows are ignored: pathing only needs a step)."""
    return xp.asarray(classes.SPEED)[cls]


def is_ranged(cls: Any) -> Any:
    return (cls == classes.MAGE) | (cls == classes.HUNTER) | (cls == classes.PRIEST)


def basic_range(xp: Any, cls: Any) -> Any:
    return xp.asarray(classes.BASIC_RANGE)[cls]


def team_point(xp: Any, p: Percept) -> Any:
    """The living agents' mean position (the team's own centre), (2,)."""
    w = p.alive.astype(F32)
    return xp.sum(p.my_xy * w[:, None], axis=0) / xp.maximum(xp.sum(w), F32(1.0))


def pick_enemy(xp: Any, p: Percept, score: Any, last: Any) -> tuple[Any, Any, Any]:
    """The seen enemy with the highest score (5,): its slot, its position, and whether any.

    An enemy within 2 of the last pick (`last`, a point) gets a bonus of 2.5, so that
    near-ties do not flip the team's target (and restart its field) every tick.
    """
    near_last = xp.sum((p.enemy_xy - last) ** 2, axis=-1) < F32(2.0**2)
    score = score + xp.where(near_last, F32(2.5), F32(0.0))
    best = xp.argmax(xp.where(p.enemy_seen, score, F32(-1e9)))
    return best, p.enemy_xy[best], xp.any(p.enemy_seen)


def move_scores(
    xp: Any, p: Any, avail: Any, direction: Any, still: Any, paths: Any
) -> tuple[Any, Any]:
    """Each agent's score for the nine moves (5, 9) along `direction` (`pathing.steer`;
    illegal moves -1e9) and the memory after giving way: an agent giving way to a jammed
    teammate (`pathing.give_way`) heads the other way."""
    from .pathing import give_way, steer

    back_off, paths = give_way(xp, paths, p.my_xy, p.alive, p.enemy_xy, p.enemy_seen)
    direction = xp.where(back_off[:, None], -direction, direction)
    speed = speeds(xp, p.cls)
    return steer(xp, direction, legal_moves(avail), still, p.my_xy, speed, paths), paths


def remember_moves(xp: Any, p: Any, move: Any, paths: Any) -> Any:
    """The memory after the agents took `move` (5,): moves that went nowhere where each
    agent stands, and walls learned by bumping into them (`pathing.remember_move`)."""
    from .pathing import alone, remember_move

    free = alone(xp, p.my_xy, p.alive, p.enemy_xy, p.enemy_seen) & p.alive & ~p.my_held
    return remember_move(xp, paths, p.my_xy, move, speeds(xp, p.cls), free)


def move_and_remember(
    xp: Any,
    p: Any,
    avail: Any,
    direction: Any,
    still: Any,
    paths: Any,
    pair: Any,
    taken: Any = None,
) -> tuple[Any, Any]:
    """Steer each agent along `direction`, remember moves that met a wall, and return the
    flat actions with the updated path memory: the last step all three opponents share.

    `taken` (5,) moves: remember those instead of the team's own choice (the memory of a
    team whose agents were moved by someone else, as a teacher labelling a student's game
    must keep it: `System.follow`)."""
    scores, paths = move_scores(xp, p, avail, direction, still, paths)
    move = xp.argmax(scores, axis=1)
    remembered = move if taken is None else taken
    return flat_action(xp, move, pair), remember_moves(xp, p, remembered, paths)


def scripted_system(name: str, act_fn: Any, memory_fn: Any) -> Any:
    """A scripted opponent's `act_fn(xp, inputs, memory, taken=None)` as a JAX System,
    with `follow`: its memory when its agents took other actions than its own."""
    import jax.numpy as jnp

    from ..core.actions import NUM_PAIRS
    from .base import System

    def act(key, inputs, memory):
        del key  # deterministic
        return act_fn(jnp, inputs, memory)

    def follow(inputs, memory, actions):
        return act_fn(jnp, inputs, memory, taken=jnp.asarray(actions) // NUM_PAIRS)[1]

    return System(name, act, lambda key: memory_fn(jnp), follow=follow)
