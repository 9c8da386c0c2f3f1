"""The team-measures figure (like the paper's Figure 6): one panel per measure, each
entrant's value with its 95% interval against its Elo, and rho with its exact p."""

from __future__ import annotations

import io
import math

from ..tournament.figures import headless_pyplot

AVERAGE_ELO = 1200.0  # the ratings' centre, drawn as a dashed line


def _p_text(p: float | None) -> str:
    if p is None:
        return "p undefined"
    return f"p={p:.3f}" if p >= 0.001 else f"p={p:.1e}"


def _rho_text(rho: float | None) -> str:
    return "rho undefined" if rho is None else f"rho={rho:+.2f}"


def draw_team_measures(doc: dict, stem: str) -> dict[str, bytes]:
    """SVG and PNG bytes of the figure for a `measures_document`; byte-identical across runs
    (fixed SVG hash salt, no dates)."""
    plt = headless_pyplot()
    keys = doc["figure"]
    tests = {m["measure"]: m for m in doc["measures"]}
    cols = 3
    rows = math.ceil(len(keys) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(10, 3.1 * rows), layout="constrained")
    flat = list(axes.flat) if hasattr(axes, "flat") else [axes]
    for ax, key in zip(flat, keys, strict=False):
        test = tests[key]
        for e in doc["entrants"]:
            value, low, high = e["values"][key]
            if value is None:
                continue
            learned = e["type"] == "learned"
            err = [[value - (low if low is not None else value)],
                   [(high if high is not None else value) - value]]  # fmt: skip
            ax.errorbar(
                e["elo"], value, yerr=err, fmt="o", color="#3d6fd1", capsize=2,
                markerfacecolor="#3d6fd1" if learned else "white", markersize=6,
            )  # fmt: skip
            ax.annotate(e["name"], (e["elo"], value), textcoords="offset points",
                        xytext=(5, 4), fontsize=6.5, color="#444")  # fmt: skip
        ax.axvline(AVERAGE_ELO, color="#888", linestyle="--", linewidth=0.8)
        ax.set_title(
            f"{test['title']}\n{_rho_text(test['rho'])}, {_p_text(test['p'])}", fontsize=8.5
        )
        ax.set_ylabel(test["unit"], fontsize=8)
        ax.set_xlabel("Elo", fontsize=8)
        ax.margins(x=0.15, y=0.15)
    for ax in flat[len(keys) :]:
        ax.set_visible(False)
    fig.suptitle(
        f"Team measures against Elo, {doc['season']} (filled: learned, open: scripted; "
        "bars: 95% pair-resampled intervals)",
        fontsize=9,
    )
    out = {}
    for ext, kwargs in (("svg", {"metadata": {"Date": None}}),
                        ("png", {"dpi": 110, "metadata": {"Software": None}})):  # fmt: skip
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, **kwargs)
        out[f"{stem}.{ext}"] = buf.getvalue()
    plt.close(fig)
    return out
