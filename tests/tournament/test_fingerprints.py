"""The package's fingerprints of the rules and the scripted play (`marl_bgs.fingerprints`),
which saved season fixtures carry in their keys, are those of the games played now."""

from __future__ import annotations

import json
import sys

from marl_bgs import fingerprints
from marl_bgs.tournament.fixture_store import stored_key
from tests.engine_files import ROOT

GOLDEN = json.loads((ROOT / "benchmarks" / "golden_fingerprint.json").read_text())


def test_the_rules_fingerprint_is_the_golden_games_hash_played_now():
    sys.path.insert(0, str(ROOT / "benchmarks"))  # benchmarks/ is not a package
    try:
        import fingerprint
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    _, played = fingerprint.play_numpy(GOLDEN["games"], GOLDEN["ticks"], GOLDEN["seed"])
    assert played == GOLDEN["numpy_engine"] == fingerprints.RULES


def test_a_season_fixture_key_names_the_rules_and_the_scripted_play():
    from marl_bgs.tournament.entrants import Entrant
    from marl_bgs.tournament.schedule import Fixture

    fixture = Fixture(0, "round-robin", "A", "B", (47,), 2, 0)
    a = Entrant("A", "scripted", {"system": "tdm-alpha"})
    b = Entrant("B", "scripted", {"system": "tdm-beta"})
    key = stored_key(fixture, 0, a, b)
    assert key["engine"] == {"rules": fingerprints.RULES, "scripted": fingerprints.SCRIPTED}
