"""The LLM API's own cost per tick, against a fake server on loopback (no model time).

For batches of 1, 2 and 8 games (five LLM agents each, positions from ticks 1..T of
TDM-Alpha against TDM-Beta on map 47), it times, per tick:

- `view`: the menus, `actor-text-v1` prompts and request bodies only (no HTTP);
- `tick`: a whole `llm_system` act: prompts, concurrent requests (16 in flight) to the fake
  server, reply checks and counts.

The fake server runs in a child process, so the CPU time reported (this process's, all
threads) is the client's alone; wall time includes the server's answers on loopback.

    python benchmarks/llm_overhead.py --ticks 40
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from marl_bgs.core.position import starting_position
from marl_bgs.game import Game
from marl_bgs.llm.system import _Asker, llm_system, make_settings
from marl_bgs.llm.view import format_actor_view, legal_menu
from marl_bgs.systems.base import TeamInputs
from marl_bgs.systems.numpy_play import numpy_system, play_tick


def tick_inputs(ticks: int) -> list[TeamInputs]:
    game = Game(starting_position(47), backend="numpy")
    systems = (numpy_system("tdm-alpha"), numpy_system("tdm-beta"))
    memories = [s.init() for s in systems]
    rng = np.random.default_rng(0)
    out = []
    for _ in range(ticks):
        play_tick(game, systems, memories, rng)
        out.append(game.team_inputs(0))
    return out


def batched(one: TeamInputs, games: int) -> TeamInputs:
    out = TeamInputs(*(np.stack([np.asarray(x)] * games) for x in one))
    return out._replace(new_game=np.zeros(games, bool))


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def view_only(inputs: TeamInputs, asker: _Asker) -> int:
    games = inputs.obs.shape[0]
    chars = 0
    for g in range(games):
        one = TeamInputs(*(np.asarray(x)[g] for x in inputs))
        for k in range(5):
            menu = legal_menu(one, k)
            if menu.choices > 1:
                text = format_actor_view(one, k)
                body = asker.body(asker.messages(text, ()), menu)
                chars += len(json.dumps(body, separators=(",", ":")))
    return chars


def start_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "marl_bgs.llm.fake", "--script", "legal"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise RuntimeError(f"the fake server did not start (said {url!r})")
    return proc, url


def stop_server(proc: subprocess.Popen) -> None:
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def measure(url: str, ticks: list[TeamInputs], games: int) -> dict:
    asker = _Asker(make_settings("fake", url))
    system = llm_system("fake", url)
    memory = system.init(None)
    views, acts = [], []
    for one in ticks:
        inputs = batched(one, games)
        views.append(timed(lambda inputs=inputs: view_only(inputs, asker)))
        acts.append(timed(lambda inputs=inputs: system.act(None, inputs, memory)))
    report = system.report(memory)
    requests = sum(r["requests"] for game in report for r in game)
    legal = sum(r["legal"] for game in report for r in game)
    n = len(ticks)

    def ms(rows, i):
        return 1000 * statistics.median(r[i] for r in rows)

    return {
        "games": games,
        "ticks": n,
        "requests": requests,
        "legal": legal,
        "requests_per_tick": requests / n,
        "view_wall_ms_per_tick": ms(views, 0),
        "view_cpu_ms_per_tick": ms(views, 1),
        "tick_wall_ms_per_tick": ms(acts, 0),
        "tick_cpu_ms_per_tick": ms(acts, 1),
        "tick_wall_ms_per_request": 1000 * sum(a[0] for a in acts) / max(requests, 1),
        "tick_cpu_ms_per_request": 1000 * sum(a[1] for a in acts) / max(requests, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=40)
    parser.add_argument("--games", type=int, nargs="+", default=[1, 2, 8])
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "llm_overhead.json"
    )
    args = parser.parse_args()
    ticks = tick_inputs(args.ticks)
    proc, url = start_server()
    try:
        rows = [measure(url, ticks, g) for g in args.games]
    finally:
        stop_server(proc)
    print(
        f"{'games':>5} {'req/tick':>8} {'view wall':>10} {'view cpu':>9} "
        f"{'tick wall':>10} {'tick cpu':>9} {'wall/req':>9} {'cpu/req':>8}   (ms, medians)"
    )
    for r in rows:
        print(
            f"{r['games']:>5} {r['requests_per_tick']:>8.1f} {r['view_wall_ms_per_tick']:>10.2f} "
            f"{r['view_cpu_ms_per_tick']:>9.2f} {r['tick_wall_ms_per_tick']:>10.2f} "
            f"{r['tick_cpu_ms_per_tick']:>9.2f} {r['tick_wall_ms_per_request']:>9.2f} "
            f"{r['tick_cpu_ms_per_request']:>8.2f}"
        )
    import platform

    import marl_bgs

    doc = {
        "benchmark": "llm_overhead",
        "package": marl_bgs.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "server": "marl_bgs.llm.fake in a child process, behaviour 'legal', no delay",
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
