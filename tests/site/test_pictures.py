"""Issue 19 (fixes 1, 2, 3, 4, 6): the still pictures and the words under them.

- no two labels in any still picture overlap (boxes from each <text>'s position, size and
  length, the estimate the layout uses);
- web_demo/assets/palette.json is the only source of colours for draw.py, the Visual Key and
  the viewer's JavaScript;
- tick numbers: a picture captioned "tick n" and the event line "tick n" are the same tick;
- the fallen are drawn where they fell; words, not effect ids; "1 tick", never "(1 ticks)";
  a heal on a full target says what was useful and what was excess.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from itertools import combinations
from pathlib import Path

import pytest

from marl_bgs.core import classes
from marl_bgs.site import draw, scenes
from marl_bgs.site.draw import PALETTE, boxes_overlap, text_box

ROOT = Path(__file__).resolve().parents[2]
COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|rgba?\(")


def _shown_scenes() -> list[scenes.Scene]:
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from export_clips import shown_clips

    return [c.scene for c in shown_clips()]


@pytest.fixture(scope="module")
def played() -> list[scenes.Played]:
    return [scenes.play(s) for s in _shown_scenes()]


class _Texts(HTMLParser):
    """Every <text> of every <svg>: (svg index, x, y, size, anchor, text); and the bodies
    (boxes of the circles of radius 0.5 and of the health bars' tracks, 1 by 0.14) and combat
    arrows (lines 0.07 wide) of each."""

    def __init__(self) -> None:
        super().__init__()
        self.svg = -1
        self.texts: list[list] = []
        self.bodies: dict[int, list] = {}
        self.arrows: dict[int, list] = {}
        self._open: list | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svg += 1
        elif tag == "circle" and a.get("r") == "0.5":
            x, y = float(a["cx"]), float(a["cy"])
            self.bodies.setdefault(self.svg, []).append((x - 0.5, y - 0.5, x + 0.5, y + 0.5))
        elif tag == "rect" and a.get("width") == "1" and a.get("height") == "0.14":
            x, y = float(a["x"]), float(a["y"])
            self.bodies.setdefault(self.svg, []).append((x, y, x + 1, y + 0.14))
        elif tag == "line" and a.get("stroke-width") == "0.07":
            seg = tuple(float(a[k]) for k in ("x1", "y1", "x2", "y2"))
            self.arrows.setdefault(self.svg, []).append(seg)
        elif tag == "text":
            size = float(a["font-size"])
            self._open = [
                self.svg,
                float(a["x"]),
                float(a["y"]),
                size,
                a.get("text-anchor", "start"),
                "",
            ]

    def handle_data(self, data):
        if self._open is not None:
            self._open[5] += data

    def handle_endtag(self, tag):
        if tag == "text" and self._open is not None:
            self.texts.append(self._open)
            self._open = None


def overlapping_labels(html: str) -> list[tuple[str, str]]:
    parser = _Texts()
    parser.feed(html)
    by_svg: dict[int, list] = {}
    for svg, x, y, size, anchor, text in parser.texts:
        by_svg.setdefault(svg, []).append((text_box(x, y, size, text, anchor), text))
    bad = []
    for labels in by_svg.values():
        for (a, ta), (b, tb) in combinations(labels, 2):
            if boxes_overlap(a, b):
                bad.append((ta, tb))
    return bad


INITIAL_SIZE = 0.45  # a body's class initial, printed inside its own body on purpose


def covered_by_labels(html: str) -> list[tuple[str, str]]:
    """Labels printed over a body (with its health bar) or a combat arrow: damage and heal
    numbers, agent names, status and range labels; every text but the class initials."""
    parser = _Texts()
    parser.feed(html)
    bad = []
    for svg, x, y, size, anchor, text in parser.texts:
        if size == INITIAL_SIZE:
            continue
        box = text_box(x, y, size, text, anchor)
        if any(boxes_overlap(box, b, -0.02) for b in parser.bodies.get(svg, [])):
            bad.append((text, "body"))
        if any(draw.segment_hits_box(g, box, 0.0) for g in parser.arrows.get(svg, [])):
            bad.append((text, "arrow"))
    return bad


def test_no_label_is_printed_over_a_body_or_an_arrow(played):
    bad = {p.scene.key: found for p in played if (found := covered_by_labels(scenes.film(p)))}
    assert not bad, bad


def test_the_cover_check_sees_a_name_over_the_body_above_it():
    # The Auras case: a name label above its agent reaching into the body of an agent 1.5
    # units higher (name boxes were never checked against bodies, only numbers were).
    html = (
        '<svg><circle cx="8" cy="2.5" r="0.5"/><circle cx="8" cy="4" r="0.5"/>'
        '<text x="8" y="4.15" font-size="0.45" text-anchor="middle">H</text>'
        '<text x="8" y="3.14" font-size="0.24" text-anchor="middle">a0</text></svg>'
    )
    assert covered_by_labels(html) == [("a0", "body")]


def test_no_two_labels_overlap_in_any_still_picture(played):
    bad = {}
    for p in played:
        found = overlapping_labels(scenes.film(p))
        if found:
            bad[p.scene.key] = found
    assert not bad, bad


def test_the_overlap_check_sees_an_overprint():
    html = (
        '<svg><text x="1" y="1" font-size="0.34" text-anchor="middle">12</text>'
        '<text x="1.1" y="1.05" font-size="0.34" text-anchor="middle">12</text></svg>'
    )
    assert overlapping_labels(html) == [("12", "12")]


def _sources() -> dict[str, str]:
    files = [
        "marl_bgs/site/draw.py",
        "marl_bgs/site/viewer_key.py",
        "web_demo/viewer/render.js",
        "web_demo/viewer/ui.js",
        "web_demo/viewer/embed.js",
    ]
    return {f: (ROOT / f).read_text() for f in files}


def test_the_palette_file_is_the_only_source_of_colours():
    for name, text in _sources().items():
        found = COLOUR.findall(text)
        assert not found, f"{name} has colour literals {found}; put them in palette.json"
    css = (ROOT / "web_demo/viewer/viewer.css").read_text()
    assert "var(--mbg-team-a)" in css and "var(--mbg-team-b)" in css
    for c in PALETTE["team"]:
        assert c not in css
    assert draw.TEAM_COLOURS == tuple(PALETTE["team"])
    js = (ROOT / "web_demo/viewer/render.js").read_text()
    assert 'import PALETTE from "../assets/palette.json"' in js
    assert "export const TEAM_COLOURS = PALETTE.team;" in js


def test_pictures_use_the_palette_team_and_red_zone_colours(played):
    html = scenes.film(played[0])
    assert PALETTE["team"][0] in html or PALETTE["team"][1] in html
    assert PALETTE["red_zone_fill"] in html and PALETTE["red_zone"] in html
    assert 'class="pad"' in html  # squares, as the Visual Key says


def test_thin_walls_are_drawn_wide_enough():
    svg = draw._obstacle({"kind": "wall", "x": 5, "y": 5, "width": 3, "height": 0.02})
    assert 'class="thin-wall"' in svg and 'height="0.06"' in svg


def test_picture_captions_and_event_lines_name_the_same_tick(played):
    for p in played:
        film = scenes.film(p)
        captions = re.findall(r"<figcaption>(.*?)</figcaption>", film)
        lines = scenes.event_list(p).splitlines()
        if not p.events:
            assert len(captions) == 1 and "tick" in captions[0]
            continue
        assert captions[0] == "start"
        assert captions[1:] == [f"tick {int(s.tick)}" for s in p.states[1:]]
        assert [ln.split(":")[0] for ln in lines] == [f"- {c}" for c in captions[1:]]


def test_the_fallen_are_drawn_where_they_fell(played):
    deaths = [p for p in played if any(e["kind"] == "death" for ev in p.events for e in ev)]
    assert deaths
    for p in deaths:
        for t, evs in enumerate(p.events):
            for e in evs:
                if e["kind"] == "death":
                    svg = draw.draw(
                        p.states[t + 1], p.obstacles, p.scene.view, scenes.tick_marks(p, t)
                    )
                    assert f"{e['target']} " in svg and ": fallen</title>" in svg


def test_event_words_not_ids_and_no_1_ticks(played):
    text = "\n".join(scenes.event_list(p) for p in played)
    assert "(1 ticks)" not in text and " 1 ticks" not in text
    for name in classes.EFFECT_NAMES:
        assert name not in text or "_" not in name, name
    assert re.search(r"for 1 tick\b", text)


def test_a_heal_on_a_full_target_shows_useful_and_excess(played):
    found = []
    for p in played:
        for t, evs in enumerate(p.events):
            if any(e["kind"] == "excess_heal" for e in evs):
                found.append((p, t))
    assert found, "some scene heals above maximum health"
    for p, t in found:
        said = "; ".join(scenes.tick_sentences(p.states[t], p.events[t]))
        assert "useful" in said and "excess" in said, said
        marks = scenes.tick_marks(p, t)
        svg = draw.draw(p.states[t + 1], p.obstacles, p.scene.view, marks)
        assert "excess)" in svg
    assert draw.heal_label(12, 0) == "+12"
    assert draw.heal_label(12, 12) == "+0 (12 excess)"
