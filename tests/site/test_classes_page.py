"""The Classes overview: every class's passive, and the counter/helper diagram (the paper's
Figure 2) derived from the class table by stated rules, never typed by hand (issue 19)."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import pytest

from marl_bgs.core import classes
from marl_bgs.site import classes_page

SVG = "{http://www.w3.org/2000/svg}"


def _edges(rels) -> set[tuple[str, str, str]]:
    return {(classes.CLASSES[r.a].name, r.rule.code, classes.CLASSES[r.b].name) for r in rels}


def test_overview_lists_every_passive_with_the_table_numbers():
    text = classes_page.classes_index()
    for spec in classes.CLASSES:
        assert f"**{spec.title}: {spec.passive_name}.** {classes_page.passive_text(spec)}" in text
        assert f"| [{spec.title}]({spec.name}.md) |" in text
    assert f"cooldown of {classes.ULTIMATE_COOLDOWN} ticks" in text


def test_relations_follow_the_rules_on_todays_table():
    edges = _edges(classes_page.relations())
    assert {
        ("hunter", "K1", "warrior"),
        ("hunter", "K1", "rogue"),
        ("warrior", "K2", "mage"),
        ("rogue", "K3", "priest"),
        ("rogue", "K5", "mage"),
        ("priest", "H1", "warrior"),
        ("warrior", "H2", "mage"),
        ("mage", "H3", "rogue"),
        ("hunter", "H4", "rogue"),
    } <= edges
    assert all(a != b for a, _, b in edges)
    # No class counters every other class (the paper: the counters form no single winner).
    for spec in classes.CLASSES:
        beaten = {b for a, code, b in edges if a == spec.name and code.startswith("K")}
        assert len(beaten) < len(classes.CLASSES) - 1


def test_relations_are_derived_from_the_class_table(monkeypatch):
    """Change the table and the arrows change: nothing is typed by hand."""
    specs = list(classes.CLASSES)
    # A Hunter whose arrows reach no farther than a Rogue's Basic no longer kites anyone.
    specs[classes.HUNTER] = dataclasses.replace(specs[classes.HUNTER], basic_range=2.0)
    # A Priest with a stronger Basic heal than anyone's Basic damage is not out-damaged.
    specs[classes.PRIEST] = dataclasses.replace(specs[classes.PRIEST], basic_heal=50.0)
    monkeypatch.setattr(classes, "CLASSES", tuple(specs))
    edges = _edges(classes_page.relations())
    assert not any(code == "K1" for _, code, _ in edges)
    assert not any(code == "K4" for _, code, _ in edges)
    assert ("rogue", "K3", "priest") in edges  # healing cut still applies
    assert "50 healing per tick" not in classes_page.classes_index()


def test_diagram_svg_draws_every_relation():
    rels = classes_page.relations()
    root = ET.fromstring(classes_page.relation_svg(rels))
    nodes = [g.get("data-class") for g in root.iter(f"{SVG}g") if g.get("class") == "rel-node"]
    assert nodes == [s.name for s in classes.CLASSES]
    paths = [p for p in root.iter(f"{SVG}path") if "rel" in (p.get("class") or "").split()]
    drawn = {
        (p.get("data-from"), code, p.get("data-to"))
        for p in paths
        for code in p.get("data-rules").split()
    }
    assert drawn == _edges(rels)
    kinds = {p.get("class").split()[1] for p in paths}
    assert kinds == {"rel-counters", "rel-helps"}


@pytest.mark.parametrize("rule", classes_page.RULES, ids=lambda r: r.code)
def test_every_rule_is_stated_on_the_page(rule):
    text = classes_page.classes_index()
    assert f"**{rule.code} {rule.name}** ({rule.kind}): {rule.text}" in text
