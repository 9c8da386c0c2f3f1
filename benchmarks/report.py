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
