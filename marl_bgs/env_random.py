"""The env's random draws (key splits, integers in a range): bit for bit what `jax.random`
draws from the same key, computed without its loop on the CPU.

Why: on the CPU, JAX lowers the threefry hash behind every `jax.random` call as a rolled
loop of five steps, a while loop of small kernels each time. A tick of a batch of games
made 19 such loops (about 170 kernel runs) to split keys and draw integers. Here the hash's
20 rounds are written out as plain integer operations, which XLA fuses into one kernel.

The draws are those of `jax.random.split` and `jax.random.randint` for threefry keys with
`jax_threefry_partitionable` on (JAX's default since 0.5; the project pins JAX): the hash of
the element's index under the key (Salmon et al., "Parallel random numbers: as easy as
1, 2, 3", SC 2011). Other key kinds, or that flag off, go to `jax.random` itself.
`tests/test_env_random.py` holds the two equal on many keys and shapes.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)  # the key schedule's constant (Threefish)


def _rotate(x: Any, bits: int) -> Any:
    return jnp.left_shift(x, np.uint32(bits)) | jnp.right_shift(x, np.uint32(32 - bits))


def threefry2x32(k0: Any, k1: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """The Threefry-2x32 hash (20 rounds) of the counter pair (x0, x1) under key (k0, k1),
    all uint32 and broadcast together: the function `jax.random` builds its bits from."""
    keys = (k0, k1, k0 ^ k1 ^ _PARITY)
    x0, x1 = x0 + keys[0], x1 + keys[1]
    for group in range(5):
        for bits in _ROTATIONS[group % 2]:
            x0 = x0 + x1
            x1 = _rotate(x1, bits) ^ x0
        x0 = x0 + keys[(group + 1) % 3]
        x1 = x1 + keys[(group + 2) % 3] + np.uint32(group + 1)
    return x0, x1


def _handled(key: Any) -> bool:
    """Whether `key` is a threefry key whose draws this module reproduces."""
    if not jax.config.jax_threefry_partitionable:
        return False
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return str(jax.random.key_impl(key)) == "threefry2x32"
    return key.dtype == jnp.uint32 and key.shape == (2,)  # a raw `jax.random.PRNGKey`


def _words(key: Any) -> tuple[Any, Any]:
    data = jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
    return data[..., 0], data[..., 1]


def _hashed(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    """The hash of every element's row-major index (a 64-bit count as two words; its high
    word is 0 below 2**32 elements) under `key`, for an array of `shape`."""
    if int(np.prod(shape)) >= 2**32:
        raise ValueError(f"shape: {shape} holds 2**32 or more draws")
    k0, k1 = _words(key)
    low = jnp.arange(int(np.prod(shape)), dtype=jnp.uint32).reshape(shape)
    return threefry2x32(k0, k1, jnp.zeros_like(low), low)


def split(key: Any, num: int) -> Any:
    """`jax.random.split(key, num)`, the same keys (one key in, `num` out)."""
    if not _handled(key):
        return jax.random.split(key, num)
    b0, b1 = _hashed(key, (num,))
    data = jnp.stack([b0, b1], axis=-1)
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return jax.random.wrap_key_data(data, impl="threefry2x32")
    return data


def _bits(key: Any, shape: tuple[int, ...]) -> Any:
    b0, b1 = _hashed(key, shape)
    return b0 ^ b1


def randint(key: Any, shape: tuple[int, ...], minval: Any, maxval: Any) -> Any:
    """`jax.random.randint(key, shape, minval, maxval)` for int32 bounds and values, the
    same draws: two words of bits per value, reduced into the span by remainders."""
    if not _handled(key):
        return jax.random.randint(key, shape, minval, maxval)
    minval = jnp.broadcast_to(jnp.asarray(minval, jnp.int32), shape)
    maxval = jnp.broadcast_to(jnp.asarray(maxval, jnp.int32), shape)
    high_key, low_key = split(key, 2)
    high, low = _bits(high_key, shape), _bits(low_key, shape)
    span = (maxval - minval).astype(jnp.uint32)
    span = jnp.where(maxval <= minval, jnp.uint32(1), span)
    # 2**32 mod span, from (2**16 mod span) squared, without overflowing 32 bits
    multiplier = jnp.uint32(2**16) % span
    multiplier = (multiplier * multiplier) % span
    offset = ((high % span) * multiplier + low % span) % span
    return minval + offset.astype(jnp.int32)
