"""The Priority metrics reference page, written from the metrics module's own names."""

from __future__ import annotations

from marl_bgs.evaluation import GAME_COLUMNS, MILLI_COLUMNS
from marl_bgs.metrics import METRIC_DESCRIPTIONS, PRIORITY_NAMES


def metrics_page() -> str:
    """Markdown for reference/metrics.md: one row per metric, in the order arrays hold them."""
    lines = [
        "# Priority metrics",
        "",
        "Every game carries sixteen numbers. The JAX environment adds them up tick by tick",
        'inside the compiled loop (`make(..., metrics="priority")`; no trajectory is stored),',
        "a replay recomputes them from its recorded ticks, and both give the same integers.",
        "Team a is the first team of a game, team b the second, whichever end they start at.",
        "",
        "| index | name | meaning | in `evaluate` rows |",
        "|---:|---|---|---|",
    ]
    for i, name in enumerate(PRIORITY_NAMES):
        if name == "result":
            column = "`result` as `a`, `b` or `draw`"
        elif name in MILLI_COLUMNS:
            column = f"`{name}` in health points"
        elif name in GAME_COLUMNS:
            column = f"`{name}`"
        else:
            column = "not a column"
        lines.append(f"| {i} | `{name}` | {METRIC_DESCRIPTIONS[name]} | {column} |")
    lines += [
        "",
        "`evaluate` rows add `margin` (`points_a - points_b`) and the game's schedule: map,",
        "seed number, spawn ends, systems and rosters.",
        "",
    ]
    return "\n".join(lines)
