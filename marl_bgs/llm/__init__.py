"""LLM agents: any OpenAI-compatible chat model plays one or more slots as a host System.

- `format_actor_view(team_inputs, agent)`: the `actor-text-v1` prompt of one agent.
- `llm_system(model, base_url, ...)`: a host System asking the model once per agent per tick.
"""

from .view import VIEW_VERSION, Menu, format_actor_view, legal_menu

__all__ = ["VIEW_VERSION", "Menu", "format_actor_view", "legal_menu"]
