"""`core.known_map`: the map type that tells a batch which map its games should be playing."""

from __future__ import annotations

import pickle

import jax
import jax.numpy as jnp
import numpy as np

import marl_bgs
from marl_bgs.core.known_map import expected_map, expecting, on_expected_or_rows, plays_expected
from marl_bgs.core.state import MapArrays, map_arrays
from marl_bgs.maps import load_map


def _map(map_id: int) -> MapArrays:
    return map_arrays(load_map(map_id)["obstacles"])


def test_one_type_per_map_and_it_stays_map_arrays():
    known = expecting(_map(47))
    assert known is expecting(_map(47)) and known is not expecting(_map(3))
    m = known(*_map(47))
    assert isinstance(m, MapArrays) and m._fields == MapArrays._fields
    assert expected_map(m) is known.EXPECTED and expected_map(_map(47)) is None
    leaves, tree = jax.tree.flatten(m)  # a pytree of its own type, the same leaves
    assert type(jax.tree.unflatten(tree, leaves)) is known and len(leaves) == len(m)


def test_plays_expected_looks_at_every_game_and_every_field():
    expected = _map(47)
    batch = jax.tree.map(lambda a: jnp.stack([a, a, a]), expected)
    assert bool(plays_expected(batch, expected))
    moved = batch._replace(pillar_radius=batch.pillar_radius.at[2, 0].add(1))
    assert not bool(plays_expected(moved, expected))
    assert not bool(plays_expected(jax.tree.map(lambda a: a[None], _map(47)), _map_padded_like(3)))


def _map_padded_like(map_id: int) -> MapArrays:
    """Map `map_id` with map 47's room, so that the two compare field by field."""
    room = _map(47)
    return map_arrays(
        load_map(map_id)["obstacles"],
        boxes=room.box_lo.shape[0],
        polys=room.poly_corners.shape[0],
        pillars=room.pillar_centre.shape[0],
        rects=room.rect_lo.shape[0],
    )


def test_the_expected_branch_runs_only_when_every_game_plays_it():
    expected = _map(47)
    batch = jax.tree.map(lambda a: jnp.stack([a, a]), expected)
    mixed = jax.tree.map(lambda a, b: jnp.stack([a, b]), expected, _map_padded_like(3))
    pick = jax.jit(lambda m: on_expected_or_rows(m, expected, lambda: 1, lambda: 2))
    assert int(pick(batch)) == 1 and int(pick(mixed)) == 2
    assert on_expected_or_rows(batch, None, lambda: 1, lambda: 2) == 2


def test_an_env_with_one_map_expects_it_and_one_with_several_does_not():
    one = marl_bgs.make("tdm", map_id=47, num_envs=2)
    expected = expected_map(one._map_type(*_map(47)))
    assert all(np.array_equal(a, b) for a, b in zip(expected, _map(47), strict=True))
    assert marl_bgs.make("tdm", map_id=[3, 47], num_envs=2)._map_type is None


def test_the_type_an_env_holds_pickles_and_comes_back_as_itself():
    env = marl_bgs.make("tdm", map_id=47, num_envs=2)
    again = pickle.loads(pickle.dumps(env))
    assert again._map_type is env._map_type
    m = env._map_type(*_map(47))
    back = pickle.loads(pickle.dumps(m))
    assert type(back) is type(m) and all(np.array_equal(a, b) for a, b in zip(back, m, strict=True))
