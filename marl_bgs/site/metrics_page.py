"""The Priority metrics and Full metrics reference pages, written from the metrics modules'
own names; the words are the templates `site_src/_templates/reference/metrics.md.j2` and
`full-metrics.md.j2`."""

from __future__ import annotations

from marl_bgs.metrics import METRIC_DESCRIPTIONS, PRIORITY_NAMES
from marl_bgs.metrics.columns import GAME_COLUMNS, MILLI_COLUMNS

from . import templates


def metrics_page() -> str:
    """Markdown for reference/metrics.md: one row per metric, in the order arrays hold them."""
    return templates.render(
        "reference/metrics.md.j2",
        names=PRIORITY_NAMES,
        descriptions=METRIC_DESCRIPTIONS,
        milli_columns=MILLI_COLUMNS,
        game_columns=GAME_COLUMNS,
    )


# Figure 4 of the paper: its number of columns for each of our 28 topics (same order).
FIGURE4_COLUMNS = {
    "episode_results": 16, "activations": 664, "actions": 84, "damage_done": 496,
    "damage_received": 42, "damage_to_affected": 1204, "healing_done": 1168,
    "healing_received": 148, "excess_healing": 712, "healing_to_affected": 1114,
    "healing_saves": 544, "kill_contributions": 742, "kills_of_affected": 1274, "deaths": 42,
    "respawning": 6, "red_zone": 44, "coordination": 4, "formation": 44, "aura_coverage": 552,
    "aura_payoff": 4, "status_applications": 1388, "time_with_status": 108, "freedom": 36,
    "mage_burst": 520, "warrior_charge": 2, "hunter_trap": 218, "rogue_poison": 14,
    "priest_ultimate": 2,
}  # fmt: skip


def full_metrics_page(explorer: bool = True) -> str:
    """Markdown for reference/full-metrics.md, written from `metrics.topics.TOPICS`;
    `explorer`: the Metrics Explorer page exists to link to."""
    from marl_bgs.metrics.full import FULL_NAMES, pair_share
    from marl_bgs.metrics.topics import SECTIONS, TOPICS

    paper = {
        section: sum(FIGURE4_COLUMNS[t.name] for t in TOPICS if t.section == section)
        for section in SECTIONS
    }
    return templates.render(
        "reference/full-metrics.md.j2",
        topics=TOPICS,
        sections=SECTIONS,
        total=len(FULL_NAMES),
        pair_share=pair_share(),
        figure4=FIGURE4_COLUMNS,
        paper=paper,
        explorer=explorer,
    )
