"""What the built site says, read as a visitor reads it (issue 19's broken and stale text).

Every test reads the one shared strict build (`marl_bgs.site.build.build_once`, the same one
test_site_build.py checks) and parses its HTML into visible text, character references
resolved, so an escape that was escaped twice (`&amp;#94;`) shows up as the `&#94;` a reader
would see. Claims that counts or names make are checked against the exports they come from.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from marl_bgs.site import build as site_build
from marl_bgs.site.formatting import season_title
from marl_bgs.site.seasons import season_dirs
from marl_bgs.systems.registry import BUILDERS
from marl_bgs.tournament.entrants import NAME_PATTERN

ROOT = Path(__file__).resolve().parents[2]
NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
SHOWN_ESCAPE = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


class Page(HTMLParser):
    """A built page: its visible text, its tables' header rows, links and images."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.heads: list[list[str]] = []  # one list of cell texts per <thead>
        self.links: list[str] = []
        self.images: list[str] = []
        self._skip = 0  # inside <script> or <style>
        self._head: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "thead":
            self._head = []
        elif tag in ("th", "td") and self._head is not None:
            self._cell = []
        elif tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        elif tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1
        elif tag in ("th", "td") and self._cell is not None and self._head is not None:
            self._head.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "thead" and self._head is not None:
            self.heads.append(self._head)
            self._head = None

    def handle_data(self, data):
        if self._skip:
            return
        self.chunks.append(data)
        if self._cell is not None:
            self._cell.append(data)

    @property
    def text(self) -> str:
        return "".join(self.chunks)


@pytest.fixture(scope="module")
def site() -> Path:
    return site_build.build_once().site


@pytest.fixture(scope="module")
def pages(site) -> dict[str, Page]:
    """Every documentation page of the build (web_demo's own pages aside), by path."""
    out = {}
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel.startswith(("web_demo/", "exports/")):
            continue
        page = Page()
        page.feed(path.read_text(errors="replace"))
        out[rel] = page
    return out


def _sentences_with(text: str, pattern: str) -> list[str]:
    return [m.group(0) for m in re.finditer(rf"[^.]*{pattern}[^.]*", text)]


def test_no_page_shows_an_escape_as_text(pages):
    """The submit page used to show `&#94;&#91;A-Za-z0-9&#93;...` for the name pattern."""
    shown = {rel: SHOWN_ESCAPE.findall(p.text) for rel, p in pages.items()}
    assert {rel: found for rel, found in shown.items() if found} == {}
    assert not [rel for rel, p in pages.items() if "\\|" in p.text]  # a table's escaped pipe


def test_submit_page_shows_the_name_pattern_as_written(pages):
    text = pages["leaderboard/submit/index.html"].text
    assert f"checked against {NAME_PATTERN.pattern}." in " ".join(text.split())


def test_no_table_has_an_empty_header_row(pages):
    """Class stat tables and the Season 0 games table had a header row of empty cells."""
    empty = [rel for rel, p in pages.items() for head in p.heads if not any(head)]
    assert empty == []


def test_replay_counts_follow_the_exported_index(pages):
    """The replay-format page said two example replays while three were exported: a count
    on the pages must be the index's, and the Replay Viewer lists every exported replay."""
    index = json.loads((ROOT / "exports" / "replays" / "index.json").read_text())
    files = [e["file"] for e in index["replays"]]
    replays = pages["replays/index.html"]
    listed = [link for link in replays.links if link.endswith(".json") and "/replays/" in link]
    assert sorted({link.rsplit("/", 1)[-1] for link in listed}) == sorted(files)
    counted = re.compile(
        rf"\b({'|'.join(NUMBER_WORDS)}|\d+) (?:example )?(?:games|replays)\b", re.IGNORECASE
    )
    for rel in ("reference/replay-format/index.html", "replays/index.html"):
        for sentence in _sentences_with(pages[rel].text, "exports/replays"):
            for word in counted.findall(sentence):
                n = NUMBER_WORDS.get(word.lower()) or int(word)
                assert n == len(files), (rel, sentence)


def test_no_page_cites_the_projects_issues(pages):
    """Readers never see the issue tracker: a page says the fact, not 'the closing note of
    issue 5'."""
    cited = {
        rel: re.findall(r"\b(?:issue #?\d+|closing note)", p.text, re.IGNORECASE)
        for rel, p in pages.items()
    }
    assert {rel: c for rel, c in cited.items() if c} == {}


def test_changelog_names_every_system_and_season(pages):
    """The changelog stopped at TDM-Alpha: every registered System and every exported season
    must appear in it."""
    text = pages["changelog/index.html"].text
    names = {"random": "Random", "tdm-alpha": "TDM-Alpha", "tdm-beta": "TDM-Beta"}
    names |= {"tdm-gamma": "TDM-Gamma"}
    missing = [name for name in BUILDERS if names.get(name, name) not in text]
    missing += [f.name for f in season_dirs(ROOT) if season_title(f.name) not in text]
    assert missing == []


def test_home_calls_its_game_a_recording_and_sends_players_to_play(pages):
    """Home claimed a NumPy engine in the browser beside a game that is only a replay."""
    home = pages["index.html"]
    text = " ".join(home.text.split())
    assert "The game above is a recording" in text  # the first screen shows it (issue 46)
    browser = _sentences_with(text, "browser")
    assert browser and all("Play" in s for s in browser), browser
    assert "play/" in home.links


def test_leaderboard_explains_intervals_before_the_table_and_embeds_the_wdl_figure(site):
    board = json.loads((ROOT / "exports/seasons/season0/leaderboard.json").read_text())
    html = (site / "leaderboard/index.html").read_text()
    standings = html.index('id="standings"')
    table = html.index("<table", standings)
    if board["rating"]["strata_all_alike"]:
        note = html.find("Why some intervals are narrow, or zero wide", standings)
        assert standings < note < table
    figures = board["files"]["figures"]
    assert figures["per_map_wdl"] == ["per_map_wdl.svg", "per_map_wdl.png"]
    assert 'src="../exports/seasons/season0/per_map_wdl.svg"' in html
    for name in figures["per_map_wdl"]:
        assert (ROOT / "exports/seasons/season0" / name).is_file()


def test_leaderboard_gives_no_i2_for_an_entrant_that_never_won(pages):
    """Random lost or drew every game; its 0% (or any) I² would read as 'agrees across
    maps' or 'depends on where it plays', both meaningless."""
    board = json.loads((ROOT / "exports/seasons/season0/leaderboard.json").read_text())
    text = " ".join(pages["leaderboard/index.html"].text.split())
    reading = re.search(r"Here: (.*?)\.(?: |$)", text).group(1)
    untested = re.search(r"\(([^()]*): not tested", reading)
    for row in board["table"]:
        if row["wins"] == 0 or row["losses"] == 0:
            # "(A: not tested ..." or "(A and B: not tested ..."
            assert untested and row["name"] in re.split(r", | and ", untested.group(1))
            assert not re.search(rf"{re.escape(row['name'])} \(\d+%\)", reading)
