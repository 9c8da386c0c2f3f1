"""Learning curves of a run folder, drawn to PNG with matplotlib (Agg, no display needed).

    from marl_bgs.learn.plots import plot_run
    plot_run("runs/x")   # runs/x/plots/training.png and, with validation, validation.png

training.png: episode return and mean reward per step, the losses, entropy and approx KL
(QMIX, PQN-VDN: epsilon and the mean Q_tot), and the share of finished games won, drawn
and lost, against game steps. validation.png:
each check's point margin (overall and per opponent), kills and deaths per game, and share
of games won, with the best check marked.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..outputs import check_folder  # noqa: E402


def _read_jsonl(path: Path) -> list[dict]:
    """The rows of a run's log; a row that is not a JSON object with a number of `steps`
    (a damaged or foreign file) is refused naming the file and the line."""
    if not path.exists():
        return []
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        where = f"run: {path.name} line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{where}: not JSON ({err.msg})") from None
        if not isinstance(row, dict):
            raise ValueError(f"{where}: expected an object, got {type(row).__name__}")
        steps = row.get("steps")
        if isinstance(steps, bool) or not isinstance(steps, (int, float)):
            raise ValueError(f"{where}: expected a number of 'steps', got {steps!r}")
        rows.append(row)
    return rows


def _series(rows: list[dict], key: str) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for r in rows:
        v = r.get(key)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        xs.append(r["steps"])
        ys.append(v)
    return xs, ys


def _legend(ax, **kw):
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def _line(ax, rows, key, label=None, **kw):
    xs, ys = _series(rows, key)
    if xs:
        ax.plot(xs, ys, label=label or key, **kw)


def plot_training(rows: list[dict], path: Path, title: str) -> Path:
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)
    ax = axes[0, 0]
    _line(ax, rows, "episode_return_per_game", "episode return (finished games)", marker=".")
    ax2 = ax.twinx()
    _line(ax2, rows, "mean_reward", "mean reward per step", color="tab:orange")
    ax.set_title("return and reward")
    _legend(ax, loc="upper left", fontsize=8)
    _legend(ax2, loc="lower right", fontsize=8)
    ax = axes[0, 1]
    for k in ("loss", "actor_loss", "value_loss"):
        _line(ax, rows, k)
    ax.set_title("losses")
    _legend(ax, fontsize=8)
    ax = axes[1, 0]
    _line(ax, rows, "entropy")
    _line(ax, rows, "epsilon")  # the Q-learners' exploration
    ax2 = ax.twinx()
    _line(ax2, rows, "approx_kl", color="tab:red")
    _line(ax2, rows, "mean_q_tot", color="tab:red")
    q_run = any("epsilon" in r for r in rows)
    ax.set_title("epsilon (left) and mean Q_tot (right)" if q_run
                 else "entropy (left) and approx. KL (right)")  # fmt: skip
    ax = axes[1, 1]
    for k, lab in (("wins_share", "won"), ("draws_share", "drawn"), ("losses_share", "lost")):
        _line(ax, rows, k, lab, marker=".")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("finished training games")
    _legend(ax, fontsize=8)
    for ax in axes.flat:
        ax.set_xlabel("game steps")
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_validation(rows: list[dict], path: Path, title: str) -> Path:
    fig, axes = plt.subplots(1, 3, figsize=(14, 4), constrained_layout=True)
    opponents = sorted({k[7:-1] for r in rows for k in r if k.startswith("margin[")})
    ax = axes[0]
    _line(ax, rows, "margin", "panel", marker="o", color="black")
    for opp in opponents:
        _line(ax, rows, f"margin[{opp}]", opp, marker=".", alpha=0.7)
    best = [r for r in rows if r.get("best")]
    if best:
        b = max(best, key=lambda r: r["update"])  # the last best is the kept one
        ax.scatter([b["steps"]], [b["margin"]], s=120, facecolors="none", edgecolors="red",
                   label="best", zorder=3)  # fmt: skip
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_title("point margin per game")
    _legend(ax, fontsize=8)
    ax = axes[1]
    _line(ax, rows, "kills", "kills", marker="o")
    _line(ax, rows, "deaths", "deaths", marker="o")
    ax.set_title("kills and deaths per game")
    _legend(ax, fontsize=8)
    ax = axes[2]
    _line(ax, rows, "win_share", "won", marker="o")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("share of validation games won")
    for ax in axes:
        ax.set_xlabel("game steps")
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> list[Path]:
    """Draw a run folder's curves into `out` (default RUN/plots); the PNGs written."""
    run_dir = Path(run_dir)
    updates = _read_jsonl(run_dir / "updates.jsonl")
    checks = _read_jsonl(run_dir / "validation.jsonl")
    if not updates and not checks:
        raise ValueError(f"run: no updates.jsonl or validation.jsonl in {run_dir}")
    out = check_folder(out if out is not None else run_dir / "plots", "out")
    out.mkdir(parents=True, exist_ok=True)
    title = run_dir.name
    cfg_path = run_dir / "config.json"
    if cfg_path.exists():
        try:
            algo = json.loads(cfg_path.read_text()).get("algo", "?")
        except (json.JSONDecodeError, AttributeError):
            raise ValueError(f"run: {cfg_path.name} is not a training config") from None
        title = f"{run_dir.name} ({algo})"
    written = []
    if updates:
        written.append(plot_training(updates, out / "training.png", title))
    if checks:
        written.append(plot_validation(checks, out / "validation.png", title))
    return written


__all__ = ["plot_run", "plot_training", "plot_validation"]
