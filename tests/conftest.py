"""Shared fixtures: both engines, position builders, and a persistent JAX compile cache."""

from __future__ import annotations

import functools
import gc
import http.server
import os
import sys
import threading
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


def _memory_share() -> int:
    """A fair share of the machine's memory for one test process: half of it, split among
    pytest-xdist's workers (all of it is never ours: page cache, the browser, Node)."""
    from marl_bgs.memory_budget import machine_memory

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    return machine_memory() // (2 * max(workers, 1))


@pytest.fixture(autouse=True)
def _free_compiled_programs():
    """Drop JAX's compiled programs after a test once the process holds more than
    half of the kernel's memory-map limit, or more than its share of memory. Every loaded
    XLA CPU program keeps a few dozen memory maps and its code: the whole suite in one
    process passed the default limit of 65,530 maps (XLA then crashed, SIGSEGV, loading the
    next program instead of reporting the failed mmap), and two workers holding every
    program they had compiled grew past 10 GB each on a 24 GB machine, where the kernel
    then spent the run evicting pages (a CI run timed out). Later modules recompile what
    they need (from the persistent cache); one module alone (test_scripted's 52-map
    games) grew one process to 11 GB, so the check runs after every test (a /proc read)."""
    yield
    jax = sys.modules.get("jax")
    if jax is None:
        return
    from marl_bgs.memory_budget import (
        memory_map_limit,
        memory_maps,
        resident_bytes,
        return_freed_memory,
    )
    from marl_bgs.runner import clear_runners

    crowded = (memory_maps() or 0) > memory_map_limit() // 2
    if crowded or resident_bytes() > _memory_share():
        clear_runners()
        jax.clear_caches()
        gc.collect()
        return_freed_memory()


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


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test output clean
        pass


@pytest.fixture(scope="session")
def site_url():
    """(address, folder) of the site built once per session, served on 127.0.0.1."""
    from marl_bgs.site import build as site_build

    built = site_build.build_once()
    handler = functools.partial(_QuietHandler, directory=str(built.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", built.site
    server.shutdown()
