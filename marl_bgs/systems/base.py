"""Systems: whatever chooses a team's actions from what that team may see.

A System is a plain record of two functions and a name; nothing to subclass. `act` gets one
game's `TeamInputs` (observations, exact masks, which slots are used and alive, their
classes, whether the game just started), a random key and the System's own memory, and
returns one flat action (0-197, in each agent's own frame) per slot and the new memory.

- `jax_system(fn)`: a JAX function, compiled with the game and batched with `vmap`.
- `host_system(fn)`: a plain Python function run on the host, for humans, LLMs, planners;
  it gets NumPy inputs for all games at once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..core.actions import NUM_JOINT
from ..core.inputs import TeamInputs
from ..core.state import TEAM_SIZE


class System(NamedTuple):
    """A team's decision maker: `act(key, inputs, memory) -> (actions (5,), memory)`.

    Build one with `jax_system` or `host_system` rather than by hand.

    Attributes:
        name: The name tables and replays show.
        act: `act(key, inputs, memory) -> (actions, memory)`: one game's `TeamInputs`
            (batched with `vmap` by the loop), a JAX key, the System's memory; returns
            int32 `(5,)` flat actions 0..197 in each agent's own frame, and the new
            memory. A host System gets every game at once: `(games, 5)` out.
        init: `init(key) -> memory` at a game's start.
        on_host: True for a host System (plain Python, run between compiled ticks).
        report: Host Systems only, optional: from a batch's final memory, one list of
            row dicts per game (an LLM System's request counts), gathered by `evaluate`.
        follow: Optional: `follow(inputs, memory, actions) -> memory`, the memory after a
            decision when the team's agents took `actions` rather than its own choice (a
            teacher labelling a student's games; the scripted teams have it).
    """

    name: str
    act: Callable[[Any, TeamInputs, Any], tuple[Any, Any]]
    init: Callable[[Any], Any]  # key -> memory at a game's start
    on_host: bool = False
    # Host Systems only, optional: from a batch's final memory, one list of row dicts per
    # game (an LLM System's request counts per agent); `evaluate` gathers them.
    report: Callable[[Any], list[list[dict]]] | None = None
    # Optional: `follow(inputs, memory, actions) -> memory`, the memory after one decision
    # from `memory` when the team's agents took `actions` (5,) rather than its own choice.
    # A teacher labelling a student's games needs it when its memory depends on what it did
    # (the scripted teams remember which of their moves failed); None: it does not.
    follow: Callable[[Any, Any, Any], Any] | None = None


def _no_memory(key: Any) -> Any:
    """A memoryless System's memory: a NumPy zero, which JAX takes as a constant under jit
    and vmap, so building or initialising a System never imports JAX."""
    del key
    return np.zeros((), np.int32)


def jax_system(
    fn: Callable[..., Any], name: str | None = None, init: Callable[[Any], Any] | None = None
) -> System:
    """Wrap `fn(key, inputs) -> actions` or `fn(key, inputs, memory) -> (actions, memory)`.

    The function must be traceable by JAX: it runs inside the compiled game loop.

    ```python
    def greedy_stay(key, inputs):          # one game's TeamInputs
        return jnp.zeros(5, jnp.int32)     # flat action 0: stay, no target, per slot

    system = jax_system(greedy_stay, name="stay")
    marl_bgs.evaluate(system, "random", games=2)
    ```

    Args:
        fn: The policy, for one game: `fn(key, inputs)` returning int32 `(5,)` flat
            actions (0..197, own frame), or, with a third parameter, `fn(key, inputs,
            memory)` returning `(actions, memory)`.
        name: The System's name; `fn.__name__` by default.
        init: `init(key) -> memory` at each game's start, for a function with memory;
            by default a constant zero (no JAX needed to build it).

    Returns:
        The `System` (`on_host` False).

    Raises:
        ValueError: `fn` is not callable.
    """
    if not callable(fn):
        raise ValueError(f"fn: expected a function, got {fn!r}")
    takes_memory = len(inspect.signature(fn).parameters) >= 3
    if takes_memory:
        act = fn
    else:

        def act(key, inputs, memory):
            return fn(key, inputs), memory

    return System(name or getattr(fn, "__name__", "system"), act, init or _no_memory)


def host_system(
    fn: Callable[..., Any], name: str | None = None, init: Callable[[Any], Any] | None = None
) -> System:
    """Wrap a plain Python `fn(inputs) -> actions` (or `fn(inputs, memory)` returning
    `(actions, memory)`), called on the host with NumPy inputs for every game at once:
    `inputs.obs` has shape (games, 5, OBS_WIDTH) and the answer must be (games, 5) ints.

    For humans, LLMs and planners: anything that cannot be traced by JAX. The game loop
    then runs tick by tick on the host.

    Args:
        fn: `fn(inputs)` returning `(games, 5)` whole numbers in 0..197, or
            `fn(inputs, memory)` returning `(actions, memory)`; `inputs` is a NumPy
            `TeamInputs` with a leading games axis.
        name: The System's name; `fn.__name__` by default.
        init: `init(key) -> memory` for a batch; by default None.

    Returns:
        The `System` (`on_host` True). Its `act` refuses answers of a wrong shape, dtype
            or range with a `ValueError`.

    Raises:
        ValueError: `fn` is not callable.
    """
    if not callable(fn):
        raise ValueError(f"fn: expected a function, got {fn!r}")
    takes_memory = len(inspect.signature(fn).parameters) >= 2
    label = name or getattr(fn, "__name__", "host")

    def act(key, inputs, memory):
        del key
        if takes_memory:
            actions, memory = fn(inputs, memory)
        else:
            actions = fn(inputs)
        return check_host_actions(actions, inputs, label), memory

    return System(label, act, init or (lambda key: None), True)


def check_host_actions(actions: Any, inputs: TeamInputs, name: str = "") -> np.ndarray:
    """A host System's answer as (games, 5) int32; wrong shapes or values are refused,
    naming the System (in a season, the entrant whose System it is).

    Args:
        actions: The answer, array-like.
        inputs: The inputs it answered (their `present` gives the number of games).
        name: The System's name, for the message.

    Returns:
        int32 `(games, 5)`.

    Raises:
        ValueError: A wrong shape, a non-integer dtype, or a value outside 0..197.
    """
    who = f"host system {name!r}" if name else "host system"
    arr = np.asarray(actions)
    games = np.asarray(inputs.present).shape[0]
    if arr.shape != (games, TEAM_SIZE):
        raise ValueError(f"{who}: expected actions of shape ({games}, 5), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{who}: actions must be whole numbers, got {arr.dtype}")
    if arr.min(initial=0) < 0 or arr.max(initial=0) >= NUM_JOINT:
        raise ValueError(f"{who}: actions must lie in 0..{NUM_JOINT - 1}")
    return arr.astype(np.int32)


def check_jax_actions(actions: Any, games: int, system: System, where: str) -> Any:
    """A JAX System's batched answer checked where it is traced: exactly (games, 5) whole
    numbers, else a ValueError naming the System (a wrong shape would otherwise be read
    with clamped indices, copying one slot's action into the next). Values are checked
    at run time by the env (`info["invalid_action"]`).

    Args:
        actions: The traced answer.
        games: The batch's number of games.
        system: The System that answered.
        where: The field to name (`"team_a"`).

    Returns:
        `actions`, unchanged.

    Raises:
        ValueError: A wrong shape or a non-integer dtype.
    """
    import jax.numpy as jnp

    shape, dtype = getattr(actions, "shape", None), getattr(actions, "dtype", None)
    if shape != (games, TEAM_SIZE):
        raise ValueError(
            f"{where}: System {system.name!r} returned actions of shape {shape} for {games} "
            f"games; expected ({TEAM_SIZE},) flat actions (0..{NUM_JOINT - 1}) per game"
        )
    if dtype is None or not jnp.issubdtype(dtype, jnp.integer):
        raise ValueError(f"{where}: System {system.name!r} returned {dtype} actions; "
                         "expected whole numbers")  # fmt: skip
    return actions
