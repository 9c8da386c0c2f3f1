"""Configs: Table S10 defaults, TOML + key=value, JSON round trip, bad settings refused."""

from __future__ import annotations

import pytest

from marl_bgs.core.checks import FieldTypeError
from marl_bgs.learn.config import (
    CONFIG_CLASSES,
    FFMAPPOConfig,
    PPOConfig,
    PQNVDNConfig,
    QMIXConfig,
    RecIPPOConfig,
)
from marl_bgs.learn.config_files import load_config, read_json


def test_defaults_follow_table_s10():
    from marl_bgs.learn.registry import BASELINES

    for algo in BASELINES:
        c = CONFIG_CLASSES[algo]()
        assert c.algo == algo
        assert (c.opponent_self, c.opponent_pool, c.opponent_fixed, c.opponent_scripted) == (
            0.60, 0.20, 0.15, 0.05,
        )  # fmt: skip
        assert c.maps == tuple(range(42))
        if not isinstance(c, PPOConfig):
            continue
        assert (c.gamma, c.gae_lambda, c.clip_eps, c.ent_coef) == (0.999, 0.95, 0.2, 0.01)
        assert (c.epochs, c.minibatches, c.num_envs, c.rollout_len) == (4, 2, 512, 32)
        assert c.critic_lr == 2.5e-4
    assert FFMAPPOConfig().actor_lr == 3e-4 and FFMAPPOConfig().reward_form == "team"
    assert RecIPPOConfig().actor_lr == 1e-4 and RecIPPOConfig().reward_form == "per_agent"
    assert CONFIG_CLASSES["rec-mappo"]().critic == "world"
    assert not CONFIG_CLASSES["ff-ippo"]().recurrent


def test_bc_defaults_clone_the_teacher_against_the_scripted_teams():
    bc = CONFIG_CLASSES["bc"]()
    assert (bc.teacher, bc.teacher_plays, bc.ppo_weight, bc.kick_weight) == ("tdm-alpha", 1, 0, 1)
    assert (bc.opponent_self, bc.opponent_scripted) == (0.0, 1.0)
    kick = CONFIG_CLASSES["kickstart"]()
    assert (kick.ppo_weight, kick.teacher_plays, kick.critic_warmup) == (1.0, 0.0, 0)


def test_q_defaults_follow_table_s10_and_s6_4():
    q = QMIXConfig()
    assert (q.num_envs, q.rollout_len, q.lr, q.gamma, q.reward_form) == (
        768,
        32,
        1e-4,
        0.99,
        "team",
    )
    assert (q.reward_scale, q.target_every, q.buffer_rows) == (10.0, 128, 132_096)
    assert (q.eps_start, q.eps_finish, q.eps_decay_steps) == (1.0, 0.05, 2_000_000)
    assert q.recurrent and not q.layer_norm
    p = PQNVDNConfig()
    assert (p.num_envs, p.rollout_len, p.lr, p.lr_decay, p.gamma) == (768, 128, 2.5e-4, True, 0.99)
    assert (p.td_lambda, p.reward_scale, p.reward_form, p.layer_norm) == (0.85, 10.0, "team", True)
    assert (p.eps_finish, p.eps_decay_steps) == (0.01, 2_200_000)


def test_toml_overrides_and_json_round_trip(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text(
        'algo = "rec-mappo"\nnum_envs = 64\nmaps = "curriculum"\n'
        'scripted_opponents = ["random", "tdm-alpha"]\n'
    )
    cfg = load_config(path, ["hidden=32", "actor_lr=3e-4", "stage=0", "value_norm=false"])
    assert cfg.algo == "rec-mappo" and cfg.critic == "world"
    assert (cfg.num_envs, cfg.hidden, cfg.actor_lr, cfg.stage) == (64, 32, 3e-4, 0)
    assert cfg.maps == tuple(range(12)) and cfg.value_norm is False
    assert cfg.scripted_opponents == ("random", "tdm-alpha")
    saved = cfg.save(tmp_path / "config.json")
    again = read_json(saved)
    assert again == cfg and type(again) is type(cfg)
    assert load_config(saved) == cfg


@pytest.mark.parametrize(
    "override, field",
    [
        ("num_envz=4", "num_envz"),  # unknown key
        ("num_envs=-4", "num_envs"),  # negative size
        ("num_envs=lots", "num_envs"),  # bad type
        ("hidden=1.5", "hidden"),
        ("maps=[3, 47]", "maps"),  # a test map
        ("maps=test", "maps"),
        ("maps=[44]", "maps"),  # validation maps are held out too
        ("gamma=1.5", "gamma"),
        ("minibatches=3", "minibatches"),  # does not divide 512 games
        ("reward_form=both", "reward_form"),
        ('scripted_opponents=["nobody"]', "scripted_opponents"),
        ("algo=dqn", "algo"),
        ("stage=99", "stage"),
        ("value_norm=maybe", "value_norm"),
        ('roster=["mage", "bard"]', "roster"),
        ("pool_size=-1", "pool_size"),
        ("pool_every=0", "pool_every"),
        ('fixed_opponents=["a.npz", "a.npz"]', "fixed_opponents"),
        ('fixed_opponents=[""]', "fixed_opponents"),
        ('teammates=["", "random"]', "teammates"),  # not one per slot
        ('teammates=["random", "random", "random", "random", "random"]', "teammates"),
    ],
)
def test_bad_settings_name_the_field(override, field):
    with pytest.raises(ValueError, match=rf"config\.{field}\b"):
        load_config(None, [override], algo="rec-ippo")


def test_bad_file_key_is_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("learning_rate = 0.1\n")
    with pytest.raises(ValueError, match=r"config\.learning_rate: unknown setting"):
        load_config(path)


def test_opponent_shares_follow_section_s6_2():
    """Defaults: self 60%, pool 20% (self's until the first copy), fixed 15% (self's while
    none is named), Alpha and Beta 2.5% each."""
    cfg = load_config(None, [], algo="rec-ippo")
    assert cfg.opponent_names() == ("self", "pool", "tdm-alpha", "tdm-beta")
    assert cfg.opponent_weights() == pytest.approx((0.75, 0.2, 0.025, 0.025))
    assert cfg.opponent_weights(pool_filled=False) == pytest.approx((0.95, 0.0, 0.025, 0.025))
    two = cfg.replace(fixed_opponents=("runs/a", "b.npz"))
    assert two.opponent_names() == ("self", "pool", "fixed:a", "fixed:b.npz", "tdm-alpha",
                                    "tdm-beta")  # fmt: skip
    assert two.opponent_weights() == pytest.approx((0.6, 0.2, 0.075, 0.075, 0.025, 0.025))
    no_pool = cfg.replace(pool_size=0)
    assert no_pool.opponent_names() == ("self", "tdm-alpha", "tdm-beta")
    assert no_pool.opponent_weights() == pytest.approx((0.95, 0.025, 0.025))


TYPED_SETTINGS = [
    ("num_envs=64.0", FieldTypeError, r"config\.num_envs: expected a whole number, got 64\.0"),
    ("num_envs=lots", FieldTypeError, r"config\.num_envs: expected a whole number, got 'lots'"),
    ("hidden=0", ValueError, r"config\.hidden: 0 is out of range \[1, 65536\]"),
    ("total_steps=0", ValueError, r"config\.total_steps: 0 must be at least 1"),
    ("gamma=1.5", ValueError, r"config\.gamma: 1\.5 must lie in \[0, 1\]"),
    ("ent_coef=-1", ValueError, r"config\.ent_coef: -1 must be at least 0"),
    ("gamma=fast", FieldTypeError, r"config\.gamma: expected a number, got 'fast'"),
    (
        "value_norm=maybe",
        FieldTypeError,
        r"config\.value_norm: expected true or false, got 'maybe'",
    ),
    ("critic=global", ValueError, r"config\.critic: unknown critic 'global'; known: local, world"),
    ("reward_form=both", ValueError, r"config\.reward_form: unknown reward form 'both'"),
    ("algo=dqn", ValueError, r"config\.algo: unknown algorithm 'dqn'"),
    ("scripted_opponents=5", FieldTypeError, r"config\.scripted_opponents: expected a list, got 5"),
]


@pytest.mark.parametrize("override, kind, message", TYPED_SETTINGS)
def test_bad_settings_raise_the_checkers_types(override, kind, message):
    with pytest.raises(kind, match=message):
        load_config(None, [override], algo="rec-ippo")
