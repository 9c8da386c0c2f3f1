"""The documented example: the prompt and request of Team A's Mage at tick 12 of a game
between TDM-Alpha and TDM-Beta on test map 47, played on the NumPy engine (no JAX, no
randomness). The site page and the golden test both call these functions, so the prompt
shown on the page is the prompt the code writes.

    python -m marl_bgs.llm.example            # print the golden prompt
    python -m marl_bgs.llm.example --write    # rewrite tests/golden/llm_actor_text_v1.txt
"""

from __future__ import annotations

import argparse
import json
from functools import cache
from pathlib import Path

import numpy as np

from ..systems.base import TeamInputs

EXAMPLE_MAP = 47
EXAMPLE_TICK = 12
EXAMPLE_AGENT = 0  # Team A's Mage
GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden" / "llm_actor_text_v1.txt"


@cache
def example_inputs() -> TeamInputs:
    """Team A's inputs at the start of tick `EXAMPLE_TICK` of TDM-Alpha vs TDM-Beta."""
    from ..core.position import starting_position
    from ..game import Game
    from ..systems.numpy_play import numpy_system, play_tick

    game = Game(starting_position(EXAMPLE_MAP), backend="numpy")
    systems = (numpy_system("tdm-alpha"), numpy_system("tdm-beta"))
    memories = [s.init() for s in systems]
    rng = np.random.default_rng(0)  # unused: both are deterministic
    for _ in range(EXAMPLE_TICK):
        play_tick(game, systems, memories, rng)
    return game.team_inputs(0)


def golden_prompt() -> str:
    """The example agent's `actor-text-v1` prompt."""
    from .view import format_actor_view

    return format_actor_view(example_inputs(), EXAMPLE_AGENT)


def example_request(model: str = "MODEL") -> dict:
    """The request body `llm_system` sends for the example agent, with default settings."""
    from .system import _Asker, make_settings
    from .view import legal_menu

    asker = _Asker(make_settings(model, "http://127.0.0.1:8001/v1"))
    text = golden_prompt()
    return asker.body(asker.messages(text, ()), legal_menu(example_inputs(), EXAMPLE_AGENT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {GOLDEN.name}")
    parser.add_argument("--request", action="store_true", help="print the request body")
    args = parser.parse_args(argv)
    if args.write:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(golden_prompt(), encoding="utf-8")
        print(f"wrote {GOLDEN}")
    elif args.request:
        print(json.dumps(example_request(), indent=2))
    else:
        print(golden_prompt(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
