"""Who else plays in a training game: the pool of saved copies, fixed policies, partners.

Section S6.2: each new game draws Team B from the learner's current weights, one of its N
newest saved copies, fixed trained policies and scripted Systems. The copies live in the
learner state (`Pool`: N actor parameter trees stacked on a leading axis, filled in turn
and then overwritten oldest first), so a checkpoint holds them and a resumed run draws the
same opponents. Fixed policies and partners are ordinary Systems, named in the config by a
registered System name, a training run folder (its newest checkpoint) or a policy `.npz`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from ..systems.base import System


def learner_plays_team_b(cfg: Any) -> bool:
    """Whether a training game can draw the learner's own weights (current or a pool copy)
    for Team B: where none can, the rollout skips the learner's actor pass on Team B (every
    game's Team B is a System then, so its games are the same without it)."""
    return cfg.opponent_weights(False)[0] > 0 or cfg.uses_pool


class Pool(NamedTuple):
    """The N newest saved copies of the actor (N = `pool_size`; empty slots hold zeros)."""

    params: Any  # the actor's parameter tree, each leaf with a leading (N,) axis
    count: Any  # () int32 slots filled so far (at most N)
    saved: Any  # () int32 copies saved in all (the next goes to slot saved % N)

    @classmethod
    def create(cls, actor_params: Any, size: int) -> Pool:
        params = jax.tree.map(lambda x: jnp.zeros((size, *x.shape), x.dtype), actor_params)
        return cls(params, jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))

    @property
    def size(self) -> int:
        return jax.tree.leaves(self.params)[0].shape[0]

    def push(self, actor_params: Any, when: Any) -> Pool:
        """A copy of `actor_params` saved over the oldest slot where `when` (a () bool)."""
        slot = self.saved % self.size

        def put(stack, leaf):
            new = jax.lax.dynamic_update_index_in_dim(stack, leaf.astype(stack.dtype), slot, 0)
            return jnp.where(when, new, stack)

        return Pool(
            jax.tree.map(put, self.params, actor_params),
            jnp.where(when, jnp.minimum(self.count + 1, self.size), self.count),
            jnp.where(when, self.saved + 1, self.saved),
        )


def copies_due(steps_before: Any, steps_after: Any, every: int) -> Any:
    """Whether a copy is saved in an update: it crossed a multiple of `every` game steps."""
    return steps_after // every > steps_before // every


def policy_system(spec: str, where: str) -> System:
    """A System from a registered name, a training run folder or a policy `.npz` file;
    `where` is the field a refusal names (`config.fixed_opponents[0]`). An LLM cannot play
    here: training's games run inside one compiled program."""
    from ..systems.resolve import system_from_text

    return system_from_text(spec, where, host=False)


def _learner_placeholder() -> System:
    """Stands in a partner team for the learner's own slots (its actions are never used)."""

    def act(key, inputs, memory):
        del key
        return jnp.zeros(inputs.present.shape, jnp.int32), memory

    return System("learner", act, lambda key: jnp.zeros((), jnp.int32))


def partner_team(specs: tuple[str, ...]) -> tuple[System | None, Any]:
    """One System playing the partner slots of Team A, and the (5,) bool mask of the slots
    the learner plays; `(None, all True)` when the learner plays all five."""
    if not specs:
        return None, jnp.ones(5, bool)
    from ..systems.mix import team

    members = [
        policy_system(s, f"config.teammates[{k}]") if s else _learner_placeholder()
        for k, s in enumerate(specs)
    ]
    name = "|".join(m.name for m in members)
    return team(*members, name=name), jnp.asarray([not s for s in specs])


def training_systems(cfg: Any) -> tuple[list[System], System | None, Any]:
    """The Systems a training config plays beside the learner: Team B's fixed policies then
    scripted Systems (in `opponent_names` order), the partner team and the learner's slots."""
    from ..systems.registry import by_name

    systems = [policy_system(f, f"config.fixed_opponents[{i}]")
               for i, f in enumerate(cfg.fixed_in_play)]  # fmt: skip
    systems += [by_name(n) for n in cfg.scripted_in_play]
    partners, learner_slots = partner_team(cfg.teammates)
    return systems, partners, learner_slots
