"""How much of the machine a process may hold: its memory mappings and resident memory.

Compiled XLA programs are large and many: the runner cache (`runner.py`) and the tests' clean-up
read these numbers to drop compiled programs before the kernel refuses more mappings or the
machine runs out of memory. Every reader falls back to a number that never binds where /proc
is not there.
"""

from __future__ import annotations

import os
from pathlib import Path

# A compiled runner holds about 4,000 memory mappings on a CPU (XLA's code and buffers), and
# Linux lets a process have 65,530 (vm.max_map_count): a season's shard crashed in LLVM
# ("Cannot allocate memory") after 14 fixtures. Runners are dropped, oldest first, while the
# process holds more than this share of the kernel's limit.
MAP_BUDGET_SHARE = 0.7
# ... and while it holds more than this share of the machine's memory: a runner's compiled
# program takes hundreds of MB, and tutorial 4's crossplay kernel grew to 10 GB on a 24 GB
# machine (the kernel killed it) with 16 runners kept.
MEMORY_BUDGET_SHARE = 0.25


def memory_map_limit() -> int:
    """The kernel's limit on one process's memory mappings (Linux's default elsewhere)."""
    try:
        return int(Path("/proc/sys/vm/max_map_count").read_text())
    except (OSError, ValueError):
        return 65_530


def map_budget() -> int:
    """The mappings a process may hold before cached programs are dropped."""
    return int(MAP_BUDGET_SHARE * memory_map_limit())


def memory_maps() -> int | None:
    """How many memory mappings this process holds (None where /proc is not there); every
    loaded XLA CPU program holds a few dozen."""
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


def resident_bytes() -> int:
    """This process's resident memory (0 where /proc is not there)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def machine_memory() -> int:
    """The machine's physical memory in bytes (a huge number where it cannot be read, so
    that no budget derived from it ever binds)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError):
        return 1 << 62


def memory_budget() -> int:
    """The resident memory a process may hold before cached programs are dropped."""
    return int(MEMORY_BUDGET_SHARE * machine_memory())


def return_freed_memory() -> None:
    """Hand the allocator's freed pages back to the kernel (glibc keeps them otherwise, and
    the process would not shrink after dropping compiled programs)."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def over_budget() -> bool:
    """Whether this process holds more mappings or more memory than its budget."""
    return (memory_maps() or 0) > map_budget() or resident_bytes() > memory_budget()
