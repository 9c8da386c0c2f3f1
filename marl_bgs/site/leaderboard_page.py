"""The Leaderboard pages, written at build time from `exports/seasons/<season>/`.

`scripts/export_season.py` computes everything (ratings, intervals, tiers, matchups, per-map
ratings, heterogeneity) and writes `leaderboard.json` and `provenance.json`; these pages only
lay that data out, so no number on them is typed by hand. The files are read and checked by
`marl_bgs.tournament.leaderboard` (typed records: `Leaderboard`, `Provenance`, `Timing`), the
same module that builds them. The words are Markdown templates under
`site_src/_templates/leaderboard/` (not published themselves); this module fills them.
Pages (under `leaderboard/`):

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

import functools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from string import Template
from urllib.parse import quote

from ..systems.registry import BUILDERS
from ..tournament.entrants import NAME_PATTERN, SEASON_PATTERN, TYPES
from ..tournament.leaderboard import (
    EXPORT_SCRIPT,
    LEADERBOARD_FORMAT,
    EntrantSpread,
    Leaderboard,
    MapRating,
    PairingSpread,
    Provenance,
    Record,
    Spread,
    Standing,
    Timing,
    read_leaderboard,
    read_provenance,
    read_timing,
)

SCRIPT = EXPORT_SCRIPT
SEASONS = "exports/seasons"
BOARD_FORMAT = LEADERBOARD_FORMAT
TEMPLATES = Path(__file__).resolve().parents[2] / "site_src" / "_templates" / "leaderboard"
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
PART = re.compile(r"^<!-- part: ([a-z0-9_]+) -->\n", re.M)


# ---- the templates ---------------------------------------------------------------------------
@functools.cache
def _parts(folder: Path = TEMPLATES) -> dict[str, Template]:
    """Every named part of the templates in `folder` (see site_src/_templates/README.md)."""
    out: dict[str, Template] = {}
    for path in sorted(folder.glob("*.md")):
        pieces = PART.split(path.read_text(encoding="utf-8"))
        for name, body in zip(pieces[1::2], pieces[2::2], strict=True):
            if name in out:
                raise ValueError(f"{path}: the part {name!r} is defined twice")
            out[name] = Template(body.rstrip("\n"))
    return out


def fill(part: str, **values: object) -> str:
    """The template part `part` with its `$names` replaced by `values` (already escaped by
    the caller: a template never sees a raw string from a file); a missing value is an
    error, never an empty gap."""
    try:
        template = _parts()[part]
    except KeyError:
        raise KeyError(f"{TEMPLATES}: no part {part!r}") from None
    return template.substitute(values)


# ---- reading the exported files --------------------------------------------------------------
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


@dataclass(frozen=True)
class Season:
    """One exported season: its folder name and the files the pages read."""

    folder: str
    board: Leaderboard
    provenance: Provenance
    timing: Timing | None
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

    @property
    def source(self) -> str:
        """The leaderboard file, as the pages' comments name it."""
        return f"{SEASONS}/{self.folder}/leaderboard.json"


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
    board = read_leaderboard(folder / "leaderboard.json", f"{rel}/leaderboard.json")
    provenance = read_provenance(folder / "provenance.json", f"{rel}/provenance.json")
    timing_path = folder / "timing.json"
    timing = read_timing(timing_path, f"{rel}/timing.json") if timing_path.is_file() else None
    files = tuple((p.name, p.stat().st_size) for p in sorted(folder.iterdir()) if p.is_file())
    names = {n for n, _ in files}
    for name, key in board.files.names():
        if name not in names:
            raise FileNotFoundError(
                f"{rel}/{name}: named by {rel}/leaderboard.json.files.{key} but missing; "
                f"run `python {SCRIPT}`"
            )
    return Season(folder.name, board, provenance, timing, files)


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


def badge(tier: str, label: str) -> str:
    """A tier badge; the colour comes from this module's table, never from the file."""
    bg, fg = TIER_STYLE.get(tier, ("#777", "#fff"))
    return (
        f'<span class="bgs-tier" data-tier="{text(tier)}" style="background:{bg};color:{fg};'
        f'padding:0 .45em;border-radius:.7em;white-space:nowrap">{text(label)}</span>'
    )


def wdl(rec: Record) -> str:
    return f"{rec.wins}-{rec.draws}-{rec.losses}"


def heat(score: float) -> str:
    """Background of a matchup cell: red for a low score share, blue for a high one."""
    s = min(1.0, max(0.0, score))
    target, amount = ((198, 40, 40), (0.5 - s) * 1.3) if s < 0.5 else ((33, 102, 172), (s - 0.5))
    amount = min(0.65, amount * 1.3)
    rgb = [round(255 + (t - 255) * amount) for t in target]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _seat_taken(admission, fill: Callable[..., str]) -> str:
    """The seat a challenger took: none when it was not admitted, else a free one or the
    member it replaced."""
    if not admission.admitted:
        return "–"
    if admission.replaced is None:
        return fill("empty_seat")
    return fill("replaced", who=text(admission.replaced))


def join_words(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _list(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def _image(season: Season, name: str, alt: str) -> str:
    return f"![{text(alt)}]({season.base}/{quote(name)})"


def _figure(season: Season, key: str) -> str:
    """A figure of the export (its SVG shown, every file of it linked), or "" without one."""
    names = season.board.files.figures.get(key, ())
    svg = next((n for n in names if n.endswith(".svg")), None)
    if svg is None:
        return ""
    others = " · ".join(f"[{text(n)}]({season.base}/{quote(n)})" for n in names)
    image = _image(season, svg, fill(f"alt_{key}"))
    return f"{image}\n\n{fill('figure_files', files=others)}\n"


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


def _command(prov: Provenance) -> str:
    return f"python {prov.command}" if prov.command.startswith("scripts/") else prov.command


def _maps_text(maps: Sequence[int]) -> str:
    from ..maps import SPLITS

    return fill("maps_test" if set(maps) <= set(SPLITS["test"]) else "maps_any")


def _zero_width(row: Standing | MapRating) -> bool:
    """An interval whose ends print as one whole Elo apart at most (0.5 before rounding)."""
    low, high = row.elo_low, row.elo_high
    return low is not None and high is not None and high - low < 0.5


# ---- the leaderboard page --------------------------------------------------------------------
def leaderboard_page(season: Season, seasons: list[Season] | None = None) -> str:
    """The season's standing: table, matchups, per-map results, heterogeneity, downloads."""
    b = season.board
    facts, rating = b.season_facts, b.rating
    out = [fill("head", title=season.title, source=season.source) + "\n"]
    if b.description:
        out.append(f"{text(b.description)}\n")
    summary = fill(
        "summary",
        entrants=len(b.table),
        games=f"{facts.games:,}",
        per_pairing=facts.games_per_pairing,
        n_maps=len(facts.maps),
        maps=_list(facts.maps),
        centre=elo(rating.centre),
        level=pct(rating.interval_level, 0),
        refits=f"{rating.refits:,}",
        title=season.title,
        played=f"{season.folder}-played.md",
    )
    out.append(summary + "\n")
    if seasons and len(seasons) > 1:
        out.append(_season_list(season, seasons))
    out.append(_table(season))
    out.append(fill("interval_notes", strata=rating.strata, seed=rating.refit_seed) + "\n")
    out.append(_matchups(season))
    out.append(_per_map(season))
    out.append(_heterogeneity(season))
    out.append(_downloads(season))
    return "\n".join(part for part in out if part)


def _season_list(current: Season, seasons: list[Season]) -> str:
    lines = ["| season | entrants | games | leader |", "|---|---:|---:|---|"]
    for k, s in enumerate(reversed(seasons)):
        page = "index.md" if k == 0 else f"{s.folder}.md"
        title = s.title if s is not current else fill("this_page", title=s.title)
        table = s.board.table
        leader = text(table[0].name) if table else "–"
        lines.append(
            f"| [{title}]({page}) | {len(table)} | {s.board.season_facts.games:,} | {leader} |"
        )
    return fill("seasons") + "\n\n" + "\n".join(lines) + "\n"


def _table(season: Season) -> str:
    b = season.board
    level = pct(b.rating.interval_level, 0)
    rows = b.table
    statuses = any(r.status != "member" for r in rows)
    lines = [
        fill("standings") + "\n",
        _interval_box(season),
        f"| rank | entrant | Elo | {level} interval | tier | W-D-L | win chance vs 1,200 | "
        "mean margin |" + (" status |" if statuses else ""),
        "|---:|---|---:|---|---|---|---:|---:|" + ("---|" if statuses else ""),
    ]
    marks = {"lower": "≥ ", "upper": "≤ "}
    for row in rows:
        mark = "" if row.prior_bound is None else marks.get(row.prior_bound, "")
        zero = " ‡" if _zero_width(row) else ""
        lines.append(
            f"| {row.rank} | **{text(row.name)}**<br><small>{text(row.type)}"
            f"</small> | {mark}{elo(row.elo)} | {interval(row.elo_low, row.elo_high)}{zero}"
            f"<br><small>model SD {fixed(row.elo_sd_model, 1)}</small> | "
            f"{badge(row.tier, row.tier_label)} | {wdl(row)} | "
            f"{pct(row.win_chance)} | {signed(row.margin_mean)} |"
            + (f" {text(row.status)} |" if statuses else "")
        )
    legend = fill("standings_legend")
    if any(_zero_width(r) for r in rows):
        legend += " " + fill("standings_legend_zero")
    lines.append("\n" + legend)
    bounds = [r for r in rows if r.prior_bound is not None]
    if bounds:
        said = {"lower": fill("bound_lower"), "upper": fill("bound_upper")}
        who = join_words([f"{text(r.name)} {said.get(r.prior_bound or '', '')}" for r in bounds])
        prior = f"{b.rating.prior_games_per_pairing:g}"
        lines.append("\n" + fill("prior_bound", who=who, prior=prior))
    return "\n".join(lines) + "\n"


def _interval_box(season: Season) -> str:
    """Above the standings, before a reader takes a narrow interval for a broken page: why
    intervals can be narrow or zero wide. Empty when every stratum's games varied."""
    rating = season.board.rating
    if not rating.strata_all_alike:
        return ""
    zero = [text(r.name) for r in season.board.table if _zero_width(r)]
    zero_rows = " " + fill("interval_box_zero_rows", names=", ".join(zero)) if zero else ""
    box = fill(
        "interval_box", alike=rating.strata_all_alike, strata=rating.strata, zero_rows=zero_rows
    )
    return box + "\n"


def _matchups(season: Season) -> str:
    m = season.board.matchups
    names = [text(n) for n in m.entrants]
    head = "".join(f"<th>{n}</th>" for n in names)
    body = []
    for i, line in enumerate(m.cells):
        tds = []
        for cell in line:
            if cell is None:
                tds.append('<td style="text-align:center">–</td>')
                continue
            score = cell.score
            tds.append(
                f'<td style="background:{heat(score)};color:#1b1b1b;text-align:center">'
                f"{wdl(cell)}<br><small>score {fixed(score)} · expected "
                f"{fixed(cell.expected_score)}</small></td>"
            )
        body.append(f"<tr><th>{names[i]}</th>{''.join(tds)}</tr>")
    return (
        fill("matchups") + "\n\n" + f'<div class="bgs-matchups" style="overflow-x:auto"><table>\n'
        f"<thead><tr><th>row vs column</th>{head}</tr></thead>\n<tbody>\n"
        + "\n".join(body)
        + "\n</tbody></table></div>\n\n"
        + _figure(season, "matchups")
    )


def _per_map(season: Season) -> str:
    pm = season.board.per_map
    maps = pm.maps
    names = season.board.matchups.entrants
    results = {(r.entrant, r.map_id): r for r in pm.results}
    ratings = {(r.entrant, r.map_id): r for r in pm.ratings}
    level = pct(season.board.rating.interval_level, 0)
    head = "| entrant | " + " | ".join(f"map {m}" for m in maps) + " |"
    rule = "|---|" + "---|" * len(maps)
    res_lines, elo_lines = [head, rule], [head, rule]
    for name in names:
        res, rat = [], []
        for m in maps:
            r = results.get((name, m))
            res.append(
                "–"
                if r is None or r.games == 0
                else f"{wdl(r)}<br><small>margin {signed(r.margin_mean)}</small>"
            )
            q = ratings.get((name, m))
            rat.append(
                "–"
                if q is None
                else f"{elo(q.elo)}<br><small>{interval(q.elo_low, q.elo_high)}"
                f"{' ‡' if _zero_width(q) else ''}</small>"
            )
        res_lines.append(f"| {text(name)} | " + " | ".join(res) + " |")
        elo_lines.append(f"| {text(name)} | " + " | ".join(rat) + " |")
    return (
        fill("map_by_map", maps=_list(maps), maps_text=_maps_text(maps))
        + "\n\n"
        + "\n".join(res_lines)
        + "\n\n"
        + _wdl_figure(season)
        + "\n"
        + fill("per_map_ratings", level=level)
        + "\n\n"
        + _zero_width_note(pm.ratings)
        + "\n".join(elo_lines)
        + "\n\n"
        + _figure(season, "per_map")
    )


def _wdl_figure(season: Season) -> str:
    """The records table drawn: one small panel per entrant (when the export has it)."""
    figure = _figure(season, "per_map_wdl")
    return fill("wdl_figure") + "\n\n" + figure if figure else ""


def _zero_width_note(ratings: Sequence[MapRating]) -> str:
    """Above the per-map ratings: why some of their intervals (marked ‡) are zero wide."""
    zero = sum(_zero_width(r) for r in ratings)
    if not zero:
        return ""
    return fill("zero_width_note", zero=zero, total=len(ratings)) + "\n\n"


def _tested(r: Spread) -> str:
    """A spread's Q | df | p | τ columns (the entrant table adds the typical SD)."""
    return f"{fixed(r.q, 1)} | {r.df} | {p_value(r.p)} | {elo(r.tau)}"


def _heterogeneity(season: Season) -> str:
    het = season.board.heterogeneity
    rows = het.entrants
    lines = [
        "| entrant | maps | pooled Elo | Q | df | p | τ (Elo) | typical sampling SD | I² |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r.one_sided is None:
            tested = f"{_tested(r)} | {elo(r.typical_sampling_sd)} | {pct(r.i2, 0)} |"
            name = text(r.entrant)
        else:  # the numbers exist but say nothing: not shown (the note below says why)
            tested = f"– | {r.df} | – | – | – | not meaningful |"
            name = f"{text(r.entrant)}<br><small>{text(r.one_sided)}</small>"
        lines.append(f"| {name} | {r.maps} | {elo(r.pooled)} | {tested}")
    pair_lines = [
        "| pairing | pooled lead (Elo) | Q | df | p | τ (Elo) | I² |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in het.pairings:
        label = f"{text(r.entrant_i)} vs {text(r.entrant_j)}"
        if r.swept_by is None:
            pair_lines.append(
                f"| {label} | {signed(r.pooled, 0)} | {_tested(r)} | {pct(r.i2, 0)} |"
            )
        else:
            swept = fill("swept_by", who=text(r.swept_by))
            pair_lines.append(
                f"| {label}<br><small>{swept}</small> | {signed(r.pooled, 0)} | – | {r.df} | "
                "– | – | not meaningful |"
            )
    return (
        fill("heterogeneity")
        + "\n\n"
        + _i2_reading(rows)
        + "\n\n"
        + "\n".join(lines)
        + "\n\n"
        + _one_sided_note(rows)
        + fill("pairings")
        + "\n\n"
        + "\n".join(pair_lines)
        + "\n\n"
        + _swept_note(het.pairings)
        + fill("method", method=text(het.method))
        + "\n\n"
        + _figure(season, "heterogeneity")
    )


def _one_sided_note(rows: Sequence[EntrantSpread]) -> str:
    lost = [text(r.entrant) for r in rows if r.one_sided == "won no game"]
    won = [text(r.entrant) for r in rows if r.one_sided == "lost no game"]
    parts = []
    if lost:
        parts.append(fill("won_no_game", who=join_words(lost)))
    if won:
        parts.append(fill("lost_no_game", who=join_words(won)))
    if not parts:
        return ""
    return fill("one_sided_note", who="; ".join(parts)) + "\n\n"


def _swept_note(pairs: Sequence[PairingSpread]) -> str:
    swept = [r for r in pairs if r.swept_by is not None]
    if not swept:
        return ""
    return fill("swept_note", swept=len(swept), total=len(pairs)) + "\n\n"


def _i2_reading(rows: Sequence[EntrantSpread]) -> str:
    """What the I² column says for this season, in words written from the numbers."""
    rated = [
        (text(r.entrant), r.i2)
        for r in rows
        if r.one_sided is None and r.i2 is not None and r.df > 0
    ]
    skipped = [text(r.entrant) for r in rows if r.one_sided is not None]
    untested = " " + fill("i2_untested", who=join_words(skipped)) if skipped else ""
    if not rated:
        if skipped:
            return fill("i2_none_tested", untested=untested)
        return fill("i2_single_map")
    high = [f"{n} ({pct(v, 0)})" for n, v in rated if v >= 0.5]
    low = [f"{n} ({pct(v, 0)})" for n, v in rated if v < 0.25]
    parts = []
    if high:
        parts.append(fill("i2_high", who=join_words(high)))
    if low:
        parts.append(fill("i2_low", who=join_words(low)))
    middle = len(rated) - len(high) - len(low)
    if middle:
        parts.append(fill("i2_middle_one" if middle == 1 else "i2_middle_many", count=middle))
    return fill("i2_reading", findings="; ".join(parts), untested=untested)


def _downloads(season: Season) -> str:
    lines = [fill("downloads") + "\n", "| file | size | what it holds |", "|---|---:|---|"]
    for name, size in season.files:
        lines.append(
            f"| [{text(name)}]({season.base}/{quote(name)}) | {_size(size)} | {_file_text(name)} |"
        )
    return "\n".join(lines) + "\n\n" + fill("downloads_note", script=SCRIPT) + "\n"


def _file_text(name: str) -> str:
    """What an exported file holds (site_src/_templates/leaderboard/downloads.md), or ""."""
    part = "file_" + re.sub(r"[^a-z0-9]", "_", name.lower())
    return fill(part) if part in _parts() else ""


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB" if n >= 1e3 else f"{n} B"


# ---- how the season was played ---------------------------------------------------------------
def played_page(season: Season) -> str:
    """Schedule, seeds, maps, game counts, rating model, resampling and provenance."""
    b, prov = season.board, season.provenance
    facts, rating = b.season_facts, b.rating
    fixtures = [
        f"| {f.index} | {text(f.stage)} | {text(f.entrant_a)} | {text(f.entrant_b)} | "
        f"{f.games} | {f.first_seed}–{f.first_seed + f.games // 2 - 1} | {_list(f.maps)} |"
        for f in prov.fixtures
    ]
    versions = [
        f"| {text(k)} | {text(str(v))} |"
        for k, v in prov.versions.items()
        if not isinstance(v, dict)
    ]
    evaluate = prov.versions.get("evaluate")
    if isinstance(evaluate, dict):
        versions += [
            f"| {fill('games_version', package=text(k))} | {text(str(v))} |"
            for k, v in evaluate.items()
        ]
    return (
        fill(
            "played",
            title=season.title,
            source=season.source,
            page=season.page,
            base=season.base,
            games=f"{facts.games:,}",
            pairs=f"{facts.pairs:,}",
            seed_numbers=f"{facts.seed_numbers:,}",
            fixtures=facts.fixtures,
            maps=_list(facts.maps),
            games_per_map=facts.games_per_map,
            games_per_pairing=facts.games_per_pairing,
            root_seed=facts.root_seed,
            field_size=facts.field_size,
            field=", ".join(text(n) for n in facts.field),
            maps_text=_maps_text(facts.maps),
            schedule_rule=text(prov.schedule_rule),
            fixture_rows="\n".join(fixtures),
            model=text(rating.model),
            elo_per_factor_of_ten=f"{rating.elo_per_factor_of_ten:g}",
            centre=elo(rating.centre),
            draw_nu=f"{rating.draw_nu:g}",
            draw_chance=pct(rating.draw_chance_between_equals),
            prior_games=f"{rating.prior_games_per_pairing:g}",
            finite=fill("finite_yes" if rating.finite_without_prior else "finite_no"),
            level=pct(rating.interval_level, 0),
            refits=f"{rating.refits:,}",
            refit_seed=rating.refit_seed,
            resampling=text(rating.resampling),
            strata=rating.strata,
            strata_all_alike=rating.strata_all_alike,
            command=_code(_command(prov), "bash"),
            version_rows="\n".join(versions),
            timing=_timing(season.timing),
            entrants_file=_code(
                json.dumps(prov.entrants_file, indent=2, ensure_ascii=False), "json"
            ),
        )
        + "\n"
    )


def _timing(t: Timing | None) -> str:
    """The sentence on how long the export took, and a paragraph break; "" without timing."""
    if t is None:
        return ""
    sentence = fill(
        "timing",
        wall=f"{t.wall_seconds:,.1f}",
        playing=f"{t.playing_seconds:,.1f}",
        rating=f"{t.rating_seconds:,.1f}",
        refits_per_second=f"{t.refits_per_second:,.0f}",
    )
    if t.resumed_fixtures:
        sentence += " " + fill("timing_resumed", resumed=len(t.resumed_fixtures))
        known = sum(t.fixture_seconds.values())
        sentence += "; " + (
            fill("timing_known", seconds=f"{known:,.1f}")
            if t.fixture_seconds
            else fill("timing_unknown")
        )
    return sentence + "\n\n"


# ---- rules and tiers -------------------------------------------------------------------------
def rules_page(season: Season) -> str:
    """The tournament rules, Table S8's tiers and the challengers' admissions."""
    b = season.board
    tier_rows = []
    for t in b.tiers:
        low, high = t.elo_low, t.elo_high
        span = (
            f"below {elo(high + 1)}"
            if low is None and high is not None
            else f"{elo(low)} and above"
            if high is None
            else f"{elo(low)}–{elo(high)}"
        )
        wl, wh = t.win_chance_low, t.win_chance_high
        chance = (
            f"below {pct(wh)}"
            if wl is None
            else f"{pct(wl)} and above"
            if wh is None
            else f"{pct(wl)}–{pct(wh)}"
        )
        divs = [
            f"{d.division}: "
            + (
                f"≤ {elo(d.elo_high)}"
                if d.elo_low is None
                else f"{elo(d.elo_low)}–{elo(d.elo_high)}"
            )
            for d in t.divisions
        ]
        tier_rows.append(
            f"| {badge(t.tier, t.tier)} | {span} | {chance} | "
            f"{' · '.join(divs) or fill('one_division')} |"
        )
    if b.admissions:
        rows = [
            f"| {text(a.challenger)} | {elo(a.elo)} | {text(a.lowest_member)} | "
            f"{elo(a.lowest_elo)} | {'yes' if a.admitted else 'no'} | "
            + _seat_taken(a, fill)
            + f" | {text(a.reason)} |"
            for a in b.admissions
        ]
        admissions = fill("challengers", title=season.title, rows="\n".join(rows))
    else:
        admissions = fill("no_challengers", title=season.title)
    page = fill(
        "rules",
        source=season.source,
        title=season.title,
        games_per_map=b.season_facts.games_per_map,
        played=f"{season.folder}-played.md",
        field_size=b.season_facts.field_size,
        admissions=admissions,
        tier_rows="\n".join(tier_rows),
    )
    return page + "\n"


# ---- how to submit ---------------------------------------------------------------------------
def submit_page(season: Season) -> str:
    """How to enter a System: the entrants file, the loader contract and the export command."""
    prov = season.provenance
    page = fill(
        "submit",
        title=season.title,
        page=season.page,
        entrants_file=_code(json.dumps(prov.entrants_file, indent=2, ensure_ascii=False), "json"),
        types=", ".join(f"`{t}`" for t in TYPES),
        registered=", ".join(f"`{name}`" for name in BUILDERS),
        script=SCRIPT,
        folder=season.folder,
        command=_code(_command(prov), "bash"),
        name_pattern=_inline_code(NAME_PATTERN.pattern),
    )
    return page + "\n"


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
