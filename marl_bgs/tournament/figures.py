"""The season's figures (matplotlib, written as SVG and PNG), drawn from the leaderboard data.

Files are byte-identical across runs: the SVG id salt is fixed and no date is stored.
"""

from __future__ import annotations

from pathlib import Path

FIGURES = {
    "matchups": "matchup_heatmap",
    "per_map_wdl": "per_map_wdl",
    "per_map": "per_map_forest",
    "heterogeneity": "heterogeneity",
}
# Wins, draws and losses, in the matchup heatmap's blue and red (RdBu's ends) and a neutral grey.
WDL_COLOURS = (("wins", "#2166ac"), ("draws", "#b0b0b0"), ("losses", "#b2182b"))


def _save(fig, out: Path, stem: str) -> list[str]:
    names = [f"{stem}.svg", f"{stem}.png"]
    fig.savefig(out / names[0], metadata={"Date": None})
    fig.savefig(out / names[1], dpi=110, metadata={"Software": None})
    return names


def headless_pyplot():
    """matplotlib's pyplot on the Agg backend: figures are files, never windows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "marl-bgs-season", "font.size": 9})
    return plt


def matchup_heatmap(board: dict, out: Path) -> list[str]:
    """Row entrant's score share ((W + D/2) / games) against each column entrant."""
    import numpy as np

    plt = headless_pyplot()
    names = board["matchups"]["entrants"]
    n = len(names)
    score = np.full((n, n), np.nan)
    for i, line in enumerate(board["matchups"]["cells"]):
        for j, cell in enumerate(line):
            if cell is not None:
                score[i, j] = cell["score"]
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * n, 0.9 + 0.75 * n), layout="constrained")
    im = ax.imshow(score, cmap="RdBu", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            cell = board["matchups"]["cells"][i][j]
            if cell is not None:
                text = f"{cell['wins']}-{cell['draws']}-{cell['losses']}\n{cell['score']:.2f}"
                dark = abs(cell["score"] - 0.5) > 0.3
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if dark else "black",
                )
    ax.set_xticks(range(n), names, rotation=30, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_xlabel("opponent")
    ax.set_title("Score share of the row entrant (W-D-L)")
    fig.colorbar(im, ax=ax, label="(wins + draws/2) / games", shrink=0.8)
    names_out = _save(fig, out, FIGURES["matchups"])
    plt.close(fig)
    return names_out


def per_map_wdl(board: dict, out: Path) -> list[str]:
    """Small multiples: one panel per entrant, its wins, draws and losses on each map, stacked
    as shares of its games there (the Map by map table's records, drawn)."""
    import math

    import numpy as np

    plt = headless_pyplot()
    names = board["matchups"]["entrants"]
    maps = board["per_map"]["maps"]
    results = {(r["entrant"], r["map_id"]): r for r in board["per_map"]["results"]}
    ncols = min(len(names), 5)
    nrows = math.ceil(len(names) / ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(0.6 + 1.55 * ncols, 0.9 + 1.75 * nrows),
        layout="constrained",
        sharey=True,
        squeeze=False,
    )
    xs = np.arange(len(maps))
    for k, ax in enumerate(axes.flat):
        if k >= len(names):
            ax.set_visible(False)
            continue
        name = names[k]
        rows = [results.get((name, m)) for m in maps]
        games = np.array([0 if r is None else r["games"] for r in rows], dtype=float)
        bottom = np.zeros(len(maps))
        totals = {}
        for key, colour in WDL_COLOURS:
            counts = np.array([0 if r is None else r[key] for r in rows], dtype=float)
            share = np.divide(100 * counts, games, out=np.zeros_like(counts), where=games > 0)
            ax.bar(xs, share, bottom=bottom, width=0.72, color=colour, label=key)
            bottom += share
            totals[key] = int(counts.sum())
        record = f"{totals['wins']}-{totals['draws']}-{totals['losses']}"
        ax.set_title(f"{name}\n{record}", fontsize=8)
        ax.set_xticks(xs, [str(m) for m in maps], fontsize=7)
        ax.set_ylim(0, 100)
        ax.set_yticks([0, 50, 100])
        ax.tick_params(axis="y", labelsize=7)
        if k % ncols == 0:
            ax.set_ylabel("share of games (%)", fontsize=7)
        if k // ncols == nrows - 1 or k + ncols >= len(names):
            ax.set_xlabel("map", fontsize=7)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="outside lower center", ncols=3)
    fig.suptitle("Wins, draws and losses on each map (W-D-L over the season)", fontsize=9)
    names_out = _save(fig, out, FIGURES["per_map_wdl"])
    plt.close(fig)
    return names_out


def per_map_forest(board: dict, out: Path) -> list[str]:
    """Each entrant's Elo on each map with its interval, under its joint rating."""
    plt = headless_pyplot()
    names = board["matchups"]["entrants"]
    maps = board["per_map"]["maps"]
    joint = {r["name"]: r for r in board["table"]}
    per = {(r["entrant"], r["map_id"]): r for r in board["per_map"]["ratings"]}
    rows_per = len(maps) + 2
    fig, ax = plt.subplots(figsize=(6.4, 0.9 + 0.22 * rows_per * len(names)), layout="constrained")
    labels, ticks = [], []
    y = 0.0
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for e, name in enumerate(names):
        j = joint[name]
        ax.errorbar(
            j["elo"],
            -y,
            xerr=[[j["elo"] - j["elo_low"]], [j["elo_high"] - j["elo"]]],
            fmt="D",
            color="black",
            capsize=3,
            ms=5,
        )
        labels.append(f"{name} (all maps)")
        ticks.append(-y)
        for m in maps:
            y += 1
            r = per[(name, m)]
            ax.errorbar(
                r["elo"],
                -y,
                xerr=1.96 * r["sampling_sd"],
                fmt="none",
                color="0.75",
                lw=0.8,
                capsize=0,
                zorder=1,
            )
            ax.errorbar(
                r["elo"],
                -y,
                xerr=[[r["elo"] - r["elo_low"]], [r["elo_high"] - r["elo"]]],
                fmt="o",
                color=colors[e % len(colors)],
                capsize=2,
                ms=3.5,
            )
            labels.append(f"map {m}")
            ticks.append(-y)
        y += 1.5
    ax.axvline(1200, color="grey", lw=0.8, ls="--")
    ax.set_yticks(ticks, labels, fontsize=7)
    level = int(round(board["rating"]["interval_level"] * 100))
    ax.set_xlabel(
        f"Elo: {level}% pair-resampled interval; grey: ±1.96 sampling SD (the I² weights)"
    )
    ax.set_title("Ratings on each map against the joint rating")
    names_out = _save(fig, out, FIGURES["per_map"])
    plt.close(fig)
    return names_out


def _p_text(p: float | None) -> str:
    return "n/a (one map)" if p is None else format(p, ".3g")


def _i2_text(r: dict) -> str:
    """The label beside a row's bars: I² and p, or why they mean nothing for this row (an
    entrant whose games went one way on every map, a pairing one side swept)."""
    if r.get("one_sided"):
        return f"I² not meaningful: {r['one_sided']}"
    if r.get("swept_by"):
        return f"I² not meaningful: {r['swept_by']} won every game"
    return f"I²={100 * r['i2']:.0f}%  p={_p_text(r['p'])}"


def heterogeneity(board: dict, out: Path) -> list[str]:
    """Between-map spread (tau) against sampling spread, with I^2, per entrant and pairing."""
    import numpy as np

    plt = headless_pyplot()
    groups = [
        ("Entrants", board["heterogeneity"]["entrants"], lambda r: r["entrant"]),
        (
            "Pairings",
            board["heterogeneity"]["pairings"],
            lambda r: f"{r['entrant_i']} vs {r['entrant_j']}",
        ),
    ]
    height = 1.4 + 0.3 * sum(len(g[1]) for g in groups)
    fig, axes = plt.subplots(
        2,
        1,
        figsize=(6.4, height),
        layout="constrained",
        height_ratios=[max(1, len(g[1])) for g in groups],
    )
    for ax, (title, rows, label) in zip(axes, groups, strict=True):
        ys = np.arange(len(rows))
        tau = [r["tau"] for r in rows]
        samp = [r["typical_sampling_sd"] for r in rows]
        ax.barh(ys + 0.2, tau, height=0.4, label="between maps (tau)")
        ax.barh(ys - 0.2, samp, height=0.4, label="sampling (typical SD)")
        for yv, r in zip(ys, rows, strict=True):
            right = max(r["tau"], r["typical_sampling_sd"])
            ax.text(right, yv, "  " + _i2_text(r), va="center", fontsize=7)
        ax.set_yticks(ys, [label(r) for r in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=9, loc="left")
        ax.margins(x=0.35)
    axes[-1].set_xlabel("Elo")
    fig.legend(
        *axes[0].get_legend_handles_labels(), fontsize=7, loc="outside lower center", ncols=2
    )
    fig.suptitle("Does the rating hold on every map? Spread between maps vs sampling")
    names_out = _save(fig, out, FIGURES["heterogeneity"])
    plt.close(fig)
    return names_out


def draw_all(board: dict, out: Path) -> dict[str, list[str]]:
    """Every figure into `out`; returns {figure: [file names]}."""
    return {
        "matchups": matchup_heatmap(board, out),
        "per_map_wdl": per_map_wdl(board, out),
        "per_map": per_map_forest(board, out),
        "heterogeneity": heterogeneity(board, out),
    }
