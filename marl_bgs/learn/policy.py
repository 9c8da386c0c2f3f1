"""A training run's actor as a `marl_bgs.systems` System, and its export to a `.npz`.

    system = learned_system("runs/rec", step=None, greedy=False)   # newest checkpoint
    marl_bgs.evaluate(system, "random", maps="validation", games=40)
    export_npz("runs/rec", "rec.npz")                              # see npz_policy.py

The run folder holds `config.json` (the network's shape: hidden width, recurrent or not)
and orbax checkpoints of the whole learner; only the actor's parameters are kept from them.
The JAX System runs the trained Flax actor inside the compiled game (its randomness comes
from the key the System protocol hands it, as `random` does). This module imports no JAX at
load time; restoring a checkpoint does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..core.state import TEAM_SIZE
from .actor_view import ActorView
from .npz_policy import flax_to_weights, save_weights_npz
from .registry import acts_greedily


# ---- reading a run folder ---------------------------------------------------------------------
def run_folder(checkpoint_dir: Any) -> Path:
    """A training run's folder, checked: it holds config.json and checkpoints/."""
    if not isinstance(checkpoint_dir, (str, Path)) or not str(checkpoint_dir):
        raise ValueError(f"checkpoint_dir: expected a run folder, got {checkpoint_dir!r}")
    folder = Path(checkpoint_dir).expanduser()
    if not folder.is_dir():
        raise ValueError(f"checkpoint_dir: {folder} is not a folder")
    if not (folder / "config.json").is_file():
        raise ValueError(f"checkpoint_dir: {folder} has no config.json (not a training run)")
    if not (folder / "checkpoints").is_dir():
        raise ValueError(f"checkpoint_dir: {folder} has no checkpoints/ folder")
    return folder.absolute()


def saved_steps(folder: Path, sub: str = "checkpoints") -> list[int]:
    """Checkpoint steps on disk (orbax writes finished ones as folders named by step)."""
    return sorted(int(p.name) for p in (folder / sub).iterdir()
                  if p.is_dir() and p.name.isdigit())  # fmt: skip


def pick_step(folder: Path, step: Any, sub: str = "checkpoints") -> int:
    """The checkpoint to restore: `step` itself (refused naming `step` when not saved), or the
    newest saved one for None."""
    steps = saved_steps(folder, sub)
    if not steps:
        raise ValueError(f"checkpoint_dir: {folder}/{sub} holds no saved checkpoint")
    if step is None:
        return steps[-1]
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
        raise ValueError(f"step: expected a whole number or None, got {step!r}")
    if int(step) not in steps:
        raise ValueError(f"step: {folder} has no checkpoint {step}; saved: {steps}")
    return int(step)


class LearnedPolicy(NamedTuple):
    """A run's trained actor: parameters, network and a pure JAX act function.

    `apply(params, key, inputs, memory)` takes the parameters as an argument, so a
    training loop can play several saved actors of the same shape (an opponent pool) with
    one compiled function; `system()` closes over this policy's own parameters.
    """

    name: str
    folder: Path
    step: int
    hidden: int
    recurrent: bool
    params: Any  # the Flax actor's parameter tree
    greedy: bool
    norm: bool = False  # LayerNorm after each hidden layer (PQN-VDN)
    q_values: bool = False  # a Q-learner's network: always plays its best legal action
    arch: str = "mlp"  # or "units": the per-unit actor (`unit_net.py`)
    embed: int = 0  # the per-unit actor's row width
    nav: bool = False  # also reads TDM-Alpha's steering scores (`actor_view.py`)

    @property
    def memory_width(self) -> int:
        return self.hidden if self.recurrent else 1

    @property
    def view(self) -> ActorView:
        return ActorView(self.nav)

    def init(self, key: Any) -> Any:
        """Memory at a game's start: (5, hidden) zeros when recurrent, a dummy otherwise;
        with `nav`, that and the steering memory as a pair."""
        import jax.numpy as jnp

        del key
        if self.recurrent:
            memory = jnp.zeros((TEAM_SIZE, self.hidden), jnp.float32)
        else:
            memory = jnp.zeros((), jnp.int32)
        return (memory, self.view.init()) if self.nav else memory

    def logits(self, params: Any, inputs: Any, memory: Any) -> tuple[Any, Any]:
        """New memory and masked logits (5, 198) for one game's `TeamInputs` (with `nav`,
        the steering memory in it has not yet seen this tick's moves: `apply` adds them)."""
        import jax.numpy as jnp

        from .networks import make_actor

        memory, nav = memory if self.nav else (memory, None)
        reset = jnp.broadcast_to(inputs.new_game, inputs.present.shape)
        x, nav = self.view.read(inputs, nav)
        mem = memory if self.recurrent else jnp.zeros((*reset.shape, 1), jnp.float32)
        actor = make_actor(self.hidden, self.recurrent, self.norm, self.arch, self.embed)
        new, logits = actor.apply(params, mem, x, inputs.avail, reset)
        new = new if self.recurrent else memory
        return ((new, nav) if self.nav else new), logits

    def apply(self, params: Any, key: Any, inputs: Any, memory: Any) -> tuple[Any, Any]:
        """One decision: actions (5,) int32 and the new memory (pure; runs under jit/vmap)."""
        import jax
        import jax.numpy as jnp

        memory, logits = self.logits(params, inputs, memory)
        if self.greedy or self.q_values:
            actions = jnp.argmax(logits, axis=-1)
        else:
            actions = jax.random.categorical(key, logits, axis=-1)
        actions = actions.astype(jnp.int32)
        if self.nav:
            memory = (memory[0], self.view.moved(inputs, memory[1], actions))
        return actions, memory

    def act(self, key: Any, inputs: Any, memory: Any) -> tuple[Any, Any]:
        return self.apply(self.params, key, inputs, memory)

    def system(self):
        from ..systems.base import System

        return System(self.name, self.act, self.init)

    def weights(self) -> dict[str, np.ndarray]:
        """The actor's weights by `.npz` name, as float32 NumPy arrays."""
        if self.arch == "units":  # already named as in the file
            weights = self.params["params"]
        else:
            weights = flax_to_weights(self.params, self.recurrent, self.norm)
        return {k: np.asarray(v, np.float32) for k, v in weights.items()}


def _restore_actor(folder: Path, step: int, sub: str = "checkpoints"):
    """The run's config and the actor parameters saved at `step`."""
    import jax

    cfg, state = restore_state(folder, step, sub)
    return cfg, jax.tree.map(jax.numpy.asarray, state.actor_params)


def restore_state(folder: Path, step: int, sub: str = "checkpoints"):
    """The run's config and its whole learner state saved at `step`."""
    import jax

    from .checkpoint import Checkpoints
    from .config_files import read_json
    from .registry import learner_for

    try:
        cfg = read_json(folder / "config.json")
    except (ValueError, json.JSONDecodeError) as err:
        raise ValueError(f"checkpoint_dir: {folder}/config.json is not a training config "
                         f"({err})") from None  # fmt: skip
    # The checkpoint is the whole learner state; its structure (the restore template) comes
    # from the trainer's own init, traced abstractly (nothing is compiled or computed).
    template = jax.eval_shape(
        learner_for(cfg.stage_config(max(step - 1, 0))).init, jax.random.PRNGKey(0)
    )
    try:
        state = Checkpoints(folder / sub).restore(template, step)
    except Exception as err:  # orbax raises many kinds; name the field and the cause
        raise ValueError(f"checkpoint_dir: cannot restore step {step} from {folder} "
                         f"({type(err).__name__}: {err})") from None  # fmt: skip
    return cfg, state


_POLICIES: dict[tuple, LearnedPolicy] = {}
_SYSTEMS: dict[tuple, Any] = {}


def load_policy(checkpoint_dir: str | Path, step: int | None = None,
                greedy: bool = False, best: bool = False) -> LearnedPolicy:  # fmt: skip
    """The trained actor of a run folder at `step` (default: the newest checkpoint).

    `best=True` reads the validation's best check (the run's best/ folder) instead. A
    Q-learner's network (QMIX, PQN-VDN) always plays its best legal action.
    """
    if not isinstance(greedy, bool):
        raise ValueError(f"greedy: expected true or false, got {greedy!r}")
    if not isinstance(best, bool):
        raise ValueError(f"best: expected true or false, got {best!r}")
    folder = run_folder(checkpoint_dir)
    sub = "best" if best else "checkpoints"
    if best and not (folder / sub).is_dir():
        raise ValueError(f"best: {folder} has no best/ folder (the run never validated)")
    step = pick_step(folder, step, sub)
    stamp = (folder / sub / str(step)).stat().st_mtime_ns
    key = (str(folder), sub, step, stamp)
    base = _POLICIES.get(key)
    if base is None:
        cfg, params = _restore_actor(folder, step, sub)
        label = f"learned:{folder.name}@{'best' if best else ''}{step}"
        base = LearnedPolicy(label, folder, step, cfg.hidden, cfg.recurrent, params, False,
                             getattr(cfg, "layer_norm", False), acts_greedily(cfg.algo),
                             getattr(cfg, "network", "mlp"), getattr(cfg, "embed", 0),
                             getattr(cfg, "nav_inputs", False))  # fmt: skip
        _POLICIES[key] = base
    if greedy:
        return base._replace(name=base.name + ":greedy", greedy=True)
    return base


def learned_system(checkpoint_dir: str | Path, step: int | None = None, greedy: bool = False):
    """A `marl_bgs.systems` System playing a run's trained actor for Team A or B.

    Recurrent actors keep a (5, hidden) memory, reset on each agent's new-game flag. With
    `greedy=False` actions are sampled from the masked policy with the key the System
    protocol hands `act`; with `greedy=True` the most likely legal action is played. The
    same folder, step and mode give the same System object, so compiled games are reused.
    """
    policy = load_policy(checkpoint_dir, step, greedy)
    key = (str(policy.folder), policy.step, greedy,
           (policy.folder / "checkpoints" / str(policy.step)).stat().st_mtime_ns)  # fmt: skip
    if key not in _SYSTEMS:
        _SYSTEMS[key] = policy.system()
    return _SYSTEMS[key]


def system_from_spec(spec: Any, where: str):
    """A learned System from `{"checkpoint": folder, "step": n?, "greedy": bool?}`."""
    check_spec(spec, where)
    try:
        return learned_system(spec["checkpoint"], spec.get("step"), spec.get("greedy", False))
    except ValueError as err:
        msg = str(err)
        field = msg.split(":", 1)[0]
        name = {"checkpoint_dir": "checkpoint"}.get(field, field)
        if name in ("checkpoint", "step", "greedy"):
            raise ValueError(f"{where}.{name}:{msg.split(':', 1)[1]}") from None
        raise ValueError(f"{where}: {msg}") from None


def check_spec(spec: Any, where: str) -> None:
    """Refuse a malformed learned-entrant spec (no file is read), naming the field."""
    if not isinstance(spec, dict):
        raise ValueError(f'{where}: expected {{"checkpoint": folder}}, got {spec!r}')
    extra = sorted(set(spec) - {"checkpoint", "step", "greedy"})
    if extra:
        raise ValueError(f"{where}: unknown field(s) {extra}")
    path = spec.get("checkpoint")
    if not isinstance(path, str) or not path:
        raise ValueError(f"{where}.checkpoint: expected a run folder, got {path!r}")
    step = spec.get("step")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step < 0):
        raise ValueError(f"{where}.step: expected a whole number >= 0 or null, got {step!r}")
    if not isinstance(spec.get("greedy", False), bool):
        raise ValueError(f"{where}.greedy: expected true or false, got {spec['greedy']!r}")


# ---- the .npz export --------------------------------------------------------------------------
def export_npz(checkpoint_dir: str | Path, path: str | Path, step: int | None = None,
               best: bool = False) -> Path:  # fmt: skip
    """Write a run's actor weights and what is needed to run them to a small `.npz`
    (`best=True`: the validation's best check)."""
    policy = load_policy(checkpoint_dir, step, best=best)
    return save_weights_npz(path, policy.weights(), policy.hidden, policy.recurrent,
                            source=policy.name.removeprefix("learned:"), norm=policy.norm,
                            q_values=policy.q_values, arch=policy.arch,
                            embed=policy.embed, nav=policy.nav)  # fmt: skip
