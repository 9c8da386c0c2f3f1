"""Pages written from the code are up to date."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_observation_layout_page_is_fresh():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "write_obs_layout.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
