"""The Leaderboard pages, written at build time from `exports/seasons/<season>/`.

`scripts/export_season.py` computes everything (ratings, intervals, tiers, matchups, per-map
ratings, heterogeneity) and writes `leaderboard.json` and `provenance.json`; these pages only
lay that data out, so no number on them is typed by hand. Pages (under `leaderboard/`):

- `index.md`: the newest season's table, matchups, per-map results and ratings,
  heterogeneity and downloads; older seasons get `<season>.md` with the same layout;
- `<season>-played.md`: how that season was played (schedule, seeds, maps, rating model,
  provenance);
- `rules.md`: the tournament rules, the tiers (Table S8) and the challengers' admissions;
- `submit.md`: how to enter a System (the entrants file) and publish a season.

Every string read from a file (entrant names above all) goes through `text()`, which turns
anything but plain letters, digits and a little punctuation into an HTML character reference,
so neither Markdown nor HTML can read it as markup.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..core import checks
from ..systems.registry import BUILDERS
from ..tournament.entrants import NAME_PATTERN, SEASON_PATTERN, TYPES

SCRIPT = "scripts/export_season.py"
SEASONS = "exports/seasons"
BOARD_FORMAT = "marl-bgs/leaderboard"
BOARD_VERSION = 1
PROVENANCE_FORMAT = "marl-bgs/season-provenance"
SAFE_CHARS = re.compile(r"[A-Za-z0-9 .,:;()'/=%?!+-]")
TIER_STYLE = {  # badge background and text colour, one per tier of Table S8
    "Iron": ("#5f6368", "#fff"),
    "Bronze": ("#9a5b2f", "#fff"),
    "Silver": ("#b8c2cc", "#1b1b1b"),
    "Gold": ("#e3b341", "#1b1b1b"),
    "Platinum": ("#2f9e94", "#fff"),
    "Diamond": ("#3d6fd1", "#fff"),
    "Master": ("#8340b0", "#fff"),
    "Grandmaster": ("#b8322a", "#fff"),
}
FILE_TEXT = {  # what each exported file holds, for the downloads list
    "leaderboard.json": "everything on these pages, in one file",
    "ratings.json": "the rating table with the rating model's settings",
    "ratings.csv": "the rating table (one row per entrant)",
    "games.csv": "every game: entrants, map, spawn ends, seed number, result, points, kills",
    "games.parquet": "every game, as Parquet",
    "per_map_ratings.csv": "each entrant's rating on each map, with its interval",
    "provenance.json": "versions, seeds, the entrants file, the schedule and the game counts",
    "timing.json": "how long the export that played the games took (kept by every later run "
    "whose games are the same)",
    "full_metrics.parquet": "every game's 2,994 full-metrics columns (who did what to whom), "
    "from scripts/replay_season_full.py",
    "full_metrics.json": "how full_metrics.parquet was made: command, versions, and that every "
    "game repeated exactly",
    "matchup_heatmap.svg": "figure: score share of each pairing",
    "matchup_heatmap.png": "figure: score share of each pairing (bitmap)",
    "per_map_wdl.svg": "figure: wins, draws and losses of each entrant on each map",
    "per_map_wdl.png": "figure: wins, draws and losses of each entrant on each map (bitmap)",
    "per_map_forest.svg": "figure: per-map ratings with intervals",
    "per_map_forest.png": "figure: per-map ratings with intervals (bitmap)",
    "heterogeneity.svg": "figure: between-map spread against sampling spread",
    "heterogeneity.png": "figure: between-map spread against sampling spread (bitmap)",
}


# ---- reading the exported files --------------------------------------------------------------
class Node:
    """A value read from a JSON file with its path, so every error names the field; the
    typed reads are the project's one checker (`core.checks`)."""

    def __init__(self, value: Any, where: str) -> None:
        self.value = value
        self.where = where

    def _fail(self, expected: str) -> None:
        raise ValueError(f"{self.where}: expected {expected}, got {self.value!r}")

    def __getitem__(self, key: str | int) -> Node:
        if isinstance(key, int):
            items = self.list()
            if not 0 <= key < len(items):
                raise ValueError(f"{self.where}: no item {key} in a list of {len(items)}")
            return items[key]
        if key not in self.keys():
            raise ValueError(f"{self.where}.{key}: missing")
        return Node(self.value[key], f"{self.where}.{key}")

    def get(self, key: str) -> Node | None:
        return self[key] if key in self.keys() else None

    def list(self) -> list[Node]:
        items = checks.sequence(self.value, self.where)
        return [Node(v, f"{self.where}[{k}]") for k, v in enumerate(items)]

    def keys(self) -> list[str]:
        return list(checks.mapping(self.value, self.where))

    def is_null(self) -> bool:
        return self.value is None

    def num(self) -> float:
        return checks.number(self.value, self.where)

    def opt_num(self) -> float | None:
        return None if self.value is None else self.num()

    def int(self) -> int:
        return checks.whole(self.value, self.where)

    def str(self) -> str:
        return checks.string(self.value, self.where)

    def text(self) -> str:
        """The string, safe to place anywhere in Markdown or HTML."""
        return text(self.str())


def text(value: str) -> str:
    """Plain text safe in Markdown, tables and HTML (attributes included).

    Letters, digits, spaces and harmless punctuation stay; every other character (`<`, `&`,
    `|`, `*`, `_`, `[`, backticks, quotes, newlines...) becomes a numeric character reference,
    which Markdown passes through untouched and the browser shows as the character itself.
    """
    return "".join(c if SAFE_CHARS.fullmatch(c) else f"&#{ord(c)};" for c in str(value))


def season_dirs(root: Path) -> list[Path]:
    """Exported season folders, in natural order (season2 before season10)."""
    base = root / SEASONS
    if not base.is_dir():
        return []

    def natural(p: Path) -> list:
        return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", p.name)]

    return sorted((p for p in base.iterdir() if p.is_dir()), key=natural)


def _read(path: Path, rel: str, fmt: str | None) -> Node:
    if not path.is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {SCRIPT}` to write it")
    node = Node(checks.strict_json(path.read_bytes(), rel), rel)
    if fmt is not None and node["format"].value != fmt:
        node["format"]._fail(repr(fmt))
    return node


@dataclass(frozen=True)
class Season:
    """One exported season: its folder name and the files the pages read."""

    folder: str
    board: Node
    provenance: Node
    timing: Node | None
    files: tuple[tuple[str, int], ...]  # (file name, bytes) of every file in the folder
    newest: bool = False  # shown on leaderboard/index.md rather than leaderboard/<folder>.md

    @property
    def title(self) -> str:
        return text(season_title(self.folder))

    @property
    def page(self) -> str:
        """Its leaderboard page, as a link from a page under leaderboard/."""
        return "index.md" if self.newest else f"{self.folder}.md"

    @property
    def base(self) -> str:
        """The folder as a link from a page under leaderboard/."""
        return f"../{SEASONS}/{self.folder}"


def season_title(folder: str) -> str:
    """'season0' -> 'Season 0'; other names are shown as they are (plain text)."""
    m = re.fullmatch(r"season[-_]?(\d+)", folder)
    return f"Season {int(m.group(1))}" if m else folder


def _check_folder(folder: Path, rel: str) -> None:
    if not SEASON_PATTERN.match(folder.name):
        raise ValueError(f"{rel}: a season folder is named like 'season0', got {folder.name!r}")


def load_season(folder: Path, root: Path) -> Season:
    """Read and check one season folder; errors name the file and the field."""
    rel = folder.relative_to(root).as_posix()
    _check_folder(folder, rel)
    board = _read(folder / "leaderboard.json", f"{rel}/leaderboard.json", BOARD_FORMAT)
    if board["version"].value != BOARD_VERSION:
        board["version"]._fail(str(BOARD_VERSION))
    provenance = _read(folder / "provenance.json", f"{rel}/provenance.json", PROVENANCE_FORMAT)
    timing_path = folder / "timing.json"
    timing = _read(timing_path, f"{rel}/timing.json", None) if timing_path.is_file() else None
    files = tuple((p.name, p.stat().st_size) for p in sorted(folder.iterdir()) if p.is_file())
    names = {n for n, _ in files}
    listed = board["files"]
    for key in listed.keys():
        entry = listed[key]
        if key == "figures":
            for fig in entry.keys():
                for name in entry[fig].list():
                    _exists(name, names, rel)
        else:
            _exists(entry, names, rel)
    return Season(folder.name, board, provenance, timing, files)


def _exists(name: Node, names: set[str], rel: str) -> None:
    if name.str() not in names:
        raise FileNotFoundError(
            f"{rel}/{name.str()}: named by {name.where} but missing; run `python {SCRIPT}`"
        )


def load_seasons(root: Path) -> list[Season]:
    return [load_season(folder, root) for folder in season_dirs(root)]


# ---- formatting ------------------------------------------------------------------------------
def elo(v: float | None) -> str:
    """A rating as printed everywhere: whole Elo, rounded half up (as the tiers place it)."""
    return "–" if v is None else str(math.floor(v + 0.5))


def signed(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{v:+.{digits}f}"


def pct(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{100 * v:.{digits}f}%"


def fixed(v: float | None, digits: int = 3) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def p_value(v: float | None) -> str:
    if v is None:
        return "–"
    return "< 0.001" if v < 0.001 else f"{v:.3f}"


def interval(low: float | None, high: float | None) -> str:
    return f'<span style="white-space:nowrap">[{elo(low)}, {elo(high)}]</span>'


def badge(tier: Node, label: Node) -> str:
    """A tier badge; the colour comes from this module's table, never from the file."""
    name = tier.str()
    bg, fg = TIER_STYLE.get(name, ("#777", "#fff"))
    return (
        f'<span class="bgs-tier" data-tier="{text(name)}" style="background:{bg};color:{fg};'
        f'padding:0 .45em;border-radius:.7em;white-space:nowrap">{label.text()}</span>'
    )


def wdl(rec: Node) -> str:
    return f"{rec['wins'].int()}-{rec['draws'].int()}-{rec['losses'].int()}"


def heat(score: float) -> str:
    """Background of a matchup cell: red for a low score share, blue for a high one."""
    s = min(1.0, max(0.0, score))
    target, amount = ((198, 40, 40), (0.5 - s) * 1.3) if s < 0.5 else ((33, 102, 172), (s - 0.5))
    amount = min(0.65, amount * 1.3)
    rgb = [round(255 + (t - 255) * amount) for t in target]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _image(season: Season, name: str, alt: str) -> str:
    return f"![{text(alt)}]({season.base}/{quote(name)})"


def _figure(season: Season, key: str, alt: str) -> str:
    figures = season.board["files"]["figures"]
    if figures.get(key) is None:
        return ""
    names = [n.str() for n in figures[key].list()]
    svg = next((n for n in names if n.endswith(".svg")), None)
    if svg is None:
        return ""
    others = " · ".join(f"[{text(n)}]({season.base}/{quote(n)})" for n in names)
    return f"{_image(season, svg, alt)}\n\n<small>Figure files: {others}</small>\n"


# ---- the leaderboard page --------------------------------------------------------------------
def leaderboard_page(season: Season, seasons: list[Season] | None = None) -> str:
    """The season's standing: table, matchups, per-map results, heterogeneity, downloads."""
    b = season.board
    facts = b["season_facts"]
    rating = b["rating"]
    rows = b["table"].list()
    level = rating["interval_level"].num()
    out = [
        "---\nhide:\n  - toc\n---\n",  # the wide tables need the table of contents' width
        f"# {season.title} leaderboard\n",
        f"<!-- Written at build time by marl_bgs/site/leaderboard_page.py from "
        f"{SEASONS}/{season.folder}/leaderboard.json. -->\n",
    ]
    description = b.get("description")
    if description is not None and description.str():
        out.append(f"{description.text()}\n")
    out.append(
        f"{len(rows)} entrants played {facts['games'].int():,} games, "
        f"{facts['games_per_pairing'].int()} per pairing, on the "
        f"{len(facts['maps'].list())} maps {_maps(facts)}. Ratings are on an Elo scale "
        f"centred on {elo(rating['centre'].num())} (the field's average); the interval is the "
        f"middle {pct(level, 0)} of {rating['refits'].int():,} refits on resampled games. "
        f"How the games were scheduled and rated: [How {season.title} was played]"
        f"({season.folder}-played.md). Tiers and admission: "
        f"[Tournament rules and tiers](rules.md).\n"
    )
    if seasons and len(seasons) > 1:
        out.append(_season_list(season, seasons))
    out.append(_table(season))
    out.append(_interval_notes(season))
    out.append(_matchups(season))
    out.append(_per_map(season))
    out.append(_heterogeneity(season))
    out.append(_downloads(season))
    return "\n".join(part for part in out if part)


def _maps(facts: Node) -> str:
    ids = [m.int() for m in facts["maps"].list()]
    return ", ".join(str(m) for m in ids)


def _season_list(current: Season, seasons: list[Season]) -> str:
    lines = ["| season | entrants | games | leader |", "|---|---:|---:|---|"]
    for k, s in enumerate(reversed(seasons)):
        page = "index.md" if k == 0 else f"{s.folder}.md"
        title = s.title if s is not current else f"**{s.title}** (this page)"
        table = s.board["table"]
        leader = table[0]["name"].text() if table.list() else "–"
        lines.append(
            f"| [{title}]({page}) | {len(table.list())} | "
            f"{s.board['season_facts']['games'].int():,} | {leader} |"
        )
    return "## Seasons\n\n" + "\n".join(lines) + "\n"


def _table(season: Season) -> str:
    b = season.board
    level = pct(b["rating"]["interval_level"].num(), 0)
    rows = b["table"].list()
    statuses = any(r["status"].str() != "member" for r in rows)
    lines = [
        "## Standings\n",
        _interval_box(season),
        f"| rank | entrant | Elo | {level} interval | tier | W-D-L | win chance vs 1,200 | "
        "mean margin |" + (" status |" if statuses else ""),
        "|---:|---|---:|---|---|---|---:|---:|" + ("---|" if statuses else ""),
    ]
    marks = {"lower": "≥ ", "upper": "≤ "}
    for row in rows:
        bound = row["prior_bound"]
        mark = "" if bound.is_null() else marks.get(bound.str(), "")
        low, high = row["elo_low"].opt_num(), row["elo_high"].opt_num()
        zero = "" if low is None or high is None or high - low >= 0.5 else " ‡"
        lines.append(
            f"| {row['rank'].int()} | **{row['name'].text()}**<br><small>{row['type'].text()}"
            f"</small> | {mark}{elo(row['elo'].num())} | {interval(low, high)}{zero}<br><small>"
            f"model SD {fixed(row['elo_sd_model'].opt_num(), 1)}</small> | "
            f"{badge(row['tier'], row['tier_label'])} | {wdl(row)} | "
            f"{pct(row['win_chance'].num())} | {signed(row['margin_mean'].opt_num())} |"
            + (f" {row['status'].text()} |" if statuses else "")
        )
    lines.append(
        "\n*W-D-L*: wins, draws and losses. *Win chance vs 1,200*: the share of decisive games "
        "the model expects this entrant to win against a policy rated 1,200, "
        "1 / (1 + 10^(-(Elo - 1200) / 400)). *Mean margin*: its points minus the opponent's, "
        "per game. *Model SD*: the rating model's own standard error in Elo (from the number "
        "and closeness of the games, prior included)."
        + (
            " *‡*: an interval of zero width (the note above says why)."
            if any(_zero_width(r) for r in rows)
            else ""
        )
    )
    bounds = [r for r in b["table"].list() if not r["prior_bound"].is_null()]
    if bounds:
        prior = b["rating"]["prior_games_per_pairing"].num()
        said = {"lower": "won every game (≥)", "upper": "lost every game (≤)"}
        who = _join([f"{r['name'].text()} {said.get(r['prior_bound'].str(), '')}" for r in bounds])
        lines.append(
            f"\n{who}. With no game going the other way, only the weak prior (worth {prior:g} "
            "drawn games per pairing) keeps such a rating finite, so the true distance from the "
            "field may be larger still."
        )
    return "\n".join(lines) + "\n"


def _zero_width(row: Node) -> bool:
    """An interval whose ends print as one whole Elo apart at most (0.5 before rounding)."""
    low, high = row["elo_low"].opt_num(), row["elo_high"].opt_num()
    return low is not None and high is not None and high - low < 0.5


def _interval_box(season: Season) -> str:
    """Above the standings, before a reader takes a narrow interval for a broken page: why
    intervals can be narrow or zero wide. Empty when every stratum's games varied."""
    rating = season.board["rating"]
    alike, strata = rating["strata_all_alike"].int(), rating["strata"].int()
    if not alike:
        return ""
    zero = [r["name"].text() for r in season.board["table"].list() if _zero_width(r)]
    zero_text = (
        f" The rows marked ‡ ({', '.join(zero)}) have intervals of zero width: every one of "
        "their strata is like this."
        if zero
        else ""
    )
    return (
        '!!! note "Why some intervals are narrow, or zero wide"\n'
        f"    In {alike} of the {strata} strata (one pairing on one map) every pair of games "
        "ended the same way. The scripted opponents are deterministic: on a given map they "
        "play the same game whatever the seed number, so resampling those pairs can never "
        "change the result, and an interval only reflects the strata whose games did differ."
        f"{zero_text} A narrow or zero-width interval here therefore says that the games did "
        "not vary, not that the rating is known that precisely (nothing is wrong with the "
        "page): other maps or opponents could move it. The *model SD* under each interval is "
        "the fairer yardstick for such entrants (about 1.96 model SDs each side would be a "
        "model-based 95% interval).\n"
    )


def _interval_notes(season: Season) -> str:
    rating = season.board["rating"]
    strata = rating["strata"].int()
    return (
        f"The intervals resample whole spawn-swapped pairs of games, with replacement, within "
        f"each pairing on each map ({strata} such strata here), and refit every time; "
        f"the seed of the refits is {rating['refit_seed'].int()}.\n"
    )


def _matchups(season: Season) -> str:
    m = season.board["matchups"]
    names = [n.text() for n in m["entrants"].list()]
    cells = m["cells"].list()
    if len(cells) != len(names):
        raise ValueError(f"{m['cells'].where}: expected {len(names)} rows, got {len(cells)}")
    head = "".join(f"<th>{n}</th>" for n in names)
    body = []
    for i, line in enumerate(cells):
        tds = []
        items = line.list()
        if len(items) != len(names):
            raise ValueError(f"{line.where}: expected {len(names)} cells, got {len(items)}")
        for cell in items:
            if cell.is_null():
                tds.append('<td style="text-align:center">–</td>')
                continue
            score = cell["score"].num()
            tds.append(
                f'<td style="background:{heat(score)};color:#1b1b1b;text-align:center">'
                f"{wdl(cell)}<br><small>score {fixed(score)} · expected "
                f"{fixed(cell['expected_score'].num())}</small></td>"
            )
        body.append(f"<tr><th>{names[i]}</th>{''.join(tds)}</tr>")
    return (
        "## Matchups\n\n"
        "Each row is one entrant's record against each column entrant: wins, draws and losses, "
        "its score share ((wins + draws / 2) / games) and the share the joint rating model "
        "expects from the two ratings. Blue cells favour the row entrant, red ones the column "
        "entrant; a large gap between the score and the expected score means this pairing "
        "does not follow the ratings (one System may simply counter another).\n\n"
        f'<div class="bgs-matchups" style="overflow-x:auto"><table>\n'
        f"<thead><tr><th>row vs column</th>{head}</tr></thead>\n<tbody>\n"
        + "\n".join(body)
        + "\n</tbody></table></div>\n\n"
        + _figure(season, "matchups", "Matchup heatmap: the row entrant's score share")
    )


def _per_map(season: Season) -> str:
    pm = season.board["per_map"]
    maps = [m.int() for m in pm["maps"].list()]
    names = [n.str() for n in season.board["matchups"]["entrants"].list()]
    results = {(r["entrant"].str(), r["map_id"].int()): r for r in pm["results"].list()}
    ratings = {(r["entrant"].str(), r["map_id"].int()): r for r in pm["ratings"].list()}
    level = pct(season.board["rating"]["interval_level"].num(), 0)
    head = "| entrant | " + " | ".join(f"map {m}" for m in maps) + " |"
    rule = "|---|" + "---|" * len(maps)
    res_lines, elo_lines = [head, rule], [head, rule]
    for name in names:
        res, rat = [], []
        for m in maps:
            r = results.get((name, m))
            res.append(
                "–"
                if r is None or r["games"].int() == 0
                else f"{wdl(r)}<br><small>margin {signed(r['margin_mean'].opt_num())}</small>"
            )
            q = ratings.get((name, m))
            rat.append(
                "–"
                if q is None
                else f"{elo(q['elo'].num())}<br><small>"
                f"{interval(q['elo_low'].opt_num(), q['elo_high'].opt_num())}"
                f"{' ‡' if _zero_width(q) else ''}</small>"
            )
        res_lines.append(f"| {text(name)} | " + " | ".join(res) + " |")
        elo_lines.append(f"| {text(name)} | " + " | ".join(rat) + " |")
    atlas = ", ".join(f"{m}" for m in maps)
    return (
        "## Map by map\n\n"
        f"The season was played on the maps {atlas}. {_maps_text(maps)} First each "
        "entrant's record on each map (W-D-L and the mean points margin):\n\n"
        + "\n".join(res_lines)
        + "\n\n"
        + _wdl_figure(season)
        + "\nThen a separate joint rating of each map's games alone, with its "
        f"{level} interval from resampled pairs (a fifth or less of the games, so usually "
        "wider than the season's):\n\n"
        + _zero_width_note(pm["ratings"].list())
        + "\n".join(elo_lines)
        + "\n\n"
        + _figure(season, "per_map", "Per-map ratings with their intervals")
    )


def _wdl_figure(season: Season) -> str:
    """The records table drawn: one small panel per entrant (when the export has it)."""
    figure = _figure(
        season,
        "per_map_wdl",
        "Small multiples: each entrant's wins, draws and losses on each map, as shares of "
        "its games",
    )
    if not figure:
        return ""
    return (
        "The same records drawn, one panel per entrant in the order of the standings: each "
        "bar is one map, split into the shares of that entrant's games there it won (blue), "
        "drew (grey) and lost (red).\n\n" + figure
    )


def _zero_width_note(ratings: list[Node]) -> str:
    """Above the per-map ratings: why some of their intervals (marked ‡) are zero wide."""
    zero = sum(_zero_width(r) for r in ratings)
    if not zero:
        return ""
    return (
        '!!! note "Zero-width intervals (‡) are expected here"\n'
        f"    {zero} of these {len(ratings)} per-map intervals have zero width: on that map "
        "every pair of the entrant's games ended alike (deterministic opponents replay the "
        "same game), so resampling cannot move the rating. The figure below also draws, in "
        "grey, 1.96 sampling SDs either side of each map's rating, the SD being the larger "
        "of the resampled spread and the model's own; that SD is what the heterogeneity test "
        "below uses, so no map counts as exact.\n\n"
    )


def _one_sided(r: Node) -> str | None:
    """'won no game' / 'lost no game' for an entrant whose I² means nothing (None otherwise,
    and for exports written before the field existed)."""
    note = r.get("one_sided")
    return None if note is None or note.is_null() else note.str()


def _swept_by(r: Node) -> str | None:
    """The entrant that won every game of this pairing, if one did."""
    who = r.get("swept_by")
    return None if who is None or who.is_null() else who.str()


def _heterogeneity(season: Season) -> str:
    het = season.board["heterogeneity"]
    rows = het["entrants"].list()
    lines = [
        "| entrant | maps | pooled Elo | Q | df | p | τ (Elo) | typical sampling SD | I² |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        sd = r.get("typical_sampling_sd")
        one_sided = _one_sided(r)
        if one_sided is None:
            tested = (
                f"{fixed(r['q'].opt_num(), 1)} | {r['df'].int()} | {p_value(r['p'].opt_num())} | "
                f"{elo(r['tau'].opt_num())} | {elo(None if sd is None else sd.opt_num())} | "
                f"{pct(r['i2'].opt_num(), 0)} |"
            )
            name = r["entrant"].text()
        else:  # the numbers exist but say nothing: not shown (the note below says why)
            tested = f"– | {r['df'].int()} | – | – | – | not meaningful |"
            name = f"{r['entrant'].text()}<br><small>{text(one_sided)}</small>"
        lines.append(f"| {name} | {r['maps'].int()} | {elo(r['pooled'].num())} | {tested}")
    pair_lines = [
        "| pairing | pooled lead (Elo) | Q | df | p | τ (Elo) | I² |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    pairs = het["pairings"].list()
    for r in pairs:
        label = f"{r['entrant_i'].text()} vs {r['entrant_j'].text()}"
        swept = _swept_by(r)
        if swept is None:
            pair_lines.append(
                f"| {label} | {signed(r['pooled'].num(), 0)} | {fixed(r['q'].opt_num(), 1)} | "
                f"{r['df'].int()} | {p_value(r['p'].opt_num())} | {elo(r['tau'].opt_num())} | "
                f"{pct(r['i2'].opt_num(), 0)} |"
            )
        else:
            pair_lines.append(
                f"| {label}<br><small>{text(swept)} won every game</small> | "
                f"{signed(r['pooled'].num(), 0)} | – | {r['df'].int()} | – | – | "
                "not meaningful |"
            )
    return (
        "## Does a rating hold on every map?\n\n"
        "A rating summarises many maps. Treating each map as a separate study of the same "
        "entrant (as a meta-analysis pools studies), we ask whether the per-map ratings "
        "differ by more than their own sampling noise. *Q* weighs each map's squared distance "
        "from the pooled value by how precisely that map's rating is known; with no real "
        "difference between maps it would be about *df* (the number of maps minus one), and "
        "*p* is the chance of a Q this large if there were none. *τ* is the estimated spread "
        "of the true per-map ratings, in Elo. **I²** is the share of the observed spread that "
        "is real between-map difference rather than chance: 0% means the maps agree within "
        "noise; above about 50% the rating depends substantially on the map, so the season's "
        "single number hides map-specific strengths and weaknesses. With only a handful of "
        "maps, I² is itself uncertain. A map whose games did not vary at all (a zero-width "
        "interval above) gets the model's sampling variance instead of the resampled one, so "
        "it is not counted as exact.\n\n"
        + _i2_reading(rows)
        + "\n\n"
        + "\n".join(lines)
        + "\n\n"
        + _one_sided_note(rows)
        + "The same question for each pairing: the first entrant's Elo lead over the second "
        "on each map, pooled across maps.\n\n"
        + "\n".join(pair_lines)
        + "\n\n"
        + _swept_note(pairs)
        + f"<small>Method: {het['method'].text()}.</small>\n\n"
        + _figure(season, "heterogeneity", "Between-map spread against sampling spread")
    )


def _one_sided_note(rows: list[Node]) -> str:
    lost = [r["entrant"].text() for r in rows if _one_sided(r) == "won no game"]
    won = [r["entrant"].text() for r in rows if _one_sided(r) == "lost no game"]
    parts = []
    if lost:
        parts.append(f"{_join(lost)} won no game of the season (only losses and draws)")
    if won:
        parts.append(f"{_join(won)} lost no game of the season (only wins and draws)")
    if not parts:
        return ""
    return (
        f"*Not meaningful:* {'; '.join(parts)}. Such an entrant's per-map ratings rest on its "
        "draws and on the weak prior alone, not on anything it did better on one map than on "
        "another, so Q, τ and I² would only measure how often its opponents drew with it "
        "from map to map. They are not given; its season rating and the records above say "
        "what there is to say.\n\n"
    )


def _swept_note(pairs: list[Node]) -> str:
    swept = [r for r in pairs if _swept_by(r) is not None]
    if not swept:
        return ""
    return (
        f"*Not meaningful:* in {len(swept)} of the {len(pairs)} pairings one entrant won every "
        "game, so every map's lead is the same cap set by the weak prior (the true gap could "
        "be larger) and there is no spread between maps to test.\n\n"
    )


def _i2_reading(rows: list[Node]) -> str:
    """What the I² column says for this season, in words written from the numbers."""
    rated = [
        (r["entrant"].text(), r["i2"].opt_num(), r["df"].int())
        for r in rows
        if _one_sided(r) is None
    ]
    rated = [(n, v) for n, v, df in rated if v is not None and df > 0]
    skipped = [r["entrant"].text() for r in rows if _one_sided(r) is not None]
    untested = f" ({_join(skipped)}: not tested, see below the table)" if skipped else ""
    if not rated:
        if skipped:
            return f"**Here:** no entrant can be tested{untested}."
        return "**Here:** every entrant played a single map, so there is nothing to compare."
    high = [f"{n} ({pct(v, 0)})" for n, v in rated if v >= 0.5]
    low = [f"{n} ({pct(v, 0)})" for n, v in rated if v < 0.25]
    parts = []
    if high:
        parts.append(
            f"the per-map ratings of {_join(high)} change with the map by clearly more than chance, so "
            "their standing depends on where they play"
        )
    if low:
        parts.append(f"the per-map ratings of {_join(low)} agree within sampling noise")
    middle = len(rated) - len(high) - len(low)
    if middle:
        parts.append(f"{middle} {'entrant sits' if middle == 1 else 'entrants sit'} in between")
    return "**Here:** " + "; ".join(parts) + untested + "."


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _downloads(season: Season) -> str:
    lines = ["## Downloads\n", "| file | size | what it holds |", "|---|---:|---|"]
    for name, size in season.files:
        lines.append(
            f"| [{text(name)}]({season.base}/{quote(name)}) | {_size(size)} | {FILE_TEXT.get(name, '')} |"
        )
    return (
        "\n".join(lines)
        + f"\n\nEvery file is written by `{SCRIPT}`; running it again with the same seed "
        "gives identical files, timing.json included: a run whose games equal the saved ones "
        "keeps the times of the run that first played them.\n"
    )


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB" if n >= 1e3 else f"{n} B"


# ---- how the season was played ---------------------------------------------------------------
def played_page(season: Season) -> str:
    """Schedule, seeds, maps, game counts, rating model, resampling and provenance."""
    b, prov = season.board, season.provenance
    facts, rating = b["season_facts"], b["rating"]
    maps = [m.int() for m in facts["maps"].list()]
    field = ", ".join(n.text() for n in facts["field"].list())
    fixtures = prov["fixtures"].list()
    fx_lines = [
        "| fixture | stage | team a | team b | games | seed numbers | maps |",
        "|---:|---|---|---|---:|---|---|",
    ]
    for f in fixtures:
        first, games = f["first_seed"].int(), f["games"].int()
        fx_lines.append(
            f"| {f['index'].int()} | {f['stage'].text()} | {f['entrant_a'].text()} | "
            f"{f['entrant_b'].text()} | {games} | {first}–{first + games // 2 - 1} | "
            f"{', '.join(str(m.int()) for m in f['maps'].list())} |"
        )
    model = [
        ("model", rating["model"].text()),
        ("Elo per factor of ten in the odds", f"{rating['elo_per_factor_of_ten'].num():g}"),
        ("centre (the field's average)", elo(rating["centre"].num())),
        ("draw parameter ν", f"{rating['draw_nu'].num():g}"),
        ("draw chance between equals", pct(rating["draw_chance_between_equals"].num())),
        ("weak prior, drawn games per pairing", f"{rating['prior_games_per_pairing'].num():g}"),
        (
            "finite without the prior",
            "yes" if rating["finite_without_prior"].value else "no (someone won or lost all)",
        ),
        ("interval level", pct(rating["interval_level"].num(), 0)),
        ("refits", f"{rating['refits'].int():,}"),
        ("refit seed", str(rating["refit_seed"].int())),
        ("resampling", rating["resampling"].text()),
        ("strata (pairing × map)", str(rating["strata"].int())),
        ("strata whose pairs all ended alike", str(rating["strata_all_alike"].int())),
    ]
    versions = prov["versions"]
    ver_lines = [
        f"| {text(k)} | {text(str(versions[k].value))} |"
        for k in versions.keys()
        if not isinstance(versions[k].value, dict)
    ]
    evaluate = versions.get("evaluate")
    if evaluate is not None and isinstance(evaluate.value, dict):
        ver_lines += [
            f"| {text(k)} (games) | {text(str(evaluate[k].value))} |" for k in evaluate.keys()
        ]
    out = [
        f"# How {season.title} was played\n",
        f"<!-- Written at build time by marl_bgs/site/leaderboard_page.py from "
        f"{SEASONS}/{season.folder}/leaderboard.json and provenance.json. -->\n",
        f"The results are on the [{season.title} leaderboard]({season.page}).\n",
        "## Games\n",
        "| season fact | value |",
        "|---|---:|",
        f"| games | {facts['games'].int():,} |",
        f"| spawn-swapped pairs | {facts['pairs'].int():,} |",
        f"| distinct seed numbers | {facts['seed_numbers'].int():,} |",
        f"| fixtures (one per pairing) | {facts['fixtures'].int()} |",
        f"| maps | {', '.join(str(m) for m in maps)} |",
        f"| games per map and pairing | {facts['games_per_map'].int()} |",
        f"| games per pairing | {facts['games_per_pairing'].int()} |",
        f"| root seed | {facts['root_seed'].int()} |",
        f"| field size (seats) | {facts['field_size'].int()} |",
        f"| field at the end | {field} |",
        "",
        "Every game is one of a spawn-swapped pair: the same two teams, map and seed number, "
        "played twice with the ends exchanged, so neither side keeps a favourable spawn. "
        f"{_maps_text(maps)}\n",
        "## Schedule\n",
        "The schedule uses no randomness; the rule, as provenance.json records it:\n",
        f"> {prov['schedule_rule'].text()}\n",
        *fx_lines,
        "",
        "Every random choice inside a game (the Systems' keys, the engine's) is derived from the "
        "root seed, the game's seed number, the tick and the team, so a game's result does not "
        "depend on how many games were played at once.\n",
        "## Rating model\n",
        "All games are fitted at once by maximum likelihood: each entrant has one strength, "
        "and a game between two entrants is a win, a draw or a loss with probabilities set by "
        "their difference (draws are their own outcome, not half a win). Strengths are "
        "reported on the Elo scale.\n",
        "| setting | value |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in model],
        "",
        "## Provenance\n",
        "Command that produced these files:\n",
        _code(_command(prov), "bash"),
        "| package | version |",
        "|---|---|",
        *ver_lines,
        "",
    ]
    if season.timing is not None:
        t = season.timing
        resumed = len(t["resumed_fixtures"].value) if "resumed_fixtures" in t.value else 0
        played = t["fixture_seconds"].value if "fixture_seconds" in t.value else {}
        sentence = (
            f"The export that last played games took {t['wall_seconds'].num():,.1f} s on the "
            f"machine that ran it ({t['playing_seconds'].num():,.1f} s playing games, "
            f"{t['rating_seconds'].num():,.1f} s rating, "
            f"{t['refits_per_second'].num():,.0f} refits per second)."
        )
        if resumed:
            sentence += (
                f" It read {resumed} fixture(s) back from their saved games instead of "
                "playing them again"
            )
            known = sum(float(v) for v in played.values())
            sentence += (
                f"; playing the fixtures took {known:,.1f} s in all when they were played."
                if played
                else "; their original playing time was not recorded."
            )
        out.append(sentence + "\n")
    out += [
        "The entrants file as it was read:\n",
        _code(json.dumps(prov["entrants_file"].value, indent=2, ensure_ascii=False), "json"),
        f"Everything else (each fixture's evaluation settings and versions) is in "
        f"[provenance.json]({season.base}/provenance.json).\n",
    ]
    return "\n".join(out)


def _maps_text(maps: list[int]) -> str:
    from ..maps import SPLITS

    if set(maps) <= set(SPLITS["test"]):
        return "The maps are held-out test maps, drawn in the [Map Atlas](../atlas.md#test)."
    return "The maps are drawn in the [Map Atlas](../atlas.md)."


def _code(body: str, lang: str) -> str:
    """A fenced code block whose fence is longer than any run of backticks in `body`, so a
    file's text cannot end it early (the highlighter escapes what is inside)."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body.rstrip()}\n{fence}\n"


def _inline_code(body: str) -> str:
    """A Markdown code span showing `body` exactly as written: Markdown escapes what is
    inside a code span itself, so no character reference is needed (one would be shown as
    its own characters); the backtick run is longer than any inside `body`."""
    body = " ".join(body.splitlines())
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def _command(prov: Node) -> str:
    command = prov["command"].str()
    return f"python {command}" if command.startswith("scripts/") else command


# ---- rules and tiers -------------------------------------------------------------------------
def rules_page(season: Season) -> str:
    """The tournament rules, Table S8's tiers and the challengers' admissions."""
    b = season.board
    facts = b["season_facts"]
    size = facts["field_size"].int()
    tier_lines = [
        "| tier | Elo | win chance vs 1,200 | divisions (Elo) |",
        "|---|---|---|---|",
    ]
    for t in b["tiers"].list():
        name = t["tier"]
        low, high = t["elo_low"].opt_num(), t["elo_high"].opt_num()
        span = (
            f"below {elo(high + 1)}"
            if low is None
            else f"{elo(low)} and above"
            if high is None
            else f"{elo(low)}–{elo(high)}"
        )
        wl, wh = t["win_chance_low"].opt_num(), t["win_chance_high"].opt_num()
        chance = (
            f"below {pct(wh)}"
            if wl is None
            else f"{pct(wl)} and above"
            if wh is None
            else f"{pct(wl)}–{pct(wh)}"
        )
        divs = []
        for d in t["divisions"].list():
            dl, dh = d["elo_low"].opt_num(), d["elo_high"].opt_num()
            divs.append(
                f"{d['division'].int()}: "
                + (f"≤ {elo(dh)}" if dl is None else f"{elo(dl)}–{elo(dh)}")
            )
        label = Node(name.str(), name.where)
        tier_lines.append(
            f"| {badge(name, label)} | {span} | {chance} | {' · '.join(divs) or 'one division'} |"
        )
    adm = b["admissions"].list()
    if adm:
        adm_lines = [
            "| challenger | its Elo | lowest member | member's Elo | admitted | seat | reason |",
            "|---|---:|---|---:|---|---|---|",
        ]
        for a in adm:
            replaced = a["replaced"]
            adm_lines.append(
                f"| {a['challenger'].text()} | {elo(a['elo'].num())} | "
                f"{a['lowest_member'].text()} | {elo(a['lowest_elo'].num())} | "
                f"{'yes' if a['admitted'].value else 'no'} | "
                f"{'empty seat' if replaced.is_null() else 'replaced ' + replaced.text()} | "
                f"{a['reason'].text()} |"
            )
        admissions = f"{season.title}'s challengers:\n\n" + "\n".join(adm_lines)
    else:
        admissions = f"{season.title} had no challengers."
    return "\n".join(
        [
            "# Tournament rules and tiers\n",
            "<!-- Written at build time by marl_bgs/site/leaderboard_page.py from "
            f"{SEASONS}/{season.folder}/leaderboard.json. -->\n",
            "## Round robin\n",
            "Every entrant of the field meets every other one on every map of the season, the same "
            f"number of games on each ({facts['games_per_map'].int()} per map in "
            f"{season.title}), in spawn-swapped pairs. Which pairing plays which map, ends and "
            "seed numbers is fixed in advance by the entrants file's order alone, and no seed "
            "number is used twice in the round robin. All games are then rated together "
            f"([the rating model]({season.folder}-played.md#rating-model)).\n",
            "## Challengers and the field\n",
            f"The field holds at most {size} entrants. A challenger plays a full fixture "
            "against every member, like a round-robin pairing, and is then rated jointly with "
            "the field. While a seat is free it takes it. Otherwise it enters only if its "
            "rating is strictly higher than the lowest member's, and that member leaves the "
            "field. Challengers are handled one at a time, in the order of the entrants file, "
            "and every challenger meets a given seat on the same maps, ends and seed numbers, "
            "so they are all tested alike. "
            "Every game is kept and published, whether the challenger was admitted or not, and "
            "the season's ratings include them all.\n",
            admissions,
            "",
            "## Tiers and divisions\n",
            "A tier is a label for a rating and nothing more: it never changes a rank or an "
            "admission. Gold starts at 1,200, the field's average, and each tier is 200 Elo "
            "wide; every tier but Grandmaster has five divisions, 40 Elo apart, numbered from 5 "
            "(lowest) to 1. A rating is placed by its whole-Elo value as printed. The win chance "
            "is the share of decisive games the model expects against a policy rated 1,200.\n",
            *tier_lines,
            "",
        ]
    )


# ---- how to submit ---------------------------------------------------------------------------
def submit_page(season: Season) -> str:
    """How to enter a System: the entrants file, the loader contract and the export command."""
    prov = season.provenance
    entrants_file = json.dumps(prov["entrants_file"].value, indent=2, ensure_ascii=False)
    folder = season.folder
    example = {
        "name": "My PPO",
        "type": "learned",
        "load": {"entry_point": "my_agents.ppo:load", "kwargs": {"checkpoint": "ck/final"}},
    }
    loader = '''"""my_agents/ppo.py: turns a checkpoint into a System."""
from marl_bgs.systems.base import jax_system


def load(checkpoint: str):
    params = restore(checkpoint)  # your own code

    def act(key, inputs):
        # inputs: TeamInputs (obs, avail, present, alive, classes, new_game) of one game
        return choose(params, key, inputs)  # (5,) flat actions 0-197, legal per inputs.avail

    return jax_system(act, name="My PPO")
'''
    types = ", ".join(f"`{t}`" for t in TYPES)
    registered = ", ".join(f"`{name}`" for name in BUILDERS)
    return "\n".join(
        [
            "# How to submit\n",
            "<!-- Written at build time by marl_bgs/site/leaderboard_page.py. -->\n",
            "A season is declared in one small JSON file, `seasons/<season>.json`. Adding a "
            "System to a season means adding one entry to that file; no code in this "
            "repository changes. This is the file that produced "
            f"[{season.title}]({season.page}), as recorded in its provenance:\n",
            _code(entrants_file, "json"),
            "## The fields\n",
            '- `format` and `version`: `"marl-bgs/entrants"` and `1`.',
            "- `season`: the season's name: lower-case letters, digits, `-` or `_` "
            "(it names the folder under `exports/seasons/`).",
            "- `field_size` (optional): how many seats the field has.",
            "- `entrants`: the round robin's field, in schedule order; at least two.",
            "- `challengers` (optional): entries that try to enter the field afterwards, one at "
            "a time (see [the rules](rules.md#challengers-and-the-field)).",
            "",
            "Each entry has a `name` (1 to 40 letters, digits, spaces or `._+-`, starting with a "
            f"letter or digit), a `type` (one of {types}) and a `load` that says how to build "
            "its System, in one of four ways:\n",
            '- `{"system": "tdm-alpha"}`: a System registered in `marl_bgs.systems.registry` '
            f"({registered});",
            '- `{"weights": "entrants/my-ppo/policy.npz", "greedy": false}`: an actor trained '
            "by `marl-bgs train` and exported to a policy file (`scripts/publish_entrant.py` "
            "writes one with its training record), read from the entrants file's folder;",
            '- `{"checkpoint": "runs/my-ppo", "step": 40, "greedy": false}`: a training run '
            "folder itself (`step` and `greedy` optional: the newest checkpoint, sampled "
            "actions);",
            '- `{"entry_point": "module:function", "kwargs": {...}}`: any importable function '
            "that returns a System, called with the optional keyword arguments. This is how a "
            "learned checkpoint, an LLM agent or a planner joins:\n",
            _code(json.dumps(example, indent=2), "json"),
            "The function receives nothing but its `kwargs`. It must return a "
            "`marl_bgs.systems.base.System`: wrap a JAX function with `jax_system` (compiled "
            "into the game loop) or a plain Python one with `host_system` (run on the host with "
            "NumPy inputs for all games at once). A System only ever sees what its own team may "
            "see. For example:\n",
            _code(loader, "python"),
            "## Running and publishing a season\n",
            "With the module importable (installed, or on `PYTHONPATH`), play the season and "
            "write its files. A newcomer to a season that has been played usually enters as a "
            "challenger: the round robin's fixtures stay as they were, so `--resume` reads them "
            "back from the saved games and only the challenger's games are played. Adding it to "
            "`entrants` instead changes the round robin itself (fixtures and seed numbers "
            "follow the file's order), and the fixtures that moved are played again.\n",
            _code(
                f"python {SCRIPT} --season {folder} --resume\n"
                f"mkdocs build --strict   # these pages are rebuilt from exports/seasons/",
                "bash",
            ),
            f"The exact command behind {season.title} (its provenance records it):\n",
            _code(_command(prov), "bash"),
            "Send the entrants-file change together with the loader (a pull request with the "
            "new entry and a way to install the module). The season's output is deterministic: "
            "anyone can rerun the command and check every file byte for byte "
            "(`--check` does so from the saved games).\n",
            f"<small>Entry names are checked against {_inline_code(NAME_PATTERN.pattern)}.</small>\n",
        ]
    )


# ---- what the hook asks for ------------------------------------------------------------------
def pages(root: Path) -> dict[str, Callable[[], str]]:
    """Page path (under docs_dir) -> writer, for every exported season; {} when none is."""
    folders = season_dirs(root)
    if not folders:
        return {}
    seasons = load_seasons(root)
    seasons[-1] = newest = replace(seasons[-1], newest=True)
    out: dict[str, Callable[[], str]] = {
        "leaderboard/index.md": lambda: leaderboard_page(newest, seasons),
        "leaderboard/rules.md": lambda: rules_page(newest),
        "leaderboard/submit.md": lambda: submit_page(newest),
    }
    for s in seasons:
        out[f"leaderboard/{s.folder}-played.md"] = lambda s=s: played_page(s)
        if not s.newest:
            out[f"leaderboard/{s.folder}.md"] = lambda s=s: leaderboard_page(s, seasons)
    return out


def nav(root: Path) -> list[dict]:
    """The Leaderboard section of the navigation, or [] when no season has been exported."""
    folders = season_dirs(root)
    if not folders:
        return []
    for folder in folders:
        _check_folder(folder, folder.relative_to(root).as_posix())
    titles = [season_title(f.name) for f in folders]
    newest = folders[-1].name
    entries: list[dict] = [
        {f"{titles[-1]} leaderboard": "leaderboard/index.md"},
        {f"How {titles[-1]} was played": f"leaderboard/{newest}-played.md"},
    ]
    for folder, title in zip(folders[-2::-1], titles[-2::-1], strict=True):
        entries.append({f"{title} leaderboard": f"leaderboard/{folder.name}.md"})
        entries.append({f"How {title} was played": f"leaderboard/{folder.name}-played.md"})
    entries += [
        {"Tournament rules and tiers": "leaderboard/rules.md"},
        {"How to submit": "leaderboard/submit.md"},
    ]
    return [{"Leaderboard": entries}]
