"""LLM agents: any OpenAI-compatible chat model plays one or more slots as a host System.

- `format_actor_view(team_inputs, agent)`: the `actor-text-v1` prompt of one agent (view.py).
- `llm_system(model, base_url, api_key=None, ...)`: a host System asking the model once per
  agent per tick (system.py); `make_system` is the same function under the paper's name.
- `marl_bgs.llm.fake.FakeChatServer`: a scripted server on 127.0.0.1 for tests and
  benchmarks (not imported here, so `python -m marl_bgs.llm.fake` runs it cleanly).

Nothing here imports JAX; `evaluate` runs these Systems tick by tick on the host.
"""

from .schema import FAILURE_KINDS
from .system import LLMSettings, llm_system
from .view import VIEW_VERSION, Menu, format_actor_view, legal_menu

make_system = llm_system

__all__ = [
    "FAILURE_KINDS",
    "LLMSettings",
    "Menu",
    "VIEW_VERSION",
    "format_actor_view",
    "legal_menu",
    "llm_system",
    "make_system",
]
