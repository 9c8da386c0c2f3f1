"""MARL-BattleGrounds: heterogeneous, competitive multi-agent RL on Team Deathmatch.

Importing the package imports nothing else (every name below loads on first use), so that
`marl_bgs.version` and the light modules cost nothing; the NumPy engine (`Game`) works
without JAX.
"""

from .version import __version__

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
    """`Game` imports NumPy, `make`, `evaluate` and `crossplay` JAX, and the metrics readers
    pandas, so each loads on first use."""
    if name == "Game":  # NumPy
        from .game import Game

        return Game
    if name == "make":
        from .registration import make

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
