"""QMIX and PQN-VDN end to end on tiny runs: the opponents mix (self, pool copies with
their saved epsilon, Random), checkpoints that resume bit-identically (QMIX's replay
included), legal actions only, and the trained Q-network as a greedy System and `.npz`.

Each algorithm compiles one update (`learner_for` caches it across tests and runs); the
two runs below are module fixtures that every test reads."""

from __future__ import annotations

import json

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
pytest.importorskip("orbax.checkpoint")
pytest.importorskip("flashbax")

from marl_bgs.cli import main  # noqa: E402
from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.npz_policy import NumpyPolicy  # noqa: E402
from marl_bgs.learn.policy import export_npz, learned_system, load_policy  # noqa: E402
from marl_bgs.learn.registry import learner_for  # noqa: E402
from marl_bgs.learn.trainer import train  # noqa: E402
from tests.learn.test_policy import jax_logits, random_inputs  # noqa: E402

# 4 updates of 2 games x 4 ticks (1v1, stage 0) against the current weights, a pool of two
# copies (one saved every update) and Random; epsilon falls from 1 to 0.1 over the run.
Q_TINY = [
    "num_envs=2", "rollout_len=4", "hidden=8", "stage=0", "validate_every=0",
    "opponent_self=0.4", "opponent_pool=0.3", "pool_size=2", "pool_every=8",
    "opponent_fixed=0", "opponent_scripted=0.3", 'scripted_opponents=["random"]',
    "checkpoint_every=1", "total_steps=32", "eps_decay_steps=32", "eps_finish=0.1",
]  # fmt: skip
MORE = {
    # A replay of 6 rollouts (3 updates), learning from the second update, target copies
    # every 2 updates.
    "qmix": ["buffer_rows=24", "batch_size=2", "learning_starts=4", "target_every=2"],
    "pqn-vdn": ["epochs=2", "minibatches=2"],
}
ALGOS = tuple(MORE)


def tiny(tmp_path, algo, name, *more):
    return load_config(None, [*Q_TINY, *MORE[algo], f'out="{tmp_path / name}"', *more], algo=algo)


def leaves(state):
    return [np.asarray(x) for x in jax.tree.leaves(state)]


@pytest.fixture(scope="module", params=ALGOS)
def runs(request, tmp_path_factory):
    """A straight 4-update run and one cut after 2 updates and resumed, per algorithm."""
    algo = request.param
    tmp = tmp_path_factory.mktemp(algo)
    straight = train(tiny(tmp, algo, "straight"), progress=False, plots=False)
    cut = tiny(tmp, algo, "cut")
    train(cut, progress=False, stop_after=2, plots=False)
    resumed = train(cut, resume=True, progress=False, plots=False)
    return algo, tmp, straight, resumed


def test_resume_is_bit_identical(runs):
    algo, tmp, straight, resumed = runs
    assert int(straight.state.update) == 4 and int(straight.state.steps) == 32
    for a, b in zip(leaves(straight.state), leaves(resumed.state), strict=True):
        np.testing.assert_array_equal(a, b)
    # one compiled update for the straight, cut and resumed runs (the restore is placed as a
    # fresh state is)
    assert learner_for(tiny(tmp, algo, "cut")).update._cache_size() == 1
    rows = [json.loads(x) for x in (tmp / "cut" / "updates.jsonl").read_text().splitlines()]
    assert [r["update"] for r in rows] == [1, 2, 3, 4]
    for a, b in zip(straight.rows, rows, strict=True):
        for k in ("loss", "epsilon", "mean_q_tot", "mean_reward"):
            assert a[k] == b[k]
    eps = [r["epsilon"] for r in rows]
    assert eps[0] == pytest.approx(1.0) and eps == sorted(eps, reverse=True)
    assert eps[-1] == pytest.approx(1.0 - 0.9 * 24 / 32)
    assert all(np.isfinite(r["loss"]) for r in rows)
    assert [r["pool_copies"] for r in rows] == [1, 2, 2, 2]
    assert sum(r["invalid_actions"] for r in rows) == 0
    assert json.loads((tmp / "cut" / "config.json").read_text())["algo"] == algo


def test_the_pool_keeps_each_copy_with_its_epsilon(runs):
    """Copies are saved after updates 1-4 into two slots (3 and 4 overwrote 1 and 2), each
    with the epsilon that update played with."""
    _, _, straight, _ = runs
    pool = straight.state.pool
    eps = [r["epsilon"] for r in straight.rows]
    np.testing.assert_allclose(sorted(np.asarray(pool.params.eps)), sorted(eps[2:]), rtol=1e-6)


def test_qmix_replay_targets_and_legal_actions(runs):
    algo, _, straight, _ = runs
    if algo != "qmix":
        pytest.skip("QMIX only")
    rows = straight.rows
    assert [r["learning"] for r in rows] == [0.0, 1.0, 1.0, 1.0]
    assert [r["replay_rollouts"] for r in rows] == [2.0, 4.0, 6.0, 6.0]
    state = straight.state
    # A hard copy after update 4 (every 2): the targets are the online networks.
    for a, b in zip(leaves((state.actor_params, state.mixer_params)), leaves(state.target_params),
                    strict=True):  # fmt: skip
        np.testing.assert_array_equal(a, b)
    # Every stored decision of the learner was legal (epsilon-greedy over the masks).
    items = state.buffer.experience
    avail, action = np.asarray(items.avail)[0], np.asarray(items.action)[0]
    mask = np.asarray(items.mask)[0]
    legal = np.take_along_axis(avail, action[..., None], -1)[..., 0]
    assert mask.any() and legal[mask].all()
    assert np.asarray(items.world).any() and np.asarray(items.x).any()


def test_the_q_network_plays_greedily_as_a_system_and_an_npz(runs, tmp_path):
    algo, tmp, straight, _ = runs
    folder = tmp / "straight"
    policy = load_policy(folder)
    assert policy.q_values and policy.norm == (algo == "pqn-vdn")
    assert policy.step == 4
    inputs, memory = random_inputs(7, 16, 8)
    keys = jax.random.split(jax.random.PRNGKey(0), 16)
    acts, _ = jax.jit(jax.vmap(policy.act))(keys, inputs, memory)
    _, q = jax_logits(policy, inputs, memory)
    np.testing.assert_array_equal(np.asarray(acts), q.argmax(-1))  # greedy even unasked
    assert np.take_along_axis(inputs.avail, np.asarray(acts)[..., None], -1).all()
    npz = NumpyPolicy.load(export_npz(folder, tmp_path / "q.npz"))
    assert npz.q_values and npz.norm == policy.norm
    np_acts, _ = npz.act(inputs, memory, greedy=False)  # a Q-network never samples
    np.testing.assert_array_equal(np_acts, np.asarray(acts))
    _, np_q = npz.logits(inputs, memory)
    np.testing.assert_allclose(np_q, q, rtol=1e-4, atol=1e-4)


def test_learned_system_acts_greedily(runs):
    _, tmp, _, _ = runs
    system = learned_system(tmp / "straight", greedy=False)
    assert learned_system(tmp / "straight") is system
    policy = load_policy(tmp / "straight")
    inputs, memory = random_inputs(8, 8, 8)
    keys = jax.random.split(jax.random.PRNGKey(2), 8)
    acts, _ = jax.jit(jax.vmap(system.act))(keys, inputs, memory)
    _, q = jax_logits(policy, inputs, memory)
    np.testing.assert_array_equal(np.asarray(acts), q.argmax(-1))


def test_the_command_line_trains_and_validates(runs, tmp_path, capsys):
    """`marl-bgs train --algo ...` with the tiny settings (the compiled update is the
    fixture's); PQN-VDN also plays the validation panel (greedy) and keeps its best check."""
    algo, _, _, _ = runs
    out = tmp_path / "cli"
    panel = ["validate_every=0.5", 'validation_opponents=["random"]', "validation_maps=[42]",
             "validation_games=2"] if algo == "pqn-vdn" else []  # fmt: skip
    argv = ["train", "--algo", algo, "--out", str(out), "--quiet", *Q_TINY, *MORE[algo], *panel]
    assert main(argv) == 0
    assert f"{algo}: 4 updates, 32 game steps" in capsys.readouterr().out
    assert json.loads((out / "config.json").read_text())["algo"] == algo
    if panel:
        rows = [json.loads(x) for x in (out / "validation.jsonl").read_text().splitlines()]
        assert [r["update"] for r in rows] == [0, 2, 4] and (out / "best").is_dir()
        assert all(r["games"] == 2 for r in rows)


def test_pqn_learning_rate_decays_over_the_run(tmp_path):
    """Configs differing only in total_steps share compiled code, except PQN's, whose
    learning-rate schedule spans the run."""
    short, long = (
        tiny(tmp_path, "pqn-vdn", n, f"total_steps={t}") for n, t in (("a", 32), ("b", 64))
    )
    assert learner_for(short) is not learner_for(long)
    lr = learner_for(short).lr
    assert float(lr(0)) == pytest.approx(2.5e-4) and float(lr(4 * 2 * 2)) == 0.0
    q_short, q_long = (
        tiny(tmp_path, "qmix", n, f"total_steps={t}") for n, t in (("a", 32), ("b", 64))
    )
    assert learner_for(q_short) is learner_for(q_long)


def test_q_configs_are_checked_naming_the_field(tmp_path):
    for algo, bad, field in [
        ("qmix", "buffer_rows=30", "buffer_rows"),  # not whole rollouts of 4 ticks
        ("qmix", "buffer_rows=4", "buffer_rows"),  # fewer rollouts than one update's games
        ("qmix", "batch_size=7", "batch_size"),  # more than the replay holds
        ("qmix", "rollout_len=1", "rollout_len"),
        ("qmix", "clip_eps=0.2", "clip_eps"),  # a PPO setting: unknown here
        ("pqn-vdn", "td_lambda=1.5", "td_lambda"),
        ("pqn-vdn", "minibatches=3", "minibatches"),
        ("pqn-vdn", "eps_finish=-0.1", "eps_finish"),
        ("pqn-vdn", "buffer_rows=8", "buffer_rows"),  # a QMIX setting: unknown here
    ]:
        with pytest.raises(ValueError, match=rf"^config\.{field}:"):
            tiny(tmp_path, algo, "bad", bad)


def test_both_learners_share_the_opponent_mix():
    cfg = tiny(__import__("pathlib").Path("/tmp"), "qmix", "mix")
    assert cfg.opponent_names() == ("self", "pool", "random")
    assert learner_for(cfg).rollout.num_opponents == 3
