"""One process of tests/test_distributed.py: run under `marl-bgs launch -n 2 --cpu-devices 2`
(two joined processes of 2 CPU devices each) or alone with 4 forced CPU devices, it plays an
`evaluate` call, a season fixture of the same two Systems (`play_shard` into OUT/store; the
same compiled runner) and a tiny ff-IPPO run of 2 updates (OUT/run) with devices=0, and
writes what it got to OUT/result-<process>.json. Each RUN after --resume (a run folder of
this worker) then continues from its checkpoint to 3 updates: OUT/resumed-<k>.json.

With MARL_BGS_TEST_LATE_S set, process 1 starts its games that many seconds after process 0
(as a process still compiling, or on a busier machine, would): longer than gloo's 30 s, the
processes must still meet before the first program that spans both.

    python tests/distributed_worker.py OUT [--resume RUN ...]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from marl_bgs.distributed import initialize_from_env  # noqa: E402

initialize_from_env()

import jax  # noqa: E402
import numpy as np  # noqa: E402

from marl_bgs import evaluate  # noqa: E402
from marl_bgs.learn.config_files import load_config  # noqa: E402
from marl_bgs.learn.trainer import train  # noqa: E402
from marl_bgs.tournament.entrants import parse_entrants  # noqa: E402
from marl_bgs.tournament.season import play_shard  # noqa: E402

# The trainer tests' tiny run, 4 games (one per device), 2 updates of 4 ticks.
SETTINGS = [
    "num_envs=4", "rollout_len=4", "hidden=8", "stage=0", "epochs=2", "minibatches=2",
    "validate_every=0", "opponent_self=0.5", "opponent_pool=0", "opponent_fixed=0",
    "opponent_scripted=0.5", 'scripted_opponents=["random"]', "checkpoint_every=1",
    "total_steps=32", "devices=0",
]  # fmt: skip
SEASON = {
    "format": "marl-bgs/entrants",
    "version": 1,
    "season": "two-processes",
    "field_size": 2,
    "entrants": [
        {"name": "TDM-Alpha", "type": "scripted", "load": {"system": "tdm-alpha"}},
        {"name": "TDM-Beta", "type": "scripted", "load": {"system": "tdm-beta"}},
    ],
    "challengers": [],
}


def numbers(tree) -> list[list[float]]:
    """Every leaf's values (fully replicated, or gathered) as lists of floats."""
    from marl_bgs.distributed import to_host

    return [to_host(x).astype(np.float64).ravel().tolist() for x in jax.tree.leaves(tree)]


def play(out: Path) -> dict:
    games = evaluate("tdm-alpha", "tdm-beta", maps=[47], games=8, batch_size=8, devices=0).games
    fixtures = play_shard(
        parse_entrants(SEASON), [47], 0, 1, games_per_map=8, store=out / "store",
        progress=False, devices=0, batch_size=8,
    )  # fmt: skip
    cfg = load_config(None, [*SETTINGS, f'out="{out / "run"}"'], algo="ff-ippo")
    run = train(cfg, progress=False, plots=False)
    return {
        "games": games.to_dict(orient="list"),
        "fixtures": fixtures,
        "update": int(run.state.update),
        "steps": int(run.state.steps),
        "params": numbers((run.state.actor_params, run.state.critic_params)),
        "live": numbers(run.state.live.env),
    }


def resume(run: Path) -> dict:
    cfg = load_config(None, [*SETTINGS, f'out="{run}"', "total_steps=48"], algo="ff-ippo")
    done = train(cfg, resume=True, progress=False, plots=False)
    return {
        "update": int(done.state.update),
        "params": numbers((done.state.actor_params, done.state.critic_params)),
    }


def main() -> None:
    out = Path(sys.argv[1])
    runs = sys.argv[3:] if sys.argv[2:3] == ["--resume"] else []
    where = {"processes": jax.process_count(), "devices": jax.device_count()}
    if jax.process_index() == 1:
        time.sleep(float(os.environ.get("MARL_BGS_TEST_LATE_S", "0")))
    got = play(out) | where
    (out / f"result-{jax.process_index()}.json").write_text(json.dumps(got))
    for k, run in enumerate(runs):
        (out / f"resumed-{k}.json").write_text(json.dumps(resume(Path(run)) | where))


if __name__ == "__main__":
    main()
