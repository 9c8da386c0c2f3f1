"""Systems on the NumPy engine, one game at a time and without JAX: what the browser plays.

A `NumpySystem` is the NumPy twin of a registered System. The scripted opponents run the
very `*_act(xp, inputs, memory)` functions that their JAX Systems compile, with `xp = numpy`,
so they decide exactly as they do compiled (tests/systems/test_scripted.py checks the act functions
on both backends). `random` draws uniformly from the legal actions with a NumPy generator
(its draws are not the JAX System's). Nothing here imports JAX, pandas, pyarrow or tqdm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..core.events import tick_events
from ..core.state import TEAM_SIZE
from .base import TeamInputs
from .random import uniform_numpy

NAMES = ("random", "tdm-alpha", "tdm-beta", "tdm-gamma")


class NumpySystem(NamedTuple):
    """`act(inputs, memory, rng) -> (flat actions (5,), memory)`; `init() -> memory`."""

    name: str
    act: Callable[[TeamInputs, Any, np.random.Generator], tuple[np.ndarray, Any]]
    init: Callable[[], Any]


def _scripted(name: str, act_fn: Callable, memory_fn: Callable) -> NumpySystem:
    def act(inputs: TeamInputs, memory: Any, rng: np.random.Generator) -> tuple[Any, Any]:
        del rng  # deterministic
        return act_fn(np, inputs, memory)

    return NumpySystem(name, act, lambda: memory_fn(np))


def _random() -> NumpySystem:
    def act(inputs: TeamInputs, memory: Any, rng: np.random.Generator) -> tuple[Any, Any]:
        return uniform_numpy(rng, inputs), memory

    return NumpySystem("random", act, lambda: None)


def numpy_system(name: str) -> NumpySystem:
    """The System registered as `name`, playing on NumPy (see `NAMES`)."""
    if name == "random":
        return _random()
    if name == "tdm-alpha":
        from .scripted import alpha_act, alpha_memory

        return _scripted(name, alpha_act, alpha_memory)
    if name == "tdm-beta":
        from .beta import beta_act, beta_memory

        return _scripted(name, beta_act, beta_memory)
    if name == "tdm-gamma":
        from .gamma import gamma_act, gamma_memory

        return _scripted(name, gamma_act, gamma_memory)
    raise ValueError(f"system: unknown name {name!r}; known on NumPy: {', '.join(NAMES)}")


def decide(
    game: Any, team: int, system: NumpySystem, memory: Any, rng: np.random.Generator
) -> tuple[np.ndarray, Any]:
    """One team's flat own-frame actions (5,) for the game's current state, and new memory."""
    actions, memory = system.act(game.team_inputs(team), memory, rng)
    actions = np.asarray(actions)
    if actions.shape != (TEAM_SIZE,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"{system.name}: expected {TEAM_SIZE} whole flat actions, got "
            f"{actions.dtype} {actions.shape}"
        )
    return actions.astype(np.int32), memory


def play_tick(
    game: Any,
    systems: tuple[NumpySystem, NumpySystem],
    memories: list,
    rng: np.random.Generator,
) -> list[dict]:
    """Both teams decide from the same start-of-tick state, then one tick is played;
    `memories` (one per team) is updated in place. Returns the tick's events."""
    flat = []
    for t in range(2):
        actions, memories[t] = decide(game, t, systems[t], memories[t], rng)
        flat.append(actions)
    before = game.state
    info = game.step_slots(game.slots_from_flat(flat[0], flat[1]))
    return tick_events(before, info, game.state)
