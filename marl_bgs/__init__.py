"""MARL-BattleGrounds: heterogeneous, competitive multi-agent RL on Team Deathmatch.

Importing the package does not import JAX; the NumPy engine (`Game`) works without it.
"""

from .game import Game

__version__ = "0.1.0"

__all__ = ["Game", "make", "__version__"]


def __getattr__(name: str):
    """`make` imports JAX, so it loads on first use: the NumPy engine never needs JAX."""
    if name == "make":
        from .env import make

        return make
    raise AttributeError(f"module 'marl_bgs' has no attribute {name!r}")
