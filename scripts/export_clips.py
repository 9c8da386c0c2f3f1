"""Write the clips under exports/clips/: one short replay per scene the site's pages show.

The rules page, the class pages and the Visual Key show authored scenes (small positions and
a few ticks of actions). Each is played again through `record_game` on the NumPy engine and
saved as a replay that the site's embedded viewer opens. The list of clips is read from the
pages themselves (`marl_bgs.site.clips.collecting`), so every pictured scene gets its clip.

    python scripts/export_clips.py          # write the files (and delete clips no page shows)
    python scripts/export_clips.py --check  # exit 1 if a file is missing, stale or left over

The files are byte-reproducible: `--check` regenerates each clip with the package versions
stored in the existing file, so a newer NumPy alone does not make a clip stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from marl_bgs.core import classes
from marl_bgs.replay import load_replay
from marl_bgs.site import publish
from marl_bgs.site.classes_page import class_page
from marl_bgs.site.clips import CLIP_DIR, Clip, collecting, record_clip
from marl_bgs.site.rules_page import rules_page
from marl_bgs.site.viewer_key import viewer_section

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / CLIP_DIR
INDEX = "index.json"


def shown_clips() -> list[Clip]:
    """Every clip the pages show, in page order; keys must be unique."""
    with collecting() as clips:
        rules_page()
        for c in range(len(classes.CLASSES)):
            class_page(c)
        viewer_section(ROOT)
    seen: dict[str, str] = {}
    for clip in clips:
        if clip.scene.key in seen:
            raise ValueError(
                f"scene.key: {clip.scene.key!r} is used by both {seen[clip.scene.key]!r} and "
                f"{clip.title!r}; each clip needs its own key"
            )
        seen[clip.scene.key] = clip.title
    return clips


def index_document(entries: list[dict]) -> bytes:
    doc = {"format": "marl-bgs/clip-index", "version": 1, "clips": entries}
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def build(stored: dict[str, Any] | None = None) -> dict[str, bytes]:
    """Every file's bytes by name; `stored` maps file names to versions to keep."""
    files, entries = {}, []
    for clip in shown_clips():
        replay = record_clip(clip)
        if stored and clip.file in stored:
            replay = replay.with_versions(stored[clip.file])
        files[clip.file] = replay.to_bytes()
        entries.append(
            {"key": clip.scene.key, "title": clip.title, "file": clip.file, "ticks": replay.ticks}
        )
    files[INDEX] = index_document(entries)
    return files


def stored_versions() -> dict[str, Any]:
    out = {}
    for path in sorted(OUT.glob("*.json")) if OUT.is_dir() else []:
        if path.name == INDEX:
            continue
        try:
            out[path.name] = load_replay(path).versions
        except ValueError:
            pass  # unreadable: the byte comparison reports it as stale
    return out


def stale_files(files: dict[str, bytes]) -> list[str]:
    """Files that differ from `files`, are missing, or are not written by the export."""
    return publish.stale_files(OUT, files)


def main(argv: list[str] | None = None) -> int:
    return publish.export_main(
        argv, __doc__.splitlines()[0], build, stored_versions, lambda: OUT,
        CLIP_DIR, "scripts/export_clips.py",
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
