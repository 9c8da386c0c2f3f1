"""Training settings: one frozen dataclass per PPO family, read from TOML and `key=value`.

Why frozen dataclasses: a config is a value (hashable, so compiled update functions can be
cached on it), every field is typed and documented in one place, and a bad setting fails at
load time with the field's name instead of deep inside a compiled loop. Defaults are the
paper's Season 0 settings (Table S10 and section S6).

    cfg = load_config("rec.toml", ["num_envs=64", "maps=curriculum"], algo="rec-ippo")
    cfg.save("runs/x/config.json")
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.checks import FieldTypeError, boolean, choice, number, whole
from ..core.position import MAX_HORIZON, MAX_WINNING_SCORE, OFFICIAL_ROSTER
from ..maps import CURRICULUM, HELD_OUT_MAPS, NUM_MAPS, SPLITS, split_of
from ..systems.registry import BUILDERS
from .registry import ALGORITHMS, ALGOS

CONFIG_FORMAT = "marl-bgs/train-config"
CONFIG_VERSION = 1
REWARD_FORMS = ("per_agent", "team")
CRITICS = ("local", "world")
NETWORKS = ("mlp", "units")  # the actors (unit_net.ARCHS)
CLASS_NAMES = ("mage", "warrior", "hunter", "rogue", "priest")


@dataclass(frozen=True)
class TrainConfig:
    """Settings every learner shares: batch, reward, opponents, games, run and validation.

    Each algorithm's config adds its own fields (`PPOConfig`, `QMIXConfig`, `PQNVDNConfig`),
    so a setting that an algorithm would ignore is refused by name instead.
    """

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
    # A curriculum walk: these `marl_bgs.maps.CURRICULUM` stages in turn, each for its
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
        from ..maps import stage_bounds

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

    critic: str = "local"  # "local": the agent's own view; "world": env.world_state (MAPPO)
    # The actor: "mlp" (the flat network of the paper) or "units" (encoders shared over the
    # observation's unit rows and obstacles, each target scored from its own row; rows
    # encoded `embed` wide; learn/unit_net.py).
    network: str = "mlp"
    embed: int = 64
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
    # statistics (a behaviour-cloning run); its network settings must match. "" for none.
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


# ---- checks ------------------------------------------------------------------------------
def _fail(name: str, why: str, kind: type[ValueError] = ValueError) -> None:
    raise kind(f"config.{name}: {why}")


def _whole(cfg: TrainConfig, name: str, low: int, high: int | None = None) -> None:
    whole(getattr(cfg, name), f"config.{name}", low, high)


def _real(cfg: TrainConfig, name: str, low: float | None = None, high: float | None = None):
    number(getattr(cfg, name), f"config.{name}", low, high)


def _check_epochs(cfg: TrainConfig) -> None:
    _whole(cfg, "epochs", 1, 1000)
    _whole(cfg, "minibatches", 1, 1 << 20)
    if cfg.num_envs % cfg.minibatches:
        _fail("minibatches", f"{cfg.minibatches} must divide num_envs ({cfg.num_envs})")


def _check_ppo(cfg: PPOConfig) -> None:
    for name in ("value_norm", "normalize_advantages"):
        boolean(getattr(cfg, name), f"config.{name}")
    choice(cfg.critic, "config.critic", tuple(CRITICS), "critic")
    choice(cfg.network, "config.network", NETWORKS, "network")
    _whole(cfg, "embed", 1, 65536)
    _check_epochs(cfg)
    _real(cfg, "gae_lambda", 0.0, 1.0)
    for name in ("clip_eps", "ent_coef", "vf_coef"):
        _real(cfg, name, 0.0)
    for name in ("actor_lr", "critic_lr"):
        _real(cfg, name, 0.0, 1.0)


def _check_kickstart(cfg: KickstartConfig) -> None:
    if not isinstance(cfg.teacher, str):
        _fail("teacher", f"expected a System name, run folder or .npz file, got {cfg.teacher!r}")
    for name in ("kick_weight", "kick_floor", "ppo_weight"):
        _real(cfg, name, 0.0)
    for name in ("kick_until", "teacher_plays", "teacher_plays_floor", "teacher_plays_until",
                 "priority_floor", "priority_decay"):  # fmt: skip
        _real(cfg, name, 0.0, 1.0)
    _real(cfg, "opponent_priority", 0.0, 100.0)
    if not cfg.teacher and (cfg.kick_weight or cfg.kick_floor or cfg.teacher_plays
                            or cfg.teacher_plays_floor):  # fmt: skip
        _fail("teacher", "a teacher weight or teacher-played share needs a teacher System")
    if cfg.opponent_priority and (cfg.opponent_scripted <= 0 or not cfg.scripted_opponents):
        _fail("opponent_priority", "prioritises the scripted opponents: opponent_scripted > 0 "
                                   "and scripted_opponents needed")  # fmt: skip
    _whole(cfg, "critic_warmup", 0)
    if not isinstance(cfg.init_from, str):
        _fail("init_from", f'expected a run folder or "", got {cfg.init_from!r}')


def _check_q(cfg: QConfig) -> None:
    boolean(cfg.layer_norm, "config.layer_norm")
    _real(cfg, "reward_scale", 0.0)
    _real(cfg, "lr", 0.0, 1.0)
    for name in ("eps_start", "eps_finish"):
        _real(cfg, name, 0.0, 1.0)
    _whole(cfg, "eps_decay_steps", 1)
    if isinstance(cfg, PQNVDNConfig):
        boolean(cfg.lr_decay, "config.lr_decay")
        _real(cfg, "td_lambda", 0.0, 1.0)
        _check_epochs(cfg)
        return
    if cfg.rollout_len < 2:
        _fail("rollout_len", "QMIX learns from pairs of ticks: at least 2")
    _whole(cfg, "buffer_rows", 1)
    if cfg.buffer_rows % cfg.rollout_len:
        _fail("buffer_rows", f"{cfg.buffer_rows} is not a whole number of rollouts "
                             f"(rollout_len {cfg.rollout_len})")  # fmt: skip
    capacity = cfg.buffer_rows // cfg.rollout_len
    if capacity < cfg.num_envs:
        _fail("buffer_rows", f"holds {capacity} rollouts, fewer than one update's "
                             f"{cfg.num_envs} (num_envs x rollout_len at least)")  # fmt: skip
    _whole(cfg, "batch_size", 1, capacity)
    _whole(cfg, "sgd_steps", 1, 10_000)
    _whole(cfg, "learning_starts", 1, capacity)
    _whole(cfg, "target_every", 1)
    _whole(cfg, "mixer_embed", 1, 65536)
    _whole(cfg, "hyper_hidden", 1, 65536)


def check_config(cfg: TrainConfig) -> None:
    """Refuse impossible settings, naming the field (ValueError)."""
    choice(cfg.algo, "config.algo", tuple(ALGOS), "algorithm")
    boolean(cfg.recurrent, "config.recurrent")
    choice(cfg.reward_form, "config.reward_form", tuple(REWARD_FORMS), "reward form")
    _whole(cfg, "hidden", 1, 65536)
    _whole(cfg, "num_envs", 1, 1 << 20)
    _whole(cfg, "rollout_len", 1, 100_000)
    _whole(cfg, "total_steps", 1)
    _real(cfg, "gamma", 0.0, 1.0)
    _real(cfg, "max_grad_norm", 0.0)
    if isinstance(cfg, PPOConfig):
        _check_ppo(cfg)
    if isinstance(cfg, KickstartConfig):
        _check_kickstart(cfg)
    elif isinstance(cfg, QConfig):
        _check_q(cfg)
    for name in (
        "win_reward", "kill_credit", "red_zone_kill", "damage", "useful_healing",
        "teammate_death", "red_zone_death", "healing_range", "own_red_zone",
    ):  # fmt: skip
        _real(cfg, name)
    shares = ("opponent_self", "opponent_pool", "opponent_fixed", "opponent_scripted")
    for name in shares:
        _real(cfg, name, 0.0)
    if sum(getattr(cfg, n) for n in shares) <= 0:
        _fail("opponent_self", "the opponent shares are all 0")
    if not isinstance(cfg.scripted_opponents, tuple):
        _fail("scripted_opponents", "expected a list of System names", FieldTypeError)
    for name in cfg.scripted_opponents:
        if name not in BUILDERS:
            _fail("scripted_opponents", f"unknown System {name!r}; known: {', '.join(BUILDERS)}")
    if cfg.opponent_scripted > 0 and not cfg.scripted_opponents:
        _fail("scripted_opponents", "opponent_scripted > 0 needs at least one System name")
    if not isinstance(cfg.fixed_opponents, tuple):
        _fail("fixed_opponents", "expected a list of run folders or .npz files", FieldTypeError)
    for path in cfg.fixed_opponents:
        if not isinstance(path, str) or not path.strip():
            _fail("fixed_opponents", f"expected a run folder or .npz file, got {path!r}")
    if len(set(cfg.fixed_opponents)) != len(cfg.fixed_opponents):
        _fail("fixed_opponents", "the same policy is listed twice")
    _whole(cfg, "pool_size", 0, 1024)
    _whole(cfg, "pool_every", 1)
    if not isinstance(cfg.teammates, tuple) or len(cfg.teammates) not in (0, 5):
        _fail("teammates", 'expected no entries or five (one per slot; "" for the learner)')
    for entry in cfg.teammates:
        if not isinstance(entry, str):
            _fail(
                "teammates", f'expected a System name, run folder, .npz file or "", got {entry!r}'
            )
    if cfg.teammates and all(e for e in cfg.teammates):
        _fail("teammates", "every slot is a System: the learner needs at least one slot")
    if not isinstance(cfg.maps, tuple) or not cfg.maps:
        _fail("maps", "expected a split name or a non-empty list of map ids", FieldTypeError)
    for m in cfg.maps:
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m < NUM_MAPS:
            _fail("maps", f"{m!r} is not a map id (0-{NUM_MAPS - 1})")
        if m in HELD_OUT_MAPS:
            _fail("maps", f"map {m} is a held-out {split_of(m)} map; never train on maps 42-51")
    if cfg.stage is not None:
        _whole(cfg, "stage", 0, len(CURRICULUM) - 1)
    if not isinstance(cfg.curriculum, tuple):
        _fail("curriculum", "expected a list of curriculum stage numbers", FieldTypeError)
    for k in cfg.curriculum:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(CURRICULUM):
            _fail("curriculum", f"{k!r} is not a curriculum stage (0-{len(CURRICULUM) - 1})")
        if CURRICULUM[k].team_size > len(cfg.roster):
            _fail("roster", f"curriculum stage {k} needs {CURRICULUM[k].team_size} classes")
    if cfg.curriculum and cfg.stage is not None:
        _fail("curriculum", "give a fixed stage or a curriculum, not both")
    if not isinstance(cfg.roster, tuple) or not 1 <= len(cfg.roster) <= 5:
        _fail("roster", "expected 1 to 5 class names")
    for c in cfg.roster:
        if c not in CLASS_NAMES:
            _fail("roster", f"unknown class {c!r}; known: {', '.join(CLASS_NAMES)}")
    if cfg.stage is not None and CURRICULUM[cfg.stage].team_size > len(cfg.roster):
        _fail("roster", f"stage {cfg.stage} needs {CURRICULUM[cfg.stage].team_size} classes")
    _whole(cfg, "winning_score", 1, MAX_WINNING_SCORE)
    _whole(cfg, "horizon", 1, MAX_HORIZON)
    _whole(cfg, "devices", 0, 1 << 16)
    if cfg.devices > 1 and cfg.num_envs % cfg.devices:
        _fail("num_envs", f"{cfg.num_envs} games do not split evenly over {cfg.devices} devices")
    _whole(cfg, "seed", 0, 2**31 - 1)
    if not isinstance(cfg.out, str) or not cfg.out:
        _fail("out", "expected a folder name")
    _whole(cfg, "checkpoint_every", 0)
    _whole(cfg, "keep_checkpoints", 1, 10_000)
    _real(cfg, "validate_every", 0.0, 1.0)
    if not isinstance(cfg.validation_opponents, tuple):
        _fail("validation_opponents", "expected a list of System names", FieldTypeError)
    if cfg.validate_every > 0 and not cfg.validation_opponents:
        _fail("validation_opponents", "validation needs at least one System name")
    for name in cfg.validation_opponents:
        if name not in BUILDERS:
            _fail("validation_opponents", f"unknown System {name!r}; known: {', '.join(BUILDERS)}")
    if len(set(cfg.validation_opponents)) != len(cfg.validation_opponents):
        _fail("validation_opponents", "names must differ")
    if not isinstance(cfg.validation_maps, tuple) or not cfg.validation_maps:
        _fail("validation_maps", "expected a non-empty list of validation map ids")
    for m in cfg.validation_maps:
        if isinstance(m, bool) or m not in SPLITS["validation"]:
            ids = ", ".join(map(str, SPLITS["validation"]))
            _fail("validation_maps", f"{m!r} is not a validation map ({ids})")
    if len(set(cfg.validation_maps)) != len(cfg.validation_maps):
        _fail("validation_maps", "map ids must differ")
    _whole(cfg, "validation_games", 2, 100_000)
    if cfg.validation_games % 2:
        _fail(
            "validation_games", f"{cfg.validation_games} is odd; games come in spawn-swapped pairs"
        )
    _whole(cfg, "validation_seed", 0, 2**31 - 1)


# ---- reading ------------------------------------------------------------------------------
def _hints(cls: type[TrainConfig]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _coerce(name: str, hint: Any, value: Any) -> Any:
    """A raw TOML/JSON/command-line value as the field's type (refused if it cannot be)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if name == "maps" and isinstance(value, str):
        if value not in SPLITS:
            trainable = [k for k, ids in SPLITS.items() if not set(ids) & set(HELD_OUT_MAPS)]
            _fail(name, f"unknown split {value!r}; use one of {', '.join(trainable)} or map ids")
        return SPLITS[value]
    if origin is tuple:
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, (list, tuple)):
            _fail(name, f"expected a list, got {value!r}", FieldTypeError)
        return tuple(_coerce(name, args[0], v) for v in value)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None or (isinstance(value, str) and value.lower() in ("none", "null", "")):
            return None
        inner = [a for a in args if a is not type(None)][0]
        return _coerce(name, inner, value)
    if hint is bool:
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            _fail(name, f"expected true or false, got {value!r}", FieldTypeError)
        return value
    if hint is int:
        if isinstance(value, str):
            try:
                value = int(value.replace("_", ""))
            except ValueError:
                _fail(name, f"expected a whole number, got {value!r}", FieldTypeError)
        if isinstance(value, bool) or not isinstance(value, int):  # even 64.0: never rounded
            _fail(name, f"expected a whole number, got {value!r}", FieldTypeError)
        return value
    if hint is float:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                _fail(name, f"expected a number, got {value!r}", FieldTypeError)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            _fail(name, f"expected a number, got {value!r}", FieldTypeError)
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            _fail(name, f"expected a string, got {value!r}", FieldTypeError)
        return value
    raise TypeError(f"config.{name}: unsupported field type {hint!r}")  # a bug in this file


def _parse_override(text: str) -> tuple[str, Any]:
    if not isinstance(text, str) or "=" not in text:
        raise ValueError(f"override {text!r}: expected key=value")
    key, raw = (p.strip() for p in text.split("=", 1))
    try:
        value = tomllib.loads(f"v = {raw}")["v"]  # numbers, booleans, [lists], "strings"
    except tomllib.TOMLDecodeError:
        value = raw  # a bare word such as rec-ippo or training
    return key, value


def from_dict(data: dict, algo: str | None = None) -> TrainConfig:
    """A config from a mapping (TOML table or saved JSON); unknown keys are refused."""
    if not isinstance(data, dict):
        raise ValueError("config: expected a table of settings")
    data = dict(data)
    fmt = data.pop("format", CONFIG_FORMAT)
    version = data.pop("version", CONFIG_VERSION)
    if fmt != CONFIG_FORMAT:
        raise ValueError(f"config.format: expected {CONFIG_FORMAT!r}, got {fmt!r}")
    if version != CONFIG_VERSION:
        raise ValueError(f"config.version: unsupported version {version!r}")
    given = data.get("algo")
    if given is not None and not isinstance(given, str):
        _fail("algo", f"expected an algorithm name, got {given!r}", FieldTypeError)
    if given is not None and given not in CONFIG_CLASSES:
        _fail("algo", f"unknown algorithm {given!r}; known: {', '.join(ALGOS)}")
    if given is not None and algo is not None and given != algo:
        _fail("algo", f"the settings say {given!r} but {algo!r} was asked for")
    name = algo or given or "rec-ippo"
    if name not in CONFIG_CLASSES:
        _fail("algo", f"unknown algorithm {name!r}; known: {', '.join(ALGOS)}")
    cls = CONFIG_CLASSES[name]
    hints = _hints(cls)
    values = {}
    for key, value in data.items():
        if key not in hints:
            _fail(key, f"unknown setting; known: {', '.join(sorted(hints))}")
        values[key] = _coerce(key, hints[key], value)
    values["algo"] = name
    return cls(**values)


def load_config(
    path: str | Path | None = None, overrides: Sequence[str] = (), algo: str | None = None
) -> TrainConfig:
    """Defaults of `algo`, then a TOML, YAML (needs PyYAML) or saved JSON file, then
    `key=value` overrides."""
    data: dict = {}
    if path is not None:
        data = read_settings(path)
    for text in overrides:
        key, value = _parse_override(text)
        data[key] = value
    return from_dict(data, algo=algo or data.get("algo"))


def read_settings(path: str | Path) -> dict:
    """The table of settings in a .toml, .yaml/.yml or .json file (errors name `config`)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config: no file at {path}")
    text = path.read_text()
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            data = json.loads(text)
        elif suffix in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:
                raise ValueError(f"config: {path} is YAML, which needs PyYAML") from None
            data = yaml.safe_load(text) or {}
        else:
            data = tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as err:
        raise ValueError(f"config: cannot read {path}: {err}") from None
    except Exception as err:  # yaml.YAMLError without importing yaml here
        if type(err).__module__.startswith("yaml"):
            raise ValueError(f"config: cannot read {path}: {err}") from None
        raise
    if not isinstance(data, dict):
        raise ValueError(f"config: {path} must hold a table of settings")
    return data


def read_json(path: str | Path) -> TrainConfig:
    """A config saved by `TrainConfig.save`."""
    return from_dict(json.loads(Path(path).read_text()))


__all__ = [
    "TrainConfig", "QConfig", "QMIXConfig", "PQNVDNConfig", "PPOConfig",
    "RecIPPOConfig", "RecMAPPOConfig", "FFIPPOConfig", "FFMAPPOConfig", "KickstartConfig",
    "BCConfig",
    "CONFIG_CLASSES", "ALGOS", "load_config", "from_dict", "read_json", "read_settings",
    "check_config",
]  # fmt: skip
