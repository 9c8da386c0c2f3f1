"""Systems: random, wrappers for JAX and host functions, and per-slot or per-game mixes.

A System chooses one team's actions from what that team may see (`TeamInputs`): a name and
two functions, `init(key) -> memory` and `act(key, inputs, memory) -> (actions, memory)`,
where `actions` is five flat actions (0..197, each in its agent's own frame). Wrap a JAX
function with `jax_system` (compiled into the game loop) or a Python one with
`host_system`; mix Systems per slot or class with `team` and per game with `pool`. Any
System plays in `marl_bgs.evaluate` and, by its registered name, on the command line.
"""

from .base import System, TeamInputs, host_system, jax_system
from .mix import pool, team
from .random import random_system

__all__ = ["System", "TeamInputs", "host_system", "jax_system", "pool", "team", "random_system"]
