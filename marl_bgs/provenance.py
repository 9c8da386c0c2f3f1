"""Where a result was computed: the CPU's model and the versions of what computed it.

Every saved table of games (evaluations, seasons, scenario results) carries these, because a
learned System's float32 games can differ between kinds of CPU and between library versions.
Importing this module loads nothing; `versions` imports JAX and pandas when called.
"""

from __future__ import annotations

import platform
from pathlib import Path

from .version import __version__


def cpu_model() -> str:
    """The CPU's model name (Linux), else what `platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def versions() -> dict:
    """The package's, Python's, NumPy's, pandas' and JAX's versions, JAX's backend and the
    first device's kind (what `evaluate` stores in `meta["versions"]`)."""
    import jax
    import numpy as np
    import pandas as pd

    out = {"marl_bgs": __version__, "numpy": np.__version__, "pandas": pd.__version__}
    out["python"] = platform.python_version()
    out["jax"] = jax.__version__
    out["jax_backend"] = jax.default_backend()
    out["device"] = str(jax.devices()[0].device_kind)
    return out
