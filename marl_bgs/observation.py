"""The observation agents receive: `core.views` with every feature inside [OBS_LOW, OBS_HIGH].

`core.views.observations` scales the game block's settings by fixed constants (horizon /
1000, winning score / 100, points / winning score), which leave any fixed range at the
settings the env accepts: a horizon of 100,000 gave 100, five Red Zone deaths against a
winning score of 1 gave 10. Here those four numbers are taken from the state again and
squashed into [0, 1] (h / (h + 1000), w / (w + 100), points capped at the winning score), so
the declared observation Box holds for every game. Both engines (the env and `Game`) call
this, so they hand Systems the same numbers. Imports no JAX.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core.observe import TEAM, Sight
from .core.state import NUM_SLOTS, MapArrays, State
from .core.views import GLOBAL_FIELDS, OBS_WIDTH, UNIT_WIDTH
from .core.views import observations as raw_observations

# Declared bounds of every observation number (the features lie in about [-1, 1.12]:
# offsets from self reach -1, distances sqrt(1.25); the margin leaves room for obstacles
# authored slightly past the arena's edge).
OBS_LOW, OBS_HIGH = -2.0, 2.0
HORIZON_HALF = 1000  # the horizon at which its feature is 0.5
WINNING_SCORE_HALF = 100  # the winning score at which its feature is 0.5
F32 = np.float32


def _game_offset(name: str) -> int:
    at = NUM_SLOTS * UNIT_WIDTH
    for field, width in GLOBAL_FIELDS:
        if field == name:
            return at
        at += width
    raise KeyError(name)


# The four rescaled features sit side by side in the game block.
_FIRST = _game_offset("horizon")
_REPLACED = ("horizon", "own_score", "enemy_score", "winning_score")
assert [_game_offset(n) for n in _REPLACED] == list(range(_FIRST, _FIRST + len(_REPLACED)))


def bounded_game_features(xp: Any, state: State) -> Any:
    """(10, 4): horizon, own points, enemy points and winning score, each in [0, 1]."""
    team = xp.asarray(TEAM)
    horizon = state.horizon.astype(F32)
    win = state.winning_score.astype(F32)
    points = xp.minimum(state.score, state.winning_score).astype(F32) / win  # (2,)
    return xp.stack(
        [
            xp.broadcast_to(horizon / (horizon + F32(HORIZON_HALF)), (NUM_SLOTS,)),
            points[team],
            points[1 - team],
            xp.broadcast_to(win / (win + F32(WINNING_SCORE_HALF)), (NUM_SLOTS,)),
        ],
        axis=-1,
    )


def observations(xp: Any, state: State, m: MapArrays, sight: Sight) -> Any:
    """Every slot's observation, (10, OBS_WIDTH) float32, each number in [OBS_LOW, OBS_HIGH]."""
    raw = raw_observations(xp, state, m, sight)
    end = _FIRST + len(_REPLACED)
    out = xp.concatenate([raw[:, :_FIRST], bounded_game_features(xp, state), raw[:, end:]], -1)
    assert out.shape[-1] == OBS_WIDTH
    return out
