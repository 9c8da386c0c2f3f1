"""A game state as an RGB picture (matplotlib), for environments' `render()`.

The site's palette (`web_demo/assets/palette.json`, through `marl_bgs.site.draw`): the
floor, the Red Zones, the spawn pads, obstacles, and each agent as a circle of its true
radius in its team's colour with its class initial and a health bar; a fallen agent is a
grey body with a cross. Needs matplotlib (the `train` and `dev` extras have it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core import classes
from .core.state import ARENA_HEIGHT, ARENA_WIDTH, MILLI, PAD_X, PAD_Y, TEAM_SIZE
from .site import draw as svg

PIXELS_PER_UNIT = 32


def colour(css: str) -> str | tuple[float, float, float, float]:
    """A palette colour as matplotlib takes it: `#rrggbb` as is, `rgba(r,g,b,a)` as a tuple."""
    if not css.startswith("rgba("):
        return css
    r, g, b, a = (float(v) for v in css[5:-1].split(","))
    return (r / 255, g / 255, b / 255, a)


def _figure(width_px: int, height_px: int):
    try:
        from matplotlib.figure import Figure
    except ImportError as err:
        raise ImportError(f"render needs matplotlib ({err}); pip install matplotlib") from None
    dpi = 100
    fig = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, ARENA_WIDTH)
    ax.set_ylim(0, ARENA_HEIGHT)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


def _obstacle(ax, ob: dict) -> None:
    from matplotlib.patches import Circle, Rectangle
    from matplotlib.transforms import Affine2D

    if ob["kind"] == "pillar":
        ax.add_patch(Circle((ob["x"], ob["y"]), ob["radius"], color=colour(svg.OBSTACLE_COLOUR)))
        return
    w = max(float(ob["width"]), svg.THIN_WALL_MIN)
    h = max(float(ob["height"]), svg.THIN_WALL_MIN)
    x, y = float(ob["x"]), float(ob["y"])
    turn = Affine2D().rotate_around(x, y, float(ob.get("theta", 0.0))) + ax.transData
    ax.add_patch(
        Rectangle((x - w / 2, y - h / 2), w, h, color=colour(svg.OBSTACLE_COLOUR), transform=turn)
    )


def _agent(ax, state: Any, i: int) -> None:
    from matplotlib.patches import Circle, Rectangle

    x, y = state.pos[i, 0] / MILLI, state.pos[i, 1] / MILLI
    colour_of_team = colour(svg.TEAM_COLOURS[i // TEAM_SIZE])
    if not state.alive[i]:
        ax.add_patch(Circle((x, y), 0.5, color=colour(svg.PALETTE["fallen"]), alpha=0.6))
        ax.plot([x - 0.3, x + 0.3], [y - 0.3, y + 0.3], color=colour(svg.PALETTE["death"]), lw=2)
        ax.plot([x - 0.3, x + 0.3], [y + 0.3, y - 0.3], color=colour(svg.PALETTE["death"]), lw=2)
        return
    ax.add_patch(Circle((x, y), 0.5, color=colour_of_team, alpha=0.9))
    share = float(state.health[i]) / float(classes.MAX_HEALTH_MILLI[int(state.cls[i])])
    good = share > svg.PALETTE["health_low_share"]
    bar = colour(svg.PALETTE["health_good"] if good else svg.PALETTE["health_low"])
    ax.add_patch(Rectangle((x - 0.5, y + 0.64), max(share, 0.0), 0.14, color=bar))
    ax.text(x, y, classes.CLASSES[int(state.cls[i])].title[0], ha="center", va="center",
            color=colour(svg.HALO), fontsize=PIXELS_PER_UNIT * 0.35, fontweight="bold")  # fmt: skip


def frame_rgb(
    state: Any, obstacles: list[dict], pixels_per_unit: int = PIXELS_PER_UNIT
) -> np.ndarray:
    """The arena with `state`'s agents, uint8 `(H, W, 3)`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.patches import Rectangle

    state = type(state)(*(np.asarray(v) for v in state))
    fig, ax = _figure(int(ARENA_WIDTH * pixels_per_unit), int(ARENA_HEIGHT * pixels_per_unit))
    canvas = FigureCanvasAgg(fig)
    ax.add_patch(Rectangle((0, 0), ARENA_WIDTH, ARENA_HEIGHT, color=colour(svg.FLOOR_COLOUR)))
    depth = float(state.red_zone_depth) / MILLI
    for left in (0.0, ARENA_WIDTH - depth) if depth > 0 else ():
        ax.add_patch(Rectangle((left, 0), depth, ARENA_HEIGHT, color=colour(svg.RED_ZONE_FILL)))
    for end, px in enumerate(PAD_X):
        team = int(np.flatnonzero(state.spawn_end == end)[0])
        for py in PAD_Y:
            ax.add_patch(Rectangle((px - 0.45, py - 0.45), 0.9, 0.9, fill=False,
                                   edgecolor=colour(svg.TEAM_LIGHT[team]), lw=1))  # fmt: skip
    for ob in obstacles:
        _obstacle(ax, ob)
    for i in np.flatnonzero(state.present):
        _agent(ax, state, int(i))
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def show(image: np.ndarray, window: Any = None) -> Any:
    """`image` in a matplotlib window (the one `show` returned last time, if any)."""
    import matplotlib.pyplot as plt

    if window is None:
        fig, ax = plt.subplots()
        ax.axis("off")
        window = (fig, ax.imshow(image))
    else:
        window[1].set_data(image)
    plt.pause(0.001)
    return window


def close(window: Any) -> None:
    import matplotlib.pyplot as plt

    plt.close(window[0])
