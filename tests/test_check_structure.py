"""scripts/check_structure.py: the import graph (imports inside functions included), the
size count and the NumPy/JAX branch search, on a small package built here."""

from __future__ import annotations

from pathlib import Path

from .script_loader import load_script

check = load_script("check_structure")


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from .b import f\n",
            "pkg/b.py": "def f():\n    from . import a\n    return a\n",
            "pkg/c.py": "from pkg.a import f\n",
        },
    )
    s = check.measure(root, "pkg")
    assert s.imports["pkg.a"] == {"pkg.b"}
    assert s.imports["pkg.b"] == {"pkg.a"}  # `from . import a` names the module a
    assert s.imports["pkg.c"] == {"pkg.a"}
    assert s.cycles() == [["pkg.a", "pkg.b"]]
    assert any("import cycle" in f for f in check.findings(s))


def test_imports_for_type_checking_only_draw_no_edge(tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
            "pkg/b.py": "from .a import TYPE_CHECKING\n",
        },
    )
    s = check.measure(root, "pkg")
    assert s.imports["pkg.a"] == set()
    assert s.cycles() == []


def test_relative_imports_from_a_subpackage_resolve_to_the_right_module(tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "from .sub import thing\n",
            "pkg/util.py": "X = 1\n",
            "pkg/sub/__init__.py": "from .inner import thing\n",
            "pkg/sub/inner.py": "from ..util import X\nthing = X\n",
        },
    )
    s = check.measure(root, "pkg")
    assert s.imports["pkg"] == {"pkg.sub"}
    assert s.imports["pkg.sub"] == {"pkg.sub.inner"}
    assert s.imports["pkg.sub.inner"] == {"pkg.util"}
    assert s.cycles() == []


def test_a_package_that_imports_a_module_importing_it_back_is_a_cycle(tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "def late():\n    from .run import go\n    return go\n",
            "pkg/run.py": "import pkg\n\ndef go():\n    return pkg.__name__\n",
        },
    )
    assert check.measure(root, "pkg").cycles() == [["pkg", "pkg.run"]]


def test_sizes_and_backend_branches_are_reported(tmp_path):
    long = "x = 1\n" * (check.SIZE_LIMIT + 1)
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/big.py": long,
            "pkg/small.py": "def f(xp, np):\n    return 1 if xp is np else 2\n",
            "pkg/core/backend.py": "def g(xp, np):\n    return xp is not np\n",
        },
    )
    s = check.measure(root, "pkg")
    assert s.large() == {"pkg.big": check.SIZE_LIMIT + 1}
    assert s.branches == ["pkg/small.py:2"]  # core/backend.py is where branches belong


def test_the_package_itself_has_no_import_cycle():
    s = check.measure()
    assert s.cycles() == [], s.cycles()
    assert len(s.imports) > 100  # the package was read, not an empty folder
