"""scripts/train_baselines.py: every method's settings load, on the same budget, and the TOML
it writes reads back as the same config (no training here)."""

from __future__ import annotations

import tomllib

import pytest

from marl_bgs.learn.config import QConfig
from marl_bgs.learn.config_files import from_dict
from marl_bgs.learn.registry import BASELINES
from tests.engine_files import script


@pytest.mark.parametrize("steps", [20_000, 500_000, 4_000_000])
def test_every_method_gets_valid_settings_on_one_budget(steps):
    tb = script("train_baselines")
    for algo in BASELINES:
        values = tb.settings(algo, steps, seed=3)
        cfg = from_dict(values)
        assert (cfg.algo, cfg.total_steps, cfg.seed) == (algo, steps, 3)
        assert (cfg.num_envs, cfg.hidden, cfg.opponent_self, cfg.validate_every) == (
            64, 64, 0.4, 0.1,
        )  # fmt: skip
        assert from_dict(tomllib.loads(tb.toml_text(values, "t"))) == cfg
        if isinstance(cfg, QConfig):
            assert cfg.eps_decay_steps == steps // 2
        if algo == "pqn-vdn":
            assert cfg.rollout_len == 128
