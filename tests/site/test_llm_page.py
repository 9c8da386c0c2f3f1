"""The LLM agents page is written from the code: the golden prompt verbatim, every option,
failure kind and counted column, and it is in the navigation."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from marl_bgs.llm import example
from marl_bgs.llm.schema import FAILURE_KINDS
from marl_bgs.llm.stats import AGENT_COLUMNS, SIDE_FIELDS
from marl_bgs.llm.system import LLMSettings
from marl_bgs.site import hook
from marl_bgs.site.llm_page import llm_page

ROOT = Path(__file__).resolve().parents[2]


def test_page_shows_the_golden_prompt_and_every_name():
    page = llm_page()
    assert "```text\n" + example.golden_prompt().rstrip("\n") + "\n```" in page
    assert '"enum": [' in page and '"strict": true' in page  # the request body, from the code
    for kind in FAILURE_KINDS:
        assert f"| `{kind}` |" in page
    for name in AGENT_COLUMNS + SIDE_FIELDS:
        assert f"| `{name}` |" in page
    for f in dataclasses.fields(LLMSettings):
        if f.name not in ("model", "base_url", "api_key"):
            assert f"| `{f.name}` |" in page


def test_page_is_generated_and_in_the_navigation():
    assert hook._generated(ROOT)["api/llm.md"] is llm_page
    assert not (ROOT / "site_src" / "api" / "llm.md").exists()  # generated, never copied
    assert "api/llm.md" in str(hook.navigation(ROOT))
