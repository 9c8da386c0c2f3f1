"""`llm_system`: a host System that asks a chat model for each agent's action, every tick.

Per tick, every agent in an LLM slot with more than one legal choice gets one request (an
agent with one choice takes it without asking); the requests of all agents of all games in
the batch run at once, at most `concurrency` in flight. Each request carries the agent's
`actor-text-v1` view, temperature 0 and a seed by default, and a strict JSON schema whose
enums are that tick's legal move and combat names. A reply that is cut off, empty,
unparsable or illegal, and a request that times out or fails, becomes "stay, no attack" and
is counted per agent and kind (`marl_bgs.llm.stats`); with `rethink=True` a rejected reply
is re-asked once with the reason. Nothing is guessed from a reply that fails the check.
"""

from __future__ import annotations

import json
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from ..core.checks import number, whole
from ..core.state import TEAM_SIZE
from ..systems.base import System, TeamInputs, check_host_actions
from .client import ChatClient, ChatError, ChatReply
from .schema import REPLY_FAILURES, ReplyRejected, parse_reply, response_format
from .stats import COUNT_FIELDS, SIDE_FIELDS, TIME_FIELDS
from .view import Menu, format_actor_view, game_over, legal_menu, reply_example

STAY_NO_ATTACK = 0  # flat action: move stay, no target, no Ultimate (always legal)
MAX_CONCURRENCY = 256
DEFAULT_SYSTEM_PROMPT = (
    "You control one agent of a team in MARL-BattleGrounds, a five-a-side team game. Each "
    "turn you read your own view of the game and your legal choices. Pick one legal move and "
    "one legal combat choice that help your team win. Answer with one compact JSON object "
    "on one line, without spaces or line breaks, and nothing else."
)
RESERVED_BODY_KEYS = ("model", "messages")
# Who may play the slots the model does not: deterministic scripted Systems on NumPy, so a
# game's course does not depend on which batch it shares.
SCRIPTED = ("tdm-alpha", "tdm-beta", "tdm-gamma")


@dataclass(frozen=True)
class LLMSettings:
    """Everything that decides what is sent; checked once when the System is built."""

    model: str
    base_url: str
    api_key: str | None = None
    slots: tuple[int, ...] = tuple(range(TEAM_SIZE))
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = 0
    max_tokens: int = 64
    timeout: float = 60.0
    concurrency: int = 16
    system_prompt: str | None = None
    history: int = 0
    rethink: bool = False
    extra_body: dict = field(default_factory=dict)


def _slots(slots: Any) -> tuple[int, ...]:
    if slots is None:
        return tuple(range(TEAM_SIZE))
    if isinstance(slots, (int, np.integer)) and not isinstance(slots, bool):
        slots = [slots]
    if not isinstance(slots, (list, tuple)) or not slots:
        raise TypeError(f"slots: expected a list of slot numbers 0-{TEAM_SIZE - 1}, got {slots!r}")
    out = [whole(s, f"slots[{i}]", 0, TEAM_SIZE - 1) for i, s in enumerate(slots)]
    if len(set(out)) != len(out):
        raise ValueError(f"slots: {list(slots)} repeats a slot")
    return tuple(sorted(out))


def make_settings(model: Any, base_url: Any, api_key: Any = None, **options: Any) -> LLMSettings:
    """Check every option and name the field that is wrong."""
    from .client import check_base_url

    if not isinstance(model, str) or not model.strip():
        raise TypeError(f"model: expected the served model's name, got {model!r}")
    check_base_url(base_url)
    if api_key is not None and not isinstance(api_key, str):
        raise TypeError("api_key: expected a string or None")
    if api_key is not None and (
        not api_key.isprintable() or not all(32 < ord(c) < 127 for c in api_key)
    ):  # it goes into an HTTP header: printable ASCII, no spaces or line breaks
        raise ValueError("api_key: only printable ASCII without spaces may go in the header")
    known = set(LLMSettings.__dataclass_fields__) - {"model", "base_url", "api_key"}
    for key in options:
        if key not in known:
            raise TypeError(f"{key}: unknown option; known: {', '.join(sorted(known))}")
    o = dict(options)
    out: dict[str, Any] = {}
    out["slots"] = _slots(o.get("slots"))
    out["temperature"] = number(o.get("temperature", 0.0), "temperature", 0.0, 2.0)
    out["top_p"] = number(o.get("top_p", 1.0), "top_p", 0.0, 1.0)
    seed = o.get("seed", 0)
    out["seed"] = None if seed is None else whole(seed, "seed", 0, 2**63 - 1)
    out["max_tokens"] = whole(o.get("max_tokens", 64), "max_tokens", 1, 1_000_000)
    out["timeout"] = number(o.get("timeout", 60.0), "timeout", 0.001, 86_400.0)
    out["concurrency"] = whole(o.get("concurrency", 16), "concurrency", 1, MAX_CONCURRENCY)
    prompt = o.get("system_prompt")
    if prompt is not None and not isinstance(prompt, str):
        raise TypeError(f"system_prompt: expected text or None, got {type(prompt).__name__}")
    out["system_prompt"] = prompt
    out["history"] = whole(o.get("history", 0), "history", 0, 10_000)
    rethink = o.get("rethink", False)
    if not isinstance(rethink, bool):
        raise TypeError(f"rethink: expected True or False, got {rethink!r}")
    out["rethink"] = rethink
    extra = o.get("extra_body") or {}
    if not isinstance(extra, dict):
        raise TypeError(f"extra_body: expected a dict of request fields, got {extra!r}")
    for key in RESERVED_BODY_KEYS:
        if key in extra:
            raise ValueError(f"extra_body.{key}: is set by the System; it cannot be overridden")
    try:
        json.dumps(extra, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise ValueError(f"extra_body: must be plain JSON ({err})") from None
    out["extra_body"] = dict(extra)
    return LLMSettings(model=model, base_url=base_url, api_key=api_key, **out)


# ---- memory ----------------------------------------------------------------------------------
class _Game:
    """One game of a batch: each agent's earlier turns and counts, the side's clock."""

    def __init__(self, history: int) -> None:
        self.turns = [deque(maxlen=history) for _ in range(TEAM_SIZE)]
        self.counts = np.zeros((TEAM_SIZE, len(COUNT_FIELDS)), np.int64)
        self.seconds = np.zeros((TEAM_SIZE, len(TIME_FIELDS)), np.float64)
        self.classes = np.full(TEAM_SIZE, -1, np.int64)
        self.ticks = 0
        self.tick_seconds = 0.0
        self.other_memory: Any = None  # the scripted System's memory, for the other slots

    def add(self, agent: int, name: str, amount: int = 1) -> None:
        self.counts[agent, COUNT_FIELDS.index(name)] += amount


class LLMMemory:
    """A batch's memory (host-side, mutable): one `_Game` per game, made at the first tick."""

    def __init__(self, history: int) -> None:
        self.history = history
        self.games: list[_Game] = []

    def fit(self, n: int, new_game: np.ndarray) -> None:
        if len(self.games) != n:
            self.games = [_Game(self.history) for _ in range(n)]
        for g in np.flatnonzero(np.asarray(new_game, bool).reshape(-1)):
            self.games[g] = _Game(self.history)


# ---- one decision ----------------------------------------------------------------------------
@dataclass
class _Job:
    game: int
    agent: int
    menu: Menu
    text: str
    messages: list[dict]


@dataclass
class _Outcome:
    action: int = STAY_NO_ATTACK
    attempts: list[tuple[str, ChatReply | None]] = field(default_factory=list)  # (kind, reply)
    content: str | None = None  # the accepted reply, for the agent's history


class _Asker:
    """Builds request bodies and runs one decision (with at most one rethink)."""

    def __init__(self, s: LLMSettings) -> None:
        self.s = s
        self.client = ChatClient(s.base_url, s.api_key, s.timeout)
        self.system_prompt = (
            s.system_prompt if s.system_prompt is not None else DEFAULT_SYSTEM_PROMPT
        )

    def body(self, messages: list[dict], menu: Menu) -> dict:
        s = self.s
        body: dict[str, Any] = {
            "model": s.model,
            "messages": messages,
            "temperature": s.temperature,
            "top_p": s.top_p,
            "max_tokens": s.max_tokens,
            "response_format": response_format(menu),
        }
        if s.seed is not None:
            body["seed"] = s.seed
        body.update(s.extra_body)
        return body

    def messages(self, text: str, turns: deque) -> list[dict]:
        out = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        for user, assistant in turns:
            out += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
        return out + [{"role": "user", "content": text}]

    def decide(self, job: _Job) -> _Outcome:
        out = _Outcome()
        messages = job.messages
        for attempt in range(2 if self.s.rethink else 1):
            try:
                reply = self.client.complete(self.body(messages, job.menu))
            except ChatError as err:
                out.attempts.append((err.kind, None))
                return out  # transport failures are not re-asked
            try:
                out.action = parse_reply(reply.content, reply.finish_reason, job.menu)
            except ReplyRejected as err:
                assert err.kind in REPLY_FAILURES
                out.attempts.append((err.kind, reply))
                if attempt == 0:
                    messages = messages + [
                        {"role": "assistant", "content": reply.content or ""},
                        {
                            "role": "user",
                            "content": f"Your reply was rejected: {err}. Reply again with one "
                            "legal move and one legal combat name as compact JSON, for example "
                            + reply_example(job.menu),
                        },
                    ]
                continue
            out.attempts.append(("legal", reply))
            out.content = reply.content
            return out
        return out


def _record(game: _Game, agent: int, outcome: _Outcome) -> None:
    for i, (kind, reply) in enumerate(outcome.attempts):
        game.add(agent, "requests")
        game.add(agent, kind)
        if i:
            game.add(agent, "rethinks")
        if reply is not None:
            game.seconds[agent, TIME_FIELDS.index("request_seconds")] += reply.seconds
            if reply.prompt_tokens is not None or reply.completion_tokens is not None:
                game.add(agent, "usage_reported")
            game.add(agent, "prompt_tokens", reply.prompt_tokens or 0)
            game.add(agent, "completion_tokens", reply.completion_tokens or 0)
    if outcome.attempts[-1][0] != "legal":
        game.add(agent, "fallback")


def _one_game(inputs: TeamInputs, g: int) -> TeamInputs:
    return TeamInputs(*(np.asarray(x)[g] for x in inputs))


# ---- the System ------------------------------------------------------------------------------
def llm_system(
    model: str,
    base_url: str,
    api_key: str | None = None,
    *,
    name: str | None = None,
    others: str | None = None,
    **options: Any,
) -> System:
    """A host System in which a chat model behind `base_url` (an OpenAI-compatible
    `.../v1`) plays the slots `options["slots"]` (default all five).

    Options (see `LLMSettings`): `slots`, `temperature` (0), `top_p` (1), `seed` (0; None
    sends none), `max_tokens` (64), `timeout` (60 s per request), `concurrency` (16 requests
    in flight), `system_prompt` (None: the default; "" sends no system message), `history`
    (0: how many of an agent's earlier accepted turns each prompt repeats), `rethink`
    (False: re-ask once after a rejected reply), `extra_body` (more request fields, such as
    a server's own options). `others` names the scripted System ("tdm-alpha", "tdm-beta",
    "tdm-gamma", run on NumPy) that plays the remaining slots; without it they stay and do
    not attack.
    """
    settings = make_settings(model, base_url, api_key, **options)
    other = None
    if others is not None:
        from ..systems.numpy_play import numpy_system

        if others not in SCRIPTED:
            raise ValueError(f"others: expected one of {', '.join(SCRIPTED)}, got {others!r}")
        other = numpy_system(others)
    if name is not None and (not isinstance(name, str) or not name):
        raise TypeError(f"name: expected a non-empty string, got {name!r}")
    label = name or f"llm:{settings.model}"
    asker = _Asker(settings)

    def init(key: Any) -> LLMMemory:
        del key
        return LLMMemory(settings.history)

    def act(key: Any, inputs: TeamInputs, memory: LLMMemory) -> tuple[np.ndarray, LLMMemory]:
        del key
        start = time.perf_counter()
        games = np.asarray(inputs.present).shape[0]
        memory.fit(games, inputs.new_game)
        actions = np.zeros((games, TEAM_SIZE), np.int32)
        jobs: list[_Job] = []
        open_games = []
        for g in range(games):
            one = _one_game(inputs, g)
            state = memory.games[g]
            if game_over(one.obs[0]):
                continue  # a finished game is held still; its actions are ignored
            open_games.append(g)
            state.ticks += 1
            if other is not None:
                if state.other_memory is None:
                    state.other_memory = other.init()
                acts, state.other_memory = other.act(one, state.other_memory, None)
                actions[g] = np.asarray(acts, np.int32)
            for k in settings.slots:
                if not bool(one.present[k]):
                    continue
                state.classes[k] = int(one.classes[k])
                state.add(k, "decisions")
                menu = legal_menu(one, k)
                if menu.choices <= 1:
                    state.add(k, "no_choice")
                    actions[g, k] = next(iter(menu.flat.values()), STAY_NO_ATTACK)
                    continue
                state.add(k, "asked")
                text = format_actor_view(one, k)
                jobs.append(_Job(g, k, menu, text, asker.messages(text, state.turns[k])))
        if jobs:
            with ThreadPoolExecutor(min(settings.concurrency, len(jobs))) as pool:
                outcomes = list(pool.map(asker.decide, jobs))
            for job, outcome in zip(jobs, outcomes, strict=True):
                state = memory.games[job.game]
                _record(state, job.agent, outcome)
                actions[job.game, job.agent] = outcome.action
                if outcome.content is not None and settings.history:
                    state.turns[job.agent].append((job.text, outcome.content))
        elapsed = time.perf_counter() - start
        for g in open_games:
            memory.games[g].tick_seconds += elapsed
        return check_host_actions(actions, inputs), memory

    def report(memory: LLMMemory) -> list[list[dict]]:
        out = []
        for state in memory.games:
            rows = []
            for k in settings.slots:
                row: dict[str, Any] = {"agent": k, "class": int(state.classes[k])}
                row.update({n: int(state.counts[k, i]) for i, n in enumerate(COUNT_FIELDS)})
                row.update({n: float(state.seconds[k, i]) for i, n in enumerate(TIME_FIELDS)})
                row.update(dict(zip(SIDE_FIELDS, (state.ticks, state.tick_seconds), strict=True)))
                rows.append(row)
            out.append(rows)
        return out

    return System(label, act, init, True, report)


def parse_spec(spec: str) -> tuple[str, str]:
    """(model, base_url) of `llm:MODEL@http://host:port/v1`."""
    if not isinstance(spec, str) or not spec.startswith("llm:"):
        raise ValueError(f"system: expected llm:MODEL@http://host:port/v1, got {spec!r}")
    rest = spec[len("llm:") :]
    at = max(rest.rfind("@http://"), rest.rfind("@https://"))
    if at <= 0:
        raise ValueError(
            f"system: {spec!r} needs a model and a server, as llm:MODEL@http://127.0.0.1:8001/v1"
        )
    return rest[:at], rest[at + 1 :]


API_KEY_VARIABLE = "MARL_BGS_LLM_API_KEY"


def system_from_spec(spec: str) -> System:
    """The LLM System named by `llm:MODEL@URL` with the default options, its API key read
    from the environment variable `MARL_BGS_LLM_API_KEY` (unset: no key is sent). The same
    spec and key give the same System object, so evaluate's compiled loops are reused."""
    import os

    model, base_url = parse_spec(spec)
    return _cached_system(model, base_url, os.environ.get(API_KEY_VARIABLE) or None)


@cache
def _cached_system(model: str, base_url: str, api_key: str | None) -> System:
    return llm_system(model, base_url, api_key)
