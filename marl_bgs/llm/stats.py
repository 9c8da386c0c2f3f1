"""What an LLM side counts per agent and per game: requests, replies by outcome, tokens, time.

Per agent, every decision in an LLM slot ends in exactly one way, so the counts add up:

    decisions = no_choice + asked          (asked: more than one legal choice, so a request)
    asked     = legal + fallback           (fallback: "stay, no attack" after a failure)
    requests  = asked + rethinks           (a rethink re-asks once after a rejected reply)
    requests  = legal + cut_off + empty + unparsable + illegal + timeout + server_error

Per game and side, `ticks` counts the ticks the side acted in while the game was open and
`tick_seconds` their wall time (one tick asks every agent of every game in the batch at once,
so it is the time a tick of the whole batch took).
"""

from __future__ import annotations

from typing import Any

from .schema import FAILURE_KINDS

COUNT_FIELDS: tuple[str, ...] = (
    "decisions",
    "no_choice",
    "asked",
    "requests",
    "legal",
    "fallback",
    *FAILURE_KINDS,
    "rethinks",
    "usage_reported",
    "prompt_tokens",
    "completion_tokens",
)
TIME_FIELDS: tuple[str, ...] = ("request_seconds",)  # sum of the agent's request wall times
SIDE_FIELDS: tuple[str, ...] = ("ticks", "tick_seconds")
AGENT_COLUMNS: tuple[str, ...] = ("agent", "class") + COUNT_FIELDS + TIME_FIELDS
MEANING = {
    "agent": "the agent's slot in its team (0-4)",
    "class": "its class id (0 Mage ... 4 Priest)",
    "decisions": "ticks it had to act in an open game (alive or not)",
    "no_choice": "decisions with one legal choice, taken without a request",
    "asked": "decisions with a request (more than one legal choice)",
    "requests": "requests sent, rethinks included",
    "legal": "replies accepted as legal actions",
    "fallback": 'decisions that became "stay, no attack" after a failure',
    "rethinks": "second requests after a rejected reply (rethink=True)",
    "usage_reported": "replies whose server reported token counts",
    "prompt_tokens": "prompt tokens the server reported, summed",
    "completion_tokens": "reply tokens the server reported, summed",
    "request_seconds": "wall time of its requests, summed",
    "ticks": "ticks the side acted in while this game was open (same on each agent's row)",
    "tick_seconds": "wall time of those ticks: every request of the batch's games at once",
}


def check_counts(row: dict) -> None:
    """Raise if an agent's counts do not add up (see the module docstring)."""
    failures = sum(row[k] for k in FAILURE_KINDS)
    sums = {
        "decisions": row["no_choice"] + row["asked"],
        "asked": row["legal"] + row["fallback"],
        "requests": row["asked"] + row["rethinks"],
    }
    for name, total in sums.items():
        if row[name] != total:
            raise AssertionError(f"{name}: {row[name]} != {total}")
    if row["requests"] != row["legal"] + failures:
        raise AssertionError(f"requests: {row['requests']} != legal + failures")


def _side_rows(frame: Any, side: str) -> Any:
    return frame[frame["side"] == side]


def side_totals(frame: Any) -> dict:
    """Per side that an LLM played: its counts summed over agents and games, the share of
    legal replies, and the mean wall time of a tick (evaluate's `meta["llm"]`)."""
    out = {}
    for side in sorted(set(frame["side"])):
        rows = _side_rows(frame, side)
        per_game = rows.groupby("game")[list(SIDE_FIELDS)].first()
        totals: dict[str, Any] = {"system": str(rows["system"].iloc[0])}
        totals["games"] = int(rows["game"].nunique())
        totals.update({n: int(rows[n].sum()) for n in COUNT_FIELDS})
        totals["request_seconds"] = float(rows["request_seconds"].sum())
        totals["ticks"] = int(per_game["ticks"].sum())
        totals["tick_seconds"] = float(per_game["tick_seconds"].sum())
        req, ticks = totals["requests"], totals["ticks"]
        totals["legal_share"] = totals["legal"] / req if req else None
        totals["seconds_per_tick"] = totals["tick_seconds"] / ticks if ticks else None
        totals["seconds_per_request"] = totals["request_seconds"] / req if req else None
        out[side] = totals
    return out


def replay_llm(frame: Any) -> dict:
    """One game's rows as the replay's optional `llm` part: per side, its System, ticks,
    tick time and each agent's counts."""
    out = {}
    for side in sorted(set(frame["side"])):
        rows = _side_rows(frame, side).sort_values("agent")
        first = rows.iloc[0]
        agents = []
        for _, r in rows.iterrows():
            agent = {"agent": int(r["agent"]), "class": int(r["class"])}
            agent.update({n: int(r[n]) for n in COUNT_FIELDS})
            agent.update({n: float(r[n]) for n in TIME_FIELDS})
            agents.append(agent)
        out[side] = {
            "system": str(first["system"]),
            "ticks": int(first["ticks"]),
            "tick_seconds": float(first["tick_seconds"]),
            "agents": agents,
        }
    return out
