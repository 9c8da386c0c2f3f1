"""What a PPO actor reads each tick: its observation and class, and optionally TDM-Alpha's
steering scores for the nine moves (`nav_inputs = true`), with the memory those need.

Why: imitating TDM-Alpha, a student matches its targets and Ultimates but not its walking
(issue 43): Alpha walks along distance fields grown over the obstacles it has seen, a
computation over the whole map that a small network does not learn from the obstacle boxes.
`systems/navigator.py` exposes that computation as nine numbers per agent; the best of them
is Alpha's own move in every moving decision it makes. A policy given them still chooses
its move (and when to stand), its target and its Ultimate itself.

The steering scores need a memory per team and game (`pathing.Paths`: the fields grown so
far and which moves failed where), started afresh by the new-game flag and advanced by the
move each agent actually took (`moved`). Without `nav` the view adds nothing: the memory
is `None` (no array, so checkpoints and compiled programs of such runs are unchanged).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.actions import NUM_MOVES, NUM_PAIRS
from ..core.classes import NUM_CLASSES
from ..core.observation import OBS_WIDTH
from ..systems.navigator import nav_memory, nav_moved, nav_steering

BASE_WIDTH = OBS_WIDTH + NUM_CLASSES  # the observation and the class one-hot
NAV_EXTRA = NUM_MOVES  # TDM-Alpha's score for each move


def actor_width(nav: bool) -> int:
    """The actor's input width with or without the steering scores."""
    return BASE_WIDTH + (NAV_EXTRA if nav else 0)


def base_inputs(xp: Any, obs: Any, classes: Any) -> Any:
    """An agent's own observation and its class one-hot (…, BASE_WIDTH) on `xp` (NumPy or
    `jax.numpy`): the part of the actor's input that every policy reads."""
    obs = xp.asarray(obs, xp.float32)
    one_hot = xp.asarray(classes)[..., None] == xp.arange(NUM_CLASSES)
    return xp.concatenate([obs, one_hot.astype(obs.dtype)], axis=-1)


def _over_batch(fn: Any, lead: int) -> Any:
    """`fn` written for one team, mapped over `lead` batch axes with `jax.vmap`."""
    import jax

    for _ in range(lead):
        fn = jax.vmap(fn)
    return fn


def _lead(inputs: Any) -> int:
    """Batch axes in front of one team's (5, OBS_WIDTH) observation."""
    return np.ndim(inputs.obs) - 2


class ActorView(NamedTuple):
    """The actor's inputs on JAX (the learners, validation and `LearnedPolicy`)."""

    nav: bool = False

    @property
    def width(self) -> int:
        return actor_width(self.nav)

    def init(self, *lead: int) -> Any:
        """A fresh steering memory for `lead` games (none for one team), or None."""
        if not self.nav:
            return None
        import jax.numpy as jnp

        one = nav_memory(jnp)
        return type(one)(*(jnp.broadcast_to(a, (*lead, *a.shape)) for a in one))

    def read(self, inputs: Any, memory: Any) -> tuple[Any, Any]:
        """The actor's inputs (…, 5, width) for `TeamInputs` (one team or a batch of games),
        and the steering memory to hand `moved` once the actions are chosen."""
        import jax.numpy as jnp

        x = base_inputs(jnp, inputs.obs, inputs.classes)
        if not self.nav:
            return x, memory
        scores, memory = self.steering(inputs, memory)
        return jnp.concatenate([x, scores.astype(x.dtype)], -1), memory

    def steering(self, inputs: Any, memory: Any) -> tuple[Any, Any]:
        """TDM-Alpha's steering scores alone (…, 5, NAV_EXTRA) and the advanced memory
        (a view with `nav`)."""
        import jax.numpy as jnp

        return _over_batch(lambda i, m: nav_steering(jnp, i, m), _lead(inputs))(inputs, memory)

    def moved(self, inputs: Any, memory: Any, actions: Any) -> Any:
        """The steering memory after the team took its flat own-frame `actions` (…, 5)."""
        if not self.nav:
            return memory
        import jax.numpy as jnp

        def one(i, m, a):
            return nav_moved(jnp, i, m, a // NUM_PAIRS)

        return _over_batch(one, _lead(inputs))(inputs, memory, actions)


def numpy_memory(games: int | None = None) -> Any:
    """A fresh steering memory on NumPy: one team's, or a list of `games` teams'."""
    if games is None:
        return nav_memory(np)
    return [nav_memory(np) for _ in range(games)]


def numpy_read(inputs: Any, memory: Any) -> tuple[Any, Any]:
    """`ActorView(nav=True).read` on NumPy (the browser and `NumpyPolicy`): the steering
    scores (…, 5, 9) alone, one team at a time, with the memory to hand `numpy_moved`."""
    if _lead(inputs) == 0:
        return nav_steering(np, inputs, memory)
    rows = [nav_steering(np, _game(inputs, g), m) for g, m in enumerate(memory)]
    return np.stack([r[0] for r in rows]), [r[1] for r in rows]


def numpy_moved(inputs: Any, memory: Any, actions: Any) -> Any:
    """`ActorView(nav=True).moved` on NumPy."""
    moves = np.asarray(actions) // NUM_PAIRS
    if _lead(inputs) == 0:
        return nav_moved(np, inputs, memory, moves)
    return [nav_moved(np, _game(inputs, g), m, moves[g]) for g, m in enumerate(memory)]


def _game(inputs: Any, g: int) -> Any:
    """Game `g` of a batch of `TeamInputs` (a batch has one leading axis)."""
    return type(inputs)(*(np.asarray(a)[g] for a in inputs))


__all__ = ["ActorView", "BASE_WIDTH", "NAV_EXTRA", "actor_width", "base_inputs", "numpy_memory",
           "numpy_moved", "numpy_read"]  # fmt: skip
