"""Map files: the format and splits, obstacles, reachability, validation and loading.

The committed JSON files under `maps/` are the source of truth; a wheel carries them as
`marl_bgs/_map_files/`, a source checkout reads them from the repository root.

Every numbered map is checked when it is loaded (once per file and process): the file format,
its id, name and split, exact mirror symmetry about x = 10, obstacles wholly inside the arena,
clear spawn pads, and that a body can walk from every spawn pad to every other with no
standing room sealed off. Held-out maps (validation and test) must also differ in layout from
every curriculum and training map. Obstacles are judged by the engine's own geometry
(`body_overlap`) on the engine's milli-unit grid, using NumPy only.

Inline obstacle lists (positions, replays, `reset_to`) pass the same obstacle validator,
`check_obstacles`, with the same limits; only mirroring and connectedness are not asked.

Modules: `format` (names, limits, splits), `obstacles` (one list checked; pads; layout
comparisons), `reach` (standing room and its regions), `files` (where the files are),
`validate` (a numbered map), `load` (`load_map`). The curriculum over the training maps is
the learners' (`marl_bgs.learn.curriculum`).
"""

from .files import available_maps, map_path, maps_dir, training_layouts
from .format import (
    HELD_OUT_MAPS,
    MAP_FORMAT,
    MAP_IDS,
    MAP_KEYS,
    MAP_VERSION,
    MAX_NAME_LENGTH,
    MAX_THETA,
    MIRROR_X,
    NUM_MAPS,
    PILLAR_KEYS,
    SPLITS,
    TRAINING_MAPS,
    WALL_KEYS,
    split_of,
)
from .load import load_map
from .obstacles import (
    check_obstacles,
    is_turned,
    layout_distance,
    layout_units,
    mirror_key,
    obstacle_bounds,
    shape_key,
    standard_pads,
    wall_corners,
)
from .reach import REACH_STEP, label_regions, reach_problem, standing_room
from .validate import held_out_clash, map_label, validate_map

__all__ = [
    "HELD_OUT_MAPS", "MAP_FORMAT", "MAP_IDS", "MAP_KEYS", "MAP_VERSION", "MAX_NAME_LENGTH",
    "MAX_THETA", "MIRROR_X", "NUM_MAPS", "PILLAR_KEYS", "REACH_STEP", "SPLITS",
    "TRAINING_MAPS", "WALL_KEYS", "available_maps", "check_obstacles", "held_out_clash",
    "is_turned", "label_regions", "layout_distance", "layout_units", "load_map", "map_label",
    "map_path", "maps_dir", "mirror_key", "obstacle_bounds", "reach_problem", "shape_key",
    "split_of", "standard_pads", "standing_room", "training_layouts", "validate_map",
    "wall_corners",
]  # fmt: skip
