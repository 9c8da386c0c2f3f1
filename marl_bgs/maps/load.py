"""Loading a numbered map: its file, validated once per file and process, handed out as a
private copy."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from ..core.checks import strict_json, whole
from .files import map_path
from .validate import map_label, validate_map


@cache
def _load_file(path: str) -> dict:
    name = Path(path).name
    with open(path, "rb") as f:
        data = strict_json(f.read(), name)
    clean = validate_map(data, source=name)
    if name != f"map_{clean['id']:02d}.json":
        raise ValueError(f"{map_label(data, name)}: the file {name} must hold map {name[4:6]}")
    return clean


def load_map(map_id: int) -> dict:
    """The map file with this id, validated; raises ValueError for an unknown id.

    ```python
    m = load_map(47)
    m["name"], m["split"], len(m["obstacles"])
    ```

    Args:
        map_id: A map id, 0-51.

    Returns:
        A private copy of the checked map: `format`, `version`, `id`, `name`, `split`,
            `width` (20), `height` (10), `spawn_pads`, `obstacles`.

    Raises:
        FieldTypeError: An id that is not a whole number.
        ValueError: No map file with this id, or a file that fails `validate_map`.
    """
    map_id = whole(map_id, "map")
    path = map_path(map_id)
    if not path.is_file():
        raise ValueError(f"map: no map with id {map_id}")
    data = _load_file(str(path))
    return json.loads(json.dumps(data))  # a private copy, so callers cannot edit the cache
