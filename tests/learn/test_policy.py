"""A trained actor as a System (evaluate, Game, entrants files) and as a NumPy `.npz`."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")
pytest.importorskip("orbax.checkpoint")
jnp = jax.numpy

import marl_bgs  # noqa: E402
from marl_bgs.core.actions import NUM_JOINT  # noqa: E402
from marl_bgs.core.observation import OBS_WIDTH  # noqa: E402
from marl_bgs.core.position import starting_position  # noqa: E402
from marl_bgs.game import Game  # noqa: E402
from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.networks import init_params, make_networks  # noqa: E402
from marl_bgs.learn.npz_policy import NumpyPolicy, actor_forward, save_weights_npz  # noqa: E402
from marl_bgs.learn.policy import (  # noqa: E402
    LearnedPolicy,
    export_npz,
    learned_system,
    load_policy,
)
from marl_bgs.learn.trainer import train  # noqa: E402
from marl_bgs.systems.base import System, TeamInputs  # noqa: E402
from marl_bgs.systems.resolve import resolve_system  # noqa: E402
from marl_bgs.tournament.entrants import build_system, load_entrants, parse_entrants  # noqa: E402

# The trainer tests' tiny run (4 updates of 2 games x 4 ticks, hidden 8, 1v1 stage 0).
TINY = [
    "num_envs=2", "rollout_len=4", "hidden=8", "stage=0", "epochs=2", "minibatches=2",
    "opponent_self=0.5", "opponent_pool=0", "opponent_fixed=0", "opponent_scripted=0.5",
    'scripted_opponents=["random"]', "checkpoint_every=1", "total_steps=32",
]  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished tiny recurrent IPPO run folder (checkpoints at updates 2, 3 and 4)."""
    out = tmp_path_factory.mktemp("policy") / "rec"
    cfg = load_config(None, [*TINY, f'out="{out}"'], algo="rec-ippo")
    train(cfg, progress=False)
    return out, cfg


def random_inputs(seed: int, games: int, hidden: int):
    """Random observations, sparse masks (one legal choice forced), classes, resets, memory."""
    rng = np.random.default_rng(seed)
    obs = rng.normal(0, 2, (games, 5, OBS_WIDTH)).astype(np.float32)
    avail = rng.random((games, 5, NUM_JOINT)) < 0.05
    avail[np.arange(games)[:, None], np.arange(5), rng.integers(0, NUM_JOINT, (games, 5))] = True
    classes = rng.integers(0, 5, (games, 5)).astype(np.int32)
    new_game = rng.random(games) < 0.5
    inputs = TeamInputs(obs, avail, np.ones((games, 5), bool), np.ones((games, 5), bool),
                        classes, new_game)  # fmt: skip
    memory = rng.normal(0, 1, (games, 5, hidden)).astype(np.float32)
    return inputs, memory


def jax_logits(policy: LearnedPolicy, inputs: TeamInputs, memory):
    """The Flax actor, game by game (as the System protocol calls it)."""
    mem = memory if policy.recurrent else np.zeros((len(memory),), np.int32)
    out = jax.vmap(lambda i, m: policy.logits(policy.params, i, m))(inputs, mem)
    return [np.asarray(x) for x in out]


# ---- the System ------------------------------------------------------------------------------
def test_learned_system_plays_evaluate(run):
    """A few games against Random through evaluate's compiled loop, repeatable by seed."""
    folder, cfg = run
    system = learned_system(folder)
    assert isinstance(system, System) and system.name == "learned:rec@4"
    assert learned_system(folder) is system  # one object: compiled games are reused
    assert learned_system(str(folder), step=4) is system
    settings = cfg.game_settings()
    kwargs = dict(maps=settings["map_id"], games=4, rosters=settings["rosters"][0], batch_size=4,
                  winning_score=settings["winning_score"], horizon=settings["horizon"],
                  progress=False)  # fmt: skip
    first = marl_bgs.evaluate(system, "random", seed=3, **kwargs)
    assert len(first.games) == 4 and set(first.games["system_a"]) == {"learned:rec@4"}
    assert (first.games["ticks"] > 0).all() and (first.games["result"] != "open").all()
    again = marl_bgs.evaluate(system, "random", seed=3, **kwargs)  # keys come from the seed
    assert again.games.equals(first.games)


def test_learned_system_never_plays_an_illegal_action(run):
    """A whole game on the NumPy engine, the run's actor on both ends (sampled for team a,
    greedy for team b, so both frames' masks are used): every choice is legal, greedy is
    the NumPy policy's argmax, and the recurrent memory matches the NumPy forward pass.
    (The JAX host check avoids a debug callback inside evaluate, which would keep its
    compiled loop out of the persistent cache; the act function is the same.)"""
    folder, cfg = run
    sampled = load_policy(folder)
    greedy = load_policy(folder, greedy=True)
    assert greedy.greedy and greedy.name == "learned:rec@4:greedy"
    assert greedy.params is sampled.params
    npz = NumpyPolicy(sampled.weights(), sampled.hidden, sampled.recurrent)
    act = jax.jit(sampled.act)
    act_greedy = jax.jit(greedy.act)
    stage = cfg.game_settings()
    game = Game(starting_position(stage["map_id"][0], rosters=stage["rosters"][0]))
    mem = [sampled.init(None), greedy.init(None)]
    np_mem = [npz.init_memory(), npz.init_memory()]
    assert mem[0].shape == (5, cfg.hidden)
    key = jax.random.PRNGKey(0)
    ticks = 0
    while not game.done:
        inputs = [game.team_inputs(0), game.team_inputs(1)]
        a, mem[0] = act(jax.random.fold_in(key, ticks), inputs[0], mem[0])
        b, mem[1] = act_greedy(key, inputs[1], mem[1])
        n_a, np_mem[0] = npz.act(inputs[0], np_mem[0], greedy=True)
        n_b, np_mem[1] = npz.act(inputs[1], np_mem[1], greedy=True)
        a, b = np.asarray(a), np.asarray(b)
        for team, choice in ((0, a), (0, n_a), (1, b), (1, n_b)):
            assert inputs[team].avail[np.arange(5), choice].all(), (ticks, team, choice)
        np.testing.assert_array_equal(b, n_b)
        for t in range(2):
            np.testing.assert_allclose(np.asarray(mem[t]), np_mem[t], rtol=1e-4, atol=1e-5)
        game.step_slots(game.slots_from_flat(a, b))
        ticks += 1
    assert ticks >= 10 and not np.allclose(np.asarray(mem[0]), 0.0)


def test_bad_checkpoints_are_refused_naming_the_field(run, tmp_path):
    folder, _ = run
    with pytest.raises(ValueError, match="^checkpoint_dir: .* is not a folder"):
        learned_system(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="^checkpoint_dir: .* no config.json"):
        learned_system(tmp_path / "empty")
    with pytest.raises(ValueError, match=r"^step: .* no checkpoint 1; saved: \[2, 3, 4\]"):
        learned_system(folder, step=1)
    with pytest.raises(ValueError, match="^greedy"):
        learned_system(folder, greedy="yes")


# ---- the .npz and its NumPy forward pass ------------------------------------------------------
@pytest.fixture(scope="module")
def ff_policy():
    """A feedforward actor (fresh weights: the forward pass, not training, is under test)."""
    nets = make_networks(8, False, "local")
    actor, _ = init_params(nets, jax.random.PRNGKey(7))
    # Larger weights than the init's 0.01 logits layer, so the logits spread out.
    actor = jax.tree.map(
        lambda x: x * 30.0 if x.ndim == 2 and x.shape[1] == NUM_JOINT else x, actor
    )
    return LearnedPolicy("ff", Path("."), 0, 8, False, actor, True)


@pytest.mark.parametrize("kind", ["rec", "ff"])
def test_npz_numpy_forward_equals_jax(kind, run, ff_policy, tmp_path):
    if kind == "rec":
        policy = load_policy(run[0], greedy=True)
        path = export_npz(run[0], tmp_path / "rec.npz")
    else:
        policy = ff_policy
        path = save_weights_npz(tmp_path / "ff.npz", policy.weights(), 8, False)
    assert path.stat().st_size < 200_000
    npz = NumpyPolicy.load(path)
    assert (npz.hidden, npz.recurrent) == (8, kind == "rec")
    inputs, memory = random_inputs(1, 32, 8)
    want_mem, want = jax_logits(policy, inputs, memory)
    got_mem, got = npz.logits(inputs, memory)
    assert got.dtype == np.float32 and got.shape == (32, 5, NUM_JOINT)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert (got[~inputs.avail] == want[~inputs.avail]).all()  # illegal: exactly the mask value
    if kind == "rec":
        np.testing.assert_allclose(got_mem, want_mem, rtol=1e-5, atol=1e-6)
        # Reset rows start from zero memory whatever they were given.
        zero_mem, zero = npz.logits(inputs, np.zeros_like(memory))
        np.testing.assert_allclose(zero[inputs.new_game], got[inputs.new_game], atol=1e-6)
    # Greedy actions: the JAX System's and the NumPy policy's are identical and legal.
    mem_in = memory if policy.recurrent else np.zeros(32, np.int32)
    keys = jax.random.split(jax.random.PRNGKey(0), 32)
    jax_actions, _ = jax.vmap(policy.act)(keys, inputs, mem_in)
    np_actions, _ = npz.act(inputs, memory, greedy=True)
    np.testing.assert_array_equal(np.asarray(jax_actions), np_actions)
    assert np.take_along_axis(inputs.avail, np_actions[..., None], -1).all()
    # Sampling on the host never picks an illegal action either.
    drawn, _ = npz.act(inputs, memory, greedy=False, rng=np.random.default_rng(0))
    assert np.take_along_axis(inputs.avail, drawn[..., None], -1).all()
    # The same forward pass, written once, runs on jax.numpy too.
    w = {k: jnp.asarray(v) for k, v in npz.weights.items()}
    reset = np.broadcast_to(inputs.new_game[:, None], (32, 5))
    _, on_jnp = actor_forward(jnp, w, npz.recurrent, jnp.asarray(memory), jnp.asarray(inputs.obs),
                              jnp.asarray(inputs.classes), jnp.asarray(inputs.avail),
                              jnp.asarray(reset))  # fmt: skip
    np.testing.assert_allclose(np.asarray(on_jnp), want, rtol=1e-5, atol=1e-5)


def _rewrite(src: Path, dst: Path, change) -> Path:
    with np.load(src) as f:
        data = {k: f[k] for k in f.files}
    change(data)
    with dst.open("wb") as out:
        np.savez(out, **data)
    return dst


BAD_NPZ = [
    ("missing hidden", lambda d: d.pop("hidden"), "hidden"),
    ("missing weight", lambda d: d.pop("gru.hn.bias"), "gru.hn.bias"),
    ("wrong shape", lambda d: d.update({"logits.bias": np.zeros(197, np.float32)}), "logits.bias"),
    ("wrong dtype", lambda d: d.update({"in.bias": np.zeros(8, np.float64)}), "in.bias"),
    ("format", lambda d: d.update(format=np.asarray("marl-bgs/other")), "format"),
    ("format as bytes", lambda d: d.update(format=np.asarray(b"marl-bgs/policy-npz")), "format"),
    ("version", lambda d: d.update(version=np.asarray(5)), "version"),
    ("q flag", lambda d: d.update(q_values=np.asarray(1)), "q_values"),
    ("missing layer_norm", lambda d: d.pop("layer_norm"), "layer_norm"),
    ("missing arch", lambda d: d.pop("arch"), "arch"),
    ("arch as a number", lambda d: d.update(arch=np.asarray(1)), "arch"),
    ("embed negative", lambda d: d.update(embed=np.asarray(-1)), "embed"),
    ("obs width", lambda d: d.update(obs_width=np.asarray(OBS_WIDTH + 1)), "obs_width"),
    ("recurrent", lambda d: d.update(recurrent=np.asarray(1)), "recurrent"),
    ("not finite", lambda d: d["out.bias"].__setitem__(0, np.nan), "out.bias"),
    ("extra field", lambda d: d.update(extra=np.zeros(1)), "extra"),
    ("pickled object", lambda d: d.update(hidden=np.asarray([_Hostile()], dtype=object)), "hidden"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "field"), [c[1:] for c in BAD_NPZ], ids=[c[0] for c in BAD_NPZ])
def test_bad_npz_files_are_refused_naming_the_field(change, field, run, tmp_path):
    good = export_npz(run[0], tmp_path / "good.npz")
    bad = _rewrite(good, tmp_path / "bad.npz", change)
    with pytest.raises(ValueError, match="^" + re.escape(field) + ":"):
        NumpyPolicy.load(bad)


class _Hostile:
    def __reduce__(self):
        return (exec, ("raise SystemExit('unpickled!')",))


def test_hostile_and_broken_files_are_refused(tmp_path):
    raw = tmp_path / "raw.npz"
    raw.write_bytes(pickle.dumps(_Hostile()))
    with pytest.raises(ValueError, match="^path: .*not a policy .npz"):
        NumpyPolicy.load(raw)
    one = tmp_path / "one.npz"
    with one.open("wb") as f:
        np.save(f, np.zeros(3))
    with pytest.raises(ValueError, match="^path: .*one array"):
        NumpyPolicy.load(one)
    (tmp_path / "text.npz").write_text("weights = [1, 2, 3]\n")
    with pytest.raises(ValueError, match=r"^path: .*not a policy \.npz \(not a zip archive\)$"):
        NumpyPolicy.load(tmp_path / "text.npz")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="^path:"):
        NumpyPolicy.load(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="^path: .*does not exist"):
        NumpyPolicy.load(tmp_path / "nothing.npz")


# ---- entrants files and evaluate specs --------------------------------------------------------
def _entrants(load: dict) -> dict:
    return {
        "format": "marl-bgs/entrants", "version": 1, "season": "test",
        "entrants": [{"name": "Random", "type": "scripted", "load": {"system": "random"}},
                     {"name": "Tiny PPO", "type": "learned", "load": load}],
    }  # fmt: skip


def test_entrants_file_takes_a_checkpoint(run):
    folder, _ = run
    spec = parse_entrants(json.loads(json.dumps(_entrants({"checkpoint": str(folder), "step": 3}))))
    system = build_system(spec.entrants[1])
    assert system.name == "learned:rec@3"
    newest = parse_entrants(_entrants({"checkpoint": str(folder), "greedy": True}))
    assert build_system(newest.entrants[1]).name == "learned:rec@4:greedy"
    # evaluate takes the same spec, alone or for one slot of five.
    assert resolve_system({"checkpoint": str(folder), "step": 3}, "team_a") is system
    mixed = resolve_system([{"checkpoint": str(folder)}] + ["random"] * 4, "team_a")
    assert mixed.name == "learned:rec@4|random|random|random|random"


@pytest.mark.parametrize(
    ("load", "field"),
    [
        ({"checkpoint": ""}, "entrants[1].load.checkpoint"),
        ({"checkpoint": 7}, "entrants[1].load.checkpoint"),
        ({"checkpoint": "runs/x", "step": "last"}, "entrants[1].load.step"),
        ({"checkpoint": "runs/x", "step": -1}, "entrants[1].load.step"),
        ({"checkpoint": "runs/x", "greedy": "no"}, "entrants[1].load.greedy"),
        ({"checkpoint": "runs/x", "seed": 1}, "entrants[1].load"),
        ({"checkpoint": "runs/x", "system": "random"}, "entrants[1].load"),
    ],
)
def test_bad_checkpoint_entries_name_the_field(load, field):
    with pytest.raises(ValueError, match="^" + re.escape(field) + ":"):
        parse_entrants(_entrants(load))


def test_missing_checkpoints_name_the_field_when_built(run, tmp_path):
    folder, _ = run
    missing = parse_entrants(_entrants({"checkpoint": str(tmp_path / "nope")}))
    with pytest.raises(ValueError, match=r"^entrant 'Tiny PPO': load\.checkpoint: .*not a folder"):
        build_system(missing.entrants[1])
    unsaved = parse_entrants(_entrants({"checkpoint": str(folder), "step": 99}))
    with pytest.raises(ValueError, match=r"^entrant 'Tiny PPO': load\.step: .*no checkpoint 99"):
        build_system(unsaved.entrants[1])
    with pytest.raises(ValueError, match=r"^team_b\.checkpoint: "):
        resolve_system({"checkpoint": str(tmp_path / "nope")}, "team_b")


# ---- an exported actor as an entrant -----------------------------------------------------------
def test_an_exported_policy_file_plays_as_the_checkpoint_does(run, tmp_path):
    """`{"weights": file}` (read from the entrants file's folder) plays the same greedy
    actions as the checkpoint it was exported from, inside compiled games."""
    folder, _ = run
    (tmp_path / "models").mkdir()
    export_npz(folder, tmp_path / "models" / "tiny.npz", step=3)
    doc = _entrants({"weights": "models/tiny.npz", "greedy": True})
    (tmp_path / "season.json").write_text(json.dumps(doc))
    spec = load_entrants(tmp_path / "season.json")
    from_file = build_system(spec.entrants[1])
    assert from_file.name == "npz:tiny:greedy"
    assert build_system(spec.entrants[1]) is from_file  # one System: compiled games reused
    # parse_entrants (no file) reads a relative path from the working directory.
    with pytest.raises(ValueError, match=r"^entrant 'Tiny PPO': load\.weights: .*does not exist"):
        build_system(parse_entrants(doc).entrants[1])
    inputs, memory = random_inputs(5, 16, 8)
    keys = jax.random.split(jax.random.PRNGKey(1), 16)
    checkpoint = load_policy(folder, step=3, greedy=True)
    want, want_mem = jax.vmap(checkpoint.act)(keys, inputs, memory)
    got, got_mem = jax.jit(jax.vmap(from_file.act))(keys, inputs, memory)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_allclose(np.asarray(got_mem), np.asarray(want_mem), atol=1e-5)
    sampled = resolve_system({"weights": str(tmp_path / "models" / "tiny.npz")}, "team_a")
    acts, _ = jax.vmap(sampled.act)(keys, inputs, memory)
    assert np.take_along_axis(inputs.avail, np.asarray(acts)[..., None], -1).all()


def test_a_season_never_reuses_games_of_another_policy_file(run, tmp_path):
    from marl_bgs.tournament.fixture_store import stored_key
    from marl_bgs.tournament.schedule import Fixture

    folder, _ = run
    path = export_npz(folder, tmp_path / "p.npz", step=3)
    doc = _entrants({"weights": "p.npz"})
    (tmp_path / "s.json").write_text(json.dumps(doc))
    a, b = load_entrants(tmp_path / "s.json").entrants
    fx = Fixture(0, "round-robin", "Random", "Tiny PPO", (42,), 2, 0)
    before = stored_key(fx, 0, a, b)
    assert before["load_b"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    export_npz(folder, path, step=4)
    assert stored_key(fx, 0, a, b) != before


@pytest.mark.parametrize(
    ("load", "field"),
    [
        ({"weights": ""}, "entrants[1].load.weights"),
        ({"weights": "p.pt"}, "entrants[1].load.weights"),
        ({"weights": 3}, "entrants[1].load.weights"),
        ({"weights": "p.npz", "greedy": 1}, "entrants[1].load.greedy"),
        ({"weights": "p.npz", "step": 1}, "entrants[1].load"),
        ({"weights": "p.npz", "checkpoint": "runs/x"}, "entrants[1].load"),
    ],
)
def test_bad_weights_entries_name_the_field(load, field):
    with pytest.raises(ValueError, match="^" + re.escape(field) + ":"):
        parse_entrants(_entrants(load))
