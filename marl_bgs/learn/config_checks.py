"""Refusing impossible training settings, naming the field (`config.num_envs: ...`).

`check_config` runs when a config is made (`TrainConfig.__post_init__`): the shared checks,
then each family's (`family_checks` on the class: PPO, kickstarting, Q-learning), so that a
bad setting fails at load time, never deep inside a compiled loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.checks import FieldTypeError, boolean, choice, number, whole
from ..core.position import MAX_HORIZON, MAX_WINNING_SCORE
from ..maps import HELD_OUT_MAPS, NUM_MAPS, SPLITS, split_of
from ..systems.registry import BUILDERS
from .curriculum import CURRICULUM
from .registry import ALGOS

# What some settings may be.
REWARD_FORMS = ("per_agent", "team")
CRITICS = ("local", "world")
NETWORKS = ("mlp", "units")  # the actors (unit_net.ARCHS)
CLASS_NAMES = ("mage", "warrior", "hunter", "rogue", "priest")

if TYPE_CHECKING:  # config.py calls check_config as each config is made
    from .config import KickstartConfig, PPOConfig, QConfig, TrainConfig


def refuse(name: str, why: str, kind: type[ValueError] = ValueError) -> None:
    """Raise `kind` naming the setting: `config.NAME: why`."""
    raise kind(f"config.{name}: {why}")


def _whole(cfg: TrainConfig, name: str, low: int, high: int | None = None) -> None:
    whole(getattr(cfg, name), f"config.{name}", low, high)


def _real(cfg: TrainConfig, name: str, low: float | None = None, high: float | None = None):
    number(getattr(cfg, name), f"config.{name}", low, high)


def _check_epochs(cfg: TrainConfig) -> None:
    _whole(cfg, "epochs", 1, 1000)
    _whole(cfg, "minibatches", 1, 1 << 20)
    if cfg.num_envs % cfg.minibatches:
        refuse("minibatches", f"{cfg.minibatches} must divide num_envs ({cfg.num_envs})")


def _check_ppo(cfg: PPOConfig) -> None:
    for name in ("value_norm", "normalize_advantages", "nav_inputs"):
        boolean(getattr(cfg, name), f"config.{name}")
    choice(cfg.critic, "config.critic", tuple(CRITICS), "critic")
    choice(cfg.network, "config.network", NETWORKS, "network")
    if cfg.nav_inputs and cfg.network != "mlp":
        refuse("nav_inputs", f"the steering scores feed the flat network only, not "
               f"network = {cfg.network!r}")  # fmt: skip
    _whole(cfg, "embed", 1, 65536)
    _check_epochs(cfg)
    _real(cfg, "gae_lambda", 0.0, 1.0)
    for name in ("clip_eps", "ent_coef", "vf_coef"):
        _real(cfg, name, 0.0)
    for name in ("actor_lr", "critic_lr"):
        _real(cfg, name, 0.0, 1.0)


def _check_kickstart(cfg: KickstartConfig) -> None:
    if not isinstance(cfg.teacher, str):
        refuse("teacher", f"expected a System name, run folder or .npz file, got {cfg.teacher!r}")
    for name in ("kick_weight", "kick_floor", "ppo_weight"):
        _real(cfg, name, 0.0)
    for name in ("kick_until", "teacher_plays", "teacher_plays_floor", "teacher_plays_until",
                 "priority_floor", "priority_decay"):  # fmt: skip
        _real(cfg, name, 0.0, 1.0)
    _real(cfg, "opponent_priority", 0.0, 100.0)
    if not cfg.teacher and (cfg.kick_weight or cfg.kick_floor or cfg.teacher_plays
                            or cfg.teacher_plays_floor):  # fmt: skip
        refuse("teacher", "a teacher weight or teacher-played share needs a teacher System")
    if cfg.opponent_priority and (cfg.opponent_scripted <= 0 or not cfg.scripted_opponents):
        refuse("opponent_priority", "prioritises the scripted opponents: opponent_scripted > 0 "
                                   "and scripted_opponents needed")  # fmt: skip
    _whole(cfg, "critic_warmup", 0)
    if not isinstance(cfg.init_from, str):
        refuse("init_from", f'expected a run folder or "", got {cfg.init_from!r}')


def _check_q(cfg: QConfig) -> None:
    boolean(cfg.layer_norm, "config.layer_norm")
    _real(cfg, "reward_scale", 0.0)
    _real(cfg, "lr", 0.0, 1.0)
    for name in ("eps_start", "eps_finish"):
        _real(cfg, name, 0.0, 1.0)
    _whole(cfg, "eps_decay_steps", 1)
    if cfg.algo == "pqn-vdn":
        boolean(cfg.lr_decay, "config.lr_decay")
        _real(cfg, "td_lambda", 0.0, 1.0)
        _check_epochs(cfg)
        return
    if cfg.rollout_len < 2:
        refuse("rollout_len", "QMIX learns from pairs of ticks: at least 2")
    _whole(cfg, "buffer_rows", 1)
    if cfg.buffer_rows % cfg.rollout_len:
        refuse("buffer_rows", f"{cfg.buffer_rows} is not a whole number of rollouts "
                             f"(rollout_len {cfg.rollout_len})")  # fmt: skip
    capacity = cfg.buffer_rows // cfg.rollout_len
    if capacity < cfg.num_envs:
        refuse("buffer_rows", f"holds {capacity} rollouts, fewer than one update's "
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
    for family in type(cfg).family_checks:
        FAMILY_CHECKS[family](cfg)
    for name in (
        "win_reward", "kill_credit", "red_zone_kill", "damage", "useful_healing",
        "teammate_death", "red_zone_death", "healing_range", "own_red_zone",
    ):  # fmt: skip
        _real(cfg, name)
    shares = ("opponent_self", "opponent_pool", "opponent_fixed", "opponent_scripted")
    for name in shares:
        _real(cfg, name, 0.0)
    if sum(getattr(cfg, n) for n in shares) <= 0:
        refuse("opponent_self", "the opponent shares are all 0")
    if not isinstance(cfg.scripted_opponents, tuple):
        refuse("scripted_opponents", "expected a list of System names", FieldTypeError)
    for name in cfg.scripted_opponents:
        if name not in BUILDERS:
            refuse("scripted_opponents", f"unknown System {name!r}; known: {', '.join(BUILDERS)}")
    if cfg.opponent_scripted > 0 and not cfg.scripted_opponents:
        refuse("scripted_opponents", "opponent_scripted > 0 needs at least one System name")
    if not isinstance(cfg.fixed_opponents, tuple):
        refuse("fixed_opponents", "expected a list of run folders or .npz files", FieldTypeError)
    for path in cfg.fixed_opponents:
        if not isinstance(path, str) or not path.strip():
            refuse("fixed_opponents", f"expected a run folder or .npz file, got {path!r}")
    if len(set(cfg.fixed_opponents)) != len(cfg.fixed_opponents):
        refuse("fixed_opponents", "the same policy is listed twice")
    _whole(cfg, "pool_size", 0, 1024)
    _whole(cfg, "pool_every", 1)
    if not isinstance(cfg.teammates, tuple) or len(cfg.teammates) not in (0, 5):
        refuse("teammates", 'expected no entries or five (one per slot; "" for the learner)')
    for entry in cfg.teammates:
        if not isinstance(entry, str):
            refuse(
                "teammates", f'expected a System name, run folder, .npz file or "", got {entry!r}'
            )
    if cfg.teammates and all(e for e in cfg.teammates):
        refuse("teammates", "every slot is a System: the learner needs at least one slot")
    if not isinstance(cfg.maps, tuple) or not cfg.maps:
        refuse("maps", "expected a split name or a non-empty list of map ids", FieldTypeError)
    for m in cfg.maps:
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m < NUM_MAPS:
            refuse("maps", f"{m!r} is not a map id (0-{NUM_MAPS - 1})")
        if m in HELD_OUT_MAPS:
            refuse("maps", f"map {m} is a held-out {split_of(m)} map; never train on maps 42-51")
    if cfg.stage is not None:
        _whole(cfg, "stage", 0, len(CURRICULUM) - 1)
    if not isinstance(cfg.curriculum, tuple):
        refuse("curriculum", "expected a list of curriculum stage numbers", FieldTypeError)
    for k in cfg.curriculum:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(CURRICULUM):
            refuse("curriculum", f"{k!r} is not a curriculum stage (0-{len(CURRICULUM) - 1})")
        if CURRICULUM[k].team_size > len(cfg.roster):
            refuse("roster", f"curriculum stage {k} needs {CURRICULUM[k].team_size} classes")
    if cfg.curriculum and cfg.stage is not None:
        refuse("curriculum", "give a fixed stage or a curriculum, not both")
    if not isinstance(cfg.roster, tuple) or not 1 <= len(cfg.roster) <= 5:
        refuse("roster", "expected 1 to 5 class names")
    for c in cfg.roster:
        if c not in CLASS_NAMES:
            refuse("roster", f"unknown class {c!r}; known: {', '.join(CLASS_NAMES)}")
    if cfg.stage is not None and CURRICULUM[cfg.stage].team_size > len(cfg.roster):
        refuse("roster", f"stage {cfg.stage} needs {CURRICULUM[cfg.stage].team_size} classes")
    _whole(cfg, "winning_score", 1, MAX_WINNING_SCORE)
    _whole(cfg, "horizon", 1, MAX_HORIZON)
    _whole(cfg, "devices", 0, 1 << 16)
    if cfg.devices > 1 and cfg.num_envs % cfg.devices:
        refuse("num_envs", f"{cfg.num_envs} games do not split evenly over {cfg.devices} devices")
    _whole(cfg, "seed", 0, 2**31 - 1)
    if not isinstance(cfg.out, str) or not cfg.out:
        refuse("out", "expected a folder name")
    _whole(cfg, "checkpoint_every", 0)
    _whole(cfg, "keep_checkpoints", 1, 10_000)
    _real(cfg, "validate_every", 0.0, 1.0)
    if not isinstance(cfg.validation_opponents, tuple):
        refuse("validation_opponents", "expected a list of System names", FieldTypeError)
    if cfg.validate_every > 0 and not cfg.validation_opponents:
        refuse("validation_opponents", "validation needs at least one System name")
    for name in cfg.validation_opponents:
        if name not in BUILDERS:
            refuse("validation_opponents", f"unknown System {name!r}; known: {', '.join(BUILDERS)}")
    if len(set(cfg.validation_opponents)) != len(cfg.validation_opponents):
        refuse("validation_opponents", "names must differ")
    if not isinstance(cfg.validation_maps, tuple) or not cfg.validation_maps:
        refuse("validation_maps", "expected a non-empty list of validation map ids")
    for m in cfg.validation_maps:
        if isinstance(m, bool) or m not in SPLITS["validation"]:
            ids = ", ".join(map(str, SPLITS["validation"]))
            refuse("validation_maps", f"{m!r} is not a validation map ({ids})")
    if len(set(cfg.validation_maps)) != len(cfg.validation_maps):
        refuse("validation_maps", "map ids must differ")
    _whole(cfg, "validation_games", 2, 100_000)
    if cfg.validation_games % 2:
        refuse(
            "validation_games", f"{cfg.validation_games} is odd; games come in spawn-swapped pairs"
        )
    _whole(cfg, "validation_seed", 0, 2**31 - 1)


FAMILY_CHECKS = {"ppo": _check_ppo, "kickstart": _check_kickstart, "q": _check_q}
