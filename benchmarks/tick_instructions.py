"""Instructions per NumPy tick, counted by valgrind's callgrind: deterministic, unlike time.

A shared machine moves CPU timings by 20% or more from one minute to the next; the number
of instructions a tick executes does not move at all, so it is the figure for a before/after
claim on the NumPy engine. Each checkout runs one game (map 47, random legal actions,
`Game.step`, `random_actions` included, as `engine_speed.py`) under callgrind, which counts
only inside the timed ticks (they run under `itertools.starmap`, whose C function toggles
the collection; nothing in the engine uses it), after `--warmup` ticks.

    python benchmarks/tick_instructions.py --checkout before=/tmp/old --checkout now=.

The decisions of the scripted Systems are counted the same way with `--system tdm-alpha`
(per decision, their inputs built outside the count, as `browser_loop.decision_ms`).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

_ENGINE = """
import collections, itertools, sys
import numpy as np
from marl_bgs import Game
from marl_bgs.core.position import starting_position
from marl_bgs.random_play import random_actions
rng = np.random.default_rng({seed})
game = Game(starting_position(47, horizon=10**5))
for _ in range({warmup}):
    game.step(random_actions(game, rng))
def tick():
    game.step(random_actions(game, rng))
collections.deque(itertools.starmap(tick, [()] * {ticks}), maxlen=0)
"""

_SYSTEM = """
import collections, itertools
import numpy as np
from marl_bgs import Game
from marl_bgs.core.position import starting_position
from marl_bgs.systems.numpy_play import decide, numpy_system
game = Game(starting_position(47, horizon=10**5))
system, rival = numpy_system({name!r}), numpy_system("random")
memory, rng = system.init(), np.random.default_rng({seed})
def play(counted):
    global memory
    inputs = game.team_inputs(0)
    if counted:
        mine, memory = collections.deque(
            itertools.starmap(system.act, [(inputs, memory, rng)]), maxlen=1)[0]
    else:
        mine, memory = system.act(inputs, memory, rng)
    theirs, _ = decide(game, 1, rival, None, rng)
    game.step_slots(game.slots_from_flat(np.asarray(mine, np.int32), theirs))
for _ in range({warmup}):
    play(False)
for _ in range({ticks}):
    play(True)
"""


def instructions(checkout: Path, code: str) -> int:
    """Instructions callgrind counted inside `starmap` running `code` on `checkout`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        script = Path(tmp) / "run.py"
        script.write_text(code)
        env = {"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"}
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             "--toggle-collect=starmap_next", sys.executable, str(script)],
            env=env, cwd=checkout, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"{checkout}: callgrind failed:\n{done.stderr[-3000:]}")
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise SystemExit(f"{checkout}: no instruction count in:\n{done.stderr[-2000:]}")
        return int(found.group(1))


def _checkout(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not (Path(path) / "marl_bgs").is_dir():
        raise argparse.ArgumentTypeError(f"--checkout: expected NAME=PATH to a checkout: {text!r}")
    return name, Path(path).resolve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=_checkout, action="append", required=True)
    parser.add_argument("--ticks", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--system", default=None, help="count a scripted System's decisions")
    args = parser.parse_args()
    if args.system is None:
        code = _ENGINE.format(seed=args.seed, warmup=args.warmup, ticks=args.ticks)
        unit = "tick"
    else:
        code = _SYSTEM.format(name=args.system, seed=args.seed, warmup=args.warmup,
                              ticks=args.ticks)  # fmt: skip
        unit = f"{args.system} decision"
    base = None
    for name, path in args.checkout:
        per = instructions(path, code) / args.ticks
        ratio = "" if base is None else f"  ({per / base:.3f} of {args.checkout[0][0]})"
        base = per if base is None else base
        print(f"{name:>12}  {per / 1e6:8.3f} M instructions per {unit}{ratio}", flush=True)


if __name__ == "__main__":
    main()
