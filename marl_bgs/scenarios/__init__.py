"""Endgame scenarios: nearly lost positions that Team A can still win, with verified lines.

`SCENARIOS` holds the eight records (`Scenario`: id, name, controller, briefing, skills,
position, lines, search), read from the files in `data/` when this package is imported.
`evaluate_scenarios` plays a System as Team A in all of them. See `records` for the file
format, `search` for the solver and `verify` for the line checks.
"""

from __future__ import annotations

from .records import (
    SCENARIOS,
    SKILLS,
    Scenario,
    load_scenario_file,
    load_scenarios,
    read_scenario,
)


def __getattr__(name: str):
    # `evaluate_scenarios` needs pandas and JAX; it is imported on first use, so that
    # reading the scenarios (the Play page, the LLM view) needs neither.
    if name == "evaluate_scenarios":
        from .evaluate import evaluate_scenarios

        return evaluate_scenarios
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SCENARIOS", "SKILLS", "Scenario", "evaluate_scenarios", "load_scenario_file",
           "load_scenarios", "read_scenario"]  # fmt: skip
