"""Pages written from exported data: the Map Atlas, the Sight Lab, the Visual Key, the
replay viewer and the Home page's live game (the leaderboard pages: leaderboard_page.py).

The data comes from `exports/` (written by the scripts in `scripts/`), so each function takes
the repository root and raises a clear error naming the missing file and the script that
writes it. Paths in the Markdown are relative to the page, so MkDocs checks them in strict mode.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from ..core import classes as C
from .draw import PALETTE, SYMBOLS, TEAM_COLOURS, TEAM_LABELS
from .leaderboard_page import season_dirs  # noqa: F401  (kept importable from here)
from .viewer_key import viewer_section

SPLIT_TEXT = {
    "curriculum": "Curriculum maps introduce obstacles one kind at a time, starting from an "
    "open field; they are also training maps.",
    "training": "Training maps: the pool learners may train on.",
    "validation": "Validation maps: held out from training, for choosing between methods.",
    "test": "Test maps: held out for final results only.",
}


def read_json(root: Path, rel: str, script: str) -> Any:
    path = root / rel
    if not path.is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {script}` to write it")
    return json.loads(path.read_text())


def _fmt_trimmed(v: float, digits: int = 3) -> str:
    """v with at most `digits` decimals, trailing zeros dropped (2.50 -> '2.5', 3.0 -> '3')."""
    return f"{v:.{digits}f}".rstrip("0").rstrip(".")


def _pct(share: float, digits: int = 1) -> str:
    """A share (0-1) as a percentage with its unit."""
    return f"{share * 100:.{digits}f}%"


def _n(count: int, word: str) -> str:
    """'1 pillar', '2 pillars'."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def _obstacle_text(st: dict) -> str:
    return (
        f"{_n(st['obstacle_count'], 'obstacle')} ({_n(st['pillars'], 'pillar')}, "
        f"{_n(st['walls'], 'wall')}, {st['tilted_walls']} turned)"
    )


def _units(v: float, digits: int = 2) -> str:
    return f"{_fmt_trimmed(v, digits)} units"


def map_page_path(map_id: int) -> str:
    """The page of one map, under docs_dir (linked from the Map Atlas)."""
    return f"maps/{map_id}.md"


def _atlas_index(root: Path) -> dict:
    return read_json(root, "exports/atlas/index.json", "scripts/export_atlas.py")


def atlas_page(root: Path) -> str:
    """All maps, grouped by split, each with its drawing and statistics (page: atlas.md)."""
    index = _atlas_index(root)
    maps = {m["id"]: m for m in index["maps"]}
    arena = index["arena"]
    area = arena["width"] * arena["height"]
    out = [
        "# Map Atlas\n",
        "<!-- Written at build time by marl_bgs/site/data_pages.py from exports/atlas/. -->\n",
        f"All {len(maps)} maps, drawn from their map files by `scripts/export_atlas.py`; click a "
        "map for its own page (larger drawing, every statistic, a sample game where one is "
        f"exported). The arena is {_fmt_trimmed(arena['width'])} × {_fmt_trimmed(arena['height'])} units "
        f"({_fmt_trimmed(area)} square units) and every map is mirrored about the centre line. Red tints "
        f"mark the Red Zones ({_units(arena['red_zone_depth'], 1)} deep), square outlines "
        "in blue (left end) and orange (right end) the spawn pads; dark grey shapes are pillars "
        "and walls, and a wall thinner than 0.1 units gets an outline so it stays visible (it "
        "blocks like any wall; see the [Visual Key](visual-key.md)).\n",
        f"*Blocked* is the share of the floor inside obstacles; *sees* is the average share of "
        f"the other standing points (body centres on a 1-unit grid where a body of radius "
        f"{_fmt_trimmed(arena['body_radius'])} fits) that one standing point can see, by line of sight "
        "without a range limit; *longest line* is the longest clear sight line between two "
        "standing points, in map units.\n",
        "| split | maps | mean obstacles | mean blocked (% of floor) | mean sees "
        "(% of standing points) | mean longest line (units) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    out.insert(-2, '<div class="bgs-fit" markdown>\n')
    for split, s in index["summary"].items():
        out.append(
            f"| [{split}](#{split}) | {s['maps']} | {_fmt_trimmed(s['mean_obstacle_count'], 1)} | "
            f"{_pct(s['mean_blocked_share'])} | {_pct(s['mean_visible_share'])} | "
            f"{s['mean_longest_sight_line']:.1f} |"
        )
    out.append("\n</div>")
    for split, ids in index["splits"].items():
        out.append(f"\n## {split.capitalize()} {{#{split}}}\n\n{SPLIT_TEXT.get(split, '')}\n")
        out.append('<div class="atlas-grid" markdown>')
        for map_id in ids:
            m = maps[map_id]
            st = m["stats"]
            page = map_page_path(map_id)
            out.append(
                f'<figure class="atlas-map" data-map-id="{map_id}" markdown>\n\n'
                f"[![Map {map_id}: {escape(m['name'])}](exports/atlas/map_{map_id:02d}.svg)]"
                f"({page})\n\n"
                f'<figcaption markdown="span">[**{map_id} · {escape(m["name"])}**]({page})<br>'
                f"{_obstacle_text(st)} · blocked {_pct(st['blocked_share'])} · "
                f"sees {_pct(st['visible_share'])} · longest line "
                f"{_units(st['longest_sight_line'], 1)}</figcaption>\n</figure>"
            )
        out.append("</div>\n")
    return "\n".join(out)


def map_replays(root: Path, map_id: int) -> list[dict]:
    """Exported replays (exports/replays/index.json) played on this map."""
    return [e for e in replay_entries(root) if e.get("map") == map_id]


def map_page(root: Path, map_id: int) -> str:
    """One map: its drawing, statistics with units, its split and a sample replay if any."""
    index = _atlas_index(root)
    entries = {m["id"]: m for m in index["maps"]}
    m = entries[map_id]
    st = m["stats"]
    split = m["split"]
    arena = index["arena"]
    area = arena["width"] * arena["height"]
    detail = read_json(root, f"exports/atlas/{m['files']['json']}", "scripts/export_atlas.py")
    grid = detail["visibility_grid"]
    grid_points = len(grid["xs"]) * len(grid["ys"])
    ends = st["longest_sight_line_ends"]
    ends_text = (
        f", from ({_fmt_trimmed(ends[0][0])}, {_fmt_trimmed(ends[0][1])}) to ({_fmt_trimmed(ends[1][0])}, {_fmt_trimmed(ends[1][1])})"
        if len(ends) == 2
        else ""
    )
    ids = sorted(entries)
    k = ids.index(map_id)
    neighbours = []
    if k > 0:
        p = entries[ids[k - 1]]
        neighbours.append(f"← [Map {p['id']} · {escape(p['name'])}]({p['id']}.md)")
    neighbours.append("[all maps](../atlas.md)")
    if k + 1 < len(ids):
        n = entries[ids[k + 1]]
        neighbours.append(f"[Map {n['id']} · {escape(n['name'])}]({n['id']}.md) →")
    same = index["splits"][split]
    rows = [
        ("Split", f"[{split}](../atlas.md#{split}), map {same.index(map_id) + 1} of {len(same)}"),
        (
            "Obstacles",
            f"{st['obstacle_count']}: {_n(st['pillars'], 'pillar')}, {_n(st['walls'], 'wall')} "
            f"({st['tilted_walls']} of them turned)",
        ),
        (
            "Blocked floor",
            f"{_pct(st['blocked_share'], 2)} of the arena "
            f"({_fmt_trimmed(st['blocked_share'] * area, 2)} of {_fmt_trimmed(area)} square units)",
        ),
        (
            "Standing points",
            f"{st['standing_points']} of the {grid_points} grid points "
            "(x = 0.5 … 19.5, y = 1 … 9, 1 unit apart) where a body fits",
        ),
        (
            "Sees (average)",
            f"{_pct(st['visible_share'])} of the other standing points, by line of sight "
            "without a range limit",
        ),
        ("Longest sight line", f"{_units(st['longest_sight_line'])}{ends_text}"),
    ]
    table = "\n".join(["| statistic | value |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows])
    method = "\n".join(
        f"- *{key.replace('_', ' ')}*: {escape(text)}." for key, text in index["method"].items()
    )
    replays = map_replays(root, map_id)
    replay_text = ""
    if replays and viewer_ready(root):
        e = replays[0]
        title = escape(str(e.get("title", e["file"])))
        replay_text = (
            f"\n## A game on this map\n\n*{title}*, a real game recorded from the engine "
            f"({e.get('ticks', '?')} ticks; more on the [Replay Viewer](../replays.md)):\n\n"
            + viewer_div("../../" + e["src"], compact=True)
            + "\n"
        )
    return f"""# Map {map_id} · {escape(m["name"])}

<!-- Written at build time by marl_bgs/site/data_pages.py from exports/atlas/. -->

{" · ".join(neighbours)}

<figure class="atlas-map-page" markdown>

![Map {map_id}: {escape(m["name"])}](../exports/atlas/{m["files"]["svg"]})

</figure>

{SPLIT_TEXT.get(split, "")} The arena is {_fmt_trimmed(arena["width"])} × {_fmt_trimmed(arena["height"])} units;
the Red Zones are the {_units(arena["red_zone_depth"], 1)} at each end.

<div class="bgs-fit" markdown>

{table}

</div>

How the numbers are measured:

{method}

They come from `exports/atlas/{m["files"]["json"]}`, written by `scripts/export_atlas.py` from
the map file `maps/map_{map_id:02d}.json`; it also holds each standing point's visible share.
{replay_text}"""


def map_pages(root: Path) -> dict[str, Any]:
    """Page path -> writer, one page per map of the atlas (registered by the hook)."""
    index = _atlas_index(root)
    return {map_page_path(m["id"]): (lambda i=m["id"]: map_page(root, i)) for m in index["maps"]}


def sight_lab_page(root: Path) -> str:
    lab = read_json(root, "exports/sight/lab.json", "scripts/export_sight_vectors.py")
    vectors = read_json(root, "exports/sight/vectors.json", "scripts/export_sight_vectors.py")
    rows = "\n".join(
        f"| {c['title']} | {_fmt_trimmed(c['sight'])} | {c['basic_name']}: "
        + (f"{_fmt_trimmed(c['basic_range'])}" if c["basic_target"] == "enemy" else "allies only")
        + f" | {c['ultimate_name']}: "
        + (
            f"{_fmt_trimmed(c['ultimate_range'])}"
            if c["ultimate_target"] == "enemy"
            else ("itself" if c["ultimate_target"] == "self" else "allies only")
        )
        + " |"
        for c in lab["classes"]
    )
    return f"""# Sight Lab

<!-- Written at build time by marl_bgs/site/data_pages.py from exports/sight/. -->

Pick a map and a class, then drag the blue champion (or any orange enemy) across the arena.
The yellow circle is the champion's sight radius; the dark cells inside it are the ground that
obstacles hide, and the dark fog outside is beyond its sight. An enemy is drawn in colour when
the champion sees it with its own eyes, grey when it is hidden; a red line means the champion
could hit it this tick with its Basic (dashed grey circle) or its Ultimate (dotted purple circle).
Targeting needs the champion's **own** sight; teammates' sight does not count.

<div class="sightlab" data-sightlab data-map="47" data-class="0">Loading the Sight Lab…</div>

<div class="bgs-fit" markdown>

| class | sight | Basic reach on enemies | Ultimate reach on enemies |
|---|---:|---|---|
{rows}

</div>

The sight test in your browser is a line-for-line port of the engine's (exact integer
geometry on a grid of thousandths of a unit; a line that touches an obstacle is blocked). It is
checked against {len(vectors["lines"])} sight lines and {len(vectors["sight"])} full sight
matrices exported from the Python engine by `scripts/export_sight_vectors.py`, in Node and in
the browser, and must give the same answer on every one. The rules behind it are on
[How a Match Works](rules/how-a-match-works.md#sight-and-cover).
"""


def visual_key_page(root: Path) -> str:
    """Symbols of the site's engine pictures, and of the replay viewer when it is present."""
    rows = "\n".join(f"| {key.replace('_', ' ')} | {text} |" for key, text in SYMBOLS)
    teams = ", ".join(
        f'<span style="color:{c}">■</span> {t}'
        for c, t in zip(TEAM_COLOURS, TEAM_LABELS, strict=True)
    )
    letters = ", ".join(f"**{c.title[0]}** {c.title}" for c in C.CLASSES)
    codes = "\n".join(
        f"| {e['code']} | {e['word']} | `{name}` | {e['name']} |"
        for name, e in PALETTE["effects"].items()
    )
    if (root / "web_demo" / "viewer" / "render.js").is_file():
        viewer_text = viewer_section(root)
    else:
        viewer_text = "The replay viewer is not part of this build, so its symbols are not listed."
    return f"""# Visual Key

<!-- Written at build time by marl_bgs/site/data_pages.py and viewer_key.py. -->

The site shows games two ways: in the **replay viewer** (the Home page, the Replay Viewer and
the clips on the rules and class pages) and as **still pictures** (the film strips under each
clip, for readers without JavaScript). Both use one palette and symbol table,
`web_demo/assets/palette.json`, and are described here.

## Tick numbers

Ticks count from 1: **tick n** is the n-th step of the game, in which every agent acts at once.
Everything on the site uses that number:

- the event lists under the pictures say "tick 1: a0 hits b0 ..." for the first step;
- a still picture captioned **tick n**, and the viewer at **tick n**, show the arena **after**
  tick n, with what happened **during** tick n drawn over it (combat lines from where the agents
  stood when the tick began, a fallen agent where it fell). The first picture, "start", and the
  viewer's tick 0 are the position before any tick;
- the viewer's event log labels each line "tick n" and highlights the lines of the tick on its
  clock, the same lines printed under the arena;
- the viewer's "Metrics so far" and "Who did what to whom" at tick n count ticks 1 to n.

## Status labels

An agent's active effects are written under its body: short codes in the viewer, words in the
still pictures. The viewer also explains the codes in its Agents table (hover a code) and in the
"Status labels" legend under the arena.

| code (viewer) | word (pictures) | effect id (replay files) | meaning |
|---|---|---|---|
{codes}

{viewer_text}

## The still pictures

The film strips on [How a Match Works](rules/how-a-match-works.md) and the class pages are drawn
by `marl_bgs/site/draw.py`; this table is written from the same module. Teams: {teams}. Class
initials: {letters}. Numbers are laid out so that no two labels overlap: a label that would
cover another moves to the nearest free spot beside its arrow. A heal label shows the useful
part first and, when some went above maximum health, the excess in brackets ("+3 (9 excess)").

| symbol | meaning |
|---|---|
{rows}
"""


def replay_entries(root: Path) -> list[dict]:
    """Entries of exports/replays/index.json whose files exist, each with a `src` path."""
    path = root / "exports" / "replays" / "index.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    entries = data.get("replays", []) if isinstance(data, dict) else data
    out = []
    for e in entries:
        if not isinstance(e, dict) or not isinstance(e.get("file"), str):
            raise ValueError(f"{path}: every replay entry needs a 'file' string, got {e!r}")
        if (path.parent / e["file"]).is_file():
            out.append({**e, "src": f"exports/replays/{e['file']}"})
    return out


def viewer_ready(root: Path) -> bool:
    return (root / "web_demo" / "viewer" / "embed.js").is_file() and bool(replay_entries(root))


RESULT_TEXT = {0: "team a wins", 1: "team b wins", 2: "draw"}


def viewer_div(src: str, *, compact: bool, extra: str = "") -> str:
    """An element the site's script turns into a replay viewer (`mountAll` in embed.js)."""
    return (
        f'<div class="mbg-viewer" data-src="{escape(src)}" data-view="oracle" '
        f'data-compact="{"true" if compact else "false"}"{extra}></div>'
    )


def replays_page(root: Path) -> str:
    """The full viewer, with the exported replays listed to pick from (page: replays.md)."""
    entries = replay_entries(root)
    if not entries or not viewer_ready(root):
        raise FileNotFoundError(
            "exports/replays/index.json (or web_demo/viewer/embed.js): missing or empty; run "
            "`python scripts/export_replays.py`"
        )
    rows = []
    for k, e in enumerate(entries):
        title = escape(str(e.get("title", e["file"])))
        systems = " vs ".join(escape(str(s)) for s in e.get("systems", []))
        score = e.get("score", ["?", "?"])
        result = RESULT_TEXT.get(e.get("result"), "?")
        pressed = "true" if k == 0 else "false"
        rows.append(
            f'| <button type="button" class="md-button bgs-pick" aria-pressed="{pressed}" '
            f'data-replay-pick="../{escape(e["src"])}">Watch</button> | {title} | {systems} | '
            f"{e.get('ticks', '?')} | {result}, {score[0]}–{score[1]} | "
            f"[file]({e['src']}) · "
            f"[standalone viewer](web_demo/viewer/index.html?replay=../../{e['src']}) |"
        )
    first = entries[0]["src"]
    return f"""---
hide:
  - toc
---

# Replay Viewer

<!-- Written at build time by marl_bgs/site/data_pages.py from exports/replays/index.json. -->

Real games recorded from the engine by `scripts/export_replays.py`. Pick one with **Watch**.
The viewer shows the whole game (the Oracle view) or, from the point-of-view menu, only what
one team or one agent could see; press `?` inside it for the keyboard shortcuts and **Link** to
copy a link to the current tick and view. You can also open a replay file of your own with the
file picker or by dropping it on the arena, or run `marl-bgs view FILE` on your machine. The
symbols are explained on the [Visual Key](visual-key.md); the file format on
[Replay format](reference/replay-format.md).

| | replay | teams | ticks | result | files |
|---|---|---|---:|---|---|
{chr(10).join(rows)}

{viewer_div("../" + first, compact=False, extra=" data-replay-main")}
"""


def home_game(root: Path) -> str:
    """The Home page's embedded game; the site's script starts it once its file is loaded."""
    entries = replay_entries(root)
    if not entries:
        raise FileNotFoundError(
            "exports/replays/index.json: missing or empty; run `python scripts/export_replays.py`"
        )
    e = entries[0]
    title = escape(str(e.get("title", e["file"])))
    return (
        f"*{title}*, a real game recorded from the engine (press Pause to stop it, or step "
        f"through it tick by tick):\n\n"
        f"{viewer_div(e['src'], compact=True, extra=' data-autoplay')}\n"
    )
