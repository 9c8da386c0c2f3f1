"""The season scripts' shared command-line options: `--shard I/N` and `--evaluate
module:function`, read as argparse `type=` functions whose refusals are usage errors."""

from __future__ import annotations

from collections.abc import Callable


def parse_shard(text: str) -> tuple[int, int]:
    """'I/N' (share I of N, 0 <= I < N) as (I, N), for the scripts' --shard options."""
    i, slash, n = text.partition("/")
    try:
        shard, shards = int(i), int(n)
    except ValueError:
        shard = shards = -1
    if not slash or shards < 1 or not 0 <= shard < shards:
        raise ValueError(f"expected I/N with 0 <= I < N, like 0/2, got {text!r}")
    return shard, shards


def shard_argument(text: str) -> tuple[int, int]:
    """`parse_shard` for argparse's `type=`: a bad --shard is a usage error naming it."""
    import argparse

    try:
        return parse_shard(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def function_argument(text: str) -> Callable:
    """argparse's `type=` for a `module:function` option (the season scripts' `--evaluate`,
    which tests point at a stand-in for `marl_bgs.evaluate`): a malformed name, a module
    that does not import or a name it lacks is a usage error naming what was given."""
    import argparse
    import importlib

    module, _, name = text.partition(":")
    if not module or not name:
        raise argparse.ArgumentTypeError(f"expected 'module:function', got {text!r}")
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError as err:
        raise argparse.ArgumentTypeError(
            f"{text!r}: module {module!r} does not import ({err})"
        ) from None
    if not callable(found):
        raise argparse.ArgumentTypeError(f"{text!r}: {module!r} has no function {name!r}")
    return found
