"""Write the observation layout page from the code's own table (`marl_bgs.core.observation`).

python scripts/write_obs_layout.py            # writes site_src/reference/observations.md
python scripts/write_obs_layout.py --check    # exit 1 if the page is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from marl_bgs.core import classes
from marl_bgs.core.observation import (
    BOX_FIELDS,
    GLOBAL_FIELDS,
    HORIZON_HALF,
    MAX_TURNED_WALLS,
    OBS_HIGH,
    OBS_LOW,
    OBS_WIDTH,
    UNIT_FIELDS,
    UNIT_WIDTH,
    WALL_FIELDS,
    WINNING_SCORE_HALF,
    obs_layout,
)
from marl_bgs.core.state import MAX_OBSTACLES, NUM_SLOTS

PAGE = Path(__file__).resolve().parent.parent / "site_src" / "reference" / "observations.md"

MEANING = {
    "present": "1 if the slot is used by the roster (team sizes are public)",
    "known": "1 if the observer's team sees this unit (allies: always while present)",
    "alive": "1 if alive",
    "class": "one-hot: " + ", ".join(c.title for c in classes.CLASSES),
    "position": "x / 20 and y / 10, x in the observer's frame (own spawn end on the left)",
    "offset_from_self": "(x - own x) / 20 and (y - own y) / 20",
    "distance": "distance from the observer / 20",
    "health_share": "health / maximum health",
    "health": "health / 200",
    "shield": f"spawn-shield ticks left / {classes.SHIELD_TICKS}",
    "effects": "ticks left / full duration: " + ", ".join(classes.EFFECT_NAMES),
    "ultimate_cooldown": f"ticks until the Ultimate is ready / {classes.ULTIMATE_COOLDOWN}",
    "ultimate_ready": "1 if the Ultimate is ready",
    "out_of_combat": "min(ticks out of combat, 10) / 10",
    "in_own_sight": "1 if the observer itself sees this unit (needed to target it)",
    "in_home_red_zone": "1 if the unit stands in its own team's Red Zone",
    "has_last_action": "1 if the unit has an accepted action from the last tick",
    "last_move": "one-hot of that move, in the observer's frame",
    "last_target_row": "one-hot of the row (0 none, 1-10 this table's rows) it targeted",
    "last_ultimate": "1 if that action used the Ultimate",
    "tick_share": "tick / horizon",
    "horizon": f"horizon / (horizon + {HORIZON_HALF})",
    "own_score": "min(own team's points, winning score) / winning score",
    "enemy_score": "min(enemy team's points, winning score) / winning score",
    "winning_score": f"winning score / (winning score + {WINNING_SCORE_HALF})",
    "own_team_size": "own team's size / 5",
    "enemy_team_size": "enemy team's size / 5",
    "red_zone_depth": "Red Zone depth / 10",
    "own_wave_clock": f"ticks to own team's next respawn wave / {classes.RESPAWN_PERIOD}",
    "enemy_wave_clock": f"ticks to the enemy's next respawn wave / {classes.RESPAWN_PERIOD}",
    "valid": "1 if this entry holds an obstacle",
    "low": "lower-left corner (x / 20, y / 10) in the observer's frame (a pillar's centre)",
    "high": "upper-right corner (x / 20, y / 10) in the observer's frame",
    "radius": "pillar radius / 20 (0 for walls)",
    "corners": "four corners (x / 20, y / 10) in the observer's frame",
}


def table(fields, base: int) -> list[str]:
    rows = ["| offset | width | field | meaning |", "|---:|---:|---|---|"]
    offset = base
    for name, width in fields:
        rows.append(f"| {offset} | {width} | `{name}` | {MEANING[name]} |")
        offset += width
    return rows


def render() -> str:
    blocks = obs_layout()
    units_end = NUM_SLOTS * UNIT_WIDTH
    game_width = sum(w for _, w in GLOBAL_FIELDS)
    box_base = units_end + game_width
    box_width = sum(w for _, w in BOX_FIELDS)
    wall_base = box_base + MAX_OBSTACLES * box_width
    lines = [
        "# Observation layout",
        "",
        "<!-- Written by scripts/write_obs_layout.py from marl_bgs/core/observation.py; do not edit. -->",
        "",
        f"Every agent receives a float32 vector of {OBS_WIDTH} numbers, in its own frame: its",
        "spawn end is on the left, and x and compass moves are mirrored for agents of the right",
        "end, so one policy serves both ends. Units are described by role, never by team:",
        "",
        "| rows | offset | width | who |",
        "|---|---:|---:|---|",
        f"| unit 0 | 0 | {UNIT_WIDTH} | the observer itself |",
        f"| units 1-4 | {UNIT_WIDTH} | {4 * UNIT_WIDTH} | its allies, in slot order |",
        f"| units 5-9 | {5 * UNIT_WIDTH} | {5 * UNIT_WIDTH} | its enemies, in slot order |",
        f"| game | {units_end} | {game_width} | clock, scores, sizes and rules |",
        f"| boxes 0-{MAX_OBSTACLES - 1} | {box_base} | {MAX_OBSTACLES * box_width} | pillars and square walls |",
        f"| turned walls 0-{MAX_TURNED_WALLS - 1} | {wall_base} | {MAX_TURNED_WALLS * sum(w for _, w in WALL_FIELDS)} | walls at other angles |",
        "",
        f"Every number lies in [{OBS_LOW:g}, {OBS_HIGH:g}], the observation space's bounds, at any",
        "setting the environment accepts (`marl_bgs/core/observation.py` squashes the game block's",
        "settings into [0, 1]).",
        "",
        "An enemy's row is all zeros except `present` while the observer's team does not see",
        "it (out of every living teammate's sight radius or line, or hidden by a spawn shield);",
        "unused slots and unused obstacle entries are zeros too.",
        "",
        f"## One unit row ({UNIT_WIDTH} numbers; offsets within the row)",
        "",
        *table(UNIT_FIELDS, 0),
        "",
        f"## The game block (starts at {units_end})",
        "",
        *table(GLOBAL_FIELDS, units_end),
        "",
        f"## One box entry ({box_width} numbers; offsets within the entry)",
        "",
        *table(BOX_FIELDS, 0),
        "",
        "## One turned-wall entry (offsets within the entry)",
        "",
        *table(WALL_FIELDS, 0),
        "",
        f"The full list of {len(blocks)} blocks with absolute offsets is "
        "`marl_bgs.core.observation.obs_layout()`.",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the page is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE} is stale: run scripts/write_obs_layout.py", file=sys.stderr)
            return 1
        return 0
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
