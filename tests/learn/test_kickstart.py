"""Learning from a teacher (learn/kickstart.py): behaviour cloning with DAgger, kickstarted PPO.

Tiny feedforward networks on curriculum stage 0 (a 1v1 duel); the learners are built once
per module and shared, so each compiles once.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("flax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.kickstart import (  # noqa: E402
    KickState,
    linear_schedule,
    priority_weights,
)
from marl_bgs.learn.losses import imitation_loss  # noqa: E402
from marl_bgs.learn.registry import learner_for  # noqa: E402
from marl_bgs.learn.trainer import train  # noqa: E402

SMALL = ["num_envs=8", "rollout_len=8", "hidden=32", "stage=0", "recurrent=false",
         "minibatches=2", "epochs=1", "opponent_self=0.5", "opponent_pool=0",
         "opponent_fixed=0", "opponent_scripted=0.5", 'scripted_opponents=["tdm-beta"]',
         "validate_every=0"]  # fmt: skip
WEIGHT_ZERO = ["teacher=tdm-alpha", "kick_weight=0", "kick_floor=0"]


def same(a, b) -> bool:
    return all(jax.tree.leaves(jax.tree.map(lambda x, y: bool(np.array_equal(x, y)), a, b)))


@pytest.fixture(scope="module")
def kick():
    """Kickstarted PPO with the teacher labelling every tick but weight 0, and its state
    after one update."""
    learner = learner_for(load_config(None, SMALL + WEIGHT_ZERO, algo="kickstart"))
    start = learner.init(jax.random.PRNGKey(3))
    after, metrics = learner.update(start)
    return learner, start, after, metrics


def test_teacher_weight_zero_is_plain_ppo_bit_for_bit(kick):
    learner, start, after, metrics = kick
    ppo = learner_for(load_config(None, SMALL, algo="ff-ippo"))
    p_start = ppo.init(jax.random.PRNGKey(3))
    p_after, p_metrics = ppo.update(p_start)
    assert isinstance(after, KickState)
    for name in ("actor_params", "critic_params", "actor_opt", "critic_opt", "value_norm",
                 "key", "update", "steps"):  # fmt: skip
        assert same(getattr(after, name), getattr(p_after, name)), name
    assert same(after.live.env, p_after.live.env)
    for name in ("loss", "actor_loss", "value_loss", "entropy", "games"):
        assert float(metrics[name]) == float(p_metrics[name]), name
    assert float(metrics["teacher_weight"]) == 0.0
    assert np.isfinite(float(metrics["teacher_loss"]))  # computed, only weighted by 0


def _ticks(learner, state, count):
    """Team A's inputs and transitions tick by tick, through the learner's own tick."""
    rollout = learner.rollout
    params = learner.rollout_params(state)
    tick = jax.jit(rollout.tick)
    live, rows = state.live, []
    for t in range(count):
        inputs = jax.device_get(learner.env.teams_inputs(live.env)[0])
        live, (trans, _, _) = tick(params, live, jax.random.PRNGKey(100 + t))
        rows.append((inputs, jax.device_get(trans), jax.device_get(live.teacher_game)))
    return rows


def test_dagger_labels_are_the_teachers_own_choices_memory_included(kick):
    """The teacher's labels on the learner's own games equal the teacher System played on
    its own, game by game, on the same inputs with its own memory (started at each new
    game) advanced by the moves the learner actually made (`System.follow`): TDM-Alpha
    keeps its distance fields, its target and which moves failed from tick to tick."""
    learner, start, _, _ = kick
    teacher = learner.teacher
    rows = _ticks(learner, start, 24)
    act = jax.jit(teacher.act)
    follow = jax.jit(teacher.follow)
    differed = 0
    n = learner.cfg.num_envs
    memories = [None] * n
    assert rows[0][0].new_game.all()
    for inputs, trans, teacher_game in rows:
        assert not teacher_game.any()  # teacher_plays = 0: the learner plays every game
        assert trans.on_policy.all()
        for g in range(n):
            one = jax.tree.map(lambda x, g=g: x[g], inputs)
            if memories[g] is None or bool(one.new_game):
                memories[g] = teacher.init(jax.random.PRNGKey(0))
            labels, own = act(jax.random.PRNGKey(g), one, memories[g])
            np.testing.assert_array_equal(trans.teacher_action[g], labels)
            memories[g] = follow(one, memories[g], trans.action[g])
            differed += int(not same(memories[g], own))
    assert differed > 0  # the learner's moves were not the teacher's, and memory tells


@pytest.fixture(scope="module")
def bc_run(tmp_path_factory):
    """Behaviour cloning of TDM-Alpha on the duel stage (the teacher plays every game at
    first, none from half the run on), the first update a critic warm-up, Team B's scripted
    share prioritised."""
    out = tmp_path_factory.mktemp("bc")
    cfg = load_config(None, SMALL + [
        "num_envs=16", "rollout_len=16", "epochs=2", "actor_lr=3e-3", "critic_lr=1e-3",
        "total_steps=10240", "critic_warmup=1", "opponent_priority=2", "checkpoint_every=10",
        'scripted_opponents=["tdm-beta", "random"]', f"out={out / 'run'}",
    ], algo="bc")  # fmt: skip
    learner = learner_for(cfg)
    start = learner.fresh(learner.init(jax.random.PRNGKey(cfg.seed)))
    result = train(cfg, progress=False, plots=False)
    return cfg, learner, start, result


def test_a_critic_warmup_leaves_the_actor_as_it_was(bc_run):
    cfg, learner, start, _ = bc_run
    first, metrics = learner.update(start)
    assert float(metrics["critic_warmup"]) == 1.0
    assert same(first.actor_params, start.actor_params)
    assert same(first.actor_opt, start.actor_opt)
    assert not same(first.critic_params, start.critic_params)
    second, metrics = learner.update(first)
    assert float(metrics["critic_warmup"]) == 0.0
    assert not same(second.actor_params, first.actor_params)


def test_teacher_played_games_take_the_teachers_actions(bc_run):
    """At the start of a BC run the teacher plays every game: Team A's actions are its
    labels and none of them counts as the learner's own choice."""
    _, learner, start, _ = bc_run
    rows = _ticks(learner, start, 4)
    for inputs, trans, teacher_game in rows:
        assert teacher_game.all()
        assert not trans.on_policy.any()
        used = np.asarray(inputs.present)
        np.testing.assert_array_equal(trans.action[used], trans.teacher_action[used])


def test_the_schedules_and_priorities_follow_their_formulas(bc_run):
    cfg, learner, start, result = bc_run
    rows = result.rows
    n = cfg.num_updates
    for row in rows:
        u = row["update"] - 1  # the row of update u+1 logs the schedule update u played
        share = 1.0 - min(u / n / cfg.teacher_plays_until, 1.0)
        assert row["teacher_share"] == pytest.approx(share, abs=1e-6)
        assert row["teacher_weight"] == 1.0
    assert rows[-1]["teacher_share"] == 0.0
    # The logged draw shares: "self" keeps half, the scripted half split by priority.
    state = result.state
    record = np.asarray(state.record)
    k = learner.rollout.scripted_picks
    draw = np.asarray(jax.nn.softmax(learner.rollout.opponent_logits(
        learner.rollout_params(state))))  # fmt: skip
    wins, losses = record[k:, 0], record[k:, 1]
    rate = np.where(wins + losses > 0, wins / np.maximum(wins + losses, 1e-9), 0.0)
    raw = np.maximum((1 - rate) ** 2, cfg.priority_floor)
    np.testing.assert_allclose(draw, [0.5, *(0.5 * raw / raw.sum())], rtol=1e-5)


def test_priority_weights_by_hand():
    record = jnp.asarray([[3.0, 1.0], [0.0, 0.0], [1.0, 3.0], [5.0, 0.0]])
    got = np.asarray(priority_weights(record, 2.0, 0.05))
    raw = np.asarray([0.25**2, 1.0, 0.75**2, 0.05])  # rates 3/4, none yet, 1/4, 1
    np.testing.assert_allclose(got, raw / raw.sum(), rtol=1e-6)
    flat = np.asarray(priority_weights(record, 0.0, 0.05))
    np.testing.assert_allclose(flat, [0.25] * 4)


def test_linear_schedule_by_hand():
    assert float(linear_schedule(1.0, 0.2, 0.5, 0.0)) == 1.0
    assert float(linear_schedule(1.0, 0.2, 0.5, 0.25)) == pytest.approx(0.6)
    assert float(linear_schedule(1.0, 0.2, 0.5, 0.9)) == pytest.approx(0.2)
    assert float(linear_schedule(1.0, 0.2, 0.0, 0.0)) == pytest.approx(0.2)


def test_imitation_loss_by_hand():
    """Two decisions count: one with three legal choices (label 1), one with two (label 0);
    a forced choice, an illegal label and a masked slot do not."""
    logits = jnp.log(jnp.asarray([
        [0.2, 0.5, 0.3, 1.0],  # legal 0-2 (the 4th is masked out below)
        [0.6, 0.4, 1.0, 1.0],  # legal 0-1
        [1.0, 1.0, 1.0, 1.0],  # only 3 legal: forced
        [0.5, 0.5, 1.0, 1.0],  # label 2 is illegal
        [0.5, 0.5, 1.0, 1.0],  # not the learner's slot
    ]))  # fmt: skip
    avail = jnp.asarray([[1, 1, 1, 0], [1, 1, 0, 0], [0, 0, 0, 1], [1, 1, 0, 0],
                         [1, 1, 0, 0]], bool)  # fmt: skip
    lp = jax.nn.log_softmax(jnp.where(avail, logits, -1e30))
    label = jnp.asarray([1, 0, 3, 2, 0])
    mask = jnp.asarray([True, True, True, True, False])
    loss, agree = imitation_loss(lp, label, avail, mask)
    assert float(loss) == pytest.approx(-(np.log(0.5) + np.log(0.6)) / 2, rel=1e-6)
    assert float(agree) == 1.0


def test_bc_agrees_with_its_teacher_on_held_out_demonstrations(bc_run, tmp_path):
    """The BC smoke run (10,240 game steps on the duel) picks TDM-Alpha's choice on games it
    never saw (recorded with another seed) far more often than chance or its start."""
    from marl_bgs.learn.demos import DemoSettings, learner_batch, read_demos, record_demos
    from marl_bgs.learn.networks import actor_inputs

    cfg, learner, start, result = bc_run
    settings = DemoSettings(teacher="tdm-alpha", opponents=("tdm-beta",), maps=(0,),
                            roster=("mage",), winning_score=5, horizon=150, num_envs=16,
                            chunk_ticks=32, steps=2048, shard_steps=2048, seed=7)  # fmt: skip
    record_demos(settings, tmp_path / "demos", progress=False)
    demos = read_demos(tmp_path / "demos")
    batch = learner_batch(demos.arrays())
    avail = batch["avail"].astype(bool)
    counted = batch["counts"] & (avail.sum(-1) > 1)
    x = actor_inputs(jnp.asarray(batch["obs"]), jnp.asarray(batch["classes"], jnp.int32))

    def agreement(params):
        reset = jnp.zeros(avail.shape[:-1], bool)
        mem = jnp.zeros((*avail.shape[:-1], 1))
        _, logits = learner.nets.actor.apply(params, mem, x, jnp.asarray(avail), reset)
        best = np.asarray(jnp.argmax(logits, -1))
        return float((best == batch["action"])[counted].mean())

    chance = float((1.0 / avail.sum(-1))[counted].mean())
    before, after = agreement(start.actor_params), agreement(result.state.actor_params)
    assert counted.sum() > 500
    assert after > max(3 * chance, before + 0.2), (chance, before, after)


def test_init_from_starts_from_a_runs_newest_weights(kick, bc_run):
    _, _, _, result = bc_run
    learner, start, _, _ = kick
    cfg = learner.cfg.replace(init_from=str(result.run_dir))
    begun = learner_for(cfg).fresh(start)
    assert same(begun.actor_params, result.state.actor_params)
    assert same(begun.critic_params, result.state.critic_params)
    assert same(begun.value_norm, result.state.value_norm)
    assert same(begun.actor_opt, start.actor_opt)  # optimizers start afresh
    wider = learner_for(cfg.replace(hidden=16))
    template = jax.eval_shape(wider.init, jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match=r"config\.init_from: run's actor_params do not fit"):
        wider.fresh(template)
    with pytest.raises(ValueError, match=r"config\.init_from: 'nowhere'"):
        learner_for(cfg.replace(init_from="nowhere")).fresh(start)


def test_teacher_settings_are_refused_naming_the_field():
    with pytest.raises(ValueError, match=r"config\.teacher: a teacher weight"):
        load_config(None, ["teacher="], algo="kickstart")
    with pytest.raises(ValueError, match=r"config\.opponent_priority"):
        load_config(None, ["opponent_priority=1", "opponent_scripted=0"], algo="kickstart")
    with pytest.raises(ValueError, match=r"config\.critic_warmup"):
        load_config(None, ["critic_warmup=-1"], algo="bc")
    with pytest.raises(ValueError, match=r"config\.teacher_plays"):
        load_config(None, ["teacher_plays=1.5"], algo="bc")
    with pytest.raises(ValueError, match=r"config\.teacher: 'tdm-omega' is not a registered"):
        learner_for(load_config(None, SMALL + ["teacher=tdm-omega"], algo="kickstart"))


def test_the_published_recipes_load_and_train_on_training_maps_only():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "seasons" / "recipes"
    recipes = sorted(folder.glob("*.toml"))
    assert [p.name for p in recipes][:2] == ["kick-alpha-1-bc.toml", "kick-alpha-2-kickstart.toml"]
    for path in recipes:
        cfg = load_config(path)
        assert max(cfg.maps) < 42 and cfg.teacher == "tdm-alpha", path.name


def test_init_from_a_runs_best_folder_starts_from_that_check(kick, bc_run):
    """`init_from = RUN/best` restores the validation's kept check, not the newest one (here
    an older checkpoint copied in as the kept check)."""
    import shutil

    from marl_bgs.learn.policy import restore_state, saved_steps

    _, _, _, result = bc_run
    learner, start, _, _ = kick
    run = result.run_dir
    older = saved_steps(run)[0]
    assert older < saved_steps(run)[-1]
    shutil.copytree(run / "checkpoints" / str(older), run / "best" / str(older))
    try:
        _, kept = restore_state(run, older)
        begun = learner_for(learner.cfg.replace(init_from=str(run / "best"))).fresh(start)
        assert same(begun.actor_params, kept.actor_params)
        assert not same(begun.actor_params, result.state.actor_params)
    finally:
        shutil.rmtree(run / "best")
