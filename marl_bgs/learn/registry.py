"""What a learner is, and the one table of the algorithms the package trains.

A new algorithm is its config class (a `TrainConfig` subclass in `config.py`, which needs
no JAX), its learner module and one `Algorithm` entry below; `train()`, checkpoints,
resumption, validation, policy loading, the command line and the publishing scripts read
everything else from here. The learner module is named, not imported, so that reading the
table (for a config, the command line's choices or an entrant's card) pulls in no flax.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:  # config.py imports this table
    from .config import TrainConfig

ACTING_KINDS = ("sampled", "greedy")


@runtime_checkable
class LearnerState(Protocol):
    """What `train()` and a checkpoint need of a learner's state (a NamedTuple pytree that
    orbax saves whole; each algorithm adds its own parameters and optimizer states)."""

    actor_params: Any  # what acts: the actor, or the Q-network; validation plays it
    key: Any  # raw uint32 PRNG key of the next update
    live: Any  # the games in play (`rollout.Live`), carried from update to update
    update: Any  # () int32 updates done
    steps: Any  # () int32 game steps played
    pool: Any  # saved copies that Team B may play (size 0 without a pool)

    def _replace(self, **changes: Any) -> LearnerState: ...


@runtime_checkable
class Learner(Protocol):
    """The compiled pieces for one config: what `train()` runs.

    `init(key)` gives a fresh state (also the template a checkpoint is restored into);
    `update(state)` plays one rollout and learns from it, returning the new state and a
    dict of metrics (scalars, or per-opponent arrays); `rollout.init_live(key)` starts
    fresh games (a curriculum's new stage); `nets.actor` is what validation and exported
    policies play.
    """

    cfg: Any
    env: Any
    nets: Any
    rollout: Any

    def init(self, key: Any) -> LearnerState: ...

    def update(self, state: Any) -> tuple[Any, dict]: ...

    def rollout_params(self, state: Any) -> tuple: ...


@dataclass(frozen=True)
class Algorithm:
    """One trainable algorithm: its name, config class, learner and how its policy acts."""

    name: str
    config: str  # the name of its `TrainConfig` subclass in `config.py`
    learner: str  # "module:Class" inside marl_bgs.learn (imported on first use)
    acting: Literal["sampled", "greedy"]  # sample from the actor, or best legal Q-value
    summary: str  # one line for the command line's help and entrant cards
    baseline: bool = True  # one of the Season 0 baselines `scripts/train_baselines.py` trains


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm("rec-ippo", "RecIPPOConfig", "ppo:PPOLearner", "sampled",
                  "recurrent IPPO: GRU actor and local GRU critic"),
        Algorithm("rec-mappo", "RecMAPPOConfig", "ppo:PPOLearner", "sampled",
                  "recurrent MAPPO: GRU actor, GRU critic on the world state"),
        Algorithm("ff-ippo", "FFIPPOConfig", "ppo:PPOLearner", "sampled",
                  "feedforward IPPO: feedforward actor and local critic"),
        Algorithm("ff-mappo", "FFMAPPOConfig", "ppo:PPOLearner", "sampled",
                  "feedforward MAPPO: one world-state value for the team"),
        Algorithm("bc", "BCConfig", "kickstart:KickstartLearner", "sampled",
                  "behaviour cloning of a teacher System with DAgger rounds", False),
        Algorithm("kickstart", "KickstartConfig", "kickstart:KickstartLearner", "sampled",
                  "kickstarted PPO: PPO plus a decaying cross-entropy to a teacher", False),
        Algorithm("qmix", "QMIXConfig", "qmix:QMIXLearner", "greedy",
                  "recurrent QMIX: replay, target copies, monotonic mixer"),
        Algorithm("pqn-vdn", "PQNVDNConfig", "pqn:PQNLearner", "greedy",
                  "recurrent PQN with VDN mixing: no replay, lambda-returns"),
    )
}  # fmt: skip
ALGOS = tuple(ALGORITHMS)
BASELINES = tuple(n for n, a in ALGORITHMS.items() if a.baseline)


def algorithm(name: str) -> Algorithm:
    """The table's entry for `name`; an unknown name is refused naming `config.algo`."""
    if name not in ALGORITHMS:
        raise ValueError(f"config.algo: unknown algorithm {name!r}; known: {', '.join(ALGOS)}")
    return ALGORITHMS[name]


def acts_greedily(name: str) -> bool:
    """Whether the algorithm's policy plays its best legal Q-value (else it samples)."""
    return algorithm(name).acting == "greedy"


def learner_class(name: str) -> type:
    """The learner class of an algorithm (imports its module: needs the `train` extra)."""
    module, cls = algorithm(name).learner.split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), cls)


_LEARNERS: dict[tuple, Any] = {}  # learner_for's cache


def learner_for(cfg: TrainConfig, reward_fn: Callable | None = None) -> Learner:
    """A cached learner for the config's algorithm: configs differing only in run settings
    share compiled code."""
    run_only = dict(seed=0, out="-", devices=1, total_steps=1, checkpoint_every=0, keep_checkpoints=1,
                    validate_every=0.0, validation_opponents=(), validation_maps=(42,),
                    validation_games=2, validation_seed=0)  # fmt: skip
    if cfg.needs_total_steps:  # a schedule over the whole run (PQN's learning rate)
        del run_only["total_steps"]
    key = (cfg.replace(**run_only), reward_fn)
    if key not in _LEARNERS:
        _LEARNERS[key] = learner_class(cfg.algo)(cfg, reward_fn)
    return _LEARNERS[key]


def _check_table() -> None:
    """The table's own consistency, at import: a wrong entry fails loudly, once."""
    for a in ALGORITHMS.values():
        if a.acting not in ACTING_KINDS:
            raise ValueError(f"registry: {a.name}.acting must be one of {ACTING_KINDS}")
        if a.learner.count(":") != 1:
            raise ValueError(f"registry: {a.name}.learner must read 'module:Class'")


_check_table()
