"""The "How a Match Works" page: every rule in plain words, each shown by the engine.

Each section builds a small position, plays it on the NumPy engine and draws the result.
The words are the template `site_src/_templates/rules/how-a-match-works.md.j2`; the numbers
in them come from the class table, the engine's constants and the games played here, and the
sentences under each picture are the engine's own events, so the page follows the code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import classes
from ..core import state as arena_constants
from ..core.position import starting_position
from ..core.sight import compute_sight
from ..core.state import TEAM_SIZE
from ..game import Game
from . import templates
from .clips import show
from .scenes import (
    EAST,
    NORTH,
    NORTH_EAST,
    STAY,
    WEST,
    Scene,
    agent,
    ally,
    at,
    enemy,
    health,
    position,
    render,
)

TEMPLATE = "rules/how-a-match-works.md.j2"
CL = {c.name: c for c in classes.CLASSES}
Section = dict[str, Any]  # what one section's words need: its numbers and its film


def _wall(x: float, y: float, w: float, h: float, theta: float = 0.0) -> dict:
    return {"kind": "wall", "x": x, "y": y, "width": w, "height": h, "theta": theta}


def _pillar(x: float, y: float, r: float) -> dict:
    return {"kind": "pillar", "x": x, "y": y, "radius": r}


def arena() -> Section:
    played, film = render(Scene("arena", starting_position(47), [], width_px=640))
    return {"depth": float(played.states[0].red_zone_depth) / 1000, "film": film}


def simultaneous() -> Section:
    pos = position(
        [agent("mage", 8, 5, health=5)], [agent("rogue", 9.5, 5, health=10)], obstacles=[]
    )
    scene = Scene(
        "simultaneous", pos, [{0: (STAY, enemy(0), 0), TEAM_SIZE: (STAY, enemy(0), 0)}],
        view=(6, 3.5, 11.5, 6.5),
    )  # fmt: skip
    _, film = show(scene, "One tick, all at once")
    return {"film": film}


def legality() -> Section:
    mage = CL["mage"]
    far = mage.basic_range + 0.5
    pos = position([agent("mage", 8, 5)], [agent("hunter", 8 + far, 5)], obstacles=[])
    scene = Scene(
        "legality", pos, [{0: (STAY, enemy(0), 0)}], view=(4.5, 1.5, 13, 8.5),
        ranges=[(0, mage.basic_range, f"{mage.basic_name} range")],
    )  # fmt: skip
    played, film = show(scene, "Legal actions: an attack out of range")
    accepted = [int(v) for v in played.infos[0].actions[0]]
    return {"far": far, "accepted": accepted, "film": film}


def summed() -> Section:
    pos = position(
        [agent("mage", 8, 5, health=10), agent("priest", 6, 5)],
        [agent("mage", 10.5, 5)],
        obstacles=[],
    )
    scene = Scene(
        "summed", pos, [{1: (STAY, ally(0), 0), TEAM_SIZE: (STAY, enemy(0), 0)}],
        view=(4.5, 3, 12, 7),
    )  # fmt: skip
    played, film = show(scene, "A heal in the same tick saves the Mage")
    pos2 = position(
        [agent("warrior", 8, 5, health=CL["warrior"].max_health - 10), agent("priest", 6, 5)],
        [agent("hunter", 15, 5)],
        obstacles=[],
    )
    excess_scene = Scene(
        "excess", pos2, [{1: (STAY, ally(0), 1)}], view=(4.5, 3, 12, 7),
    )  # fmt: skip
    _, film2 = show(excess_scene, "Excess healing")
    return {
        "before": health(played, 0, 0),
        "after": health(played, 1, 0),
        "film": film,
        "excess_film": film2,
    }


def auras() -> Section:
    pos = position(
        [agent("hunter", 8, 6), agent("mage", 8, 7.5), agent("hunter", 8, 2.5)],
        [agent("rogue", 11, 6), agent("warrior", 11, 7.5), agent("rogue", 11, 2.5)],
        obstacles=[],
    )
    scene = Scene(
        "auras", pos, [{0: (STAY, enemy(0), 0), 2: (STAY, enemy(2), 0)}],
        view=(5.5, 1, 13.5, 9),
    )  # fmt: skip
    played, film = show(scene, "Auras: Mage and Warrior")
    boosted = int(played.infos[0].damage[0, TEAM_SIZE]) / 1000
    plain = int(played.infos[0].damage[2, TEAM_SIZE + 2]) / 1000
    return {"boosted": boosted, "plain": plain, "film": film}


def burst() -> Section:
    pos = position([agent("mage", 8, 5)], [agent("hunter", 10.5, 5)], obstacles=[])
    scene = Scene(
        "burst", pos, [{0: (STAY, 0, 1)}, {0: (STAY, enemy(0), 0)}], view=(6, 3, 12.5, 7),
    )  # fmt: skip
    _, film = show(scene, "Burst: damage from the next tick")
    return {"film": film}


def charge() -> Section:
    warrior = CL["warrior"]
    pos = position(
        [agent("warrior", 3, 5)], [agent("mage", 8.5, 5)], obstacles=[_pillar(5.5, 5.8, 0.4)]
    )
    scene = Scene(
        "charge", pos, [{0: (STAY, enemy(0), 1)}], view=(1, 2, 11, 8),
        ranges=[(0, warrior.ultimate_range, f"{warrior.ultimate_name} range")],
    )  # fmt: skip
    played, film = show(scene, "Charge past a pillar")
    return {"landed": at(played, 1, 0), "film": film}


def sliding() -> Section:
    pos = position(
        [agent("mage", 7, 5.25)], [agent("mage", 16, 5)], obstacles=[_wall(8, 6, 4, 0.5)]
    )
    scene = Scene("slide", pos, [{0: (NORTH_EAST, 0, 0)}], view=(4.5, 3, 11.5, 7.5))
    played, film = show(scene, "Sliding along a wall")
    return {"start": at(played, 0, 0), "end": at(played, 1, 0), "film": film}


def bodies() -> Section:
    pos = position(
        [agent("warrior", 8, 5), agent("mage", 8, 7.5)], [agent("warrior", 10.5, 5)], obstacles=[]
    )
    scene = Scene(
        "bodies", pos, [{0: (EAST, 0, 0), 1: (EAST, 0, 0), TEAM_SIZE: (WEST, 0, 0)}],
        view=(6, 3, 13, 9),
    )  # fmt: skip
    played, film = show(scene, "Body blocking")
    return {"a": at(played, 1, 0), "b": at(played, 1, TEAM_SIZE), "film": film}


def statuses() -> Section:
    hunter = CL["hunter"]
    pos = position([agent("hunter", 6, 5)], [agent("rogue", 6 + hunter.basic_range, 5)])
    scene = Scene(
        "statuses", pos,
        [{0: (STAY, enemy(0), 0), TEAM_SIZE: (EAST, 0, 0)}, {TEAM_SIZE: (EAST, 0, 0)}],
        view=(4, 3, 14.5, 7),
    )  # fmt: skip
    played, film = show(scene, "A slow acts on the next tick")
    d1 = at(played, 1, TEAM_SIZE)[0] - at(played, 0, TEAM_SIZE)[0]
    d2 = at(played, 2, TEAM_SIZE)[0] - at(played, 1, TEAM_SIZE)[0]
    return {"first_step": round(d1, 3), "second_step": round(d2, 3), "film": film}


def trap() -> Section:
    hunter = CL["hunter"]
    pos = position(
        [agent("hunter", 6, 5), agent("mage", 7, 7)],
        [agent("warrior", 6 + hunter.ultimate_range, 5)],
    )
    b = TEAM_SIZE
    scene = Scene(
        "trap", pos,
        [
            {0: (STAY, enemy(0), 1), b: (NORTH, 0, 0)},
            {1: (STAY, enemy(0), 0), b: (NORTH, 0, 0)},
            {b: (NORTH, 0, 0)},
        ],
        view=(4, 3, 12, 9.5),
    )  # fmt: skip
    _, film = show(scene, "Freezing Trap, broken by damage")
    return {"film": film}


def points() -> Section:
    pos = position(
        [agent("rogue", 16.5, 5), agent("rogue", 11, 2)],
        [agent("mage", 17.5, 5, health=5), agent("priest", 12, 2, health=5)],
    )
    scene = Scene(
        "points", pos, [{0: (STAY, enemy(0), 0), 1: (STAY, enemy(1), 0)}], view=(9, 0, 20, 7.5),
    )  # fmt: skip
    played, film = show(scene, "Red Zone deaths count double")
    return {
        "depth": float(played.states[0].red_zone_depth) / 1000,
        "score": [int(v) for v in played.states[1].score],
        "film": film,
    }


def ending() -> Section:
    pos = position(
        [agent("mage", 8, 5)], [agent("hunter", 10.5, 5, health=5)], score=[19, 7], tick=120
    )
    scene = Scene("win", pos, [{0: (STAY, enemy(0), 0)}], view=(6, 3, 12.5, 7))
    played, film = show(scene, "Reaching the winning score")
    horizon = int(played.states[0].horizon)
    pos2 = position([agent("mage", 4, 5)], [agent("hunter", 16, 5)], score=[6, 6], tick=horizon - 1)
    _, film2 = show(Scene("horizon", pos2, [{}], width_px=420), "The horizon: a draw")
    win = int(played.states[0].winning_score)
    return {"win": win, "horizon": horizon, "film": film, "horizon_film": film2}


def respawn() -> Section:
    b = TEAM_SIZE
    pos = position([agent("rogue", 11, 5)], [agent("mage", 12, 5, health=5)], wave_clocks=(5, 2))
    scene = Scene(
        "respawn", pos,
        [{0: (STAY, enemy(0), 0)}, {}, {b: (WEST, 0, 0)}],
        view=(9, 0, 20, 7), width_px=260,
    )  # fmt: skip
    _, film = show(scene, "Respawn wave and spawn shield")
    return {"film": film}


def resting() -> Section:
    pos = position(
        [
            agent(
                "mage",
                3,
                7,
                health=40,
                out_of_combat=classes.CLASSES[classes.MAGE].out_of_combat_delay,
            ),
            agent(
                "rogue",
                3,
                5,
                health=50,
                out_of_combat=classes.CLASSES[classes.ROGUE].out_of_combat_delay,
            ),
            agent(
                "warrior",
                3,
                3,
                health=100,
                out_of_combat=classes.CLASSES[classes.ROGUE].out_of_combat_delay,
            ),
        ],
        [agent("hunter", 17, 5)],
    )
    scene = Scene("rest", pos, [{}], view=(0.5, 1.5, 7, 8.5), width_px=260)
    _, film = show(scene, "Out-of-combat healing")
    delays = {c.title: c.out_of_combat_delay for c in classes.CLASSES}
    slower = [t for t, d in delays.items() if d != delays["Mage"]]
    return {"slower": slower, "slower_delay": delays[slower[0]], "film": film}


def sight() -> Section:
    pos = position(
        [agent("mage", 5, 5), agent("priest", 2, 8)],
        [agent("hunter", 10, 5), agent("rogue", 9, 8), agent("warrior", 12, 1)],
        obstacles=[_wall(8, 5, 0.5, 3)],
    )
    game = Game(pos)
    seen = compute_sight(np, game.state, game.map_arrays)
    names = {TEAM_SIZE + k: f"b{k}" for k in range(3)}
    own = [n for s, n in names.items() if seen.own_sight[0, s]]
    team = [n for s, n in names.items() if seen.team_sees[0, s]]
    scene = Scene("sight", pos, [], view=(0, 0, 13, 10), sight_of=0, width_px=520)
    _, film = show(scene, "Sight and cover (seen by a0)", view="a0")
    return {"own": own, "team": team, "film": film}


# In page order (the clips are collected in this order too).
SECTIONS: tuple[Callable[[], Section], ...] = (
    arena, simultaneous, legality, summed, auras, burst, charge, sliding, bodies, statuses,
    trap, points, ending, respawn, resting, sight,
)  # fmt: skip


def rules_page() -> str:
    """The whole page as Markdown."""
    sections = {section.__name__: section() for section in SECTIONS}
    return templates.render(TEMPLATE, CL=CL, C=classes, A=arena_constants, **sections)
