"""The NumPy engine's ordinary movement against an independent exact reference, tick by tick.

Plays random games (uniformly random legal actions; even games from the spawn pads, odd ones
from random mid-game positions) and records every call of `marl_bgs.core.tick.move_bodies`
(its inputs and the engine's rounded answer) by wrapping it for the run. Each call is solved
again by `tests/movement_reference.py`, written from the rules text alone, and every body's
end is compared: the rules allow 1/256 of the move's length plus the grid (0.001).
`--small` adds random crowded cases (bodies clustered near obstacles, touching each other,
edges and obstacles) sent straight to `marl_bgs.core.movement.move_bodies`.

    python benchmarks/movement_fidelity.py --games 25 --ticks 100 --small \\
        --out benchmarks/results/movement_fidelity.json

Printed and written: cases compared, cases with any body more than 0.01 (10 milli) from the
reference, cases beyond the precise bound, the largest error, a rough cause per case beyond
the bound, and the worst cases (largest excess over the bound) in full, inputs and both
answers, to turn into hand-built tests.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
from report import write_report

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests/ (the reference, random positions) is not installed

from marl_bgs import Game  # noqa: E402
from marl_bgs.core import classes, movement  # noqa: E402
from marl_bgs.core import tick as tick_module  # noqa: E402
from marl_bgs.core.position import starting_position  # noqa: E402
from marl_bgs.core.state import map_arrays  # noqa: E402
from marl_bgs.maps import load_map  # noqa: E402
from marl_bgs.random_play import random_actions  # noqa: E402
from tests.gen import random_position  # noqa: E402
from tests.movement_reference import (  # noqa: E402
    CONTACT,
    Solution,
    clearance,
    obstacles_of,
    overlaps_obstacle,
    path_at,
    solve,
)

FORMAT = "marl-bgs/movement-fidelity"
VERSION = 1
LOOSE = 10.0  # milli-units: 0.01 map units
GRID = 1.0  # milli-units: the engine rounds to whole thousandths
GRAZE = 2.0  # milli-units: a path this close to a surface it does not enter grazes it
SWEEP = 256  # instants per path when looking for grazes (worst cases only)


class Case(NamedTuple):
    """One ordinary-movement call: its inputs and the engine's answer."""

    source: str
    start: np.ndarray  # (10, 2) int
    stride: np.ndarray  # (10, 2) int
    blocking: np.ndarray  # (10,) bool
    end: np.ndarray  # (10,) int
    m: object  # MapArrays
    engine: np.ndarray  # (10, 2) int


def _copy(x) -> np.ndarray:
    return np.array(np.asarray(x))


def game_cases(map_ref: int, games: int, ticks: int, seed: int):
    """Every tick's movement call of `games` random games, recorded by wrapping the engine's
    `move_bodies` where `tick.step` looks it up (restored afterwards)."""
    calls: list[tuple] = []
    original = tick_module.move_bodies

    def recording(xp, start, stride, blocking, m, end):
        out = original(xp, start, stride, blocking, m, end)
        calls.append((_copy(start), _copy(stride), _copy(blocking), _copy(end), m, _copy(out)))
        return out

    rng = np.random.default_rng(seed)
    tick_module.move_bodies = recording
    try:
        for g in range(games):
            if g % 2 == 0:
                rosters = tuple(
                    [classes.CLASS_NAMES[int(c)] for c in rng.integers(0, 5, rng.integers(3, 6))]
                    for _ in range(2)
                )
                ends = ("left", "right") if rng.random() < 0.5 else ("right", "left")
                position = starting_position(map_ref, rosters, ends, horizon=ticks)
            else:
                position = random_position(rng, map_ref, horizon=ticks)
            game = Game(position)
            t = 0
            while not game.done:
                calls.clear()
                game.step(random_actions(game, rng))
                for start, stride, blocking, end, m, out in calls:
                    yield Case(f"game {g} tick {t}", start, stride, blocking, end, m, out)
                t += 1
    finally:
        tick_module.move_bodies = original


BODY_OFFSET = 500  # a wall's face lies this far out from its side
# Offsets of exactly 1000 on the grid, to start bodies touching one another.
TOUCHING = np.asarray([(1000, 0), (0, 1000), (600, 800), (800, 600), (-600, 800), (-800, 600)])


def _beside_obstacle(rng: np.random.Generator, ob) -> np.ndarray:
    """A grid point just outside a random point of an obstacle's grown boundary."""
    if ob.faces and rng.random() < 0.5:
        f = ob.faces[rng.integers(len(ob.faces))]
        base = np.asarray(f.corner) + rng.random() * np.asarray(f.side)
        off = BODY_OFFSET * np.asarray(f.normal, float) / math.hypot(*f.normal)
    else:
        d = ob.discs[rng.integers(len(ob.discs))]
        angle = rng.uniform(0, 2 * np.pi)
        base = np.asarray(d.centre, float)
        off = d.radius * np.asarray([np.cos(angle), np.sin(angle)])
    return np.round(base) + np.sign(off) * np.ceil(np.abs(off))  # rounded outward


def small_cases(m, count: int, seed: int):
    """Random crowded cases: ten bodies in a 4 x 4 window, many touching one another, an
    edge or an obstacle; blocking bodies apart; strides of every class, slow and speed."""
    obstacles = obstacles_of(m)
    walls = obstacles[4:]
    rng = np.random.default_rng(seed)
    strides = movement.STRIDES
    shield = strides.shape[0] - 1
    for c in range(count):
        blocking = rng.random(10) < 0.75
        corner = rng.uniform([500, 500], [15500, 5500])
        start = np.zeros((10, 2), np.int64)
        for i in range(10):
            for _ in range(5000):
                roll = rng.random()
                p = rng.uniform(corner, corner + 4000)
                if roll < 0.25 and i:
                    p = start[rng.integers(i)] + TOUCHING[rng.integers(len(TOUCHING))] * rng.choice(
                        [-1, 1]
                    )
                elif roll < 0.35:
                    axis = rng.integers(2)
                    p[axis] = rng.choice([500, (19500, 9500)[axis]])
                elif roll < 0.5 and walls:
                    p = _beside_obstacle(rng, walls[rng.integers(len(walls))])
                p = np.round(p).astype(np.int64)
                if overlaps_obstacle(tuple(p), obstacles):
                    continue
                others = start[:i][blocking[:i]]
                if blocking[i] and np.any(((others - p) ** 2).sum(-1) < CONTACT**2):
                    continue
                start[i] = p
                break
            else:
                raise RuntimeError("no free spot for a small case")
        speed = np.where(blocking, rng.integers(0, shield, 10), shield)
        stride = strides[speed, rng.integers(0, 9, 10)].astype(np.int32)
        e = int(rng.integers(2))
        end = np.asarray([e] * 5 + [1 - e] * 5, np.int32)
        start = start.astype(np.int32)
        out = movement.move_bodies(np, start, stride, blocking, m, end)
        yield Case(f"small {c}", start, stride, blocking, end, m, np.asarray(out))


def _marks(*paths) -> list[float]:
    return sorted({0.0, 1.0, *(float(t) for path in paths for pc in path for t in (pc.t0, pc.t1))})


def closest(a, b) -> list[tuple[float, float, bool]]:
    """(instant, gap beyond touching, inside the stretch) where two bodies' centres are
    nearest on each stretch of their paths, in closed form (float64)."""
    out = []
    marks = _marks(a, b)
    for ta, tb in zip(marks, marks[1:], strict=False):
        if tb <= ta:
            continue
        r0 = np.subtract(path_at(a, ta), path_at(b, ta))
        u = (np.subtract(path_at(a, tb), path_at(b, tb)) - r0) / (tb - ta)
        uu = float(u @ u)
        free = 0.0 if uu == 0 else -float(r0 @ u) / uu
        s = min(max(free, 0.0), tb - ta)
        out.append((ta + s, float(np.hypot(*(r0 + s * u))) - CONTACT, 0 < free < tb - ta))
    return out


def min_gap(a, b) -> float:
    """How much more than touching (CONTACT) two bodies' centres keep over the tick."""
    return min(gap for _, gap, _ in closest(a, b))


def min_clearance(path, ob) -> tuple[float, float, float]:
    """(nearest, at the start, at the end): a body's clearance from one obstacle along its
    path. Clearance from a convex shape is convex along a straight stretch, so a ternary
    search per stretch finds the minimum (float64)."""
    best = math.inf
    marks = _marks(path)
    for ta, tb in zip(marks, marks[1:], strict=False):
        lo, hi = ta, tb
        for _ in range(60):
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if clearance(path_at(path, m1), (ob,)) <= clearance(path_at(path, m2), (ob,)):
                hi = m2
            else:
                lo = m1
        best = min(best, clearance(path_at(path, (lo + hi) / 2), (ob,)))
    first, last = clearance(path_at(path, 0.0), (ob,)), clearance(path_at(path, 1.0), (ob,))
    return min(best, first, last), first, last


class Compared(NamedTuple):
    """One case solved by the reference, and the engine's errors against it (milli-units):
    of the whole movement, and of the obstacle stage alone (every body non-blocking)."""

    case: Case
    sol: Solution
    err: np.ndarray  # (10,) end positions
    bound: np.ndarray  # (10,) 1/256 of the stride's length + the grid
    legs_engine: np.ndarray  # (10, 2) the engine's ends with no body blocking
    legs_err: np.ndarray  # (10,) those against the reference's legs


def compare_case(case: Case) -> Compared:
    sol = solve(case.start, case.stride, case.blocking, case.end, case.m)
    err = np.hypot(*(case.engine.astype(np.float64) - sol.ends).T)
    bound = np.hypot(*case.stride.astype(np.float64).T) / 256 + GRID
    alone = np.zeros(len(case.blocking), bool)
    legs_engine = np.asarray(
        movement.move_bodies(np, case.start, case.stride, alone, case.m, case.end)
    )
    legs_ref = np.asarray([[float(c) for c in leg.end] for leg in sol.legs])
    legs_err = np.hypot(*(legs_engine.astype(np.float64) - legs_ref).T)
    return Compared(case, sol, err, bound, legs_engine, legs_err)


def _leg_cause(c: Compared, k: int, tags: list[str]) -> str:
    """Why body k's obstacle stage may differ (the engine's leg is beyond the bound)."""
    obstacles = obstacles_of(c.case.m)
    leg = c.sol.legs[k]
    if overlaps_obstacle(tuple(c.legs_engine[k]), obstacles):
        return "rounding into obstacles"
    if any(t.startswith(f"body {k} grazes") for t in tags):
        return "obstacle tangency (a graze within 0.002)"
    if len(leg.surfaces) > 1:
        return "slides: two surfaces at once"
    if leg.slid_along:
        return f"slides along a {leg.slid_along.rsplit(' ', 1)[0]}"
    return "first contact (or none)"


def _body_tags(c: Compared, k: int) -> list[str]:
    obstacles = obstacles_of(c.case.m)
    leg, sol = c.sol.legs[k], c.sol
    tags = []
    bad = overlaps_obstacle(tuple(c.case.start[k]), obstacles)
    if bad:
        tags.append(f"body {k} starts inside {bad}")
    inside = overlaps_obstacle(tuple(c.case.engine[k]), obstacles)
    if inside:
        tags.append(f"body {k}: engine ends inside {inside}")
    met = set(leg.surfaces) | set(leg.stopped_by) | {leg.slid_along}
    for ob in obstacles:
        if ob.name in met:
            continue
        near, first, last = min_clearance(sol.paths[k], ob)
        # A dip toward the surface, not a path along it or one that starts or ends there.
        if abs(near) <= GRAZE and min(first, last) > near + 0.01:
            tags.append(f"body {k} grazes {ob.name} at {near:+.4f}")
    if len(leg.surfaces) > 1:
        tags.append(f"body {k} meets {'+'.join(leg.surfaces)} at once")
    if leg.slid_along:
        tags.append(f"body {k} slides along {leg.slid_along}")
    if leg.stopped_by:
        tags.append(f"body {k}'s slide stopped by {'+'.join(leg.stopped_by)}")
    if sol.stops[k] is not None:
        tags.append(f"body {k} stops against a body at t={sol.stops[k]:.5f}")
    if c.legs_err[k] > c.bound[k] + 1e-9:
        tags.append(
            f"body {k}'s obstacle stage is off by {c.legs_err[k]:.3f} "
            f"(engine {c.legs_engine[k].tolist()}, reference "
            f"{[round(float(x), 3) for x in leg.end]})"
        )
    if not sol.exact[k]:
        tags.append(f"body {k}: reference partly in float64")
    return tags


def diagnose(c: Compared, i: int) -> tuple[str, list[str]]:
    """A rough cause for body i's difference (one group) and what the reference motion and
    the engine's answer show (tags), looking also at the bodies it met in either answer."""
    case, sol = c.case, c.sol
    obstacles = obstacles_of(case.m)
    met = {j for _, a, b in sol.touches for j in (a, b) if i in (a, b)} - {i}
    neighbours = {}
    if case.blocking[i]:
        for j in np.flatnonzero(case.blocking):
            if j != i and math.dist(case.engine[i], case.engine[j]) <= CONTACT + LOOSE:
                neighbours[int(j)] = min_gap(sol.paths[i], sol.paths[int(j)])
    tags = _body_tags(c, i)
    for j in sorted(met | set(neighbours)):
        tags += _body_tags(c, j)
    for j, gap in neighbours.items():
        tags.append(f"engine ends body {i} by body {j} (reference paths' gap {gap:+.4f})")
    if any("starts inside" in t for t in tags):
        return "bad input (a start inside an obstacle)", tags
    passes = []  # the engine stops i where the reference passes j, touching at most
    if case.blocking[i]:
        for j in np.flatnonzero(case.blocking):
            for t, gap, inside in closest(sol.paths[i], sol.paths[int(j)]) if j != i else ():
                early = sol.stops[i] is None or t < sol.stops[i] - 1e-9
                there = math.dist(case.engine[i], path_at(sol.paths[i], t)) <= c.bound[i] + 1
                if -1e-6 <= gap <= GRAZE and early and there and inside:
                    passes.append(gap)
                    tags.append(f"engine stops body {i} where it passes body {j} ({gap:+.4f})")
    for k in [i, *sorted(met | set(neighbours))]:
        if c.legs_err[k] > c.bound[k] + 1e-9:
            where = "" if k == i else " (of a body it meets)"
            return f"obstacle stage: {_leg_cause(c, k, tags)}{where}", tags
    if passes or (neighbours and sol.stops[i] is None):
        gap = min(passes or neighbours.values())
        if abs(gap) <= 1e-6:
            return "body stops: engine stops bodies that only touch (parallel, pass, bend)", tags
        if gap <= GRAZE:
            return "body stops: engine stops bodies that pass within 0.002", tags
        return "body stops: engine stops bodies that stay clear", tags
    for k in [i, *sorted(met)]:
        if sol.stops[k] is None:
            continue
        spot = tuple(int(round(float(x))) for x in sol.ends[k])
        if overlaps_obstacle(spot, obstacles):
            return "rounding into obstacles: the exact stop rounds into one", tags
        leg = sol.legs[k]
        anchors = (case.start[k], [float(x) for x in leg.contact])
        back = [a for a in anchors if math.dist(case.engine[k], a) <= 1.5]
        moved = back and math.dist(sol.ends[k], back[0]) > 1.5
        if moved and clearance(sol.ends[k], obstacles) < GRID:
            tags.append(
                f"engine returns body {k} to its start or first contact; its exact stop is "
                "beside an obstacle"
            )
            return "rounding into obstacles: engine returns a stop beside one", tags
    for k in [i, *sorted(met)]:
        home = np.array_equal(case.engine[k], case.start[k])
        if home and sol.stops[k] is not None and math.dist(sol.ends[k], case.start[k]) > 1.5:
            tags.append(f"engine returns body {k} to its start; it stops against a body")
            return "body stops: engine returns a stopped body to its start", tags
    if sol.stops[i] is not None:
        return "body stops: timing or chain", tags
    return "other", tags


def compare_all(cases, worst_count: int) -> dict:
    keys = ("cases", "bodies", "moving_bodies", "moving_exact", "over_loose", "over_precise")
    counts = dict.fromkeys(keys, 0)
    bodies_over = {"loose": 0, "precise": 0, "legs_loose": 0, "legs_precise": 0}
    groups: dict[str, dict[str, int]] = {}
    errors = []
    kept: list[tuple[float, Compared]] = []
    began = time.perf_counter()
    for case in cases:
        c = compare_case(case)
        counts["cases"] += 1
        counts["bodies"] += len(c.err)
        moving = np.any(case.stride != 0, axis=1)
        counts["moving_bodies"] += int(moving.sum())
        counts["moving_exact"] += int((moving & c.sol.exact).sum())
        loose, precise = c.err > LOOSE, c.err > c.bound + 1e-9
        bodies_over["loose"] += int(loose.sum())
        bodies_over["precise"] += int(precise.sum())
        bodies_over["legs_loose"] += int((c.legs_err > LOOSE).sum())
        bodies_over["legs_precise"] += int((c.legs_err > c.bound + 1e-9).sum())
        counts["over_loose"] += bool(loose.any())
        counts["over_precise"] += bool(precise.any())
        errors.append(float(c.err.max()))
        if precise.any():
            name, _ = diagnose(c, int(np.argmax(c.err - c.bound)))
            row = groups.setdefault(name, {"beyond_precise": 0, "over_0.01": 0})
            row["beyond_precise"] += 1
            row["over_0.01"] += bool(loose.any())
        kept.append((float((c.err - c.bound).max()), c))
        kept.sort(key=lambda k: -k[0])
        del kept[worst_count:]
    return {
        "cases_compared": counts["cases"],
        "bodies_compared": counts["bodies"],
        "moving_bodies": counts["moving_bodies"],
        "moving_bodies_solved_exactly": counts["moving_exact"],
        "cases_over_0.01": counts["over_loose"],
        "cases_beyond_precise_bound": counts["over_precise"],
        "bodies_over_0.01": bodies_over["loose"],
        "bodies_beyond_precise_bound": bodies_over["precise"],
        "obstacle_stage_bodies_over_0.01": bodies_over["legs_loose"],
        "obstacle_stage_bodies_beyond_precise_bound": bodies_over["legs_precise"],
        "max_error_milli": max(errors, default=0.0),
        "mean_case_max_error_milli": float(np.mean(errors)) if errors else 0.0,
        "causes_beyond_precise_bound": dict(sorted(groups.items())),
        "seconds": time.perf_counter() - began,
        "worst": [describe(c) for _, c in kept if np.any(c.err > 0)],
    }


def describe(c: Compared) -> dict:
    case, err = c.case, c.err
    off = [int(i) for i in np.flatnonzero((err > c.bound + 1e-9) | (err == err.max()))]
    return {
        "source": case.source,
        "start": case.start.tolist(),
        "stride": case.stride.tolist(),
        "blocking": case.blocking.astype(bool).tolist(),
        "end": case.end.tolist(),
        "engine": case.engine.tolist(),
        "reference": np.round(c.sol.ends, 4).tolist(),
        "error_milli": np.round(err, 4).tolist(),
        "bound_milli": np.round(c.bound, 4).tolist(),
        "bodies_off": {
            str(i): dict(zip(("group", "causes"), diagnose(c, i), strict=True)) for i in off
        },
    }


def print_report(result: dict) -> None:
    n = max(result["cases_compared"], 1)
    print(
        f"cases compared {result['cases_compared']} ({result['game_ticks']} game ticks, "
        f"{result['small_cases']} small cases); bodies {result['bodies_compared']}, "
        f"moving {result['moving_bodies']} ({result['moving_bodies_solved_exactly']} solved "
        "exactly, the rest partly in float64)"
    )
    print(
        f"cases with a body off by > 0.01: {result['cases_over_0.01']} "
        f"({100 * result['cases_over_0.01'] / n:.2f}%), bodies {result['bodies_over_0.01']}"
    )
    print(
        f"cases beyond 1/256 of the move + 0.001: {result['cases_beyond_precise_bound']} "
        f"({100 * result['cases_beyond_precise_bound'] / n:.2f}%), "
        f"bodies {result['bodies_beyond_precise_bound']}"
    )
    print(
        f"obstacle stage alone (no body blocking): bodies off by > 0.01: "
        f"{result['obstacle_stage_bodies_over_0.01']}, beyond the precise bound: "
        f"{result['obstacle_stage_bodies_beyond_precise_bound']}"
    )
    print(f"max error {result['max_error_milli']:.3f} milli")
    print("cause of each case beyond the precise bound (its worst body):")
    for name, row in sorted(result["causes_beyond_precise_bound"].items()):
        print(f"  {name}: {row['beyond_precise']} beyond bound, {row['over_0.01']} over 0.01")
    for w in result["worst"]:
        excess = max(e - b for e, b in zip(w["error_milli"], w["bound_milli"], strict=True))
        print(
            f"\n{w['source']}: max error {max(w['error_milli']):.3f} milli, "
            f"{excess:+.3f} over the precise bound"
        )
        print(f"  start     {w['start']}")
        print(f"  stride    {w['stride']}")
        print(f"  blocking  {[int(b) for b in w['blocking']]}  end {w['end']}")
        print(f"  engine    {w['engine']}")
        print(f"  reference {[[round(x, 3) for x in p] for p in w['reference']]}")
        for i, row in w["bodies_off"].items():
            k = int(i)
            print(
                f"  body {k}: engine {w['engine'][k]} reference {w['reference'][k]} "
                f"error {w['error_milli'][k]:.3f} (bound {w['bound_milli'][k]:.3f}) "
                f"[{row['group']}] {'; '.join(row['causes'])}"
            )


def engine_checkout() -> dict:
    """The commit the engine was measured at, and whether its files had changes since."""

    def git(*args: str) -> str | None:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    changed = git("status", "--porcelain", "--", "marl_bgs/core")
    return {
        "commit": git("rev-parse", "HEAD"),
        "core_changed": bool(changed) if changed is not None else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", type=int, default=47, help="map id (default 47)")
    parser.add_argument("--games", type=int, default=25)
    parser.add_argument("--ticks", type=int, default=100, help="ticks per game (its horizon)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", action="store_true", help="also random crowded cases")
    parser.add_argument("--small-cases", type=int, default=1000, help="how many with --small")
    parser.add_argument("--worst", type=int, default=10, help="worst cases to show in full")
    parser.add_argument("--out", type=Path, default=None, help="write the report as JSON")
    args = parser.parse_args()
    for name, least in (("games", 0), ("ticks", 1), ("small_cases", 0), ("worst", 0)):
        if getattr(args, name) < least:
            parser.error(f"--{name.replace('_', '-')}: must be {least} or more")
    if args.out is not None and args.out.is_dir():
        parser.error(f"--out: {args.out} is a folder, not a file")
    try:
        m = map_arrays(load_map(args.map)["obstacles"])
    except (ValueError, KeyError, FileNotFoundError) as e:
        parser.error(f"--map {args.map}: {e}")
    counted = {"game": 0, "small": 0}

    def cases():
        for case in game_cases(args.map, args.games, args.ticks, args.seed):
            counted["game"] += 1
            yield case
        if args.small:
            for case in small_cases(m, args.small_cases, args.seed + 1):
                counted["small"] += 1
                yield case

    result = {"format": FORMAT, "version": VERSION, "engine": engine_checkout()}
    result.update(map=args.map, seed=args.seed)
    result.update(games=args.games, ticks_per_game=args.ticks)
    found = compare_all(cases(), args.worst)
    result.update(game_ticks=counted["game"], small_cases=counted["small"], **found)
    result["bounds_milli"] = {"loose": LOOSE, "precise": "stride length / 256 + 1"}
    print_report(result)
    if args.out is not None:
        write_report(args.out, result)


if __name__ == "__main__":
    main()
