"""The scenario solver: every legal joint action of Team A, tick by tick, against the
controller, on the compiled JAX engine.

The controller is deterministic, so a node of the search is a game state plus the
controller's memory, and its children are Team A's joint legal actions (the product of each
living agent's legal flat actions; nothing is left out). Children that end the game are
sorted into wins (the line is kept) and the rest (dropped); open children are merged when
their state and the controller's memory are equal bit for bit, which loses no line's
outcome: equal nodes have equal futures. Each node counts the action sequences that reach
it, so the search knows how many of Team A's sequences win without listing them all.

Expansions run in fixed-size chunks through one compiled program (the env's step and the
controller's act under vmap), so a level of thousands of nodes costs seconds, not minutes.
A level larger than `max_children` ends the exhaustive part; random legal sequences from
the start then look for longer lines (`solve`), and the report keeps the two apart, so it
never claims that no win exists where it did not look at everything.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field

import numpy as np

from ..core.state import RESULT_A, RESULT_OPEN, TEAM_SIZE

CHUNK = 2048


@dataclass
class SearchReport:
    """What a search found and how much of Team A's action space it covered.

    Attributes:
        lines: Winning lines found (each a list of ticks of Team A's flat own-frame actions
            per slot), shortest first, at most `keep` of them.
        wins_by_length: Winning action sequences per line length (ticks), counted exactly
            over the levels searched in full.
        sequences: Team A's legal action sequences examined, per level searched in full.
        nodes: Distinct open nodes after each level searched in full.
        exhaustive_depth: How many levels were searched in full (every legal joint action).
        samples: Random legal sequences played from the start after that.
        sampled_wins_by_length: Of those, the winning ones per line length.
    """

    lines: list[list[list[int]]] = field(default_factory=list)
    wins_by_length: dict[int, int] = field(default_factory=dict)
    sequences: list[int] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    exhaustive_depth: int = 0
    samples: int = 0
    sampled_wins_by_length: dict[int, int] = field(default_factory=dict)

    @property
    def shortest(self) -> int | None:
        """The shortest winning line found."""
        lengths = list(self.wins_by_length) + list(self.sampled_wins_by_length)
        return min(lengths) if lengths else None

    def as_dict(self, depth: int, seed: int) -> dict:
        """The report as a scenario file's `search` field."""
        return {
            "depth": depth,
            "exhaustive_depth": self.exhaustive_depth,
            "sequences": self.sequences,
            "nodes": self.nodes,
            "wins_by_length": {str(k): v for k, v in sorted(self.wins_by_length.items())},
            "samples": self.samples,
            "sample_seed": seed,
            "sampled_wins_by_length": {
                str(k): v for k, v in sorted(self.sampled_wins_by_length.items())
            },
        }


@functools.cache
def _compiled(controller: str, horizon: int, winning_score: int, chunk: int):
    """The env and the jitted reply/advance functions, shared by every position with these
    settings (the position is data, so one compilation serves all scenarios)."""
    import jax
    import jax.numpy as jnp

    from ..registration import make
    from ..systems.registry import by_name

    env = make("tdm", num_envs=chunk, horizon=horizon, winning_score=winning_score)
    system = by_name(controller)

    def replies(states, memory):
        inputs = env.teams_inputs(states)
        keys = jax.random.split(jax.random.key(0), chunk)
        flat_b, memory = jax.vmap(system.act)(keys, inputs[1], memory)
        return flat_b.astype(jnp.int32), memory, inputs[0].avail

    def advance(states, memory, flat_a, flat_b):
        actions = {f"a{k}": flat_a[:, k] for k in range(TEAM_SIZE)}
        actions |= {f"b{k}": flat_b[:, k] for k in range(TEAM_SIZE)}
        _, states, _, _, _ = env.step(None, states, actions)
        flat_b2, memory, avail = replies(states, memory)
        return states, memory, flat_b2, avail

    def start(states):
        keys = jax.random.split(jax.random.key(0), chunk)
        return replies(states, jax.vmap(system.init)(keys))

    return env, jax.jit(start), jax.jit(advance)


class Expander:
    """Team A's moves against the controller from one position, `chunk` games at once."""

    def __init__(self, position: dict, controller: str, chunk: int = CHUNK) -> None:
        import jax

        self.chunk = chunk
        env, start, self._advance = _compiled(
            controller, int(position["horizon"]), int(position["winning_score"]), chunk
        )
        _, states = env.reset_to(None, position)
        flat_b, memory, avail = start(states)
        take = jax.tree.map(lambda x: np.asarray(x)[:1], (states, memory))
        self.root = (take[0], take[1], np.asarray(flat_b[:1]), np.asarray(avail[:1]))
        self.start_tick = int(position["tick"])

    def expand(self, states, memory, parents: np.ndarray, flat_b: np.ndarray,
               flat_a: np.ndarray):  # fmt: skip
        """Children of `parents` (indices into the host trees `states`/`memory`) under Team
        A's `flat_a` (n, 5) and the parents' replies `flat_b`: host trees and arrays of the
        children's states, controller memories, replies and Team A's legal actions."""
        import jax

        n = len(parents)
        outs = []
        for start in range(0, n, self.chunk):
            idx = parents[start : start + self.chunk]
            pad = self.chunk - len(idx)
            idx_p = np.concatenate([idx, np.full(pad, idx[-1])])
            fa = np.zeros((self.chunk, TEAM_SIZE), np.int32)
            fa[: len(idx)] = flat_a[start : start + self.chunk]
            st, mem = jax.tree.map(lambda x, i=idx_p: x[i], (states, memory))
            out = self._advance(st, mem, fa, flat_b[idx_p])
            keep = len(idx)
            outs.append(jax.tree.map(lambda x, k=keep: np.asarray(x)[:k], out))
        return jax.tree.map(lambda *xs: np.concatenate(xs), *outs)


def _rows(tree, rows: np.ndarray):
    """The given rows of every leaf of a host tree."""
    import jax

    return jax.tree.map(lambda x: x[rows], tree)


def _fingerprints(states, memory) -> list[bytes]:
    """One digest per node of its game state and the controller's memory."""
    import jax

    leaves = [np.ascontiguousarray(x) for x in jax.tree.leaves((states.game, memory))]
    n = leaves[0].shape[0]
    rows = [x.reshape(n, -1).view(np.uint8) if x.dtype != bool else
            x.reshape(n, -1).astype(np.uint8) for x in leaves]  # fmt: skip
    flat = np.concatenate(rows, axis=1)
    return [hashlib.blake2b(r.tobytes(), digest_size=16).digest() for r in flat]


def joint_choices(avail: np.ndarray, living: np.ndarray) -> np.ndarray:
    """Every joint flat action of Team A at one node: the product of each living agent's
    legal actions (others play 0, "stay, no target"); shape (n, 5)."""
    per_agent = [np.flatnonzero(avail[k]) if living[k] else np.zeros(1, np.int64)
                 for k in range(TEAM_SIZE)]  # fmt: skip
    grids = np.meshgrid(*per_agent, indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1).astype(np.int32)


def solve(position: dict, controller: str, depth: int, *, max_children: int = 60_000,
          samples: int = 16_384, seed: int = 0, keep: int = 256,
          expander: Expander | None = None, progress: bool = False) -> SearchReport:  # fmt: skip
    """Find Team A's winning lines of at most `depth` ticks.

    First every legal joint action, level by level, while a level has at most
    `max_children` children (exact: the wins of those lengths are all counted, so "no
    shorter win" is a fact there); then `samples` uniformly random legal sequences from the
    start (the compiled Random System against the controller), which finds longer lines
    when they are not too rare. See the module docstring."""

    ex = expander or Expander(position, controller)
    states, memory, flat_b, avail = ex.root
    counts = np.ones(1, np.int64)  # action sequences reaching each node
    paths: list[list[list[int]]] = [[]]  # one representative line per node
    report = SearchReport()
    found: set[tuple] = set()

    def add(line: list[list[int]]) -> None:
        key = tuple(map(tuple, line))
        if key not in found and len(report.lines) < keep:
            found.add(key)
            report.lines.append(line)

    for level in range(depth):
        living = np.asarray(states.game.alive[:, :TEAM_SIZE] & states.game.present[:, :TEAM_SIZE])
        choices = [joint_choices(avail[i], living[i]) for i in range(len(counts))]
        if sum(len(c) for c in choices) > max_children:
            break
        parents = np.repeat(np.arange(len(choices)), [len(c) for c in choices])
        flat_a = np.concatenate(choices)
        if progress:
            print(f"level {level + 1}: {len(flat_a)} children", flush=True)
        kids, kid_mem, kid_b, kid_avail = ex.expand(states, memory, parents, flat_b, flat_a)
        result = np.asarray(kids.game.result)
        report.sequences.append(int(counts[parents].sum()))
        report.exhaustive_depth = level + 1
        won = np.flatnonzero(result == RESULT_A)
        if len(won):
            report.wins_by_length[level + 1] = int(counts[parents[won]].sum())
            for w in won:
                add(paths[parents[w]] + [flat_a[w].tolist()])
        open_ = np.flatnonzero(result == RESULT_OPEN)
        merged: dict[bytes, int] = {}
        order, new_counts, new_paths = [], [], []
        prints = _fingerprints(*_rows((kids, kid_mem), open_)) if len(open_) else []
        for i, fp in zip(open_, prints, strict=True):
            c = int(counts[parents[i]])
            if fp in merged:
                new_counts[merged[fp]] += c
                continue
            merged[fp] = len(order)
            order.append(i)
            new_counts.append(c)
            new_paths.append(paths[parents[i]] + [flat_a[i].tolist()])
        report.nodes.append(len(order))
        if not order:
            break
        sel = np.asarray(order)
        states, memory = _rows((kids, kid_mem), sel)
        flat_b, avail = kid_b[sel], kid_avail[sel]
        counts, paths = np.asarray(new_counts, np.int64), new_paths
    if samples and report.exhaustive_depth < depth:
        for line in sample_wins(ex, depth, samples, seed, report):
            add(line)
    report.lines.sort(key=len)
    return report


def sample_wins(ex: Expander, depth: int, samples: int, seed: int,
                report: SearchReport) -> list[list[list[int]]]:  # fmt: skip
    """Uniformly random legal joint actions of Team A from the start, `samples` sequences
    of up to `depth` ticks, through the solver's compiled step; the winning ones as lines
    of flat actions."""
    import jax

    rng = np.random.default_rng(seed)
    states, memory, flat_b, avail = ex.root
    idx = np.zeros(samples, np.int64)
    states, memory = _rows((states, memory), idx)
    flat_b, avail = flat_b[idx], avail[idx]
    lines = np.zeros((samples, depth, TEAM_SIZE), np.int32)
    result = np.full(samples, RESULT_OPEN)
    for t in range(depth):
        open_ = np.flatnonzero(result == RESULT_OPEN)
        if not len(open_):
            break
        living = states.game.alive[open_, :TEAM_SIZE] & states.game.present[open_, :TEAM_SIZE]
        draw = np.where(avail[open_], rng.random(avail[open_].shape), -1.0).argmax(axis=2)
        flat_a = np.where(living, draw, 0).astype(np.int32)
        lines[open_, t] = flat_a
        kids, kid_mem, kid_b, kid_avail = ex.expand(states, memory, open_, flat_b, flat_a)
        states, memory = jax.tree.map(lambda full, new, o=open_: put_rows(full, new, o),
                                      (states, memory), (kids, kid_mem))  # fmt: skip
        flat_b[open_], avail[open_] = kid_b, kid_avail
        result[open_] = np.asarray(kids.game.result)
        n_won = int((np.asarray(kids.game.result) == RESULT_A).sum())
        if n_won:
            report.sampled_wins_by_length[t + 1] = n_won
    report.samples += samples
    won = np.flatnonzero(result == RESULT_A)
    ends = np.asarray(states.game.tick)[won] - int(ex.start_tick)
    return [lines[g, :n].tolist() for g, n in zip(won, ends, strict=True)]


def put_rows(full: np.ndarray, new: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A copy of `full` with `rows` replaced by `new` (the searched games' states put back)."""
    out = np.array(full, copy=True)
    out[rows] = new
    return out
