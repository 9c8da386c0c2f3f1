"""Small checks shared by every reader of JSON input: each error names the field."""

from __future__ import annotations

import math
from typing import Any


def whole(value: Any, where: str, lo: int, hi: int) -> int:
    """A whole number within [lo, hi]; booleans and floats are rejected."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where}: expected a whole number, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{where}: {value} is out of range [{lo}, {hi}]")
    return value


def number(value: Any, where: str) -> float:
    """A finite number; booleans, strings, NaN and infinities are rejected."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: expected a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{where}: must be finite, got {value!r}")
    return float(value)
