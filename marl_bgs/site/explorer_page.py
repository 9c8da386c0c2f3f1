"""The Metrics Explorer page, written at build time from `exports/seasons/<season>/metrics/`.

`scripts/export_team_measures.py` computes everything (every entrant's full metrics from its
own side with intervals, the team measures and their rank tests, the figure); this page lays
out the team measures and mounts the interactive explorer (`web_demo/metrics/explorer.js`),
which reads `explorer.json`. The words are the template
`site_src/_templates/metrics-explorer.md.j2`. Strings from the files go through
`formatting.text`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core import checks
from . import templates
from .formatting import fixed, p_value, season_title, text
from .seasons import season_dirs

PAGE = "metrics-explorer.md"
FOLDER = "metrics"
MEASURES = "team_measures.json"
EXPLORER = "explorer.json"
MEASURES_FORMAT = "marl-bgs/team-measures"
SCRIPT = "scripts/export_team_measures.py"


class Node:
    """A value read from a JSON file with its path, so every error names the field; the
    typed reads are the project's one checker (`core.checks`)."""

    def __init__(self, value: Any, where: str) -> None:
        self.value = value
        self.where = where

    def _fail(self, expected: str) -> None:
        raise ValueError(f"{self.where}: expected {expected}, got {self.value!r}")

    def __getitem__(self, key: str | int) -> Node:
        if isinstance(key, int):
            items = self.list()
            if not 0 <= key < len(items):
                raise ValueError(f"{self.where}: no item {key} in a list of {len(items)}")
            return items[key]
        if key not in self.keys():
            raise ValueError(f"{self.where}.{key}: missing")
        return Node(self.value[key], f"{self.where}.{key}")

    def get(self, key: str) -> Node | None:
        return self[key] if key in self.keys() else None

    def list(self) -> list[Node]:
        items = checks.sequence(self.value, self.where)
        return [Node(v, f"{self.where}[{k}]") for k, v in enumerate(items)]

    def keys(self) -> list[str]:
        return list(checks.mapping(self.value, self.where))

    def is_null(self) -> bool:
        return self.value is None

    def num(self) -> float:
        return checks.number(self.value, self.where)

    def opt_num(self) -> float | None:
        return None if self.value is None else self.num()

    def int(self) -> int:
        return checks.whole(self.value, self.where)

    def str(self) -> str:
        return checks.string(self.value, self.where)

    def text(self) -> str:
        """The string, safe to place anywhere in Markdown or HTML."""
        return text(self.str())


def newest_with_metrics(root: Path) -> Path | None:
    """The newest exported season folder that has published full metrics, if any."""
    found = [f for f in season_dirs(root) if (f / FOLDER / MEASURES).is_file()]
    return found[-1] if found else None


def _read(path: Path, rel: str) -> Node:
    node = Node(checks.strict_json(path.read_bytes(), rel), rel)
    if node["format"].value != MEASURES_FORMAT:
        node["format"]._fail(repr(MEASURES_FORMAT))
    return node


def _num(v: float | None) -> str:
    if v is None:
        return "–"
    digits = 2 if abs(v) < 10 else 1 if abs(v) < 1000 else 0
    return f"{v:,.{digits}f}"


def _measures_table(doc: Node) -> str:
    entrants = doc["entrants"].list()
    head = ["group", "measure", "unit"] + [e["name"].text() for e in entrants]
    head += ["rho", "exact p", "Holm"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|" + "---:|" * (len(head) - 3)]
    for m in doc["measures"].list():
        key = m["measure"].str()
        cells = [m["group"].text(), m["title"].text(), m["unit"].text()]
        for e in entrants:
            v = e["values"][key]
            value, low, high = (v[i].opt_num() for i in range(3))
            cells.append(f"{_num(value)}<br><small>[{_num(low)}, {_num(high)}]</small>")
        rho = m["rho"].opt_num()
        cells += [
            "–" if rho is None else f"{rho:+.2f}",
            p_value(m["p"].opt_num()),
            fixed(m["holm"].opt_num(), 3) if m["holm"].opt_num() is not None else "–",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _notes(doc: Node) -> str:
    items = [
        f"- **{m['title'].text()}**: {m['note'].text()}"
        for m in doc["measures"].list()
        if m["note"].str()
    ]
    return "\n".join(items)


def explorer_page(folder: Path, root: Path) -> str:
    """Markdown of the Metrics Explorer for one season folder."""
    rel = folder.relative_to(root).as_posix()  # links are relative to the page, at the root
    doc = _read(folder / FOLDER / MEASURES, f"{rel}/{FOLDER}/{MEASURES}")
    return templates.render(
        "metrics-explorer.md.j2",
        rel=rel,
        folder=folder.name,
        title=text(season_title(folder.name)),
        entrants=len(doc["entrants"].list()),
        table=_measures_table(doc),
        notes=_notes(doc),
        files=sorted(p.name for p in (folder / FOLDER).iterdir() if p.is_file()),
        FOLDER=FOLDER,
        EXPLORER=EXPLORER,
        SCRIPT=SCRIPT,
    )


def pages(root: Path) -> dict[str, Callable[[], str]]:
    """The Explorer page when a season's full metrics are published; {} otherwise."""
    folder = newest_with_metrics(root)
    return {} if folder is None else {PAGE: lambda: explorer_page(folder, root)}


def nav(root: Path) -> list[dict]:
    return [] if newest_with_metrics(root) is None else [{"Metrics Explorer": PAGE}]
