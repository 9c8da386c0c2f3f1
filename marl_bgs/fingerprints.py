"""What the games this package plays depend on, as fingerprints that saved results carry.

Why: a saved result (a season's fixtures) may be reused only for games this package would
play again the same way. Two things decide them besides the seeds and the entrants' files:
the rules, and how the scripted teams decide. Each has a fingerprint that its own test
holds equal to games played now:

- `RULES`: the hash of the golden random games on the NumPy engine
  (`benchmarks/golden_fingerprint.json`, `numpy_engine`; tests/tournament/test_fingerprints.py).
- `SCRIPTED`: the hash of two scripted games' decisions and states
  (tests/browser_engine/test_wheel.py).

Change a rule or the scripted play, and those tests fail until these are updated with the
golden files; every saved season fixture then no longer matches its key, so `--resume` and
`--check` replay it instead of reusing games of other rules.
"""

from __future__ import annotations

RULES = "a8b8b575db2d438d4d54be5dd8652d50a2fd42e11698f552237ac5894583c2d1"
SCRIPTED = "cfed17b08143e38ba5bb39e4da1e9170350505e9aaf633c20e7e84e77b50a2cd"


def engine_identity() -> dict[str, str]:
    """The fingerprints as a saved key holds them."""
    return {"rules": RULES, "scripted": SCRIPTED}
