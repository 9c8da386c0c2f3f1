"""Training opponents and partners: the pool of saved copies, fixed policies, frozen
teammates, and the per-game draw over all of them."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
pytest.importorskip("orbax.checkpoint")

import jax.numpy as jnp  # noqa: E402

from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.networks import init_params, make_networks  # noqa: E402
from marl_bgs.learn.npz_policy import flax_to_weights, save_weights_npz  # noqa: E402
from marl_bgs.learn.opponents import (  # noqa: E402
    Pool,
    copies_due,
    learner_plays_team_b,
    policy_system,
)
from marl_bgs.learn.registry import learner_for  # noqa: E402
from marl_bgs.learn.trainer import train  # noqa: E402


def test_the_pool_keeps_the_newest_copies_oldest_overwritten_first():
    pool = Pool.create({"w": jnp.zeros(2)}, 3)
    for k in range(1, 5):
        pool = pool.push({"w": jnp.full(2, float(k))}, jnp.asarray(True))
    pool = pool.push({"w": jnp.full(2, 9.0)}, jnp.asarray(False))  # not due: unchanged
    assert int(pool.count) == 3 and int(pool.saved) == 4
    np.testing.assert_array_equal(np.asarray(pool.params["w"][:, 0]), [4.0, 2.0, 3.0])
    # One copy per `every` game steps, whatever the update size.
    due = [bool(copies_due(s, s + 8, 20)) for s in range(0, 80, 8)]
    assert due == [False, False, True, False, True, False, False, True, False, True]


def test_policy_specs_are_systems_or_clear_errors(tmp_path):
    assert policy_system("random", "fixed_opponents[0]").name == "random"
    with pytest.raises(ValueError, match=r"^config\.teammates\[2\]: 'nobody' is not"):
        policy_system("nobody", "config.teammates[2]")
    with pytest.raises(ValueError, match=r"^config\.fixed_opponents\[0\]: .*does not exist"):
        policy_system(str(tmp_path / "gone.npz"), "config.fixed_opponents[0]")


@pytest.fixture(scope="module")
def fixed_npz(tmp_path_factory):
    """A fixed opponent: a fresh feedforward actor (hidden 8) saved as a policy .npz."""
    nets = make_networks(8, False, "local")
    actor, _ = init_params(nets, jax.random.PRNGKey(3))
    path = tmp_path_factory.mktemp("fixed") / "fixed.npz"
    return save_weights_npz(path, flax_to_weights(actor, False), 8, False)


# 2v2 (stage 1): slot 1 of Team A is a frozen Random partner; Team B draws the current
# weights, a pool copy (one saved every update of 2 games x 4 ticks) or the fixed policy.
def mixed(tmp_path, fixed_npz, *more):
    return load_config(None, [
        "num_envs=2", "rollout_len=4", "hidden=8", "stage=1", "epochs=1", "minibatches=1",
        "validate_every=0", "checkpoint_every=0", "total_steps=24",
        "opponent_self=0.2", "opponent_pool=0.4", "opponent_fixed=0.4", "opponent_scripted=0",
        "pool_size=2", "pool_every=8", f'fixed_opponents=["{fixed_npz}"]',
        'teammates=["", "random", "", "", ""]', f'out="{tmp_path / "mixed"}"', *more,
    ], algo="rec-ippo")  # fmt: skip


def test_pool_fixed_policy_and_partner_in_one_run(tmp_path, fixed_npz):
    cfg = mixed(tmp_path, fixed_npz)
    assert cfg.opponent_names() == ("self", "pool", "fixed:fixed.npz")
    result = train(cfg, progress=False, plots=False)
    state = result.state
    # Three updates, a copy after each: slots hold updates 3 and 2, newest in slot 0.
    assert int(state.pool.count) == 2 and int(state.pool.saved) == 3
    for got, want in zip(jax.tree.leaves(state.pool.params), jax.tree.leaves(state.actor_params),
                         strict=True):  # fmt: skip
        np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want))
    assert [r["pool_copies"] for r in result.rows] == [1, 2, 2]
    counted = {k for r in result.rows for k in r if k.startswith("games_by_opponent[")}
    assert counted == {f"games_by_opponent[{n}]" for n in cfg.opponent_names()}

    learner = learner_for(cfg)
    rollout = learner.rollout
    params = (state.actor_params, state.critic_params, state.value_norm, state.pool)
    run = jax.jit(rollout.run)
    _, traj, _, _, _ = run(params, state.live, jax.random.PRNGKey(5))
    mask = np.asarray(traj.mask)
    assert mask[..., 0].all() and not mask[..., 1:].any()  # the partner's slot is not trained

    # A game drawn as pool slot k is played by that copy: its memory is the copy's.
    env_state = state.live.env
    opp = state.live.opponents._replace(pick=jnp.ones(2, jnp.int32), slot=jnp.asarray([1, 0]))
    inputs = rollout.env.team_inputs(env_state, 1)
    new, _ = jax.jit(rollout.opponent_step)(state.actor_params, state.pool, opp, env_state,
                                            inputs, jax.random.PRNGKey(6))  # fmt: skip
    from marl_bgs.learn.networks import actor_inputs

    x = actor_inputs(inputs.obs, inputs.classes)
    reset = jnp.broadcast_to(env_state.new_game[:, None], inputs.present.shape)
    for game, slot in ((0, 1), (1, 0)):
        copy = jax.tree.map(lambda p, s=slot: p[s], state.pool.params)
        want, _ = rollout.nets.actor.apply(copy, opp.memory, x, inputs.avail, reset)
        np.testing.assert_allclose(np.asarray(new.memory[game]), np.asarray(want[game]),
                                   atol=1e-6)  # fmt: skip


def test_draws_give_the_empty_pool_share_to_the_current_weights(tmp_path, fixed_npz):
    cfg = mixed(tmp_path, fixed_npz)
    rollout = learner_for(cfg).rollout
    opp = rollout.init_live(jax.random.PRNGKey(0)).opponents
    new = jnp.ones(cfg.num_envs, bool)

    def draw(key, new, count):
        pool = SimpleNamespace(count=jnp.asarray(count))  # what opponent_logits reads
        logits = rollout.opponent_logits((None, None, None, pool))
        return rollout._draw_opponents(key, opp, new, logits, pool.count)

    def draws(count):
        keys = jax.random.split(jax.random.PRNGKey(1), 8000)
        out = jax.vmap(lambda k: draw(k, new, count))(keys)
        return np.asarray(out.pick).ravel(), np.asarray(out.slot).ravel()

    empty, _ = draws(0)
    assert not (empty == 1).any()
    assert np.mean(empty == 0) == pytest.approx(0.6, abs=0.02)
    assert np.mean(empty == 2) == pytest.approx(0.4, abs=0.02)
    filled, slots = draws(2)
    for pick, share in ((0, 0.2), (1, 0.4), (2, 0.4)):
        assert np.mean(filled == pick) == pytest.approx(share, abs=0.02)
    assert np.mean(slots[filled == 1] == 1) == pytest.approx(0.5, abs=0.03)
    kept = draw(jax.random.PRNGKey(2), ~new, 2)
    np.testing.assert_array_equal(np.asarray(kept.pick), np.asarray(opp.pick))


@pytest.mark.parametrize(
    ("shares", "plays"),
    [
        (["opponent_self=0", "opponent_pool=0", "opponent_fixed=0", "opponent_scripted=1"], False),
        (
            ["opponent_self=0.2", "opponent_pool=0", "opponent_fixed=0", "opponent_scripted=0.8"],
            True,
        ),
        (
            ["opponent_self=0", "opponent_pool=0.5", "opponent_fixed=0", "opponent_scripted=0.5"],
            True,
        ),
        # a scripted share with no System named falls to the current weights
        (
            ["opponent_self=0", "opponent_pool=0", "opponent_fixed=0.5", "opponent_scripted=0.5"],
            True,
        ),
    ],
)
def test_the_learner_plays_team_b_only_where_a_game_can_draw_it(shares, plays):
    cfg = load_config(None, ['scripted_opponents=["tdm-beta"]', *shares])
    assert learner_plays_team_b(cfg) is plays
