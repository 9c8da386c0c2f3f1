"""Shared fixtures: both engines, position builders, and a persistent JAX compile cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(Path.home() / ".cache" / "marl_bgs" / "jax"))


def pytest_configure(config):
    try:
        import jax
    except ImportError:  # the NumPy engine's tests run without JAX
        return
    jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)


@pytest.fixture(params=["numpy", "jax"])
def backend(request) -> str:
    """Every rule test runs on both engines."""
    return request.param


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test: Playwright's sync API allows only one
    running instance per process, so the modules share it."""
    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"needs {CHROMIUM}")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
