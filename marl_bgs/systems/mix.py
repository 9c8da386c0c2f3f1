"""Mixing Systems: per slot or per class within a team, and per game across a pool."""

from __future__ import annotations

from collections.abc import Sequence

from ..core import classes
from ..core.state import TEAM_SIZE
from .base import System, TeamInputs


def team(
    *slots: System, by_class: dict[str, System] | None = None, name: str | None = None
) -> System:
    """A team whose slot k is played by `slots[k]` (five Systems, or one for every slot).

    `by_class={"priest": healer}` hands every agent of that class to another System,
    whatever its slot: `team(random_system(), by_class={"priest": healer})`. Each member
    sees the whole team's inputs and keeps its own memory; only its agents' actions count.

    Args:
        *slots: Five JAX Systems, one per slot, or one for all five.
        by_class: Class name (`"mage"`, `"warrior"`, `"hunter"`, `"rogue"`,
            `"priest"`) -> the System that plays every agent of that class (it wins over
            `slots`).
        name: The mixed System's name; by default `team(a, b, ...)` of the slots' names.

    Returns:
        One JAX `System`.

    Raises:
        ValueError: Not one or five slots, an unknown class, or a host System (mix those
            per game with `evaluate` instead).
    """
    if len(slots) == 1:
        slots = slots * TEAM_SIZE
    if len(slots) != TEAM_SIZE:
        raise ValueError(
            f"team: give one System for every one of the {TEAM_SIZE} slots, or one for all"
        )
    by_class = dict(by_class or {})
    for cls in by_class:
        if cls not in classes.CLASS_INDEX:
            raise ValueError(f"team: by_class has unknown class {cls!r}")
    members = list(slots) + list(by_class.values())
    if any(m.on_host for m in members):
        raise ValueError("team: mix host Systems per game with evaluate, not inside team()")
    class_ids = [classes.CLASS_INDEX[c] for c in by_class]

    def init(key):
        import jax

        keys = jax.random.split(key, len(members))
        return tuple(m.init(k) for m, k in zip(members, keys, strict=True))

    def act(key, inputs: TeamInputs, memory):
        import jax
        import jax.numpy as jnp

        keys = jax.random.split(key, len(members))
        outs = [m.act(k, inputs, mem) for m, k, mem in zip(members, keys, memory, strict=True)]
        slot_idx = jnp.arange(TEAM_SIZE)
        actions = jnp.zeros(TEAM_SIZE, jnp.int32)
        for k in range(TEAM_SIZE):
            actions = jnp.where(slot_idx == k, outs[k][0], actions)
        for j, cls in enumerate(class_ids):
            chosen = outs[TEAM_SIZE + j][0]
            actions = jnp.where(inputs.classes == cls, chosen, actions)
        return actions, tuple(o[1] for o in outs)

    label = name or "team(" + ", ".join(m.name for m in slots) + ")"
    return System(label, act, init)


def pool(
    systems: Sequence[System], weights: Sequence[float] | None = None, name: str | None = None
) -> System:
    """A weighted choice of System per game, drawn when the game starts and kept to its end.

    For league and population training: `pool([past_self, random_system()], [3, 1])`.

    Args:
        systems: One or more JAX Systems.
        weights: Non-negative weights, one per System, not all zero; None for equal.
        name: The pool's name; by default `pool(a, b, ...)`.

    Returns:
        One JAX `System`.

    Raises:
        ValueError: No Systems, a host System, or bad weights.
    """
    systems = list(systems)
    if not systems:
        raise ValueError("pool: give at least one System")
    if any(s.on_host for s in systems):
        raise ValueError("pool: host Systems cannot be drawn inside the compiled game")
    w = [1.0] * len(systems) if weights is None else [float(x) for x in weights]
    if len(w) != len(systems) or min(w) < 0 or sum(w) <= 0:
        raise ValueError("pool: weights must be one non-negative number per System, not all 0")

    def init(key):
        import jax
        import jax.numpy as jnp

        k_pick, k_mem = jax.random.split(key)
        pick = jax.random.choice(k_pick, len(systems), p=jnp.asarray(w) / sum(w))
        keys = jax.random.split(k_mem, len(systems))
        return pick.astype(jnp.int32), tuple(s.init(k) for s, k in zip(systems, keys, strict=True))

    def act(key, inputs: TeamInputs, memory):
        import jax
        import jax.numpy as jnp

        pick, mems = memory
        k_new, k_act = jax.random.split(key)
        fresh_pick, fresh_mems = init(k_new)
        pick = jnp.where(inputs.new_game, fresh_pick, pick)
        mems = jax.tree.map(lambda a, b: jnp.where(inputs.new_game, a, b), fresh_mems, mems)
        keys = jax.random.split(k_act, len(systems))
        outs = [s.act(k, inputs, m) for s, k, m in zip(systems, keys, mems, strict=True)]
        actions = outs[0][0]
        for i in range(1, len(systems)):
            actions = jnp.where(pick == i, outs[i][0], actions)
        return actions, (pick, tuple(o[1] for o in outs))

    label = name or "pool(" + ", ".join(s.name for s in systems) + ")"
    return System(label, act, init)
