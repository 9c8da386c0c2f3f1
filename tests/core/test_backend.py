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


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_short_axis_folds_give_the_reductions_values(axis, keepdims):
    from marl_bgs.core.array_ops import SHORT_AXIS, max_over, min_over, sum_over

    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 4, 3)).astype(np.float32) * 1e3
    x[0, 0] = np.inf
    whole = rng.integers(-1000, 1000, size=(5, 4, SHORT_AXIS + 1)).astype(np.int32)
    for a in (x, whole):  # ints keep the reduction
        for fold, name in ((min_over, "min"), (max_over, "max")):
            want = getattr(a, name)(axis=axis, keepdims=keepdims)
            got = jax.jit(lambda v, f=fold: f(jnp, v, axis, keepdims))(a)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), want)
            np.testing.assert_array_equal(fold(np, a, axis, keepdims), want)
    # A sum is added up in the axis's order, as NumPy adds a short axis.
    y = rng.normal(size=(64, 4)).astype(np.float32) * np.float32(1e4)
    want = ((y[:, 0] + y[:, 1]) + y[:, 2]) + y[:, 3]
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: sum_over(jnp, v, 1))(y)), want)
    np.testing.assert_array_equal(sum_over(np, y, 1), y.sum(axis=1))


def test_short_float_reductions_leave_no_ynn_fusion():
    """XLA on the CPU hands float reductions to YNNPACK; folded, none is left."""
    from marl_bgs.core.array_ops import max_over

    x = jnp.ones((64, 4), jnp.float32)
    folded = jax.jit(lambda v: max_over(jnp, v, 1) == v[:, 0]).lower(x).compile().as_text()
    reduced = jax.jit(lambda v: v.max(axis=1) == v[:, 0]).lower(x).compile().as_text()
    assert "__ynn_fusion" not in folded and " reduce(" not in folded
    assert " reduce(" in reduced  # the plain form: a reduction (a YNN fusion where enabled)


@pytest.mark.parametrize(
    "shape, share, size, fill",
    [((10240, 16), 0.04, 12288, 0), ((64, 45), 0.3, 90, 0), ((37,), 0.5, 10, 37),
     ((5, 7), 1.0, 64, 0), ((100,), 0.0, 8, 100), ((300,), 0.9, 1, 300), ((3, 17), 0.5, 5, 9)],
)  # fmt: skip
def test_nonzero_gives_jnps_indices(shape, share, size, fill):
    """batching.nonzero: the same indices as jnp.nonzero, including a list too short for
    every element (the first `size` kept) and room left over (`fill`)."""
    from marl_bgs.core.batching import nonzero

    rng = np.random.default_rng(sum(shape))
    for _ in range(3):
        mask = jnp.asarray(rng.random(shape) < share)
        got = jax.jit(nonzero, static_argnums=(1, 2))(mask, size, fill)
        want = jnp.nonzero(mask, size=size, fill_value=fill)
        assert len(got) == len(want) == len(shape)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("width", [1, 5, 16, 31, 32])
def test_row_bits_packs_each_row_into_one_word(width):
    """array_ops.row_bits: bit k of a row's word is the row's k-th entry, on both engines
    (the top bit of a 32-wide row included), and a row too wide for 32 bits is refused."""
    from marl_bgs.core.array_ops import row_bits

    rng = np.random.default_rng(width)
    mask = rng.random((50, width)) < 0.5
    mask[0], mask[1] = True, False
    want = [sum(1 << k for k in range(width) if row[k]) for row in mask]
    for xp, rows in ((np, mask), (jnp, jnp.asarray(mask))):
        got = row_bits(xp, rows)
        assert got.dtype == np.uint32
        assert [int(v) for v in np.asarray(got)] == want
    with pytest.raises(ValueError, match="33 does not fit"):
        row_bits(np, np.zeros((2, 33), bool))
