"""Data parallelism: the games split over 4 (CPU) devices give the same update as 1, and
the validation panel split over them plays the games of one device."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("optax")

from tests.learn.test_trainer import TINY  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# The trainer tests' tiny run with 4 games (one per device) and an opponent pool that saves
# a copy after the first update (16 game steps), so the replicated pool is in the update.
SETTINGS = [*TINY, "num_envs=4", "opponent_self=0.3", "opponent_pool=0.2", "pool_size=2",
            "pool_every=16"]  # fmt: skip

# Runs in a fresh process: the host device count is fixed when JAX starts.
SCRIPT = textwrap.dedent("""
    import json, sys
    import jax
    import numpy as np
    from marl_bgs.learn.config_files import load_config
    from marl_bgs.learn.learner_sharding import game_mesh, shard_state
    from marl_bgs.learn.registry import learner_for

    cfg = load_config(None, json.loads(sys.argv[1]), algo="rec-ippo")
    learner = learner_for(cfg)
    state = learner.init(jax.random.PRNGKey(0))
    mesh = game_mesh(0)
    split = shard_state(state, mesh, cfg.num_envs)
    one, _ = learner.update(state)
    four, _ = learner.update(split)
    for _ in range(2):
        one, _ = learner.update(one)
        four, _ = learner.update(four)
    live_devices = {len(x.sharding.device_set) for x in jax.tree.leaves(four.live)}
    params_devices = {len(x.sharding.device_set) for x in jax.tree.leaves(four.actor_params)}
    gap = max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
              for a, b in zip(jax.tree.leaves((one.actor_params, one.critic_params)),
                              jax.tree.leaves((four.actor_params, four.critic_params))))
    same_live = all(np.array_equal(np.asarray(a), np.asarray(b))
                    for a, b in zip(jax.tree.leaves(one.live.env), jax.tree.leaves(four.live.env)))

    # The validation panel (2 maps x 2 games against Random) on 1 and on 4 devices.
    from marl_bgs.learn.validation import Validator
    panel = cfg.replace(validation_opponents=("random",), validation_maps=(42, 46),
                        validation_games=2, validate_every=0.5)
    split_over = []
    def spied(v):
        runner = v._runner(v.opponents[0])
        run = runner._run_params
        def spy(params, root, seeds, state):
            split_over.append(len(seeds.sharding.device_set))
            return run(params, root, seeds, state)
        runner._run_params = spy
        return v
    v1 = spied(Validator(panel, learner.nets))
    v4 = spied(Validator(panel.replace(devices=4), learner.nets))
    g1 = v1.play(one.actor_params, record=True)
    g4 = v4.play(one.actor_params, record=True)
    same_panel = g1.equals(g4) and all(
        np.array_equal(v1.last_actions["random"][g], v4.last_actions["random"][g])
        for g in range(4))
    print(json.dumps({"devices": mesh.devices.size, "live": sorted(live_devices),
                      "params": sorted(params_devices), "gap": gap, "same_games": same_live,
                      "steps": int(four.steps), "same_panel": bool(same_panel),
                      "panel_split": split_over, "panel_ticks": g1["ticks"].tolist()}))
""")


def test_four_devices_give_the_same_update_as_one():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4",
               JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT))  # fmt: skip
    out = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(SETTINGS)], env=env,
                         capture_output=True, text=True, timeout=1200, cwd=ROOT)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["devices"] == 4
    assert 4 in got["live"] and got["params"] == [4]  # games split, parameters replicated
    assert got["steps"] == 3 * 4 * 4
    assert got["same_games"]  # the games themselves are integer-exact on any split
    assert got["gap"] < 1e-4, got
    assert got["panel_split"] == [1, 4]  # the panel's games really were split
    assert got["same_panel"], got  # the same games, tick for tick
    assert min(got["panel_ticks"]) > 1
