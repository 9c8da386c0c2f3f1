"""The website builds with `mkdocs build --strict`, has every page, and no broken link.

The site is built once per test process into a temporary folder
(`marl_bgs.site.build.build_once`), and test_site_browser.py serves that same build.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marl_bgs.core import classes
from marl_bgs.site import build as site_build
from marl_bgs.site import viewer_key
from marl_bgs.site.seasons import season_dirs
from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    "index.html",
    "getting-started/index.html",
    "one-game-or-many/index.html",
    "rules/how-a-match-works/index.html",
    "rules/engine-decisions/index.html",
    "classes/index.html",
    *[f"classes/{c.name}/index.html" for c in classes.CLASSES],
    "atlas/index.html",
    "sight-lab/index.html",
    "play/index.html",
    "visual-key/index.html",
    "replays/index.html",
    "reference/observations/index.html",
    "reference/replay-format/index.html",
    "api/env/index.html",
    "api/game/index.html",
    "api/systems/index.html",
    "api/maps/index.html",
    "api/llm/index.html",
    "changelog/index.html",
]


@pytest.fixture(scope="session")
def built_site() -> site_build.Built:
    return site_build.build_once()


def test_every_page_is_built(built_site):
    missing = [p for p in PAGES if not (built_site.site / p).is_file()]
    assert not missing
    assert (built_site.site / "leaderboard/index.html").is_file() == bool(season_dirs(ROOT))


def test_no_broken_internal_link(built_site):
    assert site_build.broken_links(built_site.site) == []


def test_link_check_finds_a_broken_link(tmp_path):
    (tmp_path / "index.html").write_text(
        '<a href="gone/">x</a><a href="#here">y</a><img src="pic.svg"><p id="here"></p>'
        '<a href="other.html#nowhere">z</a><div class="mbg-viewer" data-src="clips/gone.json"></div>'
    )
    (tmp_path / "other.html").write_text("<p id='somewhere'></p>")
    assert site_build.broken_links(tmp_path) == [
        "index.html: clips/gone.json (no file)",
        "index.html: gone/ (no file)",
        "index.html: other.html#nowhere (no anchor #nowhere)",
        "index.html: pic.svg (no file)",
    ]


def test_nothing_is_fetched_from_another_host(built_site):
    assert site_build.external_references(built_site.site) == []


def test_web_demo_and_exports_reach_the_site(built_site):
    for rel in ("web_demo/site.js", "web_demo/sightlab/sight.js", "exports/sight/lab.json"):
        assert (built_site.site / rel).is_file(), rel
    atlas = json.loads((ROOT / "exports/atlas/index.json").read_text())
    for m in atlas["maps"]:
        assert (built_site.site / f"exports/atlas/map_{m['id']:02d}.svg").is_file()


def test_generated_pages_hold_the_code_numbers(built_site):
    for c in classes.CLASSES:
        html = (built_site.site / f"classes/{c.name}/index.html").read_text()
        assert f"{c.max_health:g}" in html and c.basic_name in html and c.ultimate_name in html
    rules = (built_site.site / "rules/how-a-match-works/index.html").read_text()
    assert rules.count('class="bgs-film"') >= 16
    assert "in its own Red Zone" in rules and "breaks the Trap" in rules


def test_sight_exports_are_fresh():
    """exports/sight/ equals a fresh export (run scripts/export_sight_vectors.py if not)."""
    assert load_script("export_sight_vectors").main(["--check"]) == 0


def test_the_sight_check_finds_a_stale_file(tmp_path, capsys):
    """The freshness check above can fail: a vectors file naming another module is stale."""
    script = load_script("export_sight_vectors")
    assert script.main(["--out", str(tmp_path)]) == 0
    vectors = tmp_path / "vectors.json"
    vectors.write_text(vectors.read_text().replace("core.sight", "core.observe"))
    assert script.main(["--check", "--out", str(tmp_path)]) == 1
    assert "vectors.json" in capsys.readouterr().out


def test_clip_exports_are_fresh():
    """exports/clips/ equals a fresh export (run scripts/export_clips.py if not)."""
    assert load_script("export_clips").main(["--check"]) == 0


def test_every_pictured_scene_has_its_clip_on_the_page(built_site):
    clips = json.loads((ROOT / "exports/clips/index.json").read_text())["clips"]
    keys = {c["key"] for c in clips}
    pages = [
        built_site.site / "rules/how-a-match-works/index.html",
        built_site.site / "visual-key/index.html",
    ]
    pages += [built_site.site / f"classes/{c.name}/index.html" for c in classes.CLASSES]
    embedded = set()
    for page in pages:
        html = page.read_text()
        embedded |= {k for k in keys if f'data-clip="{k}"' in html}
        assert 'data-view="oracle"' in html
    assert embedded == keys
    for c in classes.CLASSES:
        assert {f"{c.name}-basic", f"{c.name}-ultimate"} <= keys
    assert len(keys) >= 16 + 2 * len(classes.CLASSES)


def test_viewer_pages_point_at_exported_replays(built_site):
    index = json.loads((ROOT / "exports/replays/index.json").read_text())["replays"]
    html = (built_site.site / "replays/index.html").read_text()
    for e in index:
        assert f'data-replay-pick="../exports/replays/{e["file"]}"' in html
    home = (built_site.site / "index.html").read_text()
    assert 'class="mbg-viewer"' in home and "data-autoplay" in home
    base = (built_site.site / "index.html").read_text()
    assert "web_demo/viewer/viewer.css" in base


def test_visual_key_follows_the_render_code(tmp_path):
    viewer_key.check_render_source(ROOT)  # every palette key and label it names is in render.js
    source = (ROOT / viewer_key.RENDER_JS).read_text()
    (tmp_path / viewer_key.RENDER_JS).parent.mkdir(parents=True)
    (tmp_path / viewer_key.RENDER_JS).write_text(source.replace("PALETTE.trap", '"#00ffff"'))
    with pytest.raises(ValueError, match="PALETTE.trap"):
        viewer_key.check_render_source(tmp_path)
