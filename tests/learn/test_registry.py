"""The learner registry: one table says which algorithms exist, with which config class,
learner and acting kind; every other place reads it."""

from __future__ import annotations

import jax
import pytest

from marl_bgs.learn import config, registry
from marl_bgs.learn.config_files import load_config

pytest.importorskip("flax")


def test_the_config_tables_follow_the_registry():
    assert registry.ALGOS == tuple(registry.ALGORITHMS)
    assert list(config.CONFIG_CLASSES) == list(registry.ALGORITHMS)
    for name, cls in config.CONFIG_CLASSES.items():
        assert (
            issubclass(cls, config.TrainConfig) and cls.__name__ == registry.ALGORITHMS[name].config
        )
        assert cls().algo == name


def test_q_learners_act_greedily_and_ppo_learners_sample():
    greedy = {name for name in registry.ALGOS if registry.acts_greedily(name)}
    assert greedy == {"qmix", "pqn-vdn"}
    assert greedy == {
        n for n, cls in config.CONFIG_CLASSES.items() if issubclass(cls, config.QConfig)
    }


def test_an_unknown_algorithm_is_refused_naming_the_field():
    for call in (registry.algorithm, registry.acts_greedily, registry.learner_class):
        with pytest.raises(ValueError, match=r"config\.algo: unknown algorithm 'a2c'"):
            call("a2c")


def test_an_entry_naming_no_config_class_of_its_algorithm_is_refused():
    with pytest.raises(ValueError, match="registry: ff-ippo.config names no TrainConfig"):
        config._config_class("ff-ippo", "RecIPPOConfig")  # a config, but of rec-ippo
    with pytest.raises(ValueError, match="registry: ff-ippo.config names no TrainConfig"):
        config._config_class("ff-ippo", "Path")


@pytest.mark.parametrize("name", registry.ALGOS)
def test_every_learner_meets_the_protocol(name):
    """Built (nothing compiled: jit compiles on first call) on a tiny config; its state's
    shape comes from `init` traced abstractly."""
    cfg = load_config(None, ["num_envs=4", "rollout_len=2", "hidden=8"], algo=name)
    learner = registry.learner_class(name)(cfg)
    assert isinstance(learner, registry.Learner)
    state = jax.eval_shape(learner.init, jax.random.PRNGKey(0))
    assert isinstance(state, registry.LearnerState)
    assert state.update.shape == state.steps.shape == ()
