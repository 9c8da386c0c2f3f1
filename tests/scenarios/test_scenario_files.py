"""Scenario files: the reader refuses every tampered field by name; Fisher's exact test;
the solver's joint-action product; lines to flat actions and back. (No engine is run.)"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from marl_bgs.scenarios import SCENARIOS, read_scenario
from marl_bgs.scenarios.evaluate import fisher_exact
from marl_bgs.scenarios.records import SKILLS, load_scenarios
from marl_bgs.scenarios.search import joint_choices
from marl_bgs.scenarios.verify import from_flat, to_flat


@pytest.fixture
def doc() -> dict:
    return SCENARIOS[0].as_dict()


def test_every_scenario_file_reads_back_to_the_same_document():
    for s in SCENARIOS:
        again = read_scenario(json.loads(json.dumps(s.as_dict())), "again")
        assert again == s


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="marl-bgs/replay"), "scenario.format: expected"),
        (lambda d: d.update(version=2), "scenario.version: expected 1"),
        (lambda d: d.update(id=9), "scenario.id"),
        (lambda d: d.update(controller="tdm-gamma"), "scenario.controller: unknown controller"),
        (lambda d: d.update(skills=["luck"]), "scenario.skills[0]: unknown skill"),
        (lambda d: d.update(skills=[SKILLS[0], SKILLS[0]]), "scenario.skills: a skill is listed"),
        (lambda d: d.update(name=""), "scenario: name and briefing must not be empty"),
        (lambda d: d.pop("briefing"), "scenario.briefing: required"),
        (lambda d: d.update(extra=1), "scenario.extra: unknown key"),
        (lambda d: d["position"].update(tick=250), "ticks left; a scenario leaves 5 to 10"),
        (lambda d: d["position"]["teams"][0]["agents"][0].update(x=-3),
         "scenario.position: teams[0].agents[0].x"),
        (lambda d: d["lines"][0][0][0].__setitem__(1, 11),
         "scenario.lines[0][0][0][1]: 11 is out of range [0, 10]"),
        (lambda d: d["lines"][0][0].pop(), "scenario.lines[0][0]: expected 5 items"),
        (lambda d: d["lines"].append(d["lines"][0]), "scenario.lines: a line is listed twice"),
        (lambda d: d["lines"][0].extend([d["lines"][0][0]] * 10), "scenario.lines[0]: expected"),
        (lambda d: d["search"].update(samples=-1), "scenario.search.samples"),
        (lambda d: d["search"]["sampled_wins_by_length"].update({"11": 1}),
         "scenario.search.sampled_wins_by_length.11: expected a line length"),
    ],
)  # fmt: skip
def test_a_tampered_scenario_is_refused_naming_the_field(doc, change, message):
    bad = copy.deepcopy(doc)
    change(bad)
    with pytest.raises(ValueError, match=None) as err:
        read_scenario(bad)
    assert message in str(err.value)


def test_a_team_a_on_the_right_is_refused(doc):
    bad = copy.deepcopy(doc)
    teams = bad["position"]["teams"]
    teams[0]["spawn_end"], teams[1]["spawn_end"] = "right", "left"
    with pytest.raises(ValueError, match=r"teams\[0\]\.spawn_end: Team A starts on the left"):
        read_scenario(bad)


def test_scenario_files_must_match_their_names_and_be_strict_json(tmp_path, doc):
    sid = doc["id"]
    wrong = tmp_path / f"scenario_{sid % 8 + 1}.json"
    wrong.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=rf"{wrong.name}\.id: {sid} does not match"):
        load_scenarios(tmp_path)
    wrong.unlink()
    text = json.dumps(doc).replace(f'"id": {sid}', f'"id": {sid}, "id": {sid}')
    (tmp_path / f"scenario_{sid}.json").write_text(text)
    with pytest.raises(ValueError, match=rf"scenario_{sid}\.json"):
        load_scenarios(tmp_path)


def test_fisher_exact_by_hand_and_against_scipy():
    # 3 of 4 against 0 of 4: tables with 3 wins in all; P(3,0) = P(0,3) = 4/56, the rest
    # are more likely, so p = 8/56.
    assert fisher_exact(3, 4, 0, 4) == pytest.approx(8 / 56)
    assert fisher_exact(0, 256, 0, 256) == 1.0
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    for _ in range(60):
        na, nb = (int(v) for v in rng.integers(1, 300, 2))
        wa, wb = int(rng.integers(0, na + 1)), int(rng.integers(0, min(nb, 12) + 1))
        want = stats.fisher_exact([[wa, na - wa], [wb, nb - wb]], alternative="two-sided")[1]
        assert fisher_exact(wa, na, wb, nb) == pytest.approx(want, rel=1e-9, abs=1e-12)
    with pytest.raises(ValueError, match="wins cannot exceed games"):
        fisher_exact(5, 4, 0, 4)


def test_joint_choices_is_the_product_of_living_agents_legal_actions():
    avail = np.zeros((5, 198), bool)
    avail[0, [0, 22, 45]] = True
    avail[2, [0, 3]] = True
    avail[4, [7]] = True  # dead: plays 0
    got = joint_choices(avail, np.array([True, False, True, False, False]))
    assert got.shape == (6, 5)
    assert {tuple(r) for r in got} == {(a, 0, c, 0, 0) for a in (0, 22, 45) for c in (0, 3)}


def test_lines_to_flat_and_back():
    line = [[[3, 7, 0], [0, 0, 0], [8, 10, 1]], [[1, 0, 1], [2, 5, 0], [0, 0, 0]]]
    flat = to_flat(line)
    assert flat.shape == (2, 5)
    assert flat[0, 0] == 3 * 22 + 7 * 2
    assert from_flat(flat, 3) == line
