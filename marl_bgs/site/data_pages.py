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
from .draw import SYMBOLS, TEAM_COLOURS, TEAM_LABELS
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


def _f(v: float, digits: int = 3) -> str:
    return f"{v:.{digits}f}".rstrip("0").rstrip(".")


def atlas_page(root: Path) -> str:
    """All maps, grouped by split, each with its drawing and statistics (page: atlas.md)."""
    index = read_json(root, "exports/atlas/index.json", "scripts/export_atlas.py")
    maps = {m["id"]: m for m in index["maps"]}
    out = [
        "# Map Atlas\n",
        "<!-- Written at build time by marl_bgs/site/data_pages.py from exports/atlas/. -->\n",
        f"All {len(maps)} maps, drawn from their map files by `scripts/export_atlas.py`. "
        "Every map is mirrored about the centre line. Red tints mark the Red Zones, small "
        "squares the spawn pads. *Blocked* is the share of the floor inside obstacles; "
        "*visible* is the average share of standing points one standing point can see "
        "(line of sight without a range limit); *longest line* is the longest clear sight "
        "line between standing points.\n",
        "| split | maps | mean obstacles | mean blocked | mean visible | mean longest line |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for split, s in index["summary"].items():
        out.append(
            f"| [{split}](#{split}) | {s['maps']} | {_f(s['mean_obstacle_count'], 2)} | "
            f"{_f(s['mean_blocked_share'], 4)} | {_f(s['mean_visible_share'], 4)} | "
            f"{_f(s['mean_longest_sight_line'], 2)} |"
        )
    for split, ids in index["splits"].items():
        out.append(f"\n## {split.capitalize()} {{#{split}}}\n\n{SPLIT_TEXT.get(split, '')}\n")
        out.append('<div class="atlas-grid" markdown>')
        for map_id in ids:
            m = maps[map_id]
            st = m["stats"]
            out.append(
                f'<figure class="atlas-map" data-map-id="{map_id}" markdown>\n\n'
                f"![Map {map_id}: {escape(m['name'])}](exports/atlas/map_{map_id:02d}.svg)\n\n"
                f"<figcaption><b>{map_id} · {escape(m['name'])}</b><br>"
                f"{st['obstacle_count']} obstacles ({st['pillars']} pillars, {st['walls']} walls, "
                f"{st['tilted_walls']} turned) · blocked {_f(st['blocked_share'], 4)} · "
                f"visible {_f(st['visible_share'], 4)} · longest line "
                f"{_f(st['longest_sight_line'], 2)}</figcaption>\n</figure>"
            )
        out.append("</div>\n")
    return "\n".join(out)


def sight_lab_page(root: Path) -> str:
    lab = read_json(root, "exports/sight/lab.json", "scripts/export_sight_vectors.py")
    vectors = read_json(root, "exports/sight/vectors.json", "scripts/export_sight_vectors.py")
    rows = "\n".join(
        f"| {c['title']} | {_f(c['sight'])} | {c['basic_name']}: "
        + (f"{_f(c['basic_range'])}" if c["basic_target"] == "enemy" else "allies only")
        + f" | {c['ultimate_name']}: "
        + (
            f"{_f(c['ultimate_range'])}"
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

| class | sight | Basic reach on enemies | Ultimate reach on enemies |
|---|---:|---|---|
{rows}

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
    if (root / "web_demo" / "viewer" / "render.js").is_file():
        viewer_text = viewer_section(root)
    else:
        viewer_text = "The replay viewer is not part of this build, so its symbols are not listed."
    return f"""# Visual Key

<!-- Written at build time by marl_bgs/site/data_pages.py and viewer_key.py. -->

The site shows games two ways: in the **replay viewer** (the Home page, the Replay Viewer and
the clips on the rules and class pages) and as **still pictures** (the film strips under each
clip, for readers without JavaScript). Both are described here.

{viewer_text}

## The still pictures

The film strips on [How a Match Works](rules/how-a-match-works.md) and the class pages are drawn
by `marl_bgs/site/draw.py`; this table is written from the same module. Teams: {teams}. Class
initials: {letters}.

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
