"""What every benchmark records about where it ran, and how it writes its JSON."""

from __future__ import annotations

import json
import platform
from pathlib import Path


def run_facts() -> dict:
    """Package, JAX and device versions, so a figure can be repeated or pooled."""
    import jax

    import marl_bgs

    return {
        "package": marl_bgs.__version__,
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
        "machine": platform.machine(),
        "python": platform.python_version(),
    }


def write_report(path: Path, result: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")


def random_play_step(env):
    """The env-only loop every benchmark times: one `lax.scan` step of random legal actions
    for all games, finished games restarted; the carry is (state, key)."""
    import jax

    def body(carry, _):
        state, key = carry
        key, k_act, k_step, k_reset = jax.random.split(key, 4)
        actions = env.sample_actions(k_act, state)
        _, state, reward, _, _ = env.step(k_step, state, actions)
        _, state = env.reset_done(k_reset, state)
        return (state, key), reward["a0"].sum()

    return body
