"""MARL-BattleGrounds: heterogeneous, competitive multi-agent RL on Team Deathmatch.

Importing the package does not import JAX; the NumPy engine (`Game`) works without it.
"""

from .game import Game

__version__ = "0.1.0"

__all__ = ["Game", "make", "evaluate", "crossplay", "__version__"]


def __getattr__(name: str):
    """`make`, `evaluate` and `crossplay` import JAX, so they load on first use."""
    if name == "make":
        from .env import make

        return make
    if name in ("evaluate", "crossplay"):
        from . import evaluation as module  # not "evaluate": the function keeps that name

        return getattr(module, name)
    raise AttributeError(f"module 'marl_bgs' has no attribute {name!r}")
