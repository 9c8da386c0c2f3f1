"""The single-game env as a JaxMARL environment: `make("tdm")` returns this when JaxMARL is
installed, so JaxMARL's wrappers, baselines and `isinstance` checks accept it unchanged.

Importing this module imports JaxMARL; `marl_bgs.env` and `marl_bgs.single_game` do not, so
batched envs and the NumPy engine never pay for it.
"""

from __future__ import annotations

from jaxmarl.environments import spaces as jaxmarl_spaces
from jaxmarl.environments.multi_agent_env import MultiAgentEnv

from . import spaces
from .single_game import SingleGame


class Box(spaces.Box, jaxmarl_spaces.Box):
    """Our Box, also a JaxMARL Box."""


class Discrete(spaces.Discrete, jaxmarl_spaces.Discrete):
    """Our Discrete, also a JaxMARL Discrete."""


class MultiDiscrete(spaces.MultiDiscrete, jaxmarl_spaces.MultiDiscrete):
    """Our MultiDiscrete, also a JaxMARL MultiDiscrete."""


class JaxMARLTeamDeathmatch(SingleGame, MultiAgentEnv):
    """Team Deathmatch, one game, as a `MultiAgentEnv`: every method is SingleGame's (first
    in the method order), JaxMARL's base class only lends its type."""

    space_types = (Box, Discrete, MultiDiscrete)
