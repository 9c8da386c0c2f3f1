"""Readable events (who did what to whom) from one tick's arrays, on the host.

Agents are named by team letter and slot: "a0".."a4" for the first team in the position,
"b0".."b4" for the second, whatever their spawn ends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import classes
from .state import RESULT_NAMES, RESULT_OPEN, TEAM_SIZE, State


def agent_name(slot: int) -> str:
    return f"{'ab'[slot // TEAM_SIZE]}{slot % TEAM_SIZE}"


def _from_milli(milli: Any) -> float:
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
        spec = classes.CLASSES[int(before.cls[src])]
        ability = spec.ultimate_name if int(acts[src, 2]) else spec.basic_name
        if dmg > 0:
            events.append(
                {"kind": "damage", "source": agent_name(src), "target": agent_name(dst),
                 "ability": ability, "amount": _from_milli(dmg)}
            )  # fmt: skip
        if heal > 0:
            events.append(
                {"kind": "heal", "source": agent_name(src), "target": agent_name(dst),
                 "ability": ability, "amount": _from_milli(heal)}
            )  # fmt: skip
    # Per-slot flags and amounts as Python lists, read in one call each (a scalar read of
    # an array costs about what a whole small array operation does).
    excess = np.asarray(info.excess).tolist()
    for dst, amount in enumerate(excess):
        if amount > 0:
            events.append(
                {"kind": "excess_heal", "target": agent_name(dst), "amount": _from_milli(amount)}
            )
    for src, dst, e in np.argwhere(np.asarray(info.effects)).tolist():
        events.append(
            {"kind": "effect", "source": agent_name(src), "target": agent_name(dst),
             "effect": classes.EFFECT_NAMES[e], "ticks": classes.EFFECT_DURATION[e]}
        )  # fmt: skip
    hit_by = None  # who damaged each slot, read once if a Trap broke or someone died

    def sources(dst: int) -> list[str]:
        nonlocal hit_by
        if hit_by is None:
            hit_by = (damage > 0).T.tolist()
        return [agent_name(s) for s, hit in enumerate(hit_by[dst]) if hit]

    for dst, broken in enumerate(np.asarray(info.trap_broken).tolist()):
        if broken:
            events.append({"kind": "trap_broken", "target": agent_name(dst), "by": sources(dst)})
    charged_to, start = np.asarray(info.charged_to), np.asarray(before.pos)
    moved = (charged_to != start).any(axis=1)
    if moved.any():
        for src in np.flatnonzero(moved).tolist():
            target = int(np.flatnonzero(info.effects[src, :, classes.SLOW_CHARGE])[0])
            events.append(
                {"kind": "charge", "source": agent_name(src), "target": agent_name(target),
                 "from": [_from_milli(v) for v in start[src].tolist()],
                 "to": [_from_milli(v) for v in charged_to[src].tolist()]}
            )  # fmt: skip
    points = np.asarray(info.points).tolist()
    for dst, dead in enumerate(np.asarray(info.killed).tolist()):
        if dead:
            events.append(
                {"kind": "death", "target": agent_name(dst), "by": sources(dst),
                 "points": points[dst], "red_zone": points[dst] == 2}
            )  # fmt: skip
    where = None  # end-of-tick positions, read once if someone was cleared or respawned
    for kind, key, flags in (
        ("shield_cleared", "to", info.shield_cleared),
        ("respawn", "at", info.respawned),
    ):
        for dst, flag in enumerate(np.asarray(flags).tolist()):
            if flag:
                where = np.asarray(after.pos).tolist() if where is None else where
                events.append(
                    {
                        "kind": kind,
                        "target": agent_name(dst),
                        key: [_from_milli(v) for v in where[dst]],
                    }
                )
    for dst, amount in enumerate(np.asarray(info.rest_heal).tolist()):
        if amount > 0:
            events.append(
                {"kind": "rest_heal", "target": agent_name(dst), "amount": _from_milli(amount)}
            )
    if int(after.result) != RESULT_OPEN:
        events.append(
            {"kind": "game_end", "result": RESULT_NAMES[int(after.result)],
             "score": [int(v) for v in after.score], "tick": int(after.tick)}
        )  # fmt: skip
    return events
