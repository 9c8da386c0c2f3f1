"""MARL-BattleGrounds: heterogeneous, competitive multi-agent RL on Team Deathmatch.

Importing the package does not import JAX; the NumPy engine (`Game`) works without it.
"""

from .game import Game

__version__ = "0.1.0"

__all__ = [
    "Game",
    "make",
    "evaluate",
    "crossplay",
    "system_metrics",
    "team_measures",
    "evaluate_scenarios",
    "__version__",
]


def __getattr__(name: str):
    """`make`, `evaluate` and `crossplay` import JAX, and the metrics readers pandas, so
    they load on first use."""
    if name == "make":
        from .env import make

        return make
    if name in ("evaluate", "crossplay"):
        from . import evaluation as module  # not "evaluate": the function keeps that name

        return getattr(module, name)
    if name == "system_metrics":  # pandas, not JAX
        from .metrics.system import system_metrics

        return system_metrics
    if name == "evaluate_scenarios":  # JAX and pandas
        from .scenarios.evaluate import evaluate_scenarios

        return evaluate_scenarios
    if name == "team_measures":
        from .metrics.team import team_measures

        return team_measures
    raise AttributeError(f"module 'marl_bgs' has no attribute {name!r}")
