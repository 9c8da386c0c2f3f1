"""The Leaderboard pages, written at build time from `exports/seasons/<season>/`.

`scripts/export_season.py` computes everything (ratings, intervals, tiers, matchups, per-map
ratings, heterogeneity) and writes `leaderboard.json` and `provenance.json`; these pages only
lay that data out, so no number on them is typed by hand. The season folders are found and
read by `seasons.py`. The words are the Jinja2 templates under
`site_src/_templates/leaderboard/` (not published themselves); this module fills them.
Pages (under `leaderboard/`):

- `index.md`: the newest season's table, matchups, per-map results and ratings,
  heterogeneity and downloads; older seasons get `<season>.md` with the same layout
  (`season.md.j2`);
- `<season>-played.md`: how that season was played (schedule, seeds, maps, rating model,
  provenance; `played.md.j2`);
- `rules.md`: the tournament rules, the tiers (Table S8) and the challengers' admissions
  (`rules.md.j2`);
- `submit.md`: how to enter a System (the entrants file) and publish a season (`submit.md.j2`).

Every string read from a file (entrant names above all) goes through `formatting.text` (the
templates' `| text`), which turns anything but plain letters, digits and a little
punctuation into an HTML character reference, so neither Markdown nor HTML can read it as
markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..maps import SPLITS
from ..systems.registry import BUILDERS
from ..tournament.entrants import NAME_PATTERN, TYPES
from ..tournament.season_reader import EXPORT_SCRIPT
from ..tournament.season_records import (
    LEADERBOARD_FORMAT,
    MapRating,
    Provenance,
    Record,
    Standing,
)
from . import templates
from .formatting import elo, season_title, text
from .seasons import SEASONS, Season, check_folder, load_seasons, season_dirs

BOARD_FORMAT = LEADERBOARD_FORMAT
TEMPLATES = templates.TEMPLATES / "leaderboard"
FIGURES = ("matchups", "per_map_wdl", "per_map", "heterogeneity")
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
__all__ = ["SEASONS", "Season", "pages", "nav", "season_dirs", "season_title"]


# ---- cells the templates place -----------------------------------------------------------------
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


def zero_width(row: Standing | MapRating) -> bool:
    """An interval whose ends print as one whole Elo apart at most (0.5 before rounding)."""
    low, high = row.elo_low, row.elo_high
    return low is not None and high is not None and high - low < 0.5


CELLS = {"interval": interval, "badge": badge, "wdl": wdl, "heat": heat, "zero_width": zero_width}


def _command(prov: Provenance) -> str:
    return f"python {prov.command}" if prov.command.startswith("scripts/") else prov.command


def _entrants_file(prov: Provenance) -> str:
    return json.dumps(prov.entrants_file, indent=2, ensure_ascii=False)


def _test_maps(maps: tuple[int, ...] | list[int]) -> bool:
    return set(maps) <= set(SPLITS["test"])


def _figure(season: Season, key: str) -> dict | None:
    """A figure of the export: its SVG and every file of it, or None without an SVG."""
    names = season.board.files.figures.get(key, ())
    svg = next((n for n in names if n.endswith(".svg")), None)
    return None if svg is None else {"svg": svg, "names": list(names)}


# ---- the pages -------------------------------------------------------------------------------
def leaderboard_page(season: Season, seasons: list[Season] | None = None) -> str:
    """The season's standing: table, matchups, per-map results, heterogeneity, downloads."""
    b = season.board
    return templates.render(
        "leaderboard/season.md.j2",
        season=season,
        seasons=seasons or [season],
        figures={key: _figure(season, key) for key in FIGURES},
        results={(r.entrant, r.map_id): r for r in b.per_map.results},
        ratings={(r.entrant, r.map_id): r for r in b.per_map.ratings},
        zero_rows=[r for r in b.table if zero_width(r)],
        zero_maps=sum(zero_width(r) for r in b.per_map.ratings),
        test_maps=_test_maps(b.per_map.maps),
        script=EXPORT_SCRIPT,
        **CELLS,
    )


def played_page(season: Season) -> str:
    """Schedule, seeds, maps, game counts, rating model, resampling and provenance."""
    b, prov = season.board, season.provenance
    evaluate = prov.versions.get("evaluate")
    return templates.render(
        "leaderboard/played.md.j2",
        season=season,
        facts=b.season_facts,
        rating=b.rating,
        prov=prov,
        versions=[(k, v) for k, v in prov.versions.items() if not isinstance(v, dict)],
        games_versions=list(evaluate.items()) if isinstance(evaluate, dict) else [],
        timing=season.timing,
        command=_command(prov),
        entrants_file=_entrants_file(prov),
        test_maps=_test_maps(b.season_facts.maps),
    )


def rules_page(season: Season) -> str:
    """The tournament rules, Table S8's tiers and the challengers' admissions."""
    b = season.board
    return templates.render(
        "leaderboard/rules.md.j2", season=season, b=b, facts=b.season_facts, badge=badge
    )


def submit_page(season: Season) -> str:
    """How to enter a System: the entrants file, the loader contract and the export command."""
    prov = season.provenance
    return templates.render(
        "leaderboard/submit.md.j2",
        season=season,
        entrants_file=_entrants_file(prov),
        types=TYPES,
        registered=list(BUILDERS),
        script=EXPORT_SCRIPT,
        command=_command(prov),
        name_pattern=NAME_PATTERN.pattern,
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
        check_folder(folder, folder.relative_to(root).as_posix())
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
