"""Pages written from exported data: the Map Atlas and its map pages, the Sight Lab, the
replay viewer and the Home page's live game (the leaderboard pages: leaderboard_page.py; the
Visual Key: viewer_key.py).

The data comes from `exports/` (written by the scripts in `scripts/`), so each function takes
the repository root and raises a clear error naming the missing file and the script that
writes it. The words are the templates `atlas/atlas.md.j2`, `atlas/map.md.j2`,
`sight-lab.md.j2`, `replays.md.j2` and `home-game.md.j2` under `site_src/_templates/`. Paths
in the Markdown are relative to the page, so MkDocs checks them in strict mode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import templates

ATLAS_SCRIPT = "scripts/export_atlas.py"
SIGHT_SCRIPT = "scripts/export_sight_vectors.py"
REPLAYS_SCRIPT = "scripts/export_replays.py"


def read_json(root: Path, rel: str, script: str) -> Any:
    path = root / rel
    if not path.is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {script}` to write it")
    return json.loads(path.read_text())


def map_page_path(map_id: int) -> str:
    """The page of one map, under docs_dir (linked from the Map Atlas)."""
    return f"maps/{map_id}.md"


def _atlas_index(root: Path) -> dict:
    return read_json(root, "exports/atlas/index.json", ATLAS_SCRIPT)


def atlas_page(root: Path) -> str:
    """All maps, grouped by split, each with its drawing and statistics (page: atlas.md)."""
    index = _atlas_index(root)
    maps = {m["id"]: m for m in index["maps"]}
    return templates.render("atlas/atlas.md.j2", index=index, maps=maps)


def map_replays(root: Path, map_id: int) -> list[dict]:
    """Exported replays (exports/replays/index.json) played on this map."""
    return [e for e in replay_entries(root) if e.get("map") == map_id]


def map_page(root: Path, map_id: int) -> str:
    """One map: its drawing, statistics with units, its split and a sample replay if any."""
    index = _atlas_index(root)
    entries = {m["id"]: m for m in index["maps"]}
    m = entries[map_id]
    detail = read_json(root, f"exports/atlas/{m['files']['json']}", ATLAS_SCRIPT)
    ids = sorted(entries)
    k = ids.index(map_id)
    replays = map_replays(root, map_id)
    return templates.render(
        "atlas/map.md.j2",
        index=index,
        m=m,
        detail=detail,
        previous=entries[ids[k - 1]] if k > 0 else None,
        next=entries[ids[k + 1]] if k + 1 < len(ids) else None,
        replay=replays[0] if replays and viewer_ready(root) else None,
    )


def map_pages(root: Path) -> dict[str, Any]:
    """Page path -> writer, one page per map of the atlas (registered by the hook)."""
    index = _atlas_index(root)
    return {map_page_path(m["id"]): (lambda i=m["id"]: map_page(root, i)) for m in index["maps"]}


def sight_lab_page(root: Path) -> str:
    lab = read_json(root, "exports/sight/lab.json", SIGHT_SCRIPT)
    vectors = read_json(root, "exports/sight/vectors.json", SIGHT_SCRIPT)
    return templates.render(
        "sight-lab.md.j2",
        classes=lab["classes"],
        lines=len(vectors["lines"]),
        matrices=len(vectors["sight"]),
    )


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


def replays_page(root: Path) -> str:
    """The full viewer, with the exported replays listed to pick from (page: replays.md)."""
    entries = replay_entries(root)
    if not entries or not viewer_ready(root):
        raise FileNotFoundError(
            "exports/replays/index.json (or web_demo/viewer/embed.js): missing or empty; run "
            f"`python {REPLAYS_SCRIPT}`"
        )
    return templates.render("replays.md.j2", replays=entries)


def home_game(root: Path) -> str:
    """The Home page's embedded game; the site's script starts it once its file is loaded."""
    entries = replay_entries(root)
    if not entries:
        raise FileNotFoundError(
            f"exports/replays/index.json: missing or empty; run `python {REPLAYS_SCRIPT}`"
        )
    return templates.render("home-game.md.j2", replay=entries[0])
