"""Property test (issue 18): random junk JSON, and real documents with one value swapped
for junk, never produce anything but a clean ValueError/TypeError from a reader."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from marl_bgs import maps  # noqa: E402
from marl_bgs.core.position import starting_position  # noqa: E402
from marl_bgs.learn.config_files import from_dict  # noqa: E402
from marl_bgs.maps.positions import parse_position  # noqa: E402
from marl_bgs.tournament.entrants import parse_entrants  # noqa: E402

JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


def _paths(doc, prefix=()):
    """Every place in a document, as a path of keys and indices."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


def _swapped(doc, path, value):
    doc = copy.deepcopy(doc)
    if not path:
        return value
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return doc


ROOT = Path(__file__).resolve().parent.parent
REPLAY = json.loads((ROOT / "exports" / "replays" / "alpha-vs-random-map47.json").read_text())


def _replay_reader(doc):
    from marl_bgs.replay import load_replay

    load_replay(json.dumps(doc).encode())


READERS = {
    "replay": (_replay_reader, REPLAY),
    "position": (parse_position, starting_position(47)),
    "map": (lambda d: maps.validate_map(d, source="junk"), json.loads(maps.map_path(47).read_text())),
    "entrants": (parse_entrants, json.loads((ROOT / "seasons" / "season0.json").read_text())),
    "config": (from_dict, {"format": "marl-bgs/train-config", "version": 1, "algo": "rec-ippo",
                           "num_envs": 8}),
}  # fmt: skip


# The same examples on every run, and no example database written into the checkout.
REPEATABLE = dict(deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


def _clean(reader, doc):
    try:
        reader(doc)
    except (ValueError, TypeError):
        pass


@pytest.mark.parametrize("name", sorted(READERS))
@settings(max_examples=100, **REPEATABLE)
@given(junk=JUNK)
def test_junk_documents_are_refused_cleanly(name, junk):
    reader, _ = READERS[name]
    _clean(reader, junk)


@pytest.mark.parametrize("name", sorted(READERS))
@settings(max_examples=200, **REPEATABLE)
@given(data=st.data(), junk=JUNK)
def test_one_value_swapped_for_junk_is_refused_cleanly(name, data, junk):
    reader, good = READERS[name]
    paths = list(_paths(good))
    path = data.draw(st.sampled_from(paths))
    _clean(reader, _swapped(good, path, junk))
