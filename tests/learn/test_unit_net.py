"""The per-unit actor (learn/unit_net.py): its target rows, NumPy and JAX forwards that agree,
legal choices only, the `.npz` file, and a learner that trains and exports with it."""

from __future__ import annotations

import numpy as np
import pytest

from marl_bgs.core.actions import NUM_JOINT
from marl_bgs.core.observation import OBS_WIDTH, ROW_SLOT
from marl_bgs.core.state import TEAM_SIZE
from marl_bgs.learn.npz_policy import NumpyPolicy, actor_forward, save_weights_npz, weight_shapes
from marl_bgs.learn.unit_net import OWN_ROWS, unit_weight_shapes

pytest.importorskip("flax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from marl_bgs.learn.unit_net import UnitActor  # noqa: E402


def test_own_targets_map_to_the_rows_the_observation_shows_them_in():
    """Agent slot s of team a sees its own team's slot k in the row where core.observation
    puts global slot k (ROW_SLOT, the observation's own table)."""
    for s in range(TEAM_SIZE):
        for k in range(TEAM_SIZE):
            rows = np.flatnonzero(OWN_ROWS[s, k])
            assert rows.tolist() == [int(np.flatnonzero(ROW_SLOT[s] == k)[0])]
    assert OWN_ROWS[2, :, :].argmax(-1).tolist() == [1, 2, 0, 3, 4]  # by hand


def _inputs(seed: int, lead: tuple[int, ...]):
    rng = np.random.default_rng(seed)
    obs = rng.uniform(-1, 1, (*lead, TEAM_SIZE, OBS_WIDTH)).astype(np.float32)
    obs[..., ::7] = rng.integers(0, 2, obs[..., ::7].shape)  # flags (present, valid) on and off
    classes = rng.integers(0, 5, (*lead, TEAM_SIZE))
    avail = rng.random((*lead, TEAM_SIZE, NUM_JOINT)) < 0.2
    avail[..., 0] = True  # "stay" is always legal
    reset = rng.random((*lead, TEAM_SIZE)) < 0.3
    return obs, classes, avail, reset


@pytest.mark.parametrize("recurrent", [False, True])
def test_numpy_and_jax_forwards_agree_and_choose_only_legal_actions(recurrent):
    hidden, embed = 16, 8
    actor = UnitActor(hidden, recurrent, embed)
    obs, classes, avail, reset = _inputs(1, (3,))
    width = hidden if recurrent else 1
    memory = np.random.default_rng(2).normal(size=(3, TEAM_SIZE, width)).astype(np.float32)
    x = np.concatenate([obs, np.eye(5, dtype=np.float32)[classes]], -1)
    params = actor.init(jax.random.PRNGKey(0), memory, x, avail, reset)
    shapes = {k: v.shape for k, v in params["params"].items()}
    assert shapes == unit_weight_shapes(hidden, recurrent, embed)
    # the heads start near zero, so the first choices are near uniform
    mem_j, logits_j = actor.apply(params, jnp.asarray(memory), jnp.asarray(x), avail, reset)
    w = {k: np.asarray(v) for k, v in params["params"].items()}
    mem_n, logits_n = actor_forward(np, w, recurrent, memory, obs, classes, avail, reset,
                                    arch="units")  # fmt: skip
    np.testing.assert_allclose(logits_n, np.asarray(logits_j), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mem_n, np.asarray(mem_j), rtol=1e-4, atol=1e-5)
    legal = np.asarray(logits_j) > np.finfo(np.float32).min
    np.testing.assert_array_equal(legal, avail)
    # sampled from large random weights (far from the near-uniform start), never illegal
    big = jax.tree.map(lambda v: v * 30.0 + 0.5, params)
    _, logits = actor.apply(big, jnp.asarray(memory), jnp.asarray(x), avail, reset)
    draws = jax.random.categorical(jax.random.PRNGKey(3), logits, axis=-1, shape=(200, 3, 5))
    chosen = np.take_along_axis(np.broadcast_to(avail, (200, *avail.shape)),
                                np.asarray(draws)[..., None], -1)  # fmt: skip
    assert chosen.all()


def test_the_npz_file_holds_the_per_unit_actor_and_refuses_a_wrong_one(tmp_path):
    hidden, embed = 8, 4
    actor = UnitActor(hidden, False, embed)
    obs, classes, avail, reset = _inputs(4, ())
    x = np.concatenate([obs, np.eye(5, dtype=np.float32)[classes]], -1)
    params = actor.init(jax.random.PRNGKey(1), np.zeros((5, 1)), x, avail, reset)
    weights = {k: np.asarray(v) * 10 for k, v in params["params"].items()}
    path = save_weights_npz(tmp_path / "u.npz", weights, hidden, False, arch="units",
                            embed=embed)  # fmt: skip
    policy = NumpyPolicy.load(path)
    assert (policy.arch, policy.embed) == ("units", embed)
    inputs = type("Inputs", (), {"obs": obs, "classes": classes, "avail": avail,
                                 "new_game": np.bool_(False), "present": avail[:, 0]})  # fmt: skip
    _, logits = policy.logits(inputs, policy.init_memory())
    _, want = actor.apply({"params": weights}, jnp.zeros((5, 1)), jnp.asarray(x), avail,
                          jnp.zeros(5, bool))  # fmt: skip
    np.testing.assert_allclose(logits, np.asarray(want), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="arch: expected one of mlp, units"):
        save_weights_npz(tmp_path / "x.npz", weights, hidden, False, arch="convnet", embed=4)
    with pytest.raises(ValueError, match="weights: expected"):
        save_weights_npz(tmp_path / "x.npz", weights, hidden, False)  # named as the MLP's
    data = dict(np.load(path))
    for field, value, says in (("arch", np.asarray("convnet"), "arch: expected one of"),
                               ("embed", np.asarray(0, np.int64), "embed: the per-unit")):  # fmt: skip
        np.savez(tmp_path / "bad.npz", **{**data, field: value})
        with pytest.raises(ValueError, match=says):
            NumpyPolicy.load(tmp_path / "bad.npz")
    assert set(weight_shapes(hidden, False, arch="units", embed=embed)) == set(weights)


def test_a_learner_trains_and_exports_the_per_unit_actor(tmp_path):
    """Two updates of feedforward IPPO with the per-unit actor on the duel stage; its run
    loads as a policy whose `.npz` plays the same logits."""
    from marl_bgs.learn.config_files import load_config
    from marl_bgs.learn.policy import export_npz, load_policy
    from marl_bgs.learn.trainer import train

    cfg = load_config(None, [
        "network=units", "embed=8", "hidden=16", "num_envs=4", "rollout_len=4", "stage=0",
        "total_steps=32", "validate_every=0", f"out={tmp_path / 'run'}", "opponent_pool=0",
        "opponent_fixed=0",
    ], algo="ff-ippo")  # fmt: skip
    result = train(cfg, progress=False, plots=False)
    assert len(result.rows) == 2 and np.isfinite(result.rows[-1]["loss"])
    policy = load_policy(result.run_dir)
    assert (policy.arch, policy.embed) == ("units", 8)
    npz = NumpyPolicy.load(export_npz(result.run_dir, tmp_path / "p.npz"))
    obs, classes, avail, _ = _inputs(5, ())
    inputs = type("Inputs", (), {"obs": obs, "classes": classes, "avail": avail,
                                 "new_game": np.bool_(True), "present": avail[:, 0]})  # fmt: skip
    _, want = policy.logits(policy.params, inputs, policy.init(None))
    _, got = npz.logits(inputs, npz.init_memory())
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-4, atol=1e-4)


def test_the_config_names_the_actors_unit_net_knows():
    from marl_bgs.learn.config_checks import NETWORKS
    from marl_bgs.learn.config_files import load_config
    from marl_bgs.learn.unit_net import ARCHS

    assert NETWORKS == ARCHS
    with pytest.raises(ValueError, match=r"config\.network: unknown network 'cnn'"):
        load_config(None, ["network=cnn"], algo="ff-ippo")
    with pytest.raises(ValueError, match=r"config\.embed"):
        load_config(None, ["embed=0"], algo="ff-ippo")
