"""The Priority metrics reference page, written from the metrics module's own names."""

from __future__ import annotations

from marl_bgs.metrics import METRIC_DESCRIPTIONS, PRIORITY_NAMES
from marl_bgs.metrics.columns import GAME_COLUMNS, MILLI_COLUMNS


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

LABEL_KINDS = (
    ("by_a2", "the agent in team a's slot 2 did it (the source)"),
    ("to_b0", "team b's slot 0 received it (the recipient)"),
    ("of_b1", "the victim, in kill topics; the emitter, in aura coverage"),
    ("on_a3 / on_none", "whom an ability was aimed at; `on_none`: an Ultimate with no target"),
    ("a4", "the agent the row is about, in per-agent topics"),
    ("and_a1", "the second agent of a pair of teammates, in formation"),
    ("a / b", "a team, in per-team topics"),
    ("basic / ultimate", "which ability did it"),
    ("stun, slow_hunter, ...", "a status effect, the recipient's at the start of the tick"),
)


def _axis_text(axis: tuple[str, ...]) -> str:
    if len(axis) > 6:
        return f"`{axis[0]}` … `{axis[-1]}` ({len(axis)})"
    return ", ".join(f"`{a}`" for a in axis)


def full_metrics_page(explorer: bool = True) -> str:
    """Markdown for reference/full-metrics.md, written from `metrics.full.TOPICS`;
    `explorer`: the Metrics Explorer page exists to link to."""
    from marl_bgs.metrics.full import FULL_NAMES, SECTIONS, TOPICS, pair_share

    ours_total = len(FULL_NAMES)
    paper_total = sum(FIGURE4_COLUMNS.values())
    lines = [
        "# Full metrics",
        "",
        f'`metrics="full"` records {ours_total:,} numbers per game in {len(TOPICS)} topics and '
        f"{len(SECTIONS)} sections, {pair_share():.0%} of them who did what to whom (which "
        "Priest healed which ally, who damaged whom while it was slowed). They add up tick by "
        "tick inside the compiled loop, with no stored trajectory, and recording them changes "
        "no game.",
        "",
        '- `marl_bgs.make(..., metrics="full")` keeps them in `state.metrics`;',
        '- `marl_bgs.evaluate(..., metrics="full")` (or `marl-bgs eval --metrics full`) gives '
        "`result.full`, one row per game, saved as `full.parquet`;",
        "- `marl_bgs.metrics.record.replay_full_metrics(replay)` recomputes them from a replay "
        "on the NumPy engine (the same integers);",
        "- `marl_bgs.system_metrics(results, system)` reads every game from one System's side "
        "(its team becomes a), pools them, turns counts into rates per 100 ticks and gives 95% "
        "intervals that resample spawn-swapped pairs within each opponent and map;",
        "- `marl_bgs.team_measures(results, system)` derives team measures from them (formation, "
        "aura payoff, setups) with the same intervals"
        + (
            "; the [Metrics Explorer](../metrics-explorer.md) shows a season's."
            if explorer
            else "."
        ),
        "",
        "## Column names",
        "",
        "A column is `topic.label.label…`, for example `damage_done.by_a0.to_b3.basic`: the "
        "damage team a's slot 0 dealt to team b's slot 3 with its Basic ability. Slots are the "
        "game's own teams, whatever their spawn ends. Damage and healing are in milli-HP and "
        "distances in milli-units, so every sum is an exact integer.",
        "",
        "| label | meaning |",
        "|---|---|",
        *[f"| `{label}` | {meaning} |" for label, meaning in LABEL_KINDS],
        "",
        "## Topics, with the paper's counts",
        "",
        "Our columns are by slot; the paper's Figure 4 counts are given beside them. Pairs by "
        "class follow from the roster (each slot's class is in the game's row).",
        "",
        "| section | topic | axes | columns | who did what to whom | Figure 4 |",
        "|---|---|---|---:|:---:|---:|",
    ]
    for section in SECTIONS:
        topics = [t for t in TOPICS if t.section == section]
        for t in topics:
            axes = " × ".join(_axis_text(a) for a in t.axes)
            pairs = "yes" if t.pairs else ""
            lines.append(
                f"| {section} | [`{t.name}`](#{t.name.replace('_', '-')}) | {axes} | {t.size:,} "
                f"| {pairs} | {FIGURE4_COLUMNS[t.name]:,} |"
            )
        ours = sum(t.size for t in topics)
        paper = sum(FIGURE4_COLUMNS[t.name] for t in topics)
        lines.append(f"| **{section}** | | | **{ours:,}** | | **{paper:,}** |")
    lines += [
        f"| **All** | | | **{ours_total:,}** | {pair_share():.0%} | **{paper_total:,}** (81%) |",
        "",
        "## What each topic counts",
        "",
    ]
    for t in TOPICS:
        lines += [
            f"### {t.name.replace('_', '-')}",
            "",
            f"**{t.title}** ({t.section}; {t.size:,} columns, e.g. `{t.columns[0]}`). "
            f"{t.description}",
            "",
        ]
    return "\n".join(lines)
