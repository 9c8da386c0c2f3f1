"""The LLM agents page, written at build time from the code: the options from `LLMSettings`,
the failure kinds and counts from their modules, and the golden prompt and request from
`marl_bgs.llm.example`, so the page shows what the code sends and cannot go stale."""

from __future__ import annotations

import copy
import dataclasses
import json

from marl_bgs.llm import example
from marl_bgs.llm.schema import FAILURE_KINDS, FAILURE_MEANING
from marl_bgs.llm.stats import AGENT_COLUMNS, MEANING, SIDE_FIELDS
from marl_bgs.llm.system import API_KEY_VARIABLE, MAX_CONCURRENCY, SCRIPTED, LLMSettings
from marl_bgs.llm.view import VIEW_VERSION

OPTION_MEANING = {
    "slots": "the team slots the model plays (others stay, or `others=` plays them)",
    "temperature": "sampling temperature (0: greedy)",
    "top_p": "nucleus sampling share",
    "seed": "the request's seed (None sends none)",
    "max_tokens": "reply token limit; a reply that reaches it counts as cut_off",
    "timeout": "seconds a request may wait for the server (connect, and each read)",
    "concurrency": f"requests in flight at once (at most {MAX_CONCURRENCY})",
    "system_prompt": 'the system message (None: the default; "" sends none)',
    "history": "earlier accepted turns of the same agent repeated in each prompt (0: none)",
    "rethink": "re-ask once, with the reason, after a rejected reply",
    "extra_body": "more request fields, passed as they are (a server's own options)",
}


def _options_table() -> list[str]:
    lines = ["| option | default | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(LLMSettings):
        if f.name not in OPTION_MEANING:
            continue
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        lines.append(f"| `{f.name}` | `{default!r}` | {OPTION_MEANING[f.name]} |")
    return lines


def _request_json() -> str:
    body = copy.deepcopy(example.example_request("MODEL"))
    body["messages"][-1]["content"] = "<the prompt below>"
    return json.dumps(body, indent=2)


def llm_page() -> str:
    """Markdown for api/llm.md."""
    prompt = example.golden_prompt()
    failure_rows = [f"| `{k}` | {FAILURE_MEANING[k]} |" for k in FAILURE_KINDS]
    count_rows = []
    for name in AGENT_COLUMNS + SIDE_FIELDS:
        meaning = MEANING.get(name) or f"replies that failed as {name}"
        count_rows.append(f"| `{name}` | {meaning} |")
    lines = [
        "# LLM agents",
        "",
        "<!-- Written at build time by marl_bgs/site/llm_page.py; do not edit. -->",
        "",
        "Any model behind an OpenAI-compatible Chat Completions endpoint (vLLM, SGLang,",
        "llama.cpp's server, a hosted API) can play one or more slots of a team. "
        "`marl_bgs.llm.llm_system` turns it into an ordinary host System, so `evaluate`, the",
        "games table and replays treat it like any other.",
        "",
        "```python",
        "from marl_bgs import evaluate",
        "from marl_bgs.llm import llm_system",
        "",
        'qwen = llm_system("Qwen/Qwen3.5-9B", "http://127.0.0.1:8001/v1")',
        'result = evaluate(qwen, "tdm-alpha", maps="test", games=10, batch_size=2)',
        "result.llm          # one row per game and agent: replies by outcome, tokens, time",
        'result.meta["llm"]  # the same summed per side, with the legal share and s per tick',
        "```",
        "",
        "From the command line (the API key, if the server needs one, is read from",
        f"`${API_KEY_VARIABLE}`):",
        "",
        "```",
        "marl-bgs eval --a llm:Qwen/Qwen3.5-9B@http://127.0.0.1:8001/v1 --b tdm-alpha "
        "--maps 47 --games 2 --out results/",
        "```",
        "",
        "## One request per agent per tick",
        "",
        "Every tick, each agent in an LLM slot with more than one legal choice gets one",
        "request; an agent with a single choice (a dead or stunned one) takes it without",
        "asking, and a finished game is not asked at all. The requests of all agents of all",
        "games in a batch go out at once, at most `concurrency` in flight. Each carries the",
        f"agent's `{VIEW_VERSION}` view as the user message and a strict JSON schema whose",
        "enums are that tick's legal move and combat names. The client is plain HTTP",
        "(`http.client`): no extra dependency, the body is exactly what is shown here, and",
        "there are no hidden retries.",
        "",
        "```json",
        _request_json(),
        "```",
        "",
        "The prompt and the system message ask for compact JSON on one line. Servers that",
        "enforce the schema may still let a model pad it with blank space until the token",
        "limit (the paper lost 16 of 62,629 replies so). Such a reply stops at the limit and",
        "counts as `cut_off` even when its JSON is complete; padding that ends before the",
        "limit is accepted. Server-specific options, such as vLLM's",
        "whitespace pattern for structured outputs or a chat template's thinking switch, go",
        "in `extra_body`.",
        "",
        "## Options",
        "",
        "`llm_system(model, base_url, api_key=None, *, name=None, others=None, **options)`;",
        "a wrong option raises `TypeError` or `ValueError` naming it. `others` is one of",
        ", ".join(f"`{s}`" for s in SCRIPTED) + " (run on NumPy) for the slots the model does",
        "not play.",
        "",
        *_options_table(),
        "",
        "## Failures",
        "",
        'A reply is accepted only when it is exactly `{"move": ..., "combat": ...}` with a',
        "legal pair of names. Everything else becomes **stay, no attack** (always legal) and",
        "is counted per agent under its kind; nothing is guessed from prose or near-misses.",
        "With `rethink=True` the first four kinds are re-asked once with the reason; a",
        "timeout or server error is not.",
        "",
        "| kind | when |",
        "|---|---|",
        *failure_rows,
        "",
        "## What is counted",
        "",
        "`result.llm` has one row per game, side and LLM agent (kept apart from the games",
        "table, whose columns stay the same for every System); `save()` writes it as",
        "`llm.csv` and `llm.parquet`, `meta.json` holds the totals per side, and a recorded",
        "game's replay carries the same counts in its optional `llm` part. Per agent,",
        "`decisions = no_choice + asked`, `asked = legal + fallback`, `requests = asked +",
        "rethinks`, and `requests` is `legal` plus the failure counts.",
        "",
        "| column | meaning |",
        "|---|---|",
        "| `game`, `side`, `system` | the game, the side (a or b) and the System's name |",
        *count_rows,
        "",
        "## The prompt",
        "",
        "`format_actor_view(team_inputs, agent)` writes it from one game's `TeamInputs`: only",
        "the agent's own observation row and legal mask and the team's public roster, so",
        "nothing the agent may not see can reach it (a test scrambles the rest and gets the",
        "same bytes). Class numbers come from the class table. Positions are in the agent's",
        "own frame, its spawn end on the left. Below is the complete prompt of Team A's Mage",
        f"at tick {example.EXAMPLE_TICK} of TDM-Alpha against TDM-Beta on map "
        f"{example.EXAMPLE_MAP}: {len(prompt):,} characters in {prompt.count(chr(10))} lines.",
        "",
        "```text",
        prompt.rstrip("\n"),
        "```",
        "",
        "The overhead of the API itself (views, schema, HTTP on loopback) is measured by",
        "`benchmarks/llm_overhead.py` against the fake server in `marl_bgs.llm.fake`.",
        "",
    ]
    return "\n".join(lines)
