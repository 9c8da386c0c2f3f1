"""Systems by name, so that command lines, entrant files and tables can name them."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from .base import System


def _random() -> System:
    from .random import random_system

    return random_system()


def _alpha() -> System:
    from .scripted import tdm_alpha

    return tdm_alpha()


def _beta() -> System:
    from .beta import tdm_beta

    return tdm_beta()


def _gamma() -> System:
    from .gamma import tdm_gamma

    return tdm_gamma()


BUILDERS: dict[str, Callable[[], System]] = {
    "random": _random,
    "tdm-alpha": _alpha,
    "tdm-beta": _beta,
    "tdm-gamma": _gamma,
}


@cache
def by_name(name: str) -> System:
    """The System registered under `name` ("random", "tdm-alpha", "tdm-beta", "tdm-gamma").

    The same name gives the same System object, so compiled game loops are reused.
    """
    if not isinstance(name, str) or name not in BUILDERS:
        raise ValueError(f"system: unknown name {name!r}; known: {', '.join(BUILDERS)}")
    try:
        return BUILDERS[name]()
    except ImportError as err:
        raise ValueError(f"system: {name!r} is not available in this build ({err})") from None
