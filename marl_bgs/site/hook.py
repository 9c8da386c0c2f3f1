"""The MkDocs hook named in mkdocs.yml: generated pages, the navigation, and static data.

- `on_config` sets the navigation, adding the Leaderboard entry only when a season has been
  exported and the Scenarios section only when `exports/scenarios/index.json` has been
  written (never a placeholder page). The Replay Viewer page is always built: the Home page,
  the clips and the Visual Key need the viewer and the exported replays.
- `on_files` adds the pages written from the code (rules, classes, atlas, Sight Lab, Visual
  Key, replays, leaderboard, Metrics Explorer, full metrics, LLM agents, scenarios) and
  copies `web_demo/` and `exports/` into the site as they are, so nothing is duplicated
  under `site_src/`.
- `on_page_markdown` fills the Home page's buttons, live game, source and citation.
- `on_serve` watches the code and data so `mkdocs serve` rebuilds when they change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from marl_bgs.core import classes
from marl_bgs.site import (
    cli_page,
    data_pages,
    explorer_page,
    leaderboard_page,
    scenarios_page,
    tutorials,
    viewer_key,
)
from marl_bgs.site.classes_page import class_page, classes_index
from marl_bgs.site.llm_page import llm_page
from marl_bgs.site.metrics_page import full_metrics_page, metrics_page
from marl_bgs.site.rules_page import rules_page

STATIC_DIRS = ("web_demo", "exports")
SKIP_PARTS = {"tests", "node_modules", "__pycache__"}
HOME_MARK = "<!-- home-game -->"
ABOUT_MARK = "<!-- home-about -->"
ENGINE_WORKER = Path("web_demo") / "engine" / "engine-sw.js"


def _root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def _generated(root: Path) -> dict[str, Any]:
    """Page path (under docs_dir) -> a function writing its Markdown."""
    pages: dict[str, Any] = {
        "rules/how-a-match-works.md": rules_page,
        "classes/index.md": classes_index,
        "atlas.md": lambda: data_pages.atlas_page(root),
        "sight-lab.md": lambda: data_pages.sight_lab_page(root),
        "visual-key.md": lambda: viewer_key.visual_key_page(root),
        "replays.md": lambda: data_pages.replays_page(root),
        "reference/metrics.md": metrics_page,
        "reference/cli.md": cli_page.cli_page,
        "reference/full-metrics.md": lambda: full_metrics_page(
            explorer_page.newest_with_metrics(root) is not None
        ),
        "api/llm.md": llm_page,
        "license.md": lambda: data_pages.license_page(root),
    }
    for c, spec in enumerate(classes.CLASSES):
        pages[f"classes/{spec.name}.md"] = lambda c=c: class_page(c)
    pages.update(data_pages.map_pages(root))  # maps/<id>.md, linked from the atlas
    pages.update(leaderboard_page.pages(root))
    pages.update(explorer_page.pages(root))
    pages.update(tutorials.pages(root))  # only when exports/tutorials/ has been written
    pages.update(scenarios_page.pages(root))  # only when exports/scenarios/ has been written
    return pages


def navigation(root: Path) -> list:
    """Six top-level sections, each one tab (mkdocs.yml: navigation.tabs): Home, the game
    and how to use it, playing, results, reference and the project itself."""
    game: list = [
        {"Getting Started": "getting-started.md"},
        {"One Game or Many": "one-game-or-many.md"},
        {"Many Devices and Machines": "scaling.md"},
        {"From PyTorch (PettingZoo)": "from-pytorch.md"},
        *tutorials.nav(root),  # only when exports/tutorials/ has been written
        {
            "How a Match Works": [
                {"The rules, shown by the engine": "rules/how-a-match-works.md"},
                {"Engine decisions": "rules/engine-decisions.md"},
            ]
        },
        {
            "Classes": [{"Overview": "classes/index.md"}]
            + [{s.title: f"classes/{s.name}.md"} for s in classes.CLASSES]
        },
        {"Map Atlas": "atlas.md"},
        {"Sight Lab": "sight-lab.md"},
        {"Visual Key": "visual-key.md"},
    ]
    play: list = [
        {"Play": "play.md"},
        *scenarios_page.nav(root),  # only when exports/scenarios/index.json exists
        {"Replay Viewer": "replays.md"},
    ]
    results: list = [
        *leaderboard_page.nav(root),  # only when a season has been exported
        *explorer_page.nav(root),  # only when a season's full metrics are published
    ]
    nav: list = [
        {"Home": "index.md"},
        {"Learn the game": game},
        {"Play and watch": play},
        *([{"Results": results}] if results else []),
        {
            "Reference": [
                {"Observation layout": "reference/observations.md"},
                {"Replay format": "reference/replay-format.md"},
                {"Priority metrics": "reference/metrics.md"},
                {"Full metrics": "reference/full-metrics.md"},
                {"Scripted opponents": "reference/scripted-opponents.md"},
                {"Command line": "reference/cli.md"},
                {"API: make and the environment": "api/env.md"},
                {"API: Game": "api/game.md"},
                {"API: systems": "api/systems.md"},
                {"API: evaluation": "api/evaluation.md"},
                {"API: endgame scenarios": "api/scenarios.md"},
                {"API: replays": "api/replay.md"},
                {"API: LLM agents": "api/llm.md"},
                {"API: maps": "api/maps.md"},
                {"Code layout (contributors)": "reference/code-layout.md"},
            ]
        },
        {"Project": [{"Changelog": "changelog.md"}, {"Licence": "license.md"}]},
    ]
    return nav


def on_config(config: Any) -> Any:
    config["nav"] = navigation(_root(config))
    return config


def _static_files(root: Path, config: Any) -> list[File]:
    out = []
    for top in STATIC_DIRS:
        base = root / top
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(root)
            if not path.is_file() or SKIP_PARTS & set(rel.parts) or path.suffix == ".md":
                continue
            out.append(
                File(
                    rel.as_posix(),
                    src_dir=str(root),
                    dest_dir=config["site_dir"],
                    use_directory_urls=config["use_directory_urls"],
                )
            )
    return out


def on_files(files: Files, config: Any) -> Files:
    root = _root(config)
    for rel, write in _generated(root).items():
        if files.get_file_from_path(rel) is not None:
            raise ValueError(f"site_src/{rel}: this page is generated at build time; delete it")
        files.append(File.generated(config, rel, content=write()))
    for f in _static_files(root, config):
        if files.get_file_from_path(f.src_uri) is None:
            files.append(f)
    # The engine's service worker must sit at the site's root for its scope to be the site.
    worker = root / ENGINE_WORKER
    if worker.is_file():
        files.append(File.generated(config, worker.name, content=worker.read_text()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if page.file.src_uri == "play.md" and data_pages.PLAY_HOST in markdown:
        return markdown.replace(data_pages.PLAY_HOST, data_pages.play_host(_root(config)), 1)
    if page.file.src_uri != "index.md":
        return markdown
    root = _root(config)
    if HOME_MARK in markdown:
        pages = {f.src_uri for f in files.documentation_pages()}
        markdown = markdown.replace(HOME_MARK, data_pages.home_game(root, pages))
    if ABOUT_MARK in markdown:
        markdown = markdown.replace(ABOUT_MARK, data_pages.home_about(root, config["repo_url"]))
    return markdown


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    root = _root(config)
    for rel in (*STATIC_DIRS, "marl_bgs", "maps"):
        if (root / rel).exists():
            server.watch(str(root / rel))
    return server
