"""core/backend.py: the one NumPy-or-JAX test and the branches it names give the same
values on both backends (the engines' games are held equal by the fingerprint)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from marl_bgs.core.backend import is_numpy, known_none, min_at


def test_is_numpy_tells_the_namespaces_apart():
    assert is_numpy(np)
    assert not is_numpy(jnp)


def test_known_none_skips_only_on_numpy():
    assert known_none(np, np.zeros(4, bool))
    assert not known_none(np, np.asarray([False, True]))
    # Under JAX nothing is known, not even a concrete all-False mask.
    assert not known_none(jnp, jnp.zeros(4, bool))
    assert jax.jit(lambda mask: jnp.int32(known_none(jnp, mask)))(jnp.zeros(4, bool)) == 0


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_min_at_is_the_same_on_both_backends(dtype):
    rng = np.random.default_rng(0)
    init = rng.integers(-50, 50, 7).astype(dtype)
    index = rng.integers(0, 7, 20)  # repeated indices take the least
    values = rng.integers(-80, 80, 20).astype(dtype)
    before, want = init.copy(), init.copy()
    for i, v in zip(index, values, strict=True):
        want[i] = min(want[i], v)
    got_np = min_at(np, init, index, values)
    got_jax = jax.jit(lambda a, i, v: min_at(jnp, a, i, v))(init, index, values)
    np.testing.assert_array_equal(got_np, want)
    np.testing.assert_array_equal(np.asarray(got_jax), want)
    np.testing.assert_array_equal(init, before)  # a new array: `init` is left as it was
    assert (want != before).any()  # some values were lowered
