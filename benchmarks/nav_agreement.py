"""How much of TDM-Alpha's walking the navigator's inputs explain (issue 43).

A student imitating TDM-Alpha learns its targets (agreement 0.97) but not its moves (0.69).
This measures, on Alpha's own games against Beta and Gamma (NumPy engine, training maps
only), how often Alpha's chosen move is the one each candidate input would pick:

- `toward`: the legal move most nearly along `navigator.nav_inputs`' offset to the waypoint;
- `alpha_memory`: the same from Alpha's own memory (which also holds the walls it learned by
  bumping into them), to see what the navigator's separate memory loses;
- `steer`: `pathing.steer` on the navigator's way, which also marks moves into a teammate's
  body (but keeps no memory of moves that failed);
- `steering`: the best of `navigator.nav_steering`'s nine scores (stay left out), with the
  memory of failed moves and giving way kept by `nav_moved` from the moves Alpha took;
  `steering_all_decisions`: the best of all nine, stay included, over all decisions (Alpha's
  ranged agents stand and shoot, a choice these scores leave to the policy).

Counted over decisions where the agent is alive, has a move besides "stay", and Alpha moved
(`moving`); `stays` is the share of all such decisions where Alpha stood still.

    .venv/bin/python benchmarks/nav_agreement.py --maps 3,11,19,27,35 --ticks 150 --out nav.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from marl_bgs import Game
from marl_bgs.core.actions import decode
from marl_bgs.core.position import starting_position
from marl_bgs.maps import load_map, split_of
from marl_bgs.systems import percept
from marl_bgs.systems.navigator import (
    alpha_heading,
    nav_inputs,
    nav_memory,
    nav_moved,
    nav_steering,
)
from marl_bgs.systems.numpy_play import numpy_system
from marl_bgs.systems.pathing import steer
from marl_bgs.systems.percept import MOVE_STEPS
from marl_bgs.systems.tactics import legal_moves, speeds


def best_move(direction: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """The legal move (not "stay") pointing most nearly along each agent's direction."""
    score = np.where(ok, (np.asarray(MOVE_STEPS)[None] @ direction[:, :, None])[..., 0], -9.0)
    score[:, 0] = -9.0
    return score.argmax(1)


def measure(maps: list[int], ticks: int) -> dict:
    counts = dict(decisions=0, moving=0, stays=0, toward=0, alpha_memory=0, steer=0, steering=0,
                  steering_all=0)  # fmt: skip
    rng = np.random.default_rng(0)
    alpha = numpy_system("tdm-alpha")
    for map_id in maps:
        for opponent in ("tdm-beta", "tdm-gamma"):
            game = Game(starting_position({"obstacles": load_map(map_id)["obstacles"]}))
            other = numpy_system(opponent)
            memories, nav, steering = [alpha.init(), other.init()], nav_memory(), nav_memory()
            for _ in range(ticks):
                inputs = game.team_inputs(0)
                seen = percept.read(np, inputs)
                way, _, _, nav_after = alpha_heading(np, inputs, seen, nav)
                own_way, _, _, _ = alpha_heading(np, inputs, seen, memories[0])
                toward, _ = nav_inputs(np, inputs, nav)
                moves, steering = nav_steering(np, inputs, steering)
                nav = nav_after
                acts, memories[0] = alpha.act(inputs, memories[0], rng)
                acts_b, memories[1] = other.act(game.team_inputs(1), memories[1], rng)
                move = np.asarray(decode(np.asarray(acts))[0])
                ok = np.asarray(legal_moves(inputs.avail))
                live = inputs.alive & inputs.present & (ok.sum(1) > 1)
                moved = live & (move != 0)
                scores = steer(np, way - seen.my_xy, ok, np.full(5, -1.0, np.float32),
                               seen.my_xy, speeds(np, seen.cls), nav_after)  # fmt: skip
                scores[:, 0] = -1e9
                counts["decisions"] += int(live.sum())
                counts["stays"] += int((live & (move == 0)).sum())
                counts["moving"] += int(moved.sum())
                counts["toward"] += int(((best_move(toward[:, :2], ok) == move) & moved).sum())
                counts["alpha_memory"] += int(
                    ((best_move(own_way - seen.my_xy, ok) == move) & moved).sum()
                )
                counts["steer"] += int(((scores.argmax(1) == move) & moved).sum())
                no_stay = np.where(ok, moves, -9.0)
                no_stay[:, 0] = -9.0
                counts["steering"] += int(((no_stay.argmax(1) == move) & moved).sum())
                best = np.where(ok, moves, -9.0).argmax(1)
                counts["steering_all"] += int(((best == move) & live).sum())
                steering = nav_moved(np, inputs, steering, move)
                game.step_slots(game.slots_from_flat(np.int32(acts), np.int32(acts_b)))
                if game.done:
                    break
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", default="3,11,19,27,35", help="training maps (0-41)")
    parser.add_argument("--ticks", type=int, default=150, help="ticks per game at most")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    maps = [int(m) for m in args.maps.split(",")]
    for m in maps:
        if split_of(m) not in ("curriculum", "training"):
            parser.error(f"--maps: map {m} is a {split_of(m)} map; use training maps only")
    start, cpu = time.perf_counter(), time.process_time()
    counts = measure(maps, args.ticks)
    moving = max(counts["moving"], 1)
    figures = {
        "maps": maps,
        "ticks": args.ticks,
        **counts,
        "stay_share": counts["stays"] / max(counts["decisions"], 1),
        "toward_agreement": counts["toward"] / moving,
        "alpha_memory_agreement": counts["alpha_memory"] / moving,
        "steer_agreement": counts["steer"] / moving,
        "steering_agreement": counts["steering"] / moving,
        "steering_all_decisions": counts["steering_all"] / max(counts["decisions"], 1),
        "wall_s": time.perf_counter() - start,
        "cpu_s": time.process_time() - cpu,
    }
    keys = ("stay_share", "toward_agreement", "alpha_memory_agreement", "steer_agreement",
            "steering_agreement", "steering_all_decisions")  # fmt: skip
    for key in keys:
        print(f"{key:24s} {figures[key]:.3f}")
    print(f"{counts['moving']} moving decisions of {counts['decisions']}; "
          f"{figures['wall_s']:.0f} s wall, {figures['cpu_s']:.0f} s CPU")  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
