"""Training settings: one frozen dataclass per algorithm family (checked by `config_checks.py`
as each is made, read from TOML, JSON and `key=value` by `config_files.py`).

Why frozen dataclasses: a config is a value (hashable, so compiled update functions can be
cached on it), every field is typed and documented in one place, and a bad setting fails at
load time with the field's name instead of deep inside a compiled loop. Defaults are the
paper's Season 0 settings (Table S10 and section S6).

    cfg = load_config("rec.toml", ["num_envs=64", "maps=curriculum"], algo="rec-ippo")
    cfg.save("runs/x/config.json")          # load_config: config_files.py
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.position import OFFICIAL_ROSTER
from ..maps import SPLITS
from .config_checks import check_config
from .curriculum import CURRICULUM
from .registry import ALGORITHMS

CONFIG_FORMAT = "marl-bgs/train-config"
CONFIG_VERSION = 1


@dataclass(frozen=True)
class TrainConfig:
    """Settings every learner shares: batch, reward, opponents, games, run and validation.

    Each algorithm's config adds its own fields (`PPOConfig`, `QMIXConfig`, `PQNVDNConfig`),
    so a setting that an algorithm would ignore is refused by name instead.
    """

    family_checks = ()  # the checks beyond the shared ones (not a field: unannotated)

    algo: str = "rec-ippo"
    recurrent: bool = True  # GRU networks, memory reset on each new game
    hidden: int = 128  # width of every hidden layer and of the GRU memory

    # Batch: games played at once and ticks per rollout; one update = num_envs * T steps.
    num_envs: int = 512
    rollout_len: int = 32
    total_steps: int = 40_108_032  # game steps (one tick of one game) to train for
    gamma: float = 0.999
    max_grad_norm: float = 0.5

    # Reward (section S6.1, Table S9); amounts per event, health in whole points.
    reward_form: str = "per_agent"  # or "team": shared terms once + team total of own terms
    win_reward: float = 1.0  # +1 win, -1 loss, 0 draw (times this)
    kill_credit: float = 0.05
    red_zone_kill: float = 0.10
    damage: float = 0.001
    useful_healing: float = 0.001
    teammate_death: float = -0.05
    red_zone_death: float = -0.10
    healing_range: float = 0.001
    own_red_zone: float = -0.002

    # Opponents for Team B, drawn per new game (section S6.2): the current weights, one of
    # the `pool_size` newest saved copies of the actor (one saved every `pool_every` game
    # steps), the fixed policies `fixed_opponents` (run folders or policy .npz files) and
    # the registered Systems `scripted_opponents`, each share split evenly within its group.
    # A group with nothing in it (no copy saved yet, no fixed policy) gives its share to the
    # current weights.
    opponent_self: float = 0.60
    opponent_pool: float = 0.20
    opponent_fixed: float = 0.15
    opponent_scripted: float = 0.05
    scripted_opponents: tuple[str, ...] = ("tdm-alpha", "tdm-beta")  # share the scripted part
    fixed_opponents: tuple[str, ...] = ()  # run folders (newest checkpoint) or .npz files
    pool_size: int = 12  # every copy plays each tick (its actions kept where drawn)
    pool_every: int = 1_376_256  # game steps between saved copies

    # Team A's slots played by a System instead of the learner (frozen partners): empty, or
    # five entries, each "" (the learner) or a System name, run folder or .npz file. Those
    # slots' decisions are not trained on.
    teammates: tuple[str, ...] = ()

    # Games: maps to draw from (a split name or ids; never held-out maps), or a curriculum
    # stage (its maps, team size, winning score and horizon replace these).
    maps: tuple[int, ...] = SPLITS["curriculum"] + SPLITS["training"]
    stage: int | None = None
    # A curriculum walk: these `marl_bgs.learn.curriculum.CURRICULUM` stages in turn, each for its
    # weight's share of training (e.g. [0, 1, 2, 3, 4, 5, 6, 7]); empty: no curriculum.
    curriculum: tuple[int, ...] = ()
    roster: tuple[str, ...] = OFFICIAL_ROSTER  # both teams; a stage of size k uses roster[:k]
    winning_score: int = 20
    horizon: int = 300

    # Run.
    devices: int = 1  # devices the games are split over (0: all; see learn.sharding)
    seed: int = 0
    out: str = "runs/default"
    checkpoint_every: int = 50  # updates between checkpoints (0: only at the end)
    keep_checkpoints: int = 3

    # Validation (section S6.3): at update 0 and after every `validate_every` of training
    # (a fraction; 0 turns it off) the current actor plays `validation_games` games per map
    # and opponent (spawn-swapped pairs) with the run's rosters, winning score and horizon;
    # the check with the best point margin (update 0 excluded) is kept under best/.
    validate_every: float = 0.1
    validation_opponents: tuple[str, ...] = ("tdm-alpha", "tdm-beta")
    validation_maps: tuple[int, ...] = (42, 43, 44, 46)  # map 45 left out (pathing fails)
    validation_games: int = 8
    validation_seed: int = 0  # root seed of the validation games (same games at every check)

    def __post_init__(self) -> None:
        check_config(self)

    @property
    def needs_total_steps(self) -> bool:
        """Whether the compiled update depends on the run's length (a schedule over the
        whole training), so that runs of other lengths cannot share it."""
        return False

    # ---- derived values --------------------------------------------------------------
    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.rollout_len

    @property
    def num_updates(self) -> int:
        return max(self.total_steps // self.steps_per_update, 1)

    def game_settings(self) -> dict:
        """Maps, rosters, winning score and horizon of the training games."""
        if self.stage is None:
            roster = tuple(self.roster)
            return {
                "map_id": list(self.maps),
                "rosters": [(roster, roster)],
                "winning_score": self.winning_score,
                "horizon": self.horizon,
            }
        st = CURRICULUM[self.stage]
        roster = tuple(self.roster[: st.team_size])
        return {
            "map_id": list(st.maps),
            "rosters": [(roster, roster)],
            "winning_score": st.winning_score,
            "horizon": st.horizon,
        }

    @property
    def uses_pool(self) -> bool:
        return self.opponent_pool > 0 and self.pool_size > 0

    @property
    def fixed_in_play(self) -> tuple[str, ...]:
        return self.fixed_opponents if self.opponent_fixed > 0 else ()

    @property
    def scripted_in_play(self) -> tuple[str, ...]:
        return self.scripted_opponents if self.opponent_scripted > 0 else ()

    def opponent_names(self) -> tuple[str, ...]:
        """The opponents a game can draw, in pick order: "self", "pool" (when used), each
        fixed policy ("fixed:<name>"), each scripted System."""
        fixed = tuple(f"fixed:{Path(f).name}" for f in self.fixed_in_play)
        pool = ("pool",) if self.uses_pool else ()
        return ("self", *pool, *fixed, *self.scripted_in_play)

    def opponent_weights(self, pool_filled: bool = True) -> tuple[float, ...]:
        """Per-game draw weights in `opponent_names` order (summing to the shares' sum).

        A share with nothing to play goes to the current weights: the pool's before its
        first copy is saved (`pool_filled=False`), as in section S6.2, and the fixed share
        when no policy is named (a scripted share needs a System named: `check_config`
        refuses it otherwise).
        """
        current = self.opponent_self
        pool: tuple[float, ...] = ()
        if self.uses_pool and pool_filled:
            pool = (self.opponent_pool,)
        elif self.uses_pool:
            pool, current = (0.0,), current + self.opponent_pool
        else:
            current += self.opponent_pool
        rest: list[float] = []
        for names, share in ((self.fixed_opponents, self.opponent_fixed),
                             (self.scripted_opponents, self.opponent_scripted)):  # fmt: skip
            if names and share > 0:
                rest += [share / len(names)] * len(names)
            else:
                current += share
        return (current, *pool, *rest)

    def stage_config(self, update: int) -> TrainConfig:
        """The config the update number `update` (0-based) plays: with a curriculum, its
        stage's (by training progress `update / num_updates`), else this one."""
        if not self.curriculum:
            return self
        from .curriculum import stage_bounds

        bounds = stage_bounds([CURRICULUM[k] for k in self.curriculum])
        progress = update / self.num_updates
        pos = next((i for i, (_, end) in enumerate(bounds) if progress < end), len(bounds) - 1)
        return self.replace(curriculum=(), stage=self.curriculum[pos])

    def to_dict(self) -> dict:
        out = {"format": CONFIG_FORMAT, "version": CONFIG_VERSION}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    def save(self, path: str | Path) -> Path:
        """Write the resolved config as JSON (with format and version)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        return path

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class PPOConfig(TrainConfig):
    """Settings shared by the four PPO baselines (defaults: recurrent IPPO, Table S10)."""

    family_checks = ("ppo",)  # config_checks.py: the checks beyond the shared ones

    critic: str = "local"  # "local": the agent's own view; "world": env.world_state (MAPPO)
    # The actor: "mlp" (the flat network of the paper) or "units" (encoders shared over the
    # observation's unit rows and obstacles, each target scored from its own row; rows
    # encoded `embed` wide; learn/unit_net.py).
    network: str = "mlp"
    embed: int = 64
    # The actor (and a local critic) also reads TDM-Alpha's score for each of its nine moves,
    # the walking plan a small network does not learn from obstacle boxes (actor_view.py).
    nav_inputs: bool = False
    # PPO (section S6.4: no PPO change passed the search, so these stayed).
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 1.0  # the critic has its own optimizer; this scales its loss
    epochs: int = 4
    minibatches: int = 2  # split along the games axis (sequences stay whole)
    actor_lr: float = 1e-4
    critic_lr: float = 2.5e-4
    value_norm: bool = True  # the critic predicts returns standardised by running statistics
    normalize_advantages: bool = True


@dataclass(frozen=True)
class RecIPPOConfig(PPOConfig):
    """Recurrent IPPO: GRU actor and local GRU critic, per-agent reward."""

    algo: str = "rec-ippo"
    recurrent: bool = True
    critic: str = "local"


@dataclass(frozen=True)
class RecMAPPOConfig(PPOConfig):
    """Recurrent MAPPO: GRU actor, GRU critic on `env.world_state`, per-agent reward."""

    algo: str = "rec-mappo"
    recurrent: bool = True
    critic: str = "world"


@dataclass(frozen=True)
class FFIPPOConfig(PPOConfig):
    """Feedforward IPPO: feedforward actor and local critic, per-agent reward."""

    algo: str = "ff-ippo"
    recurrent: bool = False
    critic: str = "local"


@dataclass(frozen=True)
class FFMAPPOConfig(PPOConfig):
    """Feedforward MAPPO: one world-state value for the team, team reward, actor lr 3e-4."""

    algo: str = "ff-mappo"
    recurrent: bool = False
    critic: str = "world"
    reward_form: str = "team"
    actor_lr: float = 3e-4


@dataclass(frozen=True)
class KickstartConfig(PPOConfig):
    """PPO that learns from a teacher System as well (kickstarting, arXiv 1803.03835).

    The teacher runs beside Team A in every training game, with its own memory advanced
    along the games actually played, and labels each of the learner's decisions with its
    own choice. The loss is `ppo_weight` times PPO's actor loss plus the teacher weight
    times the masked cross-entropy to the teacher's choice (plus the value and entropy
    terms). The teacher weight falls linearly from `kick_weight` at the start to
    `kick_floor` at `kick_until` of training; the teacher also plays Team A itself in a
    share of new games, falling from `teacher_plays` to `teacher_plays_floor` at
    `teacher_plays_until` (those games train the cross-entropy and the critic, never the
    PPO term, whose ratios need the learner's own choices). With `teacher` empty and both
    weights 0 this is plain PPO, bit for bit.
    """

    family_checks = ("ppo", "kickstart")

    algo: str = "kickstart"
    recurrent: bool = False
    critic: str = "local"
    teacher: str = "tdm-alpha"  # a System name, run folder or policy .npz ("" for none)
    kick_weight: float = 1.0
    kick_floor: float = 0.0
    kick_until: float = 0.5  # share of training where the teacher weight reaches its floor
    teacher_plays: float = 0.0  # share of new games Team A is played by the teacher
    teacher_plays_floor: float = 0.0
    teacher_plays_until: float = 0.5
    ppo_weight: float = 1.0  # scales PPO's clipped actor loss (0: imitation and value only)
    critic_warmup: int = 0  # first updates train the critic alone (the actor is frozen)
    # A run folder whose newest checkpoint gives the starting actor, critic and value
    # statistics (a behaviour-cloning run), or its `best/` folder for the validation's best
    # check; its network settings must match. "" for none.
    init_from: str = ""
    # Prioritised scripted opponents: the scripted share is split by
    # max((1 - r)^p, priority_floor), r the learner's recent decisive win rate against each
    # (wins and losses decayed by `priority_decay` per update); p = 0 splits it evenly.
    opponent_priority: float = 0.0
    priority_floor: float = 0.05
    priority_decay: float = 0.9

    @property
    def needs_total_steps(self) -> bool:
        return True  # the schedules run over the whole training


@dataclass(frozen=True)
class BCConfig(KickstartConfig):
    """Behaviour cloning with DAgger rounds: the teacher plays every game at first, then a
    falling share while the learner plays the rest, and every decision of Team A is
    labelled with the teacher's choice on the same inputs; the loss is the cross-entropy
    to those labels and the value regression, no PPO term."""

    algo: str = "bc"
    teacher_plays: float = 1.0
    teacher_plays_floor: float = 0.0
    teacher_plays_until: float = 0.5
    kick_weight: float = 1.0
    kick_floor: float = 1.0
    ppo_weight: float = 0.0
    ent_coef: float = 0.0
    opponent_self: float = 0.0
    opponent_pool: float = 0.0
    opponent_fixed: float = 0.0
    opponent_scripted: float = 1.0
    scripted_opponents: tuple[str, ...] = ("tdm-alpha", "tdm-beta", "tdm-gamma")


@dataclass(frozen=True)
class QConfig(TrainConfig):
    """Settings both Q-learners share (recurrent Q-network with the class input, team reward
    scaled by `reward_scale`, linearly decaying epsilon-greedy exploration over legal
    actions)."""

    family_checks = ("q",)

    reward_form: str = "team"
    reward_scale: float = 10.0  # section S6.4: x10 passed the search for both Q methods
    gamma: float = 0.99
    lr: float = 1e-4
    max_grad_norm: float = 10.0
    layer_norm: bool = False  # LayerNorm after each hidden layer of the Q-network
    # Exploration: epsilon falls linearly from eps_start to eps_finish over eps_decay_steps
    # game steps, then stays; Team B's copies play with the epsilon they were saved with.
    eps_start: float = 1.0
    eps_finish: float = 0.05
    eps_decay_steps: int = 2_000_000


@dataclass(frozen=True)
class QMIXConfig(QConfig):
    """Recurrent QMIX (Table S10 / S6.4): replay of whole rollouts, hard target copies,
    double-Q targets through a monotonic mixer on `env.world_state`."""

    algo: str = "qmix"
    num_envs: int = 768
    rollout_len: int = 32
    buffer_rows: int = 132_096  # game ticks the replay holds (whole rollouts of one game)
    batch_size: int = 128  # rollouts per gradient step
    sgd_steps: int = 2  # gradient steps per update ("twice the training" passed, S6.4)
    learning_starts: int = 768  # rollouts in the replay before the first gradient step
    target_every: int = 128  # updates between hard copies to the target networks
    mixer_embed: int = 32  # mixing layer width
    hyper_hidden: int = 64  # hypernetwork hidden width


@dataclass(frozen=True)
class PQNVDNConfig(QConfig):
    """Recurrent PQN with VDN mixing (Table S10 / S6.4): no replay, lambda-returns over each
    rollout, layer norm, learning rate decaying linearly to 0 over the run."""

    algo: str = "pqn-vdn"
    num_envs: int = 768
    rollout_len: int = 128
    lr: float = 2.5e-4
    lr_decay: bool = True
    td_lambda: float = 0.85
    layer_norm: bool = True
    eps_finish: float = 0.01
    eps_decay_steps: int = 2_200_000
    epochs: int = 2
    minibatches: int = 4  # split along the games axis (sequences stay whole)

    @property
    def needs_total_steps(self) -> bool:
        return self.lr_decay  # the learning rate decays over the whole run


def _config_class(name: str, class_name: str) -> type[TrainConfig]:
    """The config class a registry entry names; it must be a TrainConfig of that algorithm."""
    cls = globals().get(class_name)
    if not (isinstance(cls, type) and issubclass(cls, TrainConfig)) or cls.algo != name:
        raise ValueError(f"registry: {name}.config names no TrainConfig of {name!r}: {class_name}")
    return cls


# Each algorithm's config class, by algorithm name (`registry.ALGORITHMS` lists them).
CONFIG_CLASSES: dict[str, type[TrainConfig]] = {
    name: _config_class(name, a.config) for name, a in ALGORITHMS.items()
}


__all__ = [
    "TrainConfig", "QConfig", "QMIXConfig", "PQNVDNConfig", "PPOConfig",
    "RecIPPOConfig", "RecMAPPOConfig", "FFIPPOConfig", "FFMAPPOConfig", "KickstartConfig",
    "BCConfig", "CONFIG_CLASSES", "CONFIG_FORMAT", "CONFIG_VERSION",
]  # fmt: skip
