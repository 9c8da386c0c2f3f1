"""Uniformly random legal actions for a `Game`, drawn on the host with NumPy."""

from __future__ import annotations

import numpy as np

from .core.observe import NUM_TARGETS
from .game import Game


def decode(flat: int) -> tuple[int, int, int]:
    """Flat index (move * 11 + target) * 2 + ultimate -> (move, target, ultimate)."""
    return flat // (2 * NUM_TARGETS), (flat // 2) % NUM_TARGETS, flat % 2


def random_actions(game: Game, rng: np.random.Generator) -> list[list[tuple[int, int, int]]]:
    """One uniformly drawn legal joint action per agent, as `Game.step` takes them."""
    legal = game.legal_actions()
    actions = []
    for t in range(2):
        team = []
        for k in range(game.sizes[t]):
            team.append(decode(int(rng.choice(np.flatnonzero(legal[t, k])))))
        actions.append(team)
    return actions


def play_random_game(game: Game, seed: int) -> list[list[dict]]:
    """Play random legal actions for both teams until the game ends; returns each tick's events."""
    rng = np.random.default_rng(seed)
    log = []
    while not game.done:
        log.append(game.step(random_actions(game, rng)))
    return log
