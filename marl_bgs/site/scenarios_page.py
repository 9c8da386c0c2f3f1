"""The Scenarios pages: the endgame scenarios, how their winning lines were found and checked,
and one page per scenario (page generators registered by the hook).

Everything comes from `exports/scenarios/` (written by `scripts/export_scenarios.py`, read and
checked by `marl_bgs.scenarios.export_file`): `index.json` describes every exported scenario,
`scenario_<id>/` holds the start position and two replays (a winning line, and the same line
with one key action changed), and the optional `results.json` holds the results table. The
pages list exactly the scenarios of the index: no page, row or placeholder for one that has
not been exported, and no section at all before the first export.

The words are templates under `site_src/_templates/scenarios/`: `index.md.j2` (the
overview), `scenario.md.j2` (one scenario) and `words.md.j2` (the sentences written from the
data: the variant, why it fails, the search coverage, the learned rows). This module gives
them the data: the start drawn, the agents, the games' events, where the two games differ.

Every string read from these files is escaped before it reaches the Markdown: prose from a
file goes in raw HTML blocks as escaped text (`| html`; Markdown leaves those blocks alone),
and strings inside Markdown (tables, headings, lists) also have their Markdown punctuation
backslash-escaped (`| md`), so a name or briefing is shown as written and never becomes
markup.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core import classes
from ..core.state import ARENA_HEIGHT, ARENA_WIDTH, TEAM_SIZE
from ..game import Game
from ..replay import Replay
from ..scenarios.export_file import (
    EXPORT,
    SCENARIO_DIR,
    class_index,
    entries,
    fresh_results,
    position,
    replay,
    results,
)
from . import templates
from .draw import PALETTE, Marks, draw
from .formatting import NBSP, html
from .scenes import QUIET, tick_sentences

PAGE_DIR = "scenarios"
WORDS = "scenarios/words.md.j2"
LABELS = {"random": "Random", "tdm-alpha": "TDM-Alpha", "tdm-beta": "TDM-Beta",
          "tdm-gamma": "TDM-Gamma"}  # fmt: skip
SYSTEM_ORDER = ("random", "tdm-alpha", "tdm-beta", "tdm-gamma")
RESULTS = ("a", "b", "draw")  # replay frames' result codes 0, 1, 2


def label(system: str) -> str:
    return LABELS.get(system, system)


def _wdl(row: dict) -> str:
    return f"{row['wins']}-{row['draws']}-{row['losses']}"


def _target_name(actor: str, target: int) -> str:
    """The agent a target code of `actor` points at ('a0'... own team, 'b0'... the other)."""
    team = "ab".index(actor[0])
    if 1 <= target <= TEAM_SIZE:
        return f"{'ab'[team]}{target - 1}"
    return f"{'ab'[1 - team]}{target - TEAM_SIZE - 1}"


CONTEXT = {
    "SCENARIO_DIR": SCENARIO_DIR,
    "EXPORT": EXPORT,
    "QUIET": QUIET,
    "label": label,
    "wdl": _wdl,
    "target_name": _target_name,
}


def _words():
    """The sentence macros of scenarios/words.md.j2."""
    return templates.module(WORDS, **CONTEXT)


def agents(position: dict) -> dict[str, classes.ClassSpec]:
    """Every agent of the start position by name ('a0', 'b3'), with its class."""
    out = {}
    for team, side in enumerate(position["teams"]):
        for k, a in enumerate(side["agents"]):
            out[f"{'ab'[team]}{k}"] = classes.CLASSES[class_index(a["class"])]
    return out


def letters(names: list) -> str:
    """Class names as the initials M W H R P ("W P", joined by no-break spaces)."""
    return NBSP.join(classes.CLASSES[class_index(c)].title[0] for c in names)


def teams_text(entry: dict) -> str:
    living = entry["living"]
    return f"{letters(living[0])}{NBSP}v{NBSP}{letters(living[1])}"


def variant_sentence(entry: dict, position: dict) -> str:
    """What the variant changes, in words: 'At tick 1 of 5 (game tick 296), the Priest (a4)
    uses no ability instead of using Holy Word: Salvation on itself; it still moves west.'"""
    said = _words().variant_sentence(entry, agents(position), int(position["tick"]))
    return templates.words(said)


def _learned(res: dict) -> tuple[list, list]:
    """The learned rows as (label, weights file), split by how they pick their actions
    (policy learners sample; Q-learners play their best legal action, as in the season)."""
    learned = res.get("learned")
    sampling, argmax = [], []
    if isinstance(learned, dict):
        for name, info in sorted(learned.items()):
            if isinstance(info, dict) and isinstance(info.get("weights"), str):
                bit = (label(name), info["weights"])
                (argmax if info.get("plays") == "argmax_q" else sampling).append(bit)
    return sampling, argmax


def learned_note(res: dict) -> str:
    """Which rows are learned policies, their weights files, and how each picks its actions."""
    return templates.words(_words().learned_note(*_learned(res)))


# ---- the two games of a scenario page ---------------------------------------------------------
def _events_said(replay: Replay, t: int) -> list[str]:
    return tick_sentences(replay.state_at(t), replay.events[t])


def _game_tick(replay: Replay, t: int) -> int:
    """The game's number of the t-th tick played (0-based), as the viewer labels it."""
    return int(replay.frames["tick"][t]) + 1


def ending(replay: Replay) -> dict:
    """How a recorded game ends: its result ('a', 'b', 'draw', or None while still open),
    final score, last game tick, and the ticks left before the horizon."""
    result = int(replay.frames["result"][-1])
    last = int(replay.frames["tick"][-1])
    return {
        "result": None if result == -1 else RESULTS[result],
        "score": [int(v) for v in replay.frames["score"][-1]],
        "last": last,
        "left": int(replay.frames["horizon"][-1]) - last,
    }


def first_difference(line: Replay, variant: Replay) -> int | None:
    """The first tick (0-based) at which the two games' events differ, or None."""
    for t in range(max(line.ticks, variant.ticks)):
        a = line.events[t] if t < line.ticks else None
        b = variant.events[t] if t < variant.ticks else None
        if a != b:
            return t
    return None


def difference(line: Replay, variant: Replay) -> dict | None:
    """Where the two games first differ: the tick, its game tick, and each game's events then
    (None for a game already over); None when they never do."""
    t = first_difference(line, variant)
    if t is None:
        return None
    return {
        "tick": t,
        "game_tick": _game_tick(line if t < line.ticks else variant, t),
        "line": _events_said(line, t) if t < line.ticks else None,
        "variant": _events_said(variant, t) if t < variant.ticks else None,
    }


def event_ticks(replay: Replay) -> list[tuple[int, list[str]]]:
    """Every tick's game number and events, as the viewer's log says them."""
    return [(_game_tick(replay, t), _events_said(replay, t)) for t in range(replay.ticks)]


def line_rows(entry: dict, position: dict, replay: Replay) -> list[dict]:
    """Team A's actions of the shown line, one row per tick, living agents only."""
    named = agents(position)
    rows = []
    for t, tick in enumerate(entry["shown_line"]):
        alive = replay.frames["alive"][t] if t < replay.ticks else None
        acts = [
            (f"a{k}", action)
            for k, action in enumerate(tick)
            if f"a{k}" in named and (alive is None or alive[k])
        ]
        rows.append({"tick": t + 1, "game_tick": int(position["tick"]) + t + 1, "acts": acts})
    return rows


def start_picture(position: dict, title: str) -> str:
    """The start position drawn by the site's still-picture code (draw.py)."""
    game = Game(position, backend="numpy")
    svg = draw(
        game.state, list(game.obstacles), (0.0, 0.0, ARENA_WIDTH, ARENA_HEIGHT), Marks(),
        title=title, width_px=720,
    )  # fmt: skip
    return (
        f'<figure class="bgs-frame bgs-scenario-start">{svg}'
        f"<figcaption>{html(title)}</figcaption></figure>"
    )


def agent_rows(position: dict) -> list[dict]:
    """Every agent at the start: class, health, Ultimate, statuses, or dead and waiting."""
    s = Game(position, backend="numpy").state
    rows = []
    for slot in range(2 * TEAM_SIZE):
        if not s.present[slot]:
            continue
        team = slot // TEAM_SIZE
        row = {
            "name": f"{'ab'[team]}{slot % TEAM_SIZE}",
            "team": "AB"[team],
            "spec": classes.CLASSES[int(s.cls[slot])],
            "dead": not s.alive[slot],
            "wave": int(s.wave_clock[team]),
            "health": int(s.health[slot]) / 1000,
            "cooldown": int(s.ultimate_cooldown[slot]),
            "effects": [
                (PALETTE["effects"][e]["word"], int(s.effects[slot, k]))
                for k, e in enumerate(classes.EFFECT_NAMES)
                if s.effects[slot, k] > 0
            ],
            "shield": int(s.shield[slot]),
        }
        rows.append(row)
    return rows


# ---- results ------------------------------------------------------------------------------------
def _systems(res: dict) -> list[str]:
    known = [s for s in SYSTEM_ORDER if s in res["systems"]]
    return known + sorted(s for s in res["systems"] if s not in SYSTEM_ORDER)


def _row(res: dict, system: str, sid: int) -> dict | None:
    return next((r for r in res["systems"][system] if r["scenario"] == sid), None)


def results_index(res: dict, items: list[dict]) -> dict:
    """The overview's results table: W-D-L per System (columns) per scenario (rows), each
    with its Fisher p against Random, and Random's wins; and the ids left out because their
    results were played on an older version of their file."""
    systems = _systems(res)
    columns = [
        {"name": s, "tested": any(r.get("fisher_p") is not None for r in res["systems"][s])}
        for s in systems
    ]
    rows, stale = [], []
    for e in items:
        sid = e["id"]
        found = [_row(res, s, sid) for s in systems]
        if not any(found):
            continue
        if not fresh_results(e, res):
            stale.append(sid)
            continue
        refs = [r["reference_wins"] for r in found if r and r.get("reference_wins") is not None]
        random_row = _row(res, "random", sid) if "random" in systems else None
        reference = refs[0] if refs else random_row["wins"] if random_row else None
        rows.append({"sid": sid, "cells": found, "reference": reference})
    return {"systems": columns, "rows": rows, "stale": stale}


def results_rows(res: dict, sid: int) -> list[dict]:
    """One scenario's results, a row per System that played it, with Random's wins."""
    out = []
    for system in _systems(res):
        row = _row(res, system, sid)
        if row is None:
            continue
        ref = row.get("reference_wins")
        if ref is None and system == "random":
            ref = row["wins"]
        rate = row["wins"] / row["games"] if row["games"] else 0.0
        out.append({"system": system, "row": row, "reference": ref, "rate": rate})
    return out


# ---- pages --------------------------------------------------------------------------------------
def _item(entry: dict) -> dict:
    """An index entry as the templates read it: its teams' initials, and its search's wins
    as (line length, count) pairs, shortest first."""
    search = entry["search"]

    def pairs(wins: dict) -> list[tuple[int, int]]:
        return sorted((int(k), v) for k, v in wins.items())

    return {
        **entry,
        "teams": teams_text(entry),
        "search": {
            **search,
            "wins": pairs(search["wins_by_length"]),
            "sampled": pairs(search["sampled_wins_by_length"]),
        },
    }


def index_page(root: Path) -> str:
    items = [_item(e) for e in entries(root)]
    res = results(root)
    sampling, argmax = _learned(res) if res is not None else ([], [])
    return templates.render(
        "scenarios/index.md.j2",
        items=items,
        res=res,
        results=results_index(res, items) if res is not None else None,
        sampling=sampling,
        argmax=argmax,
        **CONTEXT,
    )


def scenario_page(root: Path, entry: dict, items: list[dict]) -> str:
    sid = entry["id"]
    start = position(root, sid)
    line = replay(root, sid, "line.json")
    variant = replay(root, sid, "variant.json")
    res = results(root)
    k = [e["id"] for e in items].index(sid)
    start_tick, horizon = int(start["tick"]), int(start["horizon"])
    title = f"Scenario {sid}: the start, game tick {start_tick} of {horizon}"
    sampling, argmax = _learned(res) if res is not None else ([], [])
    return templates.render(
        "scenarios/scenario.md.j2",
        entry=_item(entry),
        position=start,
        start_tick=start_tick,
        horizon=horizon,
        agents=agents(start),
        previous=items[k - 1] if k > 0 else None,
        next=items[k + 1] if k + 1 < len(items) else None,
        picture=start_picture(start, title),
        agent_rows=agent_rows(start),
        line_rows=line_rows(entry, start, line),
        line_events=event_ticks(line),
        variant_events=event_ticks(variant),
        diff=difference(line, variant),
        line_end=ending(line),
        variant_end=ending(variant),
        line_src=f"../../{SCENARIO_DIR}/scenario_{sid}/line.json",
        variant_src=f"../../{SCENARIO_DIR}/scenario_{sid}/variant.json",
        res=res,
        fresh=res is not None and fresh_results(entry, res),
        rows=results_rows(res, sid) if res is not None else [],
        sampling=sampling,
        argmax=argmax,
        **CONTEXT,
    )


def pages(root: Path) -> dict[str, Callable[[], str]]:
    """Page path -> writer: the overview and one page per exported scenario ({} before the
    first export)."""
    items = entries(root)
    if not items:
        return {}
    out: dict[str, Callable[[], str]] = {f"{PAGE_DIR}/index.md": lambda: index_page(root)}
    for e in items:
        out[f"{PAGE_DIR}/{e['id']}.md"] = lambda e=e: scenario_page(root, e, entries(root))
    return out


def nav(root: Path) -> list[dict]:
    """The Scenarios section of the navigation, or [] before the first export."""
    items = entries(root)
    if not items:
        return []
    pages_ = [{"Overview": f"{PAGE_DIR}/index.md"}]
    pages_ += [
        {html(f"{e['id']} · {e['name']}", quote=False): f"{PAGE_DIR}/{e['id']}.md"} for e in items
    ]
    return [{"Scenarios": pages_}]
