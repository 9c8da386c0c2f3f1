"""What one team may see for one decision: the record every System's `act` receives.

It lives in core, beside the rules that fill it (`observation.observations`, the masks of
`sight`), so that the env and `Game` build it without importing the Systems; it stays
importable as `marl_bgs.systems.TeamInputs`.
"""

from __future__ import annotations

from typing import NamedTuple

from .types import Array


class TeamInputs(NamedTuple):
    """Only what one team may see, for one game (or a batch: a leading games axis).

    `env.team_inputs(state, team)` and `Game.team_inputs(team)` build it; a System's `act`
    receives it. Row k is the team's slot k (agent `a{k}` or `b{k}`), in its own frame.

    Attributes:
        obs: float32 `(5, 784)`, each agent's own observation.
        avail: bool `(5, 198)`, the exactly legal flat actions in each agent's own frame.
        present: bool `(5,)`, the slot is used by the roster.
        alive: bool `(5,)`, the agent is present and alive.
        classes: int32 `(5,)`, class ids (0 mage, 1 warrior, 2 hunter, 3 rogue,
            4 priest); the team's own roster is public to it.
        new_game: bool `()`, the first decision of a game (reset recurrent memory).
    """

    obs: Array  # (5, OBS_WIDTH) float32, each agent's own observation
    avail: Array  # (5, 198) bool, exact legal joint actions in each agent's own frame
    present: Array  # (5,) bool, slot used by the roster
    alive: Array  # (5,) bool
    classes: Array  # (5,) int32 class ids (the team's own roster is public to it)
    new_game: Array  # () bool, the first decision of a game (reset recurrent memory)
