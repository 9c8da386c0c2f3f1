"""The compiled update: logs, opponent draws, a user reward, and bit-identical resume."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
pytest.importorskip("orbax.checkpoint")

from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.registry import learner_for  # noqa: E402
from marl_bgs.learn.trainer import train  # noqa: E402

TINY = [
    "num_envs=2", "rollout_len=4", "hidden=8", "stage=0", "epochs=2", "minibatches=2",
    "validate_every=0", "opponent_self=0.5", "opponent_pool=0", "opponent_fixed=0", "opponent_scripted=0.5",
    'scripted_opponents=["random"]', "checkpoint_every=1", "total_steps=32",
]  # fmt: skip


def tiny(tmp_path, name, *more):
    return load_config(None, [*TINY, f'out="{tmp_path / name}"', *more], algo="rec-ippo")


def leaves(state):
    return [np.asarray(x) for x in jax.tree.leaves(state)]


def test_resume_is_bit_identical(tmp_path):
    straight = train(tiny(tmp_path, "straight"), progress=False)
    assert int(straight.state.update) == 4 and int(straight.state.steps) == 32
    cut = tiny(tmp_path, "cut")
    first = train(cut, progress=False, stop_after=2)
    assert int(first.state.update) == 2
    resumed = train(cut, resume=True, progress=False)
    assert int(resumed.state.update) == 4
    for a, b in zip(leaves(straight.state), leaves(resumed.state), strict=True):
        np.testing.assert_array_equal(a, b)
    # The restored state is placed as a fresh one (uncommitted), so all three runs used the
    # one compiled update: a committed restore compiled it twice more.
    assert not any(x.committed for x in jax.tree.leaves(resumed.state))
    assert learner_for(cut).update._cache_size() == 1
    # Same logs too (bar the timings), and the resolved config sits in the run folder.
    rows = [
        json.loads(line) for line in (tmp_path / "cut" / "updates.jsonl").read_text().splitlines()
    ]
    assert [r["update"] for r in rows] == [1, 2, 3, 4]
    for a, b in zip(straight.rows, rows, strict=True):
        for k in ("loss", "entropy", "value_loss", "mean_reward", "games"):
            assert a[k] == b[k] or (np.isnan(a[k]) and b[k] is None)
    assert json.loads((tmp_path / "cut" / "config.json").read_text())["num_envs"] == 2
    header = (tmp_path / "cut" / "updates.csv").read_text().splitlines()[0].split(",")
    assert {"loss", "actor_loss", "entropy", "wins_share", "steps_per_s"} <= set(header)
    with pytest.raises(ValueError, match="out"):
        train(cut, progress=False)  # a finished run is not silently overwritten


def test_opponent_draws_follow_the_weights(tmp_path):
    cfg = tiny(tmp_path, "draws", "opponent_self=0.6", "opponent_pool=0.2", "opponent_fixed=0",
               "opponent_scripted=0.2")  # fmt: skip
    rollout = learner_for(cfg).rollout
    # Before the first saved copy: 0.6 + 0.2 (the empty pool's share) against 0.2 for Random.
    assert cfg.opponent_names() == ("self", "pool", "random")
    assert cfg.opponent_weights(pool_filled=False) == pytest.approx((0.8, 0.0, 0.2))
    live = rollout.init_live(jax.random.PRNGKey(0))
    many = 20000
    opp = live.opponents
    empty = jax.numpy.zeros((), jax.numpy.int32)
    logits = rollout.opp_logits[1]  # the draw's weights while the pool is empty
    picks = jax.vmap(
        lambda k: rollout._draw_opponents(k, opp, np.ones(cfg.num_envs, bool), logits, empty).pick
    )(jax.random.split(jax.random.PRNGKey(1), many // cfg.num_envs))
    share = float(np.mean(np.asarray(picks) == 2))
    assert share == pytest.approx(0.2, abs=0.015)
    assert not (np.asarray(picks) == 1).any()
    kept = rollout._draw_opponents(jax.random.PRNGKey(2), opp, np.zeros(cfg.num_envs, bool),
                                   logits, empty)  # fmt: skip
    np.testing.assert_array_equal(np.asarray(kept.pick), np.asarray(opp.pick))


def test_user_reward_fn_replaces_the_builtin(tmp_path):
    def constant(prev_state, state, info):
        return jax.numpy.full((prev_state.game.tick.shape[0], 10), 0.25)

    cfg = tiny(tmp_path, "user", "total_steps=8")
    result = train(cfg, reward_fn=constant, progress=False)
    assert result.rows[0]["mean_reward"] == pytest.approx(0.25)


def test_a_curriculum_walks_its_stages_and_resumes_bit_identically(tmp_path):
    """Stages 0 (1v1 on map 0) and 1 (2v2 on maps 0-2), half the updates each; a run cut
    at the stage change resumes to the same state as one that never stopped."""
    more = ("stage=null", "curriculum=[0, 1]", "total_steps=32")
    cfg = tiny(tmp_path, "walk", *more)
    assert [cfg.stage_config(u).stage for u in range(4)] == [0, 0, 1, 1]
    assert cfg.stage_config(3).game_settings()["rosters"][0][0] == cfg.roster[:2]
    straight = train(cfg, progress=False, plots=False)
    cut = tiny(tmp_path, "walk-cut", *more)
    train(cut, progress=False, stop_after=2, plots=False)
    resumed = train(cut, resume=True, progress=False, plots=False)
    for a, b in zip(leaves(straight.state), leaves(resumed.state), strict=True):
        np.testing.assert_array_equal(a, b)
    # one compiled update per stage, the resumed run's included
    assert [learner_for(cut.stage_config(u)).update._cache_size() for u in (0, 2)] == [1, 1]
    # Stage 1's games have two agents a side: Team A's second slot is now in play.
    present = np.asarray(straight.state.live.env.game.present)
    assert present[:, [0, 1, 5, 6]].all() and not present[:, [2, 3, 4, 7, 8, 9]].any()
    with pytest.raises(ValueError, match=r"config\.curriculum"):
        tiny(tmp_path, "both", "curriculum=[0, 1]")  # TINY already fixes stage 0
    with pytest.raises(ValueError, match=r"config\.curriculum"):
        tiny(tmp_path, "bad", "stage=null", "curriculum=[0, 9]")


@pytest.mark.parametrize("algo", ["rec-ippo", "ff-mappo"])
def test_the_loss_replays_what_the_rollout_played(algo):
    """The PPO epochs recompute the rollout's logits and values from the stored inputs
    (feedforward: the whole sequence in one pass; recurrent: step by step, with the memory
    resets of the games). Before any step, the replayed log-probabilities and values are the
    ones the rollout recorded."""
    more = ["rollout_len=6", "stage=none", "maps=[0]", 'roster=["mage", "priest"]', "horizon=4"]
    cfg = load_config(None, [*TINY, *more], algo=algo)
    learner = learner_for(cfg)
    state = learner.init(jax.random.PRNGKey(3))
    params = (state.actor_params, state.critic_params, state.value_norm, state.pool)
    _, traj, _, stats, _ = jax.jit(learner.rollout.run)(params, state.live, jax.random.PRNGKey(4))
    assert float(stats[0]) >= 2  # games ended inside the rollout: memories were reset
    from marl_bgs.learn.networks import action_log_prob

    logits, value = jax.jit(learner._replay)(
        state.actor_params, state.critic_params, state.live.memory, traj
    )
    mask = np.asarray(traj.mask)
    got = np.asarray(action_log_prob(logits, traj.action))
    np.testing.assert_allclose(got[mask], np.asarray(traj.log_prob)[mask], atol=2e-5)
    norm = state.value_norm
    np.testing.assert_allclose(
        np.asarray(norm.denorm(value))[mask], np.asarray(traj.value)[mask], atol=2e-5
    )


def test_a_resumed_run_keeps_each_update_once_in_its_logs(tmp_path):
    """Rows logged after the checkpoint a run resumes from move to updates_replayed.jsonl
    (their time still counts in the entrant's budget); the logs hold each update once."""
    from marl_bgs.learn.trainer import RunLog

    log = RunLog(tmp_path)
    for u in range(1, 6):
        log.write({"update": u, "seconds": float(u), "loss": 0.5})
    assert RunLog(tmp_path).keep_until(5) == 0
    assert RunLog(tmp_path).keep_until(3) == 2
    kept = pd.read_csv(tmp_path / "updates.csv")
    assert kept["update"].tolist() == [1, 2, 3] and list(kept.columns) == [
        "update",
        "seconds",
        "loss",
    ]
    lines = (tmp_path / "updates.jsonl").read_text().splitlines()
    assert [json.loads(x)["update"] for x in lines] == [1, 2, 3]
    again = (tmp_path / "updates_replayed.jsonl").read_text().splitlines()
    assert [json.loads(x)["seconds"] for x in again] == [4.0, 5.0]
    resumed = RunLog(tmp_path)
    resumed.write({"update": 4, "seconds": 0.25, "loss": 0.5})
    assert pd.read_csv(tmp_path / "updates.csv")["update"].tolist() == [1, 2, 3, 4]
