"""The endgame scenarios on both engines: every stored line wins against the live
controller, a key action of each scenario's lines cannot be changed without losing the win,
the positions load and round-trip, and `evaluate_scenarios` does not depend on the batch
size. (The file reader's refusals are in test_scenario_files.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from marl_bgs import Game
from marl_bgs.scenarios import SCENARIOS
from marl_bgs.scenarios.records import SKILLS
from marl_bgs.scenarios.verify import (
    JaxLines,
    numpy_result,
    to_flat,
    variant_lines,
    variant_report,
)
from tests.script_loader import load_script

CHUNK = 256  # one small compiled step per controller serves every scenario


@pytest.fixture(scope="module")
def jax_lines():
    from marl_bgs.scenarios.search import Expander

    return {s.id: JaxLines(s, Expander(s.position, s.controller, chunk=CHUNK)) for s in SCENARIOS}


def test_eight_scenarios_as_table_s5_describes_them():
    assert len(SCENARIOS) == 8
    table = {  # id: (Team A living, Team B living, ticks left, score, controller)
        1: ("HRP", "MRP", 5, [18, 17], "tdm-alpha"),
        2: ("WP", "MR", 5, [18, 19], "tdm-alpha"),
        3: ("WH", "R", 10, [19, 19], "tdm-beta"),
        4: ("WR", "MWP", 5, [18, 19], "tdm-alpha"),
        5: ("MWP", "MRP", 5, [17, 19], "tdm-beta"),
        6: ("MHP", "MWR", 5, [17, 19], "tdm-alpha"),
        7: ("MWP", "MHR", 5, [17, 19], "tdm-alpha"),
        8: ("WRP", "RP", 5, [18, 19], "tdm-beta"),
    }
    letters = {"mage": "M", "warrior": "W", "hunter": "H", "rogue": "R", "priest": "P"}
    for s in SCENARIOS:
        a, b, ticks, score, controller = table[s.id]
        assert "".join(letters[c] for c in s.living(0)) == a
        assert "".join(letters[c] for c in s.living(1)) == b
        assert (s.ticks_left, s.position["score"], s.controller) == (ticks, score, controller)
        assert set(s.skills) <= set(SKILLS) and s.briefing and s.lines
        # every class slot is there; the others start dead and return in the next wave
        for team in s.position["teams"]:
            assert [a["class"] for a in team["agents"]] == list(letters)


def test_positions_load_and_round_trip():
    for s in SCENARIOS:
        game = Game(s.position)
        again = Game(json.loads(json.dumps(game.state_dict())))
        for a, b in zip(game.state, again.state, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_every_line_wins_on_numpy():
    for s in SCENARIOS:
        for i, line in enumerate(s.lines):
            assert numpy_result(s, line) == "a", f"scenario {s.id}, line {i}"


def test_every_line_wins_on_jax(jax_lines):
    for s in SCENARIOS:
        longest = max(len(line) for line in s.lines)
        flat = np.zeros((len(s.lines), longest, 5), np.int32)
        for i, line in enumerate(s.lines):
            flat[i, : len(line)] = to_flat(line)
        assert jax_lines[s.id].results(flat) == ["a"] * len(s.lines), f"scenario {s.id}"


def test_each_line_has_a_key_action_whose_every_variant_fails(jax_lines):
    for s in SCENARIOS:
        for i, line in enumerate(s.lines[:4]):
            report = variant_report(s, line, jax_lines[s.id])
            assert report.key_actions, f"scenario {s.id}, line {i}: no key action"


def test_variants_agree_on_both_engines(jax_lines):
    """A sample of one-agent variants gives the same result on NumPy and on JAX."""
    rng = np.random.default_rng(0)
    for s in SCENARIOS:
        lines, _ = variant_lines(s, s.lines[0])
        pick = rng.choice(len(lines), size=min(6, len(lines)), replace=False)
        on_jax = jax_lines[s.id].results(lines[pick])
        for j, p in enumerate(pick):
            line = [[[a // 22, (a // 2) % 11, a % 2] for a in row[: len(s.lines[0][0])]]
                    for row in lines[p].tolist()]  # fmt: skip
            assert numpy_result(s, line) == on_jax[j]


def _line_events(scenario, line) -> list[list[dict]]:
    from marl_bgs.scenarios.play_lines import play_line

    return play_line(scenario.position, scenario.controller, line).events


def test_trust_the_healer_leaves_the_priest_to_undo_her_own_wounds():
    """Scenario 2: in every line the Warrior's blow is in the winning kill while the Priest,
    left alone, takes hits and undoes them with Salvation on herself."""
    s = next(s for s in SCENARIOS if s.id == 2)
    for i, line in enumerate(s.lines):
        events = [(t, e) for t, tick in enumerate(_line_events(s, line)) for e in tick]
        saves = [t for t, e in events if e["kind"] == "heal" and e["source"] == "a4"
                 and e["target"] == "a4" and e["ability"] == "Holy Word: Salvation"]  # fmt: skip
        hits = [t for t, e in events if e["kind"] == "damage" and e["target"] == "a4"]
        assert saves and hits and min(hits) <= saves[0], f"line {i}"
        kill = next(e for _, e in events if e["kind"] == "death" and e["target"].startswith("b"))
        assert "a1" in kill["by"], f"line {i}"


def test_finish_before_the_stun_is_won_on_the_tick_the_enemy_charge_lands():
    """Scenario 4: every line's winning blow includes the Rogue's and falls on the tick Team
    B's Warrior Charges her, so a tick later she would be stunned (she acts no more)."""
    s = next(s for s in SCENARIOS if s.id == 4)
    assert s.position["teams"][1]["agents"][1]["ultimate_cooldown"] == 2
    for i, line in enumerate(s.lines):
        last = _line_events(s, line)[-1]
        assert len(line) == 3, f"line {i}"
        assert {"kind": "charge", "source": "b1", "target": "a3"}.items() <= next(
            e for e in last if e["kind"] == "charge" and e["source"] == "b1"
        ).items(), f"line {i}"
        death = next(e for e in last if e["kind"] == "death" and e["target"].startswith("b"))
        assert "a3" in death["by"] and death["red_zone"], f"line {i}"


def test_protect_the_bodyguard_keeps_the_warrior_between_rogue_and_priest():
    """Scenario 8: in every line Team B's Rogue never reaches the 1-health Priest, the
    Warrior it hits instead is alive at the end, and every line longer than three ticks
    spends a Priest's heal on him."""
    s = next(s for s in SCENARIOS if s.id == 8)
    for i, line in enumerate(s.lines):
        events = [e for tick in _line_events(s, line) for e in tick]
        rogue_hits = {e["target"] for e in events if e["kind"] == "damage" and e["source"] == "b3"}
        assert "a4" not in {e["target"] for e in events if e["kind"] == "damage"}, f"line {i}"
        assert "a1" in rogue_hits, f"line {i}"
        assert not any(e["kind"] == "death" and e["target"] == "a1" for e in events), f"line {i}"
        healed = any(e["kind"] == "heal" and e["source"] == "a4" and e["target"] == "a1"
                     for e in events)  # fmt: skip
        assert healed or len(line) <= 3, f"line {i}"


def test_turn_a_doomed_fight_takes_the_trap_and_an_arrow_or_three_arrows():
    """Scenario 1: the enemy Mage (16 health) dies on every line's last tick, killed by our
    Hunter alone, for the two points still needed (in its Red Zone, or after the enemy
    Priest), and no one shot or two arrows (6 each) would do: every line hits it with the
    Freezing Trap (10) and an arrow on two different ticks, or with three arrows."""
    s = next(s for s in SCENARIOS if s.id == 1)
    mage = s.position["teams"][1]["agents"][0]
    assert (mage["class"], mage["health"]) == ("mage", 16)
    for i, line in enumerate(s.lines):
        ticks = _line_events(s, line)
        deaths = [(t, e) for t, tick in enumerate(ticks) for e in tick
                  if e["kind"] == "death" and e["target"] == "b0"]  # fmt: skip
        assert len(deaths) == 1 and deaths[0][0] == len(line) - 1, f"line {i}"
        assert deaths[0][1]["by"] == ["a2"], f"line {i}"
        points = sum(e["points"] for tick in ticks for e in tick
                     if e["kind"] == "death" and e["target"].startswith("b"))  # fmt: skip
        assert points >= 2, f"line {i}"
        damage = [(t, e) for t, tick in enumerate(ticks) for e in tick
                  if e["kind"] == "damage" and e["target"] == "b0"]  # fmt: skip
        assert all(e["source"] == "a2" for _, e in damage), f"line {i}"
        hits = [(t, e["ability"]) for t, e in damage]
        arrows = [t for t, a in hits if a == "Serrated Arrows"]
        traps = [t for t, a in hits if a == "Freezing Trap"]
        assert len({t for t, _ in hits}) == len(hits), f"line {i}: two hits on one tick"
        assert (len(traps) == 1 and arrows) or len(arrows) >= 3, f"line {i}: {hits}"


def test_keep_the_trap_holds_the_rogue_until_the_tick_it_dies():
    """Scenario 6: in every line the Hunter Traps the enemy Rogue on tick 1 (before it can
    reach the 1-health Priest or the Hunter with Poison), nobody damages the Rogue again
    until the tick it dies, and that death, on the line's last tick, is the winning point."""
    s = next(s for s in SCENARIOS if s.id == 6)
    for i, line in enumerate(s.lines):
        ticks = _line_events(s, line)
        first = ticks[0]
        assert any(e["kind"] == "effect" and e["effect"] == "trap" and e["source"] == "a2"
                   and e["target"] == "b3" for e in first), f"line {i}"  # fmt: skip
        death = [t for t, tick in enumerate(ticks) for e in tick
                 if e["kind"] == "death" and e["target"] == "b3"]  # fmt: skip
        assert death == [len(line) - 1], f"line {i}"
        hits = [t for t, tick in enumerate(ticks) for e in tick
                if e["kind"] == "damage" and e["target"] == "b3"]  # fmt: skip
        assert set(hits) == {0, death[0]}, f"line {i}: the Rogue was hit on ticks {hits}"
        assert not any(e["kind"] == "damage" and e["source"] == "b3"
                       for tick in ticks for e in tick), f"line {i}"  # fmt: skip


def test_evaluate_scenarios_repeats_the_published_games_at_another_batch_size():
    """Random's first games in scenario 1, played now 3 at a time, equal the published
    results (played 128 at a time): batch-size independence and fresh results at once."""
    from pathlib import Path

    import pandas as pd

    from marl_bgs.scenarios import evaluate_scenarios

    root = Path(__file__).resolve().parents[2] / "exports" / "scenarios"
    meta = json.loads((root / "results.json").read_text())
    stored = pd.read_csv(root / "results_games.csv")
    stored = stored[(stored["system"] == "random") & (stored["scenario"] == 1)].head(6)
    run = evaluate_scenarios("random", games=6, seed=meta["root_seed"], scenarios=[1],
                             batch_size=3, reference=False, progress=False)  # fmt: skip
    assert meta["batch_size"] != 3
    pd.testing.assert_frame_equal(run.games.reset_index(drop=True), stored.reset_index(drop=True),
                                  check_dtype=False)  # fmt: skip
    assert run.table["games"].tolist() == [6]


def test_published_scenario_games_count_each_point_once():
    """Every published game: the score at its end is the position's score plus what was
    scored during the game, never above what one tick can add to the winning score, and the
    result follows from it (RULES.md: the higher score at or above the threshold wins;
    equal at or above it, or nobody there at the horizon, is a draw)."""
    import pandas as pd

    root = Path(__file__).resolve().parents[2] / "exports" / "scenarios"
    games = pd.read_csv(root / "results_games.csv")
    by_id = {s.id: s.position for s in SCENARIOS}
    start_a = games["scenario"].map(lambda i: by_id[i]["score"][0])
    start_b = games["scenario"].map(lambda i: by_id[i]["score"][1])
    target = games["scenario"].map(lambda i: by_id[i]["winning_score"])
    assert (games["final_a"] == start_a + games["points_a"]).all()
    assert (games["final_b"] == start_b + games["points_b"]).all()
    assert (games[["points_a", "points_b"]] >= 0).all().all()
    assert (games[["final_a", "final_b"]].max(axis=1) <= target + 10).all()
    top = games[["final_a", "final_b"]].max(axis=1)
    a_wins = (games["final_a"] > games["final_b"]) & (top >= target)
    b_wins = (games["final_b"] > games["final_a"]) & (top >= target)
    expected = a_wins.map({True: "a", False: "draw"}).where(~b_wins, "b")
    assert (games["result"] == expected).all()


def test_scenario_exports_are_fresh():
    """exports/scenarios/ equals a fresh export, and its results table was played on the
    current scenario files (run scripts/export_scenarios.py [--results] if not)."""
    assert load_script("export_scenarios").main(["--check"]) == 0


def test_the_scenarios_command_prints_the_table_and_writes_results(tmp_path, capsys):
    """`marl-bgs scenarios` (3 games at once, as the batch-size test above, so its compiled
    loop is reused), then a refused second write to the same folder."""
    from marl_bgs.cli import main

    out = tmp_path / "res"
    args = ["scenarios", "--system", "random", "--games", "3", "--batch-size", "3",
            "--only", "1", "--no-reference", "--quiet", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "random as Team A, 3 games per scenario" in text and "Turn a doomed fight" in text
    assert sorted(p.name for p in out.iterdir()) == [
        "games.csv",
        "games.parquet",
        "meta.json",
        "table.csv",
    ]
    assert main(args) == 2
    assert "--out" in capsys.readouterr().err


def test_every_stored_line_has_a_key_action_and_the_check_is_fresh(jax_lines):
    """exports/scenarios/verification.json (scripts/verify_scenarios.py) played every
    one-agent variant of every stored line on the current scenario files; each line has a
    key action there, and a fresh check of one line per scenario gives the same counts."""
    module = load_script("verify_scenarios")
    assert module.main(["--check"]) == 0
    stored = {e["id"]: e for e in json.loads(module.OUT.read_text())["scenarios"]}
    rng = np.random.default_rng(1)
    for s in SCENARIOS:
        entry = stored[s.id]
        assert entry["lines"] == len(s.lines), f"scenario {s.id}"
        assert entry["lines_with_key_action"] == entry["lines"], f"scenario {s.id}"
        i = int(rng.integers(len(s.lines)))
        report = variant_report(s, s.lines[i], jax_lines[s.id])
        line = entry["per_line"][i]
        assert (line["variants"], line["failing"]) == (report.total, report.failing)
        keys = [(k["tick"], k["agent"], ("move", "combat").index(k["head"]))
                for k in line["key_actions"]]  # fmt: skip
        assert keys == sorted(report.key_actions), f"scenario {s.id}, line {i}"


@pytest.mark.parametrize(
    ("scenarios", "says"),
    [
        ([], r"^scenarios: expected at least one scenario"),
        ([1, 1], r"^scenarios: scenario 1 is listed twice$"),
        ([2, SCENARIOS[1]], r"^scenarios: scenario 2 is listed twice$"),
        ([9], r"^scenarios\[0\]: 9 is out of range \[1, 8\]$"),
    ],
)
def test_evaluate_scenarios_refuses_an_empty_or_repeated_list(scenarios, says):
    """Refused before any game: a scenario listed twice would count its games twice."""
    from marl_bgs.scenarios import evaluate_scenarios

    with pytest.raises(ValueError, match=says):
        evaluate_scenarios("random", games=2, scenarios=scenarios, progress=False)
