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

import html
import json
import re
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


# The Home page's buttons: label, page, whether it is the primary one. A page the build does
# not have (no season or tutorials exported yet) gets no button.
HOME_LINKS = (
    ("Play in your browser", "play.md", True),
    ("Leaderboard", "leaderboard/index.md", False),
    ("Install", "getting-started.md", False),
    ("Tutorials", "tutorials/index.md", False),
)
SOURCE_INDEX = Path("exports") / "source" / "index.json"
SOURCE_SCRIPT = "scripts/export_source.py"
# A repository address the Home page links to: http(s), no spaces, quotes, brackets or
# parentheses (it goes into a Markdown link and a BibTeX field as it is).
_REPO_URL = re.compile(r"https?://[A-Za-z0-9._~:/?#@!$&*+,;=%-]+")


def home_game(root: Path, pages: set[str] | None = None) -> str:
    """The Home page's first screen: buttons to the main sections that the build has
    (`pages`: the page paths it writes; all of HOME_LINKS when None) and the embedded game,
    which the site's script starts once its file is loaded."""
    entries = replay_entries(root)
    if not entries:
        raise FileNotFoundError(
            f"exports/replays/index.json: missing or empty; run `python {REPLAYS_SCRIPT}`"
        )
    links = [{"label": label, "page": page, "primary": primary}
             for label, page, primary in HOME_LINKS if pages is None or page in pages]  # fmt: skip
    return templates.render("home-game.md.j2", replay=entries[0], links=links)


def source_entry(root: Path) -> dict | None:
    """exports/source/index.json (the source archive the site serves) when it and its archive
    exist, checked field by field; None before `scripts/export_source.py` has run."""
    path = root / SOURCE_INDEX
    if not path.is_file():
        return None
    where = SOURCE_INDEX.as_posix()
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict) or doc.get("format") != "marl-bgs/source-index":
        raise ValueError(f"{where}: format: expected 'marl-bgs/source-index'")
    checks = {"file": str, "bytes": int, "files": int, "sha256": str}
    for name, kind in checks.items():
        if not isinstance(doc.get(name), kind) or isinstance(doc.get(name), bool):
            raise ValueError(f"{where}: {name}: expected {kind.__name__}, got {doc.get(name)!r}")
    if "/" in doc["file"] or not (path.parent / doc["file"]).is_file():
        raise ValueError(f"{where}: file: {doc['file']!r} is not beside it; run {SOURCE_SCRIPT}")
    return doc


def home_about(root: Path, repo_url: str | None) -> str:
    """The Home page's source, paper, licence and citation sections (`repo_url`: mkdocs.yml's,
    refused unless it is a plain http(s) address)."""
    from ..version import __version__

    if repo_url and not _REPO_URL.fullmatch(repo_url):
        raise ValueError(
            f"mkdocs.yml: repo_url: {repo_url!r} is not a plain http(s) address (set by "
            "MARL_BGS_REPO_URL)"
        )
    return templates.render("home-about.md.j2", repo_url=repo_url or None,
                            source=source_entry(root), version=__version__,
                            licence=licence_name(root))  # fmt: skip


def licence_name(root: Path) -> str:
    """The licence pyproject.toml declares (`license = { text = ... }`)."""
    import tomllib

    meta = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    name = meta.get("license", {}).get("text") if isinstance(meta.get("license"), dict) else None
    if not isinstance(name, str) or not name:
        raise ValueError('pyproject.toml: project.license: expected { text = "..." }')
    return {"Apache-2.0": "Apache License 2.0"}.get(name, name)


def license_page(root: Path) -> str:
    """The licence's full text, read from LICENSE (page: license.md)."""
    path = root / "LICENSE"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: missing; the site shows the licence from it")
    return templates.render("license.md.j2", licence=licence_name(root), text=path.read_text())


def play_strengths(root: Path) -> dict[str, str]:
    """Each Play opponent's strength in the newest exported season, by the name the Play
    menu gives it (a System's name, or a learned entrant's folder under seasons/entrants/):
    "Season 0: #2 of 11, Elo 2679". Read from the season's leaderboard.json and its
    entrants file (seasons/<season>.json); empty before a season is exported."""
    from ..tournament.entrants import load_entrants
    from ..tournament.season_reader import read_leaderboard
    from .formatting import season_title
    from .seasons import season_dirs

    folders = season_dirs(root)
    if not folders:
        return {}
    folder = folders[-1]
    spec_path = root / "seasons" / f"{folder.name}.json"
    if not spec_path.is_file():
        return {}
    rel = f"exports/seasons/{folder.name}/leaderboard.json"
    board = read_leaderboard(folder / "leaderboard.json", rel)
    spec = load_entrants(spec_path)
    menu_name = {}
    for entrant in [*spec.entrants, *spec.challengers]:
        if "system" in entrant.load:
            menu_name[entrant.name] = str(entrant.load["system"])
        elif "weights" in entrant.load:
            menu_name[entrant.name] = Path(str(entrant.load["weights"])).parent.name
    title, n = season_title(folder.name), len(board.table)
    return {menu_name[row.name]: f"{title}: #{row.rank} of {n}, Elo {row.elo:.0f}"
            for row in board.table if row.name in menu_name}  # fmt: skip


PLAY_HOST = '<div class="bgp-host" data-play>'


def play_host(root: Path) -> str:
    """The Play page's client element, carrying the opponents' season strengths for its menu
    (`data-strengths`, JSON, escaped for the attribute)."""
    strengths = play_strengths(root)
    if not strengths:
        return PLAY_HOST
    data = json.dumps(strengths, sort_keys=True, ensure_ascii=False)
    return f'<div class="bgp-host" data-play data-strengths="{html.escape(data)}">'
