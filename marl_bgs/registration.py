"""`make`: environments by name, as gymnax and JaxMARL register theirs.

It lives apart from `env.py` because it chooses between the batched `TeamDeathmatch`, the
single game `SingleGame` (`single_game.py`) and, with JaxMARL installed, the single game's
JaxMARL subclass (`jaxmarl_api.py`); each builds on the one before.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from .env import TeamDeathmatch
from .single_game import SingleGame


def make(name: str = "tdm", **kwargs: Any) -> TeamDeathmatch:
    """Create an environment by name ("tdm" is Team Deathmatch).

    Without `num_envs` it is one game that behaves as a JaxMARL environment; when JaxMARL is
    installed it is also an instance of `jaxmarl.environments.MultiAgentEnv` (importing
    JaxMARL takes a few seconds, so only this case does). `num_envs=N` gives N games at once.

    ```python
    import jax
    import marl_bgs

    env = marl_bgs.make("tdm", map_id=47)      # one game
    key = jax.random.key(0)
    obs, state = env.reset(key)                # obs["a0"]: (784,) float32
    actions = env.sample_actions(key, state)   # {"a0": () int32, ...}
    obs, state, reward, done, info = env.step(key, state, actions)

    env = marl_bgs.make("tdm", map_id=[47, 48], num_envs=64)   # 64 games
    obs, state = env.reset(key)                # obs["a0"]: (64, 784) float32
    ```

    Args:
        name: The environment's id; only `"tdm"` (Team Deathmatch) exists.
        **kwargs: The settings, all optional, each explained under `TeamDeathmatch`:
            `map_id` (default 47), `num_envs` (None: one game), `rosters` (None: the
            official five a side), `winning_score` (20), `horizon` (300),
            `swap_spawns` (True), `red_zone_depth` (5), `metrics` (`"none"`),
            `obstacle_capacity` (None: sized to the maps).

    Returns:
        The environment, a `TeamDeathmatch`: with `num_envs=None` its subclass
            `marl_bgs.single_game.SingleGame`, or with JaxMARL installed that one's subclass
            `marl_bgs.jaxmarl_api.JaxMARLTeamDeathmatch`. Its `reset(key)`
            returns `(obs, state)` and `step(key, state, actions)` returns
            `(obs, state, reward, done, info)`; obs are dicts agent name -> float32
            `(784,)`, or `(num_envs, 784)`.

    Raises:
        ValueError: An unknown name, or a setting out of range or unknown, naming the
            setting (`num_envs: 0 is out of range [1, 1048576]`).
        FieldTypeError: A setting of the wrong type, naming it (a `TypeError` that is also
            a `ValueError`); an unknown keyword is Python's own `TypeError`.
    """
    if name != "tdm":
        raise ValueError(f"name: unknown environment {name!r}; available: 'tdm'")
    if kwargs.get("num_envs") is not None:
        return TeamDeathmatch(**kwargs)
    if importlib.util.find_spec("jaxmarl") is not None:
        from .jaxmarl_api import JaxMARLTeamDeathmatch

        return JaxMARLTeamDeathmatch(**kwargs)
    return SingleGame(**kwargs)
