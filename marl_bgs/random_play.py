"""Uniformly random legal actions for a `Game`, drawn on the host with NumPy."""

from __future__ import annotations

import numpy as np

from .core.actions import decode
from .game import Game


def random_actions(game: Game, rng: np.random.Generator) -> list[list[tuple[int, int, int]]]:
    """One uniformly drawn legal joint action per agent, as `Game.step` takes them.

    Each agent's draw is `rng.choice(np.flatnonzero(its legal row))`, team a's agents first:
    that choice is the nth legal action for n = `rng.integers(0, count)`, and one
    `integers` call over all the counts draws the same numbers in the same order (one array
    call instead of three per agent; tests/core/test_numpy_fast_paths.py holds the two alike).
    """
    legal = game.legal_actions()
    rows = np.concatenate([legal[t, : game.sizes[t]] for t in range(2)])
    nth = rng.integers(0, rows.sum(axis=1))
    flat = (rows.cumsum(axis=1) > nth[:, None]).argmax(axis=1)
    decoded = list(zip(*(part.tolist() for part in decode(flat)), strict=True))
    return [decoded[: game.sizes[0]], decoded[game.sizes[0] :]]


def play_random_game(game: Game, seed: int) -> list[list[dict]]:
    """Play random legal actions for both teams until the game ends; returns each tick's events."""
    rng = np.random.default_rng(seed)
    log = []
    while not game.done:
        log.append(game.step(random_actions(game, rng)))
    return log
