"""Building hand-made positions and playing single ticks in tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from marl_bgs import Game
from marl_bgs.core.position import POSITION_FORMAT

STAY = (0, 0, 0)
TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"  # jax.monitoring: one per trace
N, S, E, W, NE, NW, SE, SW = range(1, 9)


def agent(cls: str, x: float, y: float, **fields: Any) -> dict:
    return {"class": cls, "x": x, "y": y, **fields}


def position(
    team_a: list[dict],
    team_b: list[dict],
    obstacles: list[dict] | None = None,
    ends: tuple[str, str] = ("left", "right"),
    wave_clocks: tuple[int, int] = (5, 5),
    **top: Any,
) -> dict:
    """A position on an inline map (open arena unless obstacles are given)."""
    base = {
        "format": POSITION_FORMAT,
        "version": 1,
        "map": {"obstacles": list(obstacles or [])},
        "tick": 0,
        "horizon": 300,
        "winning_score": 20,
        "score": [0, 0],
        "teams": [
            {"spawn_end": ends[0], "wave_clock": wave_clocks[0], "agents": team_a},
            {"spawn_end": ends[1], "wave_clock": wave_clocks[1], "agents": team_b},
        ],
    }
    base.update(top)
    return base


def pillar(x: float, y: float, r: float) -> dict:
    return {"kind": "pillar", "x": x, "y": y, "radius": r}


def wall(x: float, y: float, w: float, h: float, theta: float = 0.0) -> dict:
    return {"kind": "wall", "x": x, "y": y, "width": w, "height": h, "theta": theta}


def play(game: Game, team_a: list, team_b: list) -> list[dict]:
    return game.step([list(team_a), list(team_b)])


def idle(game: Game) -> list[dict]:
    return game.step([[STAY] * game.sizes[0], [STAY] * game.sizes[1]])


def agent_state(game: Game, team: int, slot: int) -> dict:
    return game.state_dict()["teams"][team]["agents"][slot]


def of_kind(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["kind"] == kind]


def enemy(slot: int) -> int:
    return 6 + slot


def own(slot: int) -> int:
    return 1 + slot


@contextmanager
def count_traces() -> Iterator[Counter]:
    """How often JAX traces each function while the block runs, by function name.

    A trace is what a new compilation starts with (a jitted function seen with new shapes,
    dtypes or static arguments); a call that hits the cache traces nothing. Counted from
    JAX's public monitoring events (`jax.monitoring`), so tests need no private `_cache_size()`:

        with count_traces() as traces:
            ...
        assert traces["step"] == 1
    """
    import jax

    counts: Counter = Counter()

    def listen(event: str, seconds: float, **kwargs: Any) -> None:
        if event == TRACE_EVENT:
            counts[kwargs.get("fun_name", "?")] += 1

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        yield counts
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
