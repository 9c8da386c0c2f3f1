"""The env's own random draws (`marl_bgs.env_random`) equal `jax.random`'s bit for bit, and
`nth_legal`'s halving search picks the entry a cumulative sum picks."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from marl_bgs import env_random
from marl_bgs.env_views import nth_legal


def _data(keys) -> np.ndarray:
    typed = jnp.issubdtype(keys.dtype, jax.dtypes.prng_key)
    return np.asarray(jax.random.key_data(keys) if typed else keys)


KEYS = [jax.random.key(0), jax.random.key(2**31 - 1), jax.random.PRNGKey(7)]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("num", [1, 2, 4, 7, 1024])
def test_split_gives_jax_randoms_keys(key, num):
    ours, theirs = env_random.split(key, num), jax.random.split(key, num)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert (_data(ours) == _data(theirs)).all()


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize(
    ("shape", "low", "high"),
    [((), 0, 5), ((10,), 0, np.arange(1, 11)), ((3, 4), -3, 1000), ((6,), 5, 3),
     ((5,), 0, 2**31 - 1), ((9,), -(2**31), 2**31 - 1), ((4,), 7, 8)],
)  # fmt: skip
def test_randint_gives_jax_randoms_draws(key, shape, low, high):
    ours = env_random.randint(key, shape, low, high)
    theirs = jax.random.randint(key, shape, low, high)
    assert ours.dtype == theirs.dtype == jnp.int32 and ours.shape == theirs.shape
    assert (np.asarray(ours) == np.asarray(theirs)).all()


def test_the_same_draws_under_jit_and_vmap():
    keys = jax.random.split(jax.random.key(9), 64)
    counts = jnp.arange(1, 11)

    def draws(split, randint):
        def one(key):
            a, b = split(key, 2)
            return randint(a, (10,), 0, counts), jax.random.key_data(split(b, 4))

        return jax.jit(jax.vmap(one))(keys)

    ours = draws(env_random.split, env_random.randint)
    theirs = draws(jax.random.split, lambda k, s, lo, hi: jax.random.randint(k, s, lo, hi))
    for a, b in zip(ours, theirs, strict=True):
        assert (np.asarray(a) == np.asarray(b)).all()


def test_the_hash_is_threefry_2x32():
    """Random123's known-answer vectors for Threefry-2x32 with 20 rounds."""
    u = np.uint32
    cases = [
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ]
    for (k0, k1), (x0, x1), want in cases:
        got = env_random.threefry2x32(u(k0), u(k1), jnp.asarray(u(x0)), jnp.asarray(u(x1)))
        assert tuple(int(g) for g in got) == want


def test_other_keys_go_to_jax_random():
    key = jax.random.key(3, impl="rbg")
    assert (_data(env_random.split(key, 3)) == _data(jax.random.split(key, 3))).all()
    ours = env_random.randint(key, (5,), 0, 9)
    assert (np.asarray(ours) == np.asarray(jax.random.randint(key, (5,), 0, 9))).all()


def _by_cumulative_sum(key, legal):
    count = jnp.sum(legal, axis=-1, dtype=jnp.int32)
    nth = jax.random.randint(key, count.shape, 0, count)
    rank = jnp.cumsum(legal, axis=-1, dtype=jnp.int32) - 1
    return jnp.argmax(legal & (rank == nth[:, None]), axis=-1)


@pytest.mark.parametrize("width", [1, 9, 22, 32, 33, 99])
def test_nth_legal_picks_what_a_cumulative_sum_picks(width):
    rng = np.random.default_rng(width)
    legal = rng.random((3000, width)) < rng.random((3000, 1))
    legal[:, 0] |= ~legal.any(axis=1)  # every row has a legal entry
    legal[:4] = False
    legal[0, 0] = legal[1, -1] = legal[2, :] = legal[3, width // 2] = True
    for seed in range(3):
        key = jax.random.key(seed)
        got = np.asarray(nth_legal(key, jnp.asarray(legal)))
        assert legal[np.arange(len(legal)), got].all()
        assert (got == np.asarray(_by_cumulative_sum(key, jnp.asarray(legal)))).all()
    assert got[0] == 0 and got[1] == width - 1 and got[3] == width // 2


def test_nth_legal_reaches_every_legal_entry():
    legal = jnp.asarray(np.tile([True, False, True, True, False, True], (4000, 1)))
    got = np.asarray(nth_legal(jax.random.key(1), legal))
    counts = np.bincount(got, minlength=6)
    assert counts[[1, 4]].sum() == 0 and (counts[[0, 2, 3, 5]] > 850).all()
