"""evaluate(devices=4): the games split over 4 (CPU) devices are exactly those of one device.

Seasons play every fixture through `evaluate` with their `devices` passed on
(tests/tournament/test_tournament.py checks the passing), so this covers them too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in a fresh process: the host device count is fixed when JAX starts. Three compiled
# loops in all (one device, four devices, the host System's tick on four devices); the
# uneven batch reuses the four-device loop.
SCRIPT = textwrap.dedent("""
    import json
    import jax
    import jax.numpy as jnp
    import numpy as np
    import pandas as pd
    import marl_bgs
    from marl_bgs import runner
    from marl_bgs.systems import host_system

    placed = []
    play = runner.BatchRunner.play

    def spy(self, root, seeds, positions, real=None):  # how many games each device computed
        state, trail, bad = play(self, root, seeds, positions, real)
        games = lambda x, axis: sorted({s.data.shape[axis] for s in x.addressable_shards})
        placed.append({"devices": len(state.metrics.sharding.device_set),
                       "metrics": games(state.metrics, 0),
                       "trail": games(trail, 1) if isinstance(trail, jax.Array) else None})
        return state, trail, bad

    runner.BatchRunner.play = spy
    kw = dict(maps=[47, 48], seed=7, horizon=40, progress=False)
    one = marl_bgs.evaluate("random", "random", games=8, batch_size=8, record=range(8),
                            devices=1, **kw)
    four = marl_bgs.evaluate("random", "random", games=8, batch_size=8, record=range(8),
                             devices=4, **kw)
    # 6 games a batch do not split over 4 devices: padded to 8, the extra places dropped
    uneven = marl_bgs.evaluate("random", "random", games=6, batch_size=6, devices=4, **kw)
    first_legal = host_system(lambda inputs: np.argmax(np.asarray(inputs.avail), axis=-1)
                              .astype(np.int32), name="first-legal")
    host_kw = dict(maps=[47], games=4, seed=1, batch_size=4, horizon=40, progress=False)
    host = [marl_bgs.evaluate(first_legal, "random", record=range(4), devices=d, **host_kw)
            for d in (1, 4)]  # as test_evaluation's host test (its one-device loop is cached)

    def same(a, b):
        pd.testing.assert_frame_equal(a.games, b.games)
        assert json.dumps(a.meta, sort_keys=True) == json.dumps(b.meta, sort_keys=True)  # NaN
        assert sorted(a.actions) == sorted(b.actions)
        assert all(np.array_equal(a.actions[g], b.actions[g]) for g in a.actions)
        return True

    pd.testing.assert_frame_equal(uneven.games, one.games.iloc[:6])
    print(json.dumps({"device_count": jax.device_count(), "same": same(one, four),
                      "same_host": same(*host), "placed": placed,
                      "ticks": one.games["ticks"].tolist(),
                      "moves": len(np.unique(np.concatenate([a.reshape(-1, 3)
                                                             for a in one.actions.values()]),
                                             axis=0))}))
""")


def test_four_devices_play_the_games_of_one():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4",
               JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT))  # fmt: skip
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=1200, cwd=ROOT)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["device_count"] == 4
    assert got["same"] and got["same_host"]
    # games per device: 8 on one; 2 on each of four (the final state and the action trail);
    # the uneven batch, 6 padded to 8, likewise; the host System's 4 games on one and four
    # (its trail is kept on the host)
    assert got["placed"] == [
        {"devices": 1, "metrics": [8], "trail": [8]},
        {"devices": 4, "metrics": [2], "trail": [2]},
        {"devices": 4, "metrics": [2], "trail": [2]},
        {"devices": 1, "metrics": [4], "trail": None},
        {"devices": 4, "metrics": [1], "trail": None},
    ], got
    # Random meets nobody in 40 ticks (the tables hold no points or damage), so the telling
    # part is the recorded actions: 8 x 40 ticks of accepted (masked) actions, equal.
    assert got["ticks"] == [40] * 8
    assert got["moves"] > 20, got
