"""Checks of a scenario's lines: each wins against the live controller on both engines, and
changing one agent's action at a key tick of it does not win.

NumPy plays a line through `play.Table` (the engine the browser runs, with the controller's
NumPy twin); JAX plays many lines at once through the solver's compiled step and the
controller's compiled `act`. A *variant* of a line changes one living agent's move, or its (target,
Ultimate) pair, at one tick to another legal choice and keeps the rest of the line as
written (an action that has become illegal is played as the rules play it: stay, no
target). A *key action* is one agent's move or pair at one tick whose every alternative
fails to win.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.actions import NUM_MOVES, NUM_PAIRS, decode, encode, encode_pair
from ..core.state import RESULT_NAMES, TEAM_SIZE
from .play_lines import play_line
from .records import Scenario

Line = Sequence[Sequence[Sequence[int]]]


def to_flat(line: Line) -> np.ndarray:
    """A line as flat actions (ticks, 5): move * 22 + target * 2 + ultimate, padded with 0
    for absent slots (Team A is on the left, so compass and own frame agree)."""
    out = np.zeros((len(line), TEAM_SIZE), np.int32)
    for t, tick in enumerate(line):
        for k, (move, target, ult) in enumerate(tick):
            out[t, k] = encode(move, target, ult)
    return out


def from_flat(flat: np.ndarray, agents: int) -> list[list[list[int]]]:
    """Flat actions (ticks, 5) back to a line's `[move, target, ultimate]` entries."""
    return [[list(decode(int(a))) for a in row[:agents]] for row in np.asarray(flat)]


def numpy_result(scenario: Scenario, line: Line) -> str:
    """The result ("a", "b", "draw", or None if still open) of a line on the NumPy engine."""
    table = play_line(scenario.position, scenario.controller, line)
    return table.game.result


class JaxLines:
    """Plays many lines of one scenario at once on the JAX engine (compiled once)."""

    def __init__(self, scenario: Scenario, expander=None) -> None:
        from .search import Expander

        self.scenario = scenario
        self.expander = expander or Expander(scenario.position, scenario.controller)

    def results(self, flat_lines: np.ndarray) -> list[str | None]:
        """Results of lines given as flat actions (n, ticks, 5); a game that ends early
        ignores the rest of its line."""
        import jax

        from .search import put_rows

        ex = self.expander
        states, memory, flat_b, _ = ex.root
        n, ticks = flat_lines.shape[:2]
        idx = np.zeros(n, np.int64)
        states, memory = jax.tree.map(lambda x: x[idx], (states, memory))
        flat_b = flat_b[idx]
        result = np.full(n, -1)
        for t in range(ticks):
            open_ = np.flatnonzero(result < 0)
            if not len(open_):
                break
            kids, kid_mem, kid_b, _ = ex.expand(states, memory, open_, flat_b, flat_lines[open_, t])
            states, memory = jax.tree.map(lambda full, new, o=open_: put_rows(full, new, o),
                                          (states, memory), (kids, kid_mem))  # fmt: skip
            flat_b = flat_b.copy()
            flat_b[open_] = kid_b
            result = np.asarray(states.game.result).copy()
        return [RESULT_NAMES[int(r)] for r in result]


HEADS = ("move", "combat")  # a move, and a (target, Ultimate) pair


@dataclass
class VariantReport:
    """One line's one-agent variants, counted per tick, agent and head: `tried[t][k][h]`
    variants change agent k's move (h = 0) or its (target, Ultimate) pair (h = 1) at tick
    t, and `won[t][k][h]` of them still win."""

    tried: list[list[list[int]]]
    won: list[list[list[int]]]

    @property
    def key_actions(self) -> list[tuple[int, int, int]]:
        """(tick, agent, head), 0-based, whose every alternative fails to win."""
        return [(t, k, h) for t, row in enumerate(self.tried) for k, heads in enumerate(row)
                for h, n in enumerate(heads) if n and not self.won[t][k][h]]  # fmt: skip

    @property
    def total(self) -> int:
        return sum(n for row in self.tried for heads in row for n in heads)

    @property
    def failing(self) -> int:
        """How many variants do not win."""
        return self.total - sum(n for row in self.won for heads in row for n in heads)


def variant_lines(scenario: Scenario, line: Line) -> tuple[np.ndarray, np.ndarray]:
    """Every one-agent variant of a line: flat lines (n, ticks, 5) and, per variant, the
    (tick, agent, head) it changes. A variant changes one living agent's move to another
    legal move (keeping its target and Ultimate), or its (target, Ultimate) pair to another
    legal pair (keeping its move), in the state the line reaches there (NumPy engine)."""
    from .play_lines import Table

    flat = to_flat(line)
    table = Table.start(scenario.position, scenario.controller)
    out, where = [], []
    for t, tick in enumerate(line):
        if table.game.done:
            break
        legal = table.game.legal_actions()[0]
        alive = table.game.state.alive[:TEAM_SIZE] & table.game.state.present[:TEAM_SIZE]
        for k in np.flatnonzero(alive):
            move, pair = divmod(int(flat[t, k]), NUM_PAIRS)
            options = [(0, encode_pair(m, pair)) for m in range(NUM_MOVES) if m != move]
            options += [(1, encode_pair(move, q)) for q in range(NUM_PAIRS) if q != pair]
            for head, a in options:
                if not legal[k, a]:
                    continue
                v = flat.copy()
                v[t, k] = a
                out.append(v)
                where.append((t, int(k), head))
        table.play(tick)
    lines = np.asarray(out, np.int32).reshape(-1, len(line), TEAM_SIZE)
    return lines, np.asarray(where, np.int64).reshape(-1, 3)


def variant_report(scenario: Scenario, line: Line, jax_lines: JaxLines) -> VariantReport:
    """Play every one-agent variant of `line` on JAX; count tries and wins per tick, agent
    and head."""
    lines, where = variant_lines(scenario, line)
    results = jax_lines.results(lines) if len(lines) else []
    tried = [[[0, 0] for _ in range(TEAM_SIZE)] for _ in line]
    won = [[[0, 0] for _ in range(TEAM_SIZE)] for _ in line]
    for (t, k, h), r in zip(where.tolist(), results, strict=True):
        tried[t][k][h] += 1
        won[t][k][h] += r == "a"
    return VariantReport(tried, won)
