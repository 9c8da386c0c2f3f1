"""The NumPy and JAX engines play identical games.

200 games of uniformly random legal actions (100 on map 47, 100 in an open arena; half from
random mid-game positions, half from the spawn pads) are played on the NumPy engine one tick
at a time; the same action sequences are then replayed on the JAX engine, all games at once
under jit, vmap and lax.scan. Every tick's state and every tick's record of what happened
(damage, healing, effects, deaths, points, Charges, respawns) must be identical: the engine
computes in whole thousandths, so "within 1e-4" is in fact "equal".
"""

from __future__ import annotations

import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.core import classes
from marl_bgs.core.events import tick_events
from marl_bgs.core.position import starting_position
from marl_bgs.core.state import MAX_OBSTACLES, State, map_arrays
from marl_bgs.core.tick import TickInfo
from tests.gen import random_position, random_slots

GAMES = 200
TICKS = 100
OPEN_ARENA = {"obstacles": []}


def _start(i: int, rng: np.random.Generator) -> dict:
    map_ref = 47 if i % 2 == 0 else OPEN_ARENA
    if i % 4 < 2:
        return random_position(rng, map_ref, horizon=TICKS)
    rosters = [
        [classes.CLASS_NAMES[int(c)] for c in rng.integers(0, 5, rng.integers(1, 6))]
        for _ in range(2)
    ]
    ends = ("left", "right") if rng.random() < 0.5 else ("right", "left")
    return starting_position(map_ref, tuple(rosters), ends, horizon=TICKS)


@pytest.fixture(scope="module")
def numpy_games():
    rng = np.random.default_rng(20261129)
    games = []
    for i in range(GAMES):
        g = Game(_start(i, rng))
        first = g.state
        actions, states, infos = [], [], []
        while not g.done:
            slots = random_slots(g, rng)
            info = g.step_slots(slots)
            actions.append(slots)
            states.append(g.state)
            infos.append(info)
        # One padded size for every map, so the JAX engine runs all games in one program.
        padded = map_arrays(
            g.obstacles, boxes=MAX_OBSTACLES, polys=8, pillars=MAX_OBSTACLES, rects=MAX_OBSTACLES
        )
        games.append((first, padded, actions, states, infos))
    return games


def test_games_are_eventful(numpy_games):
    """The random games exercise the rules the parity check is about."""
    kinds = {"killed": 0, "respawned": 0, "charge": 0, "trap_broken": 0, "shield_cleared": 0}
    for first, _, _, states, infos in numpy_games:
        before = first
        for state, info in zip(states, infos, strict=True):
            kinds["killed"] += int(info.killed.sum())
            kinds["respawned"] += int(info.respawned.sum())
            kinds["charge"] += int((info.charged_to != before.pos).any(axis=1).sum())
            kinds["trap_broken"] += int(info.trap_broken.sum())
            kinds["shield_cleared"] += int(info.shield_cleared.sum())
            before = state
    assert all(count > 0 for count in kinds.values()), kinds


def test_jax_engine_plays_the_same_games(numpy_games):
    import jax
    import jax.numpy as jnp

    from marl_bgs.core.tick import step

    def stack(items):
        return jax.tree.map(lambda *xs: np.stack(xs), *items)

    starts = stack([g[0] for g in numpy_games])
    maps = stack([g[1] for g in numpy_games])
    lengths = [len(g[2]) for g in numpy_games]
    longest = max(lengths)
    actions = np.zeros((longest, GAMES, 10, 3), np.int32)
    for i, g in enumerate(numpy_games):
        actions[: lengths[i], i] = np.stack(g[2])

    def play(state, acts, m):
        def tick(s, a):
            s2, info = step(jnp, s, a, m)
            return s2, (s2, info)

        return jax.lax.scan(tick, state, acts)[1]

    run = jax.jit(jax.vmap(play, in_axes=(0, 1, 0), out_axes=1))
    jax_states, jax_infos = jax.device_get(run(starts, jnp.asarray(actions), maps))

    mismatches = []
    for i, (_, _, _, states, infos) in enumerate(numpy_games):
        for t in range(lengths[i]):
            for name, want, got in zip(State._fields, states[t], jax_states, strict=True):
                if not np.array_equal(want, got[t, i]):
                    mismatches.append((i, t, "state." + name))
            for name, want, got in zip(TickInfo._fields, infos[t], jax_infos, strict=True):
                if not np.array_equal(want, got[t, i]):
                    mismatches.append((i, t, "info." + name))
    assert mismatches == [], mismatches[:10]

    # The events read from both engines' records are the same lists, word for word.
    for i in range(0, GAMES, 10):
        first, _, _, states, infos = numpy_games[i]
        before = first
        for t in range(lengths[i]):
            jax_info = TickInfo(*(x[t, i] for x in jax_infos))
            jax_after = State(*(x[t, i] for x in jax_states))
            assert tick_events(before, jax_info, jax_after) == tick_events(
                before, infos[t], states[t]
            )
            before = states[t]
