"""Learning: the six baselines for Team A: recurrent/feedforward IPPO and MAPPO
(`ppo.py`), recurrent QMIX (`qmix.py`) and recurrent PQN-VDN (`pqn.py`), listed in
`registry.py` (name -> config class, learner, acting kind) and trained by the one loop
of `trainer.py`.

`config` needs nothing beyond the package; the rest needs the `train` extra (flax, optax,
orbax-checkpoint; flashbax for QMIX's replay), so `train` is imported on first use.
`NumpyPolicy` (a `.npz` export of a trained actor or Q-network, `policy.py`) needs only
NumPy; `learned_system(run)` plays a run's actor (a Q-network greedily).

    from marl_bgs.learn import load_config, train
    result = train(load_config("rec.toml", ["num_envs=64"], algo="rec-ippo"))

`train` also plays the validation panel (`validation.py`, section S6.3) at update 0 and
after every `validate_every` of training, keeps the best check's state under best/, and
draws the learning curves (`plots.py`, needs matplotlib) into the run folder's plots/.
The command line: `marl-bgs train --algo ALGO --config FILE --out runs/NAME [k=v ...]`
(ALGO: rec-ippo, rec-mappo, ff-ippo, ff-mappo, qmix or pqn-vdn) and `marl-bgs plot runs/NAME`.
"""

from __future__ import annotations

from typing import Any

from .config import (
    CONFIG_CLASSES,
    FFIPPOConfig,
    FFMAPPOConfig,
    PPOConfig,
    PQNVDNConfig,
    QMIXConfig,
    RecIPPOConfig,
    RecMAPPOConfig,
    TrainConfig,
)
from .config_files import load_config, read_json
from .registry import ALGORITHMS, Algorithm, Learner, LearnerState


def __getattr__(name: str) -> Any:
    if name in ("train", "TrainResult"):
        from . import trainer

        return getattr(trainer, name)
    if name in ("PPOLearner", "PPOState"):
        from . import ppo

        return getattr(ppo, name)
    if name == "NumpyPolicy":  # NumPy only
        from .npz_policy import NumpyPolicy

        return NumpyPolicy
    if name in _POLICY_NAMES:
        from . import policy

        return getattr(policy, name)
    raise AttributeError(name)


_POLICY_NAMES = ("learned_system", "load_policy", "export_npz", "LearnedPolicy")


__all__ = [
    "CONFIG_CLASSES", "FFIPPOConfig", "FFMAPPOConfig", "PPOConfig", "RecIPPOConfig",
    "RecMAPPOConfig", "TrainConfig", "QMIXConfig", "PQNVDNConfig", "load_config", "read_json",
    "ALGORITHMS", "Algorithm", "Learner", "LearnerState", "PPOLearner", "PPOState",
    "train", "TrainResult", "learned_system", "load_policy",
    "export_npz", "NumpyPolicy", "LearnedPolicy",
]  # fmt: skip
