"""Recording games as replays: from a `Game` tick by tick, or from stacked trajectory arrays.

Recording only reads states and tick infos the engine already produced; it never feeds
anything back, so a recorded game is the game that would have been played anyway.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any

import numpy as np

from ..core.events import tick_events
from ..core.position import position_dict
from ..core.sight import compute_sight
from ..core.state import (
    NUM_SLOTS,
    RESULT_OPEN,
    SPAWN_END_NAMES,
    TEAM_SIZE,
    State,
    map_arrays,
)
from ..core.tick import TickInfo
from ..game import Game
from ..maps import MAP_FORMAT, MAP_VERSION, load_map
from .metrics import metrics_from_content
from .schema import FRAME_FIELDS, Replay

BITS = 1 << np.arange(NUM_SLOTS, dtype=np.int64)


def package_versions() -> dict[str, str | None]:
    """Versions of the packages that decide a game's numbers (jax: None if not installed).

    Returns:
        `{"marl_bgs": ..., "numpy": ..., "jax": ... or None}`, as replays store them.
    """
    from ..version import __version__

    try:
        jax_version = metadata.version("jax")
    except metadata.PackageNotFoundError:
        jax_version = None
    return {"marl_bgs": __version__, "numpy": np.__version__, "jax": jax_version}


def map_file_of(map_ref: Any, obstacles: list[dict]) -> dict:
    """The map file for a numbered map, or a minimal map document for an inline one."""
    if isinstance(map_ref, int):
        return load_map(map_ref)
    return {
        "format": MAP_FORMAT,
        "version": MAP_VERSION,
        "id": None,
        "name": "inline map",
        "width": 20.0,
        "height": 10.0,
        "obstacles": list(obstacles),
    }


def sight_masks(state: State, obstacles: list[dict]) -> np.ndarray:
    """(10,) bitmask per agent of the agents it sees (own sight) in this state."""
    own = np.asarray(compute_sight(np, state, map_arrays(obstacles)).own_sight)
    return (own.astype(np.int64) * BITS[None, :]).sum(axis=1)


def _systems_per_slot(systems: Sequence[Any], present: np.ndarray) -> list[str | None]:
    """Two team names (or ten slot names) as one name per slot, None for empty slots."""
    names = list(systems)
    if len(names) == 2:
        names = [names[s // TEAM_SIZE] for s in range(NUM_SLOTS)]
    if len(names) != NUM_SLOTS:
        raise ValueError("systems: give two team names or ten slot names")
    out = []
    for s, name in enumerate(names):
        if not isinstance(name, str) and not hasattr(name, "name"):
            raise ValueError(f"systems[{s}]: expected a name or a System, got {name!r}")
        label = name if isinstance(name, str) else name.name
        out.append(label if present[s] else None)
    return out


def _index(tree: Any, t: int) -> Any:
    return type(tree)(*(np.asarray(x)[t] for x in tree))


def replay_from_arrays(
    map_file: dict,
    start_state: State | None,
    states: State,
    infos: TickInfo,
    actions: Any,
    systems: Sequence[Any],
    seed: dict | int | None,
    *,
    title: str = "",
    versions: dict | None = None,
) -> Replay:
    """A replay from stacked NumPy arrays: `states` (leading axis T + 1, the start first) and
    `infos` (leading axis T), as collected from the compiled JAX loop.

    `start_state` (optional) must equal `states[0]`; `actions` (optional) must equal the
    accepted actions in `infos`. Ticks after the game ended (the env holds a finished game
    still) are dropped.

    Args:
        map_file: The map file the game was played on (`load_map(id)`, or an inline one).
        start_state: None, or the first state, checked against `states[0]`.
        states: The engine `State` of one game, every field stacked over T + 1 states.
        infos: The `TickInfo` of each tick, stacked over T ticks.
        actions: None, or the accepted actions `(T, 10, 3)`, checked against `infos`.
        systems: Two team names (or Systems) or ten slot names.
        seed: `{"root": ..., "game": ...}`, a root seed, or None.
        title: A line of text for viewers.
        versions: Package versions to store; by default `package_versions()`.

    Returns:
        The `Replay`, with its events, sight masks and priority metrics computed.

    Raises:
        ValueError: Lengths that disagree, a `start_state` or `actions` that differ from
            the arrays, or bad `systems`, naming the argument.
    """
    states = State(*(np.asarray(x) for x in states))
    infos = TickInfo(*(np.asarray(x) for x in infos))
    total = states.tick.shape[0] - 1
    if total < 0 or infos.actions.shape[0] != total:
        raise ValueError(
            f"infos: expected {max(total, 0)} ticks for {total + 1} states, "
            f"got {infos.actions.shape[0]}"
        )
    if start_state is not None:
        for name, a, b in zip(State._fields, start_state, _index(states, 0), strict=True):
            if not np.array_equal(np.asarray(a), b):
                raise ValueError(f"start_state.{name}: differs from states[0]")
    if actions is not None and not np.array_equal(np.asarray(actions), infos.actions):
        raise ValueError("actions: differ from the accepted actions in infos")
    ended = np.flatnonzero(states.result[:-1] != RESULT_OPEN)
    ticks = int(ended[0]) if ended.size else total
    obstacles = map_file["obstacles"]
    frames = {}
    for name in FRAME_FIELDS:
        values = getattr(states, name)[: ticks + 1]
        frames[name] = values.astype(np.int64)
    events = [
        tick_events(_index(states, t), _index(infos, t), _index(states, t + 1))
        for t in range(ticks)
    ]
    sight = np.stack([sight_masks(_index(states, t), obstacles) for t in range(ticks + 1)])
    acts = infos.actions[:ticks].astype(np.int64).reshape(ticks, NUM_SLOTS, 3)
    start = position_dict(_index(states, 0), {"obstacles": obstacles})
    if isinstance(seed, int) or seed is None:
        seed = {"root": seed, "game": None}
    seed = {
        "root": seed.get("root"),
        "game": seed.get("game"),
        "spawn_ends": [SPAWN_END_NAMES[int(e)] for e in states.spawn_end[0]],
    }
    return Replay(
        map=map_file,
        start=start,
        systems=_systems_per_slot(systems, states.present[0]),
        seed=seed,
        versions=versions if versions is not None else package_versions(),
        frames=frames,
        actions=acts,
        events=events,
        sight=sight,
        metrics=metrics_from_content(frames, acts, events),
        title=title,
    )


ChooseActions = Callable[[Game], Any]


def record_game(
    game: Game,
    choose_actions: ChooseActions,
    systems: Sequence[Any] = ("unnamed", "unnamed"),
    seed: dict | int | None = None,
    *,
    title: str = "",
    max_ticks: int | None = None,
) -> Replay:
    """Play `game` to its end (or `max_ticks`) and return the replay.

    `choose_actions(game)` returns the tick's actions: `[[team 0], [team 1]]` of
    (move, target, ultimate), as `Game.step` takes them, or a (10, 3) array per slot.

    ```python
    game = Game(starting_position(47))
    replay = record_game(game, lambda g: np.zeros((10, 3), np.int32), ("idle", "idle"))
    replay.save("idle.json.gz")
    ```

    Args:
        game: The `Game` to play from its current state; it is played on.
        choose_actions: `choose_actions(game)` -> the tick's actions (compass frame).
        systems: Two team names (or Systems), or ten slot names, stored in the replay.
        seed: `{"root": ..., "game": ...}`, a root seed, or None; stored as
            `{"root", "game", "spawn_ends"}` (a bare seed becomes `root`; other keys of a
            dict are dropped).
        title: A line of text for viewers.
        max_ticks: Stop after this many ticks even if the game is not over.

    Returns:
        The `Replay` of the ticks played (0 ticks for a game that is already over).

    Raises:
        ValueError: Bad actions (naming the place, as `Game.step` does) or bad `systems`.
    """
    states, infos = [game.state], []
    while not game.done and (max_ticks is None or len(infos) < max_ticks):
        chosen = choose_actions(game)
        if isinstance(chosen, np.ndarray) and chosen.shape == (NUM_SLOTS, 3):
            slots = chosen.astype(np.int32)
        else:
            slots = game.encode_actions(chosen)
        infos.append(game.step_slots(slots))
        states.append(game.state)
    stacked = State(*(np.stack([np.asarray(getattr(s, f)) for s in states]) for f in State._fields))
    if infos:
        info_arrays = TickInfo(
            *(np.stack([np.asarray(getattr(i, f)) for i in infos]) for f in TickInfo._fields)
        )
    else:
        info_arrays = empty_infos(game)
    return replay_from_arrays(
        map_file_of(game.map_ref, game.obstacles),
        None,
        stacked,
        info_arrays,
        None,
        systems,
        seed,
        title=title,
    )


def empty_infos(game: Game) -> TickInfo:
    """Zero ticks of infos with the right trailing shapes (a game recorded before any tick)."""
    from ..core.tick import step

    _, info = step(np, game.state, np.zeros((NUM_SLOTS, 3), np.int32), game.map_arrays)
    return TickInfo(*(np.zeros((0, *np.shape(x)), np.asarray(x).dtype) for x in info))


__all__ = ["record_game", "replay_from_arrays", "package_versions"]
