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
