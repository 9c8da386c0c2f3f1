"""The LLM agents page, written at build time from the code: the options from `LLMSettings`,
the failure kinds and counts from their modules, and the golden prompt and request from
`marl_bgs.llm.example`, so the page shows what the code sends and cannot go stale. The words
are the template `site_src/_templates/api/llm.md.j2`."""

from __future__ import annotations

import copy
import dataclasses
import json

from marl_bgs.llm import example
from marl_bgs.llm.schema import FAILURE_KINDS, FAILURE_MEANING
from marl_bgs.llm.stats import AGENT_COLUMNS, MEANING, SIDE_FIELDS
from marl_bgs.llm.system import API_KEY_VARIABLE, MAX_CONCURRENCY, SCRIPTED, LLMSettings
from marl_bgs.llm.view import VIEW_VERSION

from . import templates


def _options() -> list[tuple[str, str]]:
    """Every field of LLMSettings that has a default, with the default's repr, in order (the
    template shows those it explains)."""
    out = []
    for f in dataclasses.fields(LLMSettings):
        if f.default is not dataclasses.MISSING:
            out.append((f.name, repr(f.default)))
        elif f.default_factory is not dataclasses.MISSING:
            out.append((f.name, repr(f.default_factory())))
    return out


def _request_json() -> str:
    body = copy.deepcopy(example.example_request("MODEL"))
    body["messages"][-1]["content"] = "<the prompt below>"
    return json.dumps(body, indent=2)


def llm_page() -> str:
    """Markdown for api/llm.md."""
    return templates.render(
        "api/llm.md.j2",
        prompt=example.golden_prompt(),
        request=_request_json(),
        options=_options(),
        FAILURE_KINDS=FAILURE_KINDS,
        FAILURE_MEANING=FAILURE_MEANING,
        counts=AGENT_COLUMNS + SIDE_FIELDS,
        COUNT_MEANING=MEANING,
        API_KEY_VARIABLE=API_KEY_VARIABLE,
        MAX_CONCURRENCY=MAX_CONCURRENCY,
        SCRIPTED=SCRIPTED,
        VIEW_VERSION=VIEW_VERSION,
        EXAMPLE_TICK=example.EXAMPLE_TICK,
        EXAMPLE_MAP=example.EXAMPLE_MAP,
    )
