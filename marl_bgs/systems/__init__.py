"""Systems: random, wrappers for JAX and host functions, and per-slot or per-game mixes."""

from .base import System, TeamInputs, host_system, jax_system
from .mix import pool, team
from .random import random_system

__all__ = ["System", "TeamInputs", "host_system", "jax_system", "pool", "team", "random_system"]
