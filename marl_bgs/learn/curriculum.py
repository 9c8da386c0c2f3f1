"""The curriculum over the training maps: stages (maps, team size, winning score, weight)
and where a run's progress falls among them. It belongs to the learners that walk it
(`config.curriculum`); the maps know nothing of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.checks import number, whole
from ..core.state import (
    TEAM_SIZE,
)
from ..maps.files import available_maps
from ..maps.format import HELD_OUT_MAPS, TRAINING_MAPS, split_of


@dataclass(frozen=True)
class Stage:
    """One stage of training: which maps, how many agents a side, and the score to win.

    `weight` is the stage's share of training progress relative to the other stages.

    Attributes:
        name: The stage's name.
        maps: Map ids played in the stage.
        team_size: Agents a side, 1-5.
        winning_score: Points that win a game.
        horizon: Ticks before a draw.
        weight: Its share of training progress, relative to the other stages.
    """

    name: str
    maps: tuple[int, ...]
    team_size: int
    winning_score: int
    horizon: int = 300
    weight: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "maps", tuple(self.maps))


CURRICULUM: tuple[Stage, ...] = (
    Stage("open duel", (0,), team_size=1, winning_score=5, horizon=150),
    Stage("pillars", (0, 1, 2), team_size=2, winning_score=8, horizon=200),
    Stage("pillar rows", (0, 1, 2, 3, 4), team_size=3, winning_score=10, horizon=200),
    Stage("walls", tuple(range(7)), team_size=3, winning_score=12, horizon=250),
    Stage("sight blockers", tuple(range(9)), team_size=4, winning_score=15, horizon=250),
    Stage("diagonals", tuple(range(11)), team_size=4, winning_score=18, horizon=300),
    Stage("mixtures", tuple(range(12)), team_size=5, winning_score=20, horizon=300),
    Stage("all training maps", TRAINING_MAPS, team_size=5, winning_score=20, horizon=300, weight=3),
)


def validate_stages(stages: Sequence[Stage], allow_held_out: bool = False) -> tuple[Stage, ...]:
    """Check a user-defined curriculum and return it as a tuple.

    Each stage needs a name, at least one existing map (training maps only, unless
    `allow_held_out`), a team size of 1-5, a positive winning score, horizon and weight.

    Args:
        stages: A non-empty sequence of `Stage`.
        allow_held_out: Accept validation and test maps.

    Returns:
        The stages as a tuple.

    Raises:
        ValueError: The first bad stage, naming it and its field
            (`curriculum[2] ('walls').maps: map 47 is a held-out test map ...`).
        FieldTypeError: A `team_size`, `winning_score`, `horizon` or `weight` of the wrong
            type (a wrongly typed name, map id or stage raises `ValueError`).
    """
    from ..core.position import MAX_HORIZON, MAX_WINNING_SCORE

    if isinstance(stages, Stage) or not isinstance(stages, Sequence) or not stages:
        raise ValueError("curriculum: expected a non-empty sequence of Stage")
    present = set(available_maps())
    for k, stage in enumerate(stages):
        at = f"curriculum[{k}]"
        if not isinstance(stage, Stage):
            raise ValueError(f"{at}: expected a Stage, got {type(stage).__name__}")
        at = f"{at} ({stage.name!r})" if isinstance(stage.name, str) else at
        if not isinstance(stage.name, str) or not stage.name.strip():
            raise ValueError(f"{at}.name: expected a non-empty string")
        if not stage.maps:
            raise ValueError(f"{at}.maps: expected at least one map id")
        for map_id in stage.maps:
            if isinstance(map_id, bool) or not isinstance(map_id, int) or map_id not in present:
                raise ValueError(f"{at}.maps: no map with id {map_id!r}")
            if not allow_held_out and map_id in HELD_OUT_MAPS:
                raise ValueError(
                    f"{at}.maps: map {map_id} is a held-out {split_of(map_id)} map "
                    "(pass allow_held_out=True to train on it anyway)"
                )
        checks = (
            ("team_size", stage.team_size, 1, TEAM_SIZE),
            ("winning_score", stage.winning_score, 1, MAX_WINNING_SCORE),
            ("horizon", stage.horizon, 1, MAX_HORIZON),
        )
        for key, value, lo, hi in checks:
            whole(value, f"{at}.{key}", lo, hi)
        if number(stage.weight, f"{at}.weight") <= 0:
            raise ValueError(f"{at}.weight: expected a positive number, got {stage.weight!r}")
    return tuple(stages)


def stage_bounds(stages: Sequence[Stage] = CURRICULUM) -> list[tuple[float, float]]:
    """The progress interval [start, end) each stage covers (the last one ends at 1).

    Args:
        stages: A curriculum; `CURRICULUM` by default. Held-out maps are accepted.

    Returns:
        One `(start, end)` per stage, in order, proportional to the weights.

    Raises:
        ValueError: A bad curriculum (see `validate_stages`).
    """
    stages = validate_stages(stages, allow_held_out=True)
    total = float(sum(s.weight for s in stages))
    out, start = [], 0.0
    for k, stage in enumerate(stages):
        end = 1.0 if k == len(stages) - 1 else start + stage.weight / total
        out.append((start, end))
        start = end
    return out


def stage_at(
    progress: float, stages: Sequence[Stage] = CURRICULUM, allow_held_out: bool = False
) -> Stage:
    """The stage for a training progress in [0, 1] (0 = start, 1 = end of training).

    Stages share the progress interval in proportion to their weights; progress 1 gives the
    last stage. Pass your own list of `Stage` to use another curriculum.

    Args:
        progress: Training progress, 0 to 1.
        stages: A curriculum; `CURRICULUM` by default.
        allow_held_out: Accept validation and test maps in `stages`.

    Returns:
        The `Stage` that covers `progress`.

    Raises:
        ValueError: Progress outside [0, 1], or a bad curriculum.
        FieldTypeError: Progress that is not a number.
    """
    progress = number(progress, "progress", 0.0, 1.0)
    stages = validate_stages(stages, allow_held_out=allow_held_out)
    for stage, (_, end) in zip(stages, stage_bounds(stages), strict=True):
        if progress < end:
            return stage
    return stages[-1]
