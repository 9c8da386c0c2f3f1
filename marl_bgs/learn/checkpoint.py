"""Orbax checkpoints of the whole learner state, so a resumed run continues bit-identically.

A checkpoint is the learner's whole state pytree (`registry.LearnerState`; for PPO): parameters, optimizer states, value-normalisation
statistics, the PRNG key, the live games (env state), every recurrent memory (learner and
self-play opponent), each game's drawn opponent and the scripted opponents' memories, and
the update and step counters. Restoring needs a template of the same structure (a freshly
initialised state), which also fixes every dtype and shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp


class Checkpoints:
    """The newest `keep` checkpoints of one run, numbered by update."""

    def __init__(self, folder: str | Path, keep: int = 3) -> None:
        self.folder = Path(folder).absolute()
        options = ocp.CheckpointManagerOptions(max_to_keep=keep, create=True)
        self.manager = ocp.CheckpointManager(self.folder, options=options)

    def steps(self) -> list[int]:
        return list(self.manager.all_steps())

    def latest(self) -> int | None:
        return self.manager.latest_step()

    def save(self, step: int, state: Any) -> None:
        self.manager.save(step, args=ocp.args.StandardSave(_as_dict(state)))

    def wait(self) -> None:
        self.manager.wait_until_finished()

    def restore(self, template: Any, step: int | None = None) -> Any:
        """The saved state at `step` (default: the newest), shaped like `template`."""
        step = self.latest() if step is None else step
        if step is None:
            raise ValueError(f"checkpoint: no checkpoint in {self.folder}")
        abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, _as_dict(template))
        self._check_fits(abstract, step)
        restored = self.manager.restore(step, args=ocp.args.StandardRestore(abstract))
        leaves = jax.tree.leaves(template)
        for k, v in restored.items():
            leaves[int(k)] = _placed_like(v, leaves[int(k)])
        return jax.tree.unflatten(jax.tree.structure(template), leaves)

    def _check_fits(self, abstract: dict[str, Any], step: int) -> None:
        """Refuse, before reading any array, a checkpoint whose leaves differ in number,
        shape or dtype from the template (saved by another network or algorithm): orbax's
        own refusal comes from deep inside and leaves its reads pending."""
        with ocp.StandardCheckpointer() as reader:
            saved = reader.metadata(self.folder / str(step) / "default")
        saved = dict(getattr(saved, "item_metadata", saved).items())
        where = f"checkpoint: step {step} in {self.folder}"
        if sorted(saved) != sorted(abstract):
            raise ValueError(f"{where} holds {len(saved)} arrays where these settings make "
                             f"{len(abstract)}: it was saved with other settings")  # fmt: skip
        for key, want in abstract.items():
            got = saved[key]
            if tuple(got.shape) != tuple(want.shape) or got.dtype != want.dtype:
                raise ValueError(
                    f"{where}: array {key} is {got.dtype}{list(got.shape)} where these "
                    f"settings make {want.dtype}{list(want.shape)} (saved with other "
                    "settings, such as another network width or algorithm?)"
                )


def _placed_like(restored: Any, template: Any) -> Any:
    """A restored array placed and typed as the template's leaf is. Orbax returns arrays
    committed to a device and strongly typed, where a fresh `init` gives uncommitted ones
    and some weakly typed scalars (flashbax's buffer index); `jit` keys its compiled
    programs on both, so a resumed run compiled its update twice more (once for the
    restored state, once for the state its first update returned), each as long as the
    first compile. The values are unchanged."""
    if getattr(template, "committed", True):
        return restored
    value = jnp.asarray(np.asarray(restored))
    if value.ndim == 0 and getattr(template, "weak_type", False):
        weak = jnp.asarray(value.item())  # a Python number: weakly typed, the same value
        value = weak if weak.dtype == value.dtype else value
    return value


def _as_dict(state: Any) -> dict[str, Any]:
    """The state's leaves by position, leaving out empty arrays (orbax refuses them; the
    template supplies them back). A flat dict also spares orbax our NamedTuple types."""
    return {f"{i:05d}": x for i, x in enumerate(jax.tree.leaves(state)) if x.size}
