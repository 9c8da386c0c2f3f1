"""MARL-BattleGrounds: heterogeneous, competitive multi-agent RL on Team Deathmatch.

Importing the package does not import JAX; the NumPy engine (`Game`) works without it.
"""

from .game import Game

__version__ = "0.1.0"

__all__ = ["Game", "__version__"]
