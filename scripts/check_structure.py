"""The package's shape, measured: import cycles among `marl_bgs` modules (imports inside
functions count too, since they still tie the two modules together), modules (and `web_demo/`
scripts) over the size limit, and NumPy/JAX branches (`xp is np`) outside `core/backend.py`.

    python scripts/check_structure.py            # the report; exit 1 on any finding
    python scripts/check_structure.py --json F   # ... and the facts as JSON

A module imported only lazily for an optional dependency outside the package (JaxMARL) is
not our concern: only edges between `marl_bgs` modules are drawn. A package's `__init__`
counts as a module (`marl_bgs.learn`); importing `a.b.c` draws one edge, to `a.b.c`, not to
its parents, because what matters is which module's code needs which.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "marl_bgs"
SIZE_LIMIT = 500  # lines a module may hold
HARD_LIMIT = 650  # ... and those allowed over it may not pass this
MAX_LARGE = 3  # how many may be over SIZE_LIMIT
BRANCH = re.compile(r"\bxp is (not )?np\b")
BRANCH_HOME = "core/backend.py"  # inside the package
WEB = "web_demo"  # its JavaScript counts towards the size limit too


class Structure:
    """What `measure` found, by module name (`marl_bgs.learn.ppo`). (A plain class: the
    tests load this script without registering it as a module, which dataclasses need.)"""

    def __init__(self) -> None:
        self.imports: dict[str, set[str]] = {}
        self.lines: dict[str, int] = {}
        self.branches: list[str] = []  # "path:line"

    def cycles(self) -> list[list[str]]:
        """Every strongly connected set of two or more modules (or one that imports
        itself), each sorted, largest first."""
        return [sorted(c) for c in strongly_connected(self.imports) if len(c) > 1]

    def large(self, limit: int = SIZE_LIMIT) -> dict[str, int]:
        return {m: n for m, n in sorted(self.lines.items(), key=lambda kv: -kv[1]) if n > limit}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, current: str, is_package: bool) -> str:
    """The module an `ImportFrom` names, made absolute."""
    if not node.level:
        return node.module or ""
    base = current.split(".")
    base = base if is_package else base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_modules(source: str, current: str, is_package: bool, known: set[str]) -> set[str]:
    """The package modules that `source` (module `current`) imports, anywhere in it:
    `from x import y` names module `x.y` when that is a module, else `x`."""
    found: set[str] = set()
    tree = ast.parse(source)
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and _is_type_checking(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:  # `if TYPE_CHECKING:` imports never run
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, current, is_package)
            names = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                names.append(sub if sub in known else base)
        else:
            continue
        for name in names:
            while name and name not in known:  # `import a.b.fn`-like spellings
                name = name.rpartition(".")[0]
            if name and name != current:
                found.add(name)
    return found


def measure(root: Path = ROOT, package: str = PACKAGE) -> Structure:
    files = sorted((root / package).rglob("*.py"))
    names = {module_name(p, root): p for p in files}
    known = set(names)
    result = Structure()
    for name, path in names.items():
        text = path.read_text(encoding="utf-8")
        is_package = path.name == "__init__.py"
        result.imports[name] = imported_modules(text, name, is_package, known)
        result.lines[name] = text.count("\n")
        rel = path.relative_to(root).as_posix()
        if rel != f"{package}/{BRANCH_HOME}":
            result.branches += [
                f"{rel}:{i}" for i, line in enumerate(text.splitlines(), 1) if BRANCH.search(line)
            ]
    for path in sorted((root / WEB).rglob("*.js")) if (root / WEB).is_dir() else []:
        if "node_modules" not in path.parts:
            result.lines[path.relative_to(root).as_posix()] = path.read_text("utf-8").count("\n")
    return result


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, written iteratively (no recursion limit on deep chains)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    found.append(group)
    return sorted(found, key=len, reverse=True)


def findings(s: Structure) -> list[str]:
    out = [f"import cycle: {' <-> '.join(c)}" for c in s.cycles()]
    large = s.large()
    if len(large) > MAX_LARGE:
        out.append(f"{len(large)} modules over {SIZE_LIMIT} lines (at most {MAX_LARGE} may be)")
    out += [f"{m}: {n} lines (over {HARD_LIMIT})" for m, n in large.items() if n > HARD_LIMIT]
    out += [f"`xp is np` outside {PACKAGE}/{BRANCH_HOME}: {where}" for where in s.branches]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the facts here")
    args = parser.parse_args(argv)
    s = measure()
    cycles = s.cycles()
    print(f"{len(s.lines)} modules, {sum(s.lines.values())} lines")
    print(f"import cycles: {len(cycles)}")
    for c in cycles:
        print("  " + " <-> ".join(c))
    print(f"modules over {SIZE_LIMIT} lines: {len(s.large())}")
    for m, n in s.large().items():
        print(f"  {n:5d} {m}")
    print(f"`xp is np` outside {PACKAGE}/{BRANCH_HOME}: {len(s.branches)}")
    for where in s.branches:
        print("  " + where)
    if args.json:
        facts = {
            "cycles": cycles,
            "large": s.large(),
            "branches": s.branches,
            "lines": s.lines,
        }
        args.json.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    return 1 if findings(s) else 0


if __name__ == "__main__":
    sys.exit(main())
