"""Readable events (who did what to whom) from one tick's arrays, on the host.

Agents are named by team letter and slot: "a0".."a4" for the first team in the position,
"b0".."b4" for the second, whatever their spawn ends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import classes as C
from .state import RESULT_NAMES, RESULT_OPEN, TEAM_SIZE, State


def agent_name(slot: int) -> str:
    return f"{'ab'[slot // TEAM_SIZE]}{slot % TEAM_SIZE}"


def _r(milli: Any) -> float:
    """Thousandths (milli-units, milli-HP) as a plain number."""
    return int(milli) / 1000


def tick_events(before: State, info: Any, after: State) -> list[dict]:
    """Events of one tick in rule order: combat, effects, Charge, deaths, respawns, rest."""
    acts = np.asarray(info.actions)
    damage, healing = np.asarray(info.damage), np.asarray(info.healing)
    events: list[dict] = []
    # Read only the nonzero cells (row-major: by source, then target), as plain numbers:
    # a scalar read of a NumPy array costs about what a whole small array operation does.
    acted = (damage > 0) | (healing > 0)
    amounts = zip(damage[acted].tolist(), healing[acted].tolist(), strict=True)
    for (src, dst), (dmg, heal) in zip(np.argwhere(acted).tolist(), amounts, strict=True):
        spec = C.CLASSES[int(before.cls[src])]
        ability = spec.ultimate_name if int(acts[src, 2]) else spec.basic_name
        if dmg > 0:
            events.append(
                {"kind": "damage", "source": agent_name(src), "target": agent_name(dst),
                 "ability": ability, "amount": _r(dmg)}
            )  # fmt: skip
        if heal > 0:
            events.append(
                {"kind": "heal", "source": agent_name(src), "target": agent_name(dst),
                 "ability": ability, "amount": _r(heal)}
            )  # fmt: skip
    for dst in np.flatnonzero(np.asarray(info.excess) > 0).tolist():
        events.append(
            {"kind": "excess_heal", "target": agent_name(dst), "amount": _r(info.excess[dst])}
        )
    for src, dst, e in np.argwhere(np.asarray(info.effects)):
        events.append(
            {"kind": "effect", "source": agent_name(int(src)), "target": agent_name(int(dst)),
             "effect": C.EFFECT_NAMES[int(e)], "ticks": C.EFFECT_DURATION[int(e)]}
        )  # fmt: skip
    for dst in np.flatnonzero(info.trap_broken):
        sources = [agent_name(int(s)) for s in np.flatnonzero(info.damage[:, dst] > 0)]
        events.append({"kind": "trap_broken", "target": agent_name(int(dst)), "by": sources})
    moved = np.any(np.asarray(info.charged_to) != np.asarray(before.pos), axis=1)
    for src in np.flatnonzero(moved).tolist():
        target = int(np.flatnonzero(info.effects[src, :, C.SLOW_CHARGE])[0])
        events.append(
            {"kind": "charge", "source": agent_name(src), "target": agent_name(target),
             "from": [_r(v) for v in before.pos[src]],
             "to": [_r(v) for v in info.charged_to[src]]}
        )  # fmt: skip
    for dst in np.flatnonzero(info.killed):
        killers = [agent_name(int(s)) for s in np.flatnonzero(info.damage[:, dst] > 0)]
        events.append(
            {"kind": "death", "target": agent_name(int(dst)), "by": killers,
             "points": int(info.points[dst]), "red_zone": bool(info.points[dst] == 2)}
        )  # fmt: skip
    for dst in np.flatnonzero(info.shield_cleared):
        events.append(
            {"kind": "shield_cleared", "target": agent_name(int(dst)),
             "to": [_r(v) for v in after.pos[dst]]}
        )  # fmt: skip
    for dst in np.flatnonzero(info.respawned):
        events.append(
            {"kind": "respawn", "target": agent_name(int(dst)),
             "at": [_r(v) for v in after.pos[dst]]}
        )  # fmt: skip
    for dst in np.flatnonzero(info.rest_heal > 0):
        events.append(
            {"kind": "rest_heal", "target": agent_name(int(dst)), "amount": _r(info.rest_heal[dst])}
        )
    if int(after.result) != RESULT_OPEN:
        events.append(
            {"kind": "game_end", "result": RESULT_NAMES[int(after.result)],
             "score": [int(v) for v in after.score], "tick": int(after.tick)}
        )  # fmt: skip
    return events
