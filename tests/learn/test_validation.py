"""Validation checks during training: the panel's files, the margin, the best checkpoint."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
pytest.importorskip("orbax.checkpoint")

from marl_bgs.learn.checkpoint import Checkpoints  # noqa: E402
from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.registry import learner_for  # noqa: E402
from marl_bgs.learn.trainer import train  # noqa: E402
from marl_bgs.learn.validation import (  # noqa: E402
    best_of,
    panel_summary,
    validation_updates,
    validator_for,
)
from tests.learn.test_trainer import TINY, leaves  # noqa: E402

PANEL = [
    "validate_every=0.5", 'validation_opponents=["random"]', "validation_maps=[42, 46]",
    "validation_games=2",
]  # fmt: skip


def tiny(tmp_path, name, *more):
    return load_config(
        None, [*TINY, *PANEL, f'out="{tmp_path / name}"', *more, "validate_every=0.5"],
        algo="rec-ippo",
    )  # fmt: skip


def test_schedule():
    cfg = load_config(None, ["num_envs=2", "rollout_len=4", "total_steps=80"])  # 10 updates
    assert validation_updates(cfg) == list(range(11))
    assert validation_updates(cfg.replace(validate_every=0.5)) == [0, 5, 10]
    assert validation_updates(cfg.replace(validate_every=0.3)) == [0, 3, 6, 9, 10]
    assert validation_updates(cfg.replace(validate_every=0.0)) == []
    with pytest.raises(ValueError, match="validation_maps"):
        cfg.replace(validation_maps=(47,))  # a test map
    with pytest.raises(ValueError, match="validation_games"):
        cfg.replace(validation_games=3)


def test_margin_weights_cells_equally():
    # Hand-checked: cell (alpha, 42) margins +4, +2 -> 3; (alpha, 43) -1 -> -1;
    # (beta, 42) 0, -6 -> -3; (beta, 43) +5 -> 5. Panel margin (3 - 1 - 3 + 5) / 4 = 1,
    # whereas the mean over all six games would be 4 / 6.
    games = pd.DataFrame({
        "system_b": ["alpha", "alpha", "alpha", "beta", "beta", "beta"],
        "map_id": [42, 42, 43, 42, 42, 43],
        "points_a": [5, 3, 2, 1, 0, 5], "points_b": [1, 1, 3, 1, 6, 0],
        "kills_a": [6, 2, 1, 0, 3, 5], "deaths_a": [1, 1, 4, 2, 6, 0],
        "result": ["a", "a", "b", "draw", "b", "a"],
    })  # fmt: skip
    games["margin"] = games["points_a"] - games["points_b"]
    s = panel_summary(games)
    assert s["margin"] == pytest.approx(1.0)
    assert s["margin[alpha]"] == pytest.approx(1.0) and s["margin[beta]"] == pytest.approx(1.0)
    assert s["kills"] == pytest.approx((4 + 1 + 1.5 + 5) / 4)
    assert s["deaths"] == pytest.approx((1 + 4 + 4 + 0) / 4)
    assert (s["games"], s["wins"], s["draws"], s["losses"]) == (6, 3, 1, 2)
    assert len(s["cells"]) == 4
    rows = [{"update": 0, "margin": 9.0}, {"update": 2, "margin": 1.0},
            {"update": 4, "margin": 1.0}, {"update": 3, "margin": -2.0}]  # fmt: skip
    assert best_of(rows)["update"] == 2  # update 0 never counts; ties keep the earlier


def test_validation_files_best_checkpoint_and_resume(tmp_path):
    cfg = tiny(tmp_path, "val")
    result = train(cfg, progress=False, plots=False)
    run = tmp_path / "val"
    rows = [json.loads(line) for line in (run / "validation.jsonl").read_text().splitlines()]
    assert [r["update"] for r in rows] == [0, 2, 4]
    header = (run / "validation.csv").read_text().splitlines()[0].split(",")
    assert {"update", "margin", "kills", "deaths", "wins", "draws", "losses", "best"} <= set(header)
    games = pd.read_csv(run / "validation_games.csv")
    assert len(games) == 3 * 4  # 3 checks x 2 maps x 2 games x 1 opponent
    for r in rows:
        g = games[games["update"] == r["update"]]
        assert sorted(g["map_id"]) == [42, 42, 46, 46] and set(g["system_b"]) == {"random"}
        assert r["games"] == 4 and r["wins"] + r["draws"] + r["losses"] == 4
        cells = g.groupby("map_id")["margin"].mean()
        assert r["margin"] == pytest.approx(cells.mean())
        assert r["kills"] == pytest.approx(g.groupby("map_id")["kills_a"].mean().mean())
    # The best check (update 0 excluded) is kept under best/, as the state at that update.
    best = best_of(rows)
    assert [r["update"] for r in rows if r["best"]][-1] == best["update"]
    kept = Checkpoints(run / "best", keep=1)
    assert kept.steps() == [best["update"]]
    template = learner_for(cfg).init(jax.random.PRNGKey(0))
    state = kept.restore(template)
    assert int(state.update) == best["update"]
    if best["update"] == 4:
        for a, b in zip(leaves(state), leaves(result.state), strict=True):
            np.testing.assert_array_equal(a, b)
    # The weights reach the compiled panel as an argument: the same weights play the same
    # games, other weights other games (with no recompilation in between).
    v = validator_for(cfg, learner_for(cfg).nets)
    first = v.play(result.state.actor_params, record=True)
    acts = v.last_actions["random"]
    pd.testing.assert_frame_equal(first, v.play(result.state.actor_params, record=True))
    for g, a in acts.items():
        np.testing.assert_array_equal(a, v.last_actions["random"][g])
    v.play(jax.tree.map(lambda x: x * 100, result.state.actor_params), record=True)  # sharp
    assert any(not np.array_equal(a, v.last_actions["random"][g]) for g, a in acts.items())
    # An interrupted run with checks resumes bit-identically and logs the same checks.
    cut = tiny(tmp_path, "cut")
    train(cut, progress=False, stop_after=3, plots=False)
    resumed = train(cut, resume=True, progress=False, plots=False)
    for a, b in zip(leaves(result.state), leaves(resumed.state), strict=True):
        np.testing.assert_array_equal(a, b)
    cut_rows = [
        json.loads(line)
        for line in (tmp_path / "cut" / "validation.jsonl").read_text().splitlines()
    ]
    assert [r["update"] for r in cut_rows] == [0, 2, 4]
    for a, b in zip(rows, cut_rows, strict=True):
        assert (a["margin"], a["kills"], a["wins"], a["best"]) == (
            b["margin"], b["kills"], b["wins"], b["best"],
        )  # fmt: skip
    assert Checkpoints(tmp_path / "cut" / "best").steps() == [best["update"]]
