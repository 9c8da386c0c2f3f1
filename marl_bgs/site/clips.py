"""Short replays ("clips") of the authored scenes, played in the site's embedded viewer.

The rules and class pages show each scene twice: as a clip (a real replay recorded from the
NumPy engine with `record_game`, opened by the replay viewer) and as the still film strip
that readers without JavaScript see. `show` is what the page modules call instead of
`scenes.render`; inside `collecting()` it only notes which scenes a page shows, which is how
`scripts/export_clips.py` finds every clip to write, so a clip exists exactly for the scenes
the pages picture.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from html import escape
from pathlib import Path

import numpy as np

from ..core.state import NUM_SLOTS
from ..game import Game
from ..replay import Replay, record_game
from .scenes import Played, Scene, play, render

ROOT = Path(__file__).resolve().parents[2]
CLIP_DIR = "exports/clips"
CLIP_SYSTEM = "authored"  # the system name each slot of a clip carries
EXPORT_SCRIPT = "scripts/export_clips.py"
KEY_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")


@dataclass(frozen=True)
class Clip:
    """One scene to record: its file stem, the title shown by the viewer, the view it opens in."""

    scene: Scene
    title: str
    view: str = "oracle"
    tick: int = 0  # the frame the viewer opens on

    @property
    def file(self) -> str:
        return f"{self.scene.key}.json"


_collected: list[Clip] | None = None


@contextmanager
def collecting() -> Iterator[list[Clip]]:
    """Within the block, `show` records its scenes here instead of drawing them."""
    global _collected
    previous, _collected = _collected, []
    try:
        yield _collected
    finally:
        _collected = previous


def clip_div(clip: Clip, prefix: str = "../../") -> str:
    """The embedded viewer element (`prefix` leads from the page's URL to the site root)."""
    src = f"{prefix}{CLIP_DIR}/{clip.file}"
    return (
        f'<div class="mbg-viewer bgs-clip" data-src="{escape(src)}" '
        f'data-view="{escape(clip.view)}" data-tick="{clip.tick}" data-compact="true" '
        f'data-clip="{escape(clip.scene.key)}"></div>'
    )


def show(
    scene: Scene, title: str, view: str = "oracle", prefix: str = "../../", tick: int = 0
) -> tuple[Played, str]:
    """Play `scene`; return it with its clip viewer, film strip and event list as Markdown.

    The clip file must exist (scripts/export_clips.py writes it). `prefix` leads from the
    page's URL to the site root: the rules and class pages sit two folders down.
    """
    if not set(scene.key) <= KEY_CHARS:
        raise ValueError(f"scene.key: {scene.key!r} must use only a-z, 0-9 and '-'")
    clip = Clip(scene, title, view, tick)
    if _collected is not None:
        _collected.append(clip)
        return play(scene), ""
    path = ROOT / CLIP_DIR / clip.file
    if not path.is_file():
        raise FileNotFoundError(f"{CLIP_DIR}/{clip.file}: missing; run `python {EXPORT_SCRIPT}`")
    played, text = render(scene)
    return played, f"{clip_div(clip, prefix)}\n\n{text}"


def record_clip(clip: Clip) -> Replay:
    """The scene played through `record_game` on the NumPy engine, tick by tick."""
    scene = clip.scene
    game = Game(scene.position, backend="numpy")
    played = [0]

    def choose(_: Game) -> np.ndarray:
        slots = np.zeros((NUM_SLOTS, 3), np.int32)
        for slot, act in scene.ticks[played[0]].items():
            slots[slot] = act
        played[0] += 1
        return slots

    return record_game(
        game,
        choose,
        (CLIP_SYSTEM, CLIP_SYSTEM),
        None,
        title=clip.title,
        max_ticks=len(scene.ticks),
    )
