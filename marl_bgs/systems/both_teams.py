"""Both teams' actions from their Systems, inside the compiled loop (JAX Systems)."""

from __future__ import annotations

from typing import Any

import jax

from ..core.state import AGENT_NAMES, TEAM_SIZE
from ..env import TeamDeathmatch
from ..env_state import EnvState
from .base import System, check_jax_actions


def init_memories(env: TeamDeathmatch, systems: tuple[System, System], key) -> tuple:
    """Each team's System memory for every game (a leading games axis when batched)."""
    out = []
    for t, system in enumerate(systems):
        k = jax.random.fold_in(key, t)
        if env.num_envs is None:
            out.append(system.init(k))
        else:
            out.append(jax.vmap(system.init)(jax.random.split(k, env.num_envs)))
    return tuple(out)


def act_both(
    env: TeamDeathmatch, state: EnvState, systems: tuple[System, System], memories: tuple, key
) -> tuple[dict, tuple]:
    """Ask each team's System for its agents' actions; returns env actions and memories."""
    actions: dict[str, Any] = {}
    new_memories = []
    for t, system in enumerate(systems):
        if system.on_host:
            raise ValueError(f"systems[{t}]: host Systems are played by evaluate, not in jit")
    both = env.teams_inputs(state)
    for t, system in enumerate(systems):
        inputs = both[t]
        k = jax.random.fold_in(key, t)
        if env.num_envs is None:
            acts, mem = system.act(k, inputs, memories[t])
        else:
            keys = jax.random.split(k, env.num_envs)
            acts, mem = jax.vmap(system.act)(keys, inputs, memories[t])
            acts = check_jax_actions(acts, env.num_envs, system, f"systems[{t}]")
        new_memories.append(mem)
        for s in range(TEAM_SIZE):
            actions[AGENT_NAMES[t * TEAM_SIZE + s]] = acts[..., s]
    return actions, tuple(new_memories)
