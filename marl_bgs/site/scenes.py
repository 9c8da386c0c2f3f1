"""Small authored games played on the NumPy engine, drawn as film strips for the site.

A `Scene` is a position and the actions of a few ticks. `play` runs it through `Game` and
returns every state, tick record and event list; `film` draws the start and then one picture
per tick, and writes the events as sentences. Nothing here decides a rule: the engine does,
and the pictures show its answer.

Tick numbers, everywhere on the site: ticks count from 1. "Tick n" is the n-th step of the
game; the picture (or viewer frame) labelled "tick n" shows the arena after it, with what
happened during it drawn over it (combat arrows from where the agents stood when the tick
began, a fallen agent where it fell), and the event list's line "tick n" lists those events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

import numpy as np

from ..core import classes
from ..core.events import tick_events
from ..core.geometry import sight_blocked
from ..core.position import POSITION_FORMAT, POSITION_VERSION
from ..core.state import ARENA_HEIGHT, ARENA_WIDTH, MILLI, NUM_SLOTS, TEAM_SIZE, State
from ..core.tick import TickInfo
from ..game import Game
from .draw import PALETTE, Marks, draw

Agent = dict[str, Any]
Actions = dict[int, tuple[int, int, int]]  # slot -> (move, target code, ultimate)

STAY, NORTH, SOUTH, EAST, WEST, NORTH_EAST, NORTH_WEST, SOUTH_EAST, SOUTH_WEST = range(9)


def ally(k: int) -> int:
    """Target code of the actor's own slot k."""
    return 1 + k


def enemy(k: int) -> int:
    """Target code of the enemy team's slot k."""
    return 1 + TEAM_SIZE + k


def agent(cls: str, x: float, y: float, **extra: Any) -> Agent:
    return {"class": cls, "x": x, "y": y, **extra}


def position(
    team_a: list[Agent],
    team_b: list[Agent],
    obstacles: list[dict] | None = None,
    map_id: int | None = None,
    **top: Any,
) -> dict:
    """A position with team a on the left end and team b on the right end."""
    waves = top.pop("wave_clocks", (5, 5))
    return {
        "format": POSITION_FORMAT,
        "version": POSITION_VERSION,
        "map": map_id if map_id is not None else {"obstacles": obstacles or []},
        "tick": top.pop("tick", 0),
        "horizon": top.pop("horizon", 300),
        "winning_score": top.pop("winning_score", 20),
        "score": top.pop("score", [0, 0]),
        "teams": [
            {"spawn_end": "left", "wave_clock": waves[0], "agents": team_a},
            {"spawn_end": "right", "wave_clock": waves[1], "agents": team_b},
        ],
        **top,
    }


@dataclass
class Scene:
    """An authored position, the actions of each tick, and how to frame the pictures."""

    key: str
    position: dict
    ticks: list[Actions]
    view: tuple[float, float, float, float] = (0.0, 0.0, ARENA_WIDTH, ARENA_HEIGHT)
    ranges: list[tuple[int, float, str]] = field(default_factory=list)
    sight_of: int | None = None
    width_px: int = 300


@dataclass
class Played:
    """Everything a scene produced on the engine."""

    scene: Scene
    obstacles: list[dict]
    map_arrays: Any
    states: list[State]
    infos: list[TickInfo]
    events: list[list[dict]]


def play(scene: Scene) -> Played:
    game = Game(scene.position, backend="numpy")
    states, infos, events = [game.state], [], []
    for actions in scene.ticks:
        slots = np.zeros((NUM_SLOTS, 3), np.int32)
        for slot, act in actions.items():
            slots[slot] = act
        before = game.state
        info = game.step_slots(slots)
        states.append(game.state)
        infos.append(info)
        events.append(tick_events(before, info, game.state))
    return Played(scene, list(game.obstacles), game.map_arrays, states, infos, events)


def hidden_cells(
    state: State, slot: int, map_arrays: Any, cell: float = 0.2
) -> list[tuple[float, float]]:
    """Centres of grid cells inside `slot`'s sight radius whose sight line is blocked."""
    r = float(classes.SIGHT[int(state.cls[slot])])
    eye = np.asarray(state.pos[slot], np.int64)
    xs = np.arange(cell / 2, ARENA_WIDTH, cell)
    ys = np.arange(cell / 2, ARENA_HEIGHT, cell)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx.ravel(), gy.ravel()], -1)
    milli = np.round(pts * MILLI).astype(np.int32)
    inside = ((milli - eye) ** 2).sum(-1) <= int(classes.SIGHT_SQ[int(state.cls[slot])])
    inside &= np.hypot(*(pts - eye / MILLI).T) <= r
    cand = milli[inside]
    blocked = sight_blocked(np, np.broadcast_to(eye.astype(np.int32), cand.shape), cand, map_arrays)
    return [tuple(p) for p in pts[inside][blocked]]


def tick_marks(played: Played, t: int) -> Marks:
    """Overlays of what happened during tick t + 1 (the t-th 0-based step), drawn over the
    state after it: combat arrows start where the agents stood when the tick began."""
    info, before, after = played.infos[t], played.states[t], played.states[t + 1]
    marks = Marks(ranges=list(played.scene.ranges))
    marks.origin = np.asarray(before.pos, np.float64) / MILLI
    dmg, heal = np.asarray(info.damage), np.asarray(info.healing)
    for src, dst in np.argwhere(dmg > 0):
        marks.damage.append((int(src), int(dst), dmg[src, dst] / MILLI))
    for src, dst in np.argwhere(heal > 0):
        marks.heal.append((int(src), int(dst), heal[src, dst] / MILLI))
    for ev in played.events[t]:
        if ev["kind"] == "excess_heal":
            marks.excess[_slot(ev["target"])] = float(ev["amount"])
    for i in range(NUM_SLOTS):
        start = tuple(np.asarray(before.pos[i]) / MILLI)
        landed = tuple(np.asarray(info.charged_to[i]) / MILLI)
        end = tuple(np.asarray(after.pos[i]) / MILLI)
        if landed != start:
            marks.charge.append((start, landed))
        moved_alive = before.alive[i] and after.alive[i] and end != landed
        if moved_alive:
            marks.trails[i] = [landed, end]
    return marks


def _slot(name: str) -> int:
    return "ab".index(name[0]) * TEAM_SIZE + int(name[1:])


def film(played: Played) -> str:
    """A strip of pictures: the start, then the arena after each tick with what happened
    during it, captioned with the tick numbers the event list uses."""
    scene = played.scene
    frames = []
    n = len(played.infos)
    for t, state in enumerate(played.states):
        if t == 0:
            marks = Marks(ranges=list(scene.ranges))
            caption = "start" if n else f"the position (tick {int(state.tick)})"
        else:
            marks = tick_marks(played, t - 1)
            caption = f"tick {int(state.tick)}"
        if scene.sight_of is not None:
            marks.sight = scene.sight_of
            marks.hidden_cells = hidden_cells(state, scene.sight_of, played.map_arrays)
            marks.cell = 0.2
        svg = draw(
            state, played.obstacles, scene.view, marks, title=caption, width_px=scene.width_px
        )
        frames.append(
            f'<figure class="bgs-frame" data-tick="{int(state.tick)}">{svg}'
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        )
    return f'<div class="bgs-film" data-scene="{escape(scene.key)}">{"".join(frames)}</div>'


def _who(state: State, name: str) -> str:
    slot = _slot(name)
    return f"{name} ({classes.CLASSES[int(state.cls[slot])].title})"


def _num(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def sentence(state: State, ev: dict, excess: float | None = None) -> str:
    """One event as plain words, naming agents with their class. `excess`: the part of this
    heal above the target's maximum health, when it is the only heal on the target."""
    k = ev["kind"]
    w = lambda key: _who(state, ev[key])  # noqa: E731
    if k == "damage":
        return (
            f"{w('source')} hits {w('target')} with {ev['ability']} for {_num(ev['amount'])} damage"
        )
    if k == "heal":
        said = f"{w('source')} heals {w('target')} with {ev['ability']} for {_num(ev['amount'])}"
        if excess:
            useful = max(float(ev["amount"]) - excess, 0.0)
            said += f": {_num(useful)} useful, {_num(excess)} excess (above max health)"
        return said
    if k == "excess_heal":
        return f"{_num(ev['amount'])} of the healing on {w('target')} is excess (above max health)"
    if k == "effect":
        code = PALETTE["effects"].get(ev["effect"], {}).get("code", "")
        what = EFFECT_WORDS.get(ev["effect"], ev["effect"].replace("_", " "))
        label = f" ({code})" if code else ""
        return f"{w('source')} puts {what}{label} on {w('target')} for {_ticks(ev['ticks'])}"
    if k == "trap_broken":
        return f"damage breaks the Trap on {w('target')}"
    if k == "charge":
        return f"{w('source')} charges from ({_num(ev['from'][0])}, {_num(ev['from'][1])}) to ({_num(ev['to'][0])}, {_num(ev['to'][1])})"
    if k == "death":
        zone = ", in its own Red Zone" if ev["red_zone"] else ""
        return f"{w('target')} dies{zone}: {_points(ev['points'])} to the other team"
    if k == "shield_cleared":
        return f"{w('target')} is moved clear of the bodies as its shield ends"
    if k == "respawn":
        return f"{w('target')} respawns at ({_num(ev['at'][0])}, {_num(ev['at'][1])}) with a spawn shield"
    if k == "rest_heal":
        return f"{w('target')} recovers {_num(ev['amount'])} health out of combat"
    if k == "game_end":
        result = {"a": "team a wins", "b": "team b wins", "draw": "a draw"}[ev["result"]]
        return f"the game ends after tick {ev['tick']}: {result}, {ev['score'][0]}-{ev['score'][1]}"
    return escape(str(ev))


def _ticks(n: int) -> str:
    return f"{n} tick" if n == 1 else f"{n} ticks"


def tick_sentences(state: State, events: list[dict]) -> list[str]:
    """A tick's events as sentences; a heal's excess is folded into it when it is the only
    heal on its target (else the excess keeps its own sentence)."""
    heals: dict[str, int] = {}
    excess: dict[str, float] = {}
    for ev in events:
        if ev["kind"] == "heal":
            heals[ev["target"]] = heals.get(ev["target"], 0) + 1
        elif ev["kind"] == "excess_heal":
            excess[ev["target"]] = float(ev["amount"])
    said = []
    for ev in events:
        if ev["kind"] == "excess_heal" and heals.get(ev["target"]) == 1:
            continue
        folded = (
            excess.get(ev["target"]) if ev["kind"] == "heal" and heals[ev["target"]] == 1 else None
        )
        said.append(sentence(state, ev, folded))
    return said


EFFECT_WORDS = {
    "stun": "a stun",
    "trap": "a Freezing Trap",
    "slow_hunter": "a slow",
    "slow_charge": "a slow",
    "slow_poison": "a slow",
    "healing_cut": "a healing cut",
    "burst": "Burst",
    "blessing": "Blessing of Freedom",
}
QUIET = "no combat or status events (moves are drawn as grey trails)"


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def event_list(played: Played) -> str:
    """The events of every tick as a Markdown list (what the engine reported)."""
    lines = []
    for t, evs in enumerate(played.events):
        state = played.states[t]
        said = tick_sentences(state, evs)
        lines.append(f"- tick {int(state.tick) + 1}: " + ("; ".join(said) if said else QUIET))
    return "\n".join(lines)


def render(scene: Scene) -> tuple[Played, str]:
    """Play a scene and return it with its film strip and event list as Markdown."""
    played = play(scene)
    text = film(played)
    if played.events:
        text += "\n\n" + event_list(played)
    return played, text


def at(played: Played, t: int, slot: int) -> tuple[float, float]:
    """Position of `slot` in map units after t ticks."""
    p = np.asarray(played.states[t].pos[slot]) / MILLI
    return float(p[0]), float(p[1])


def health(played: Played, t: int, slot: int) -> float:
    return int(played.states[t].health[slot]) / MILLI
