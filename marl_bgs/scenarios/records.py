"""Scenario files: one JSON document per endgame, read strictly.

A scenario file (`"format": "marl-bgs/scenario"`) holds a position in the authored-position
format, the controller that plays Team B, the briefing, the skills it tests, and every
winning line its solver found: a line is Team A's actions, one entry per tick, each entry a
`[move, target, ultimate]` per agent in the position's team order (compass frame; Team A is
always on the left end, so this is also the agents' own frame). Dead agents' entries are
`[0, 0, 0]`. The solver's coverage is stored beside the lines, so a page or a reader can
say how much of the action space was searched.

Every field is checked and a bad one is named (`scenario_3.json.lines[2][1][0][1]: 11 is out of range
[0, 10]`); nothing is clamped or dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.actions import HEAD_LIMITS
from ..core.checks import choice, fields, mapping, sequence, strict_json, string, whole
from ..core.state import TEAM_SIZE
from ..maps.positions import parse_position

SCENARIO_FORMAT = "marl-bgs/scenario"
SCENARIO_VERSION = 1
DATA = Path(__file__).resolve().parent / "data"
CONTROLLERS = ("tdm-alpha", "tdm-beta")
# The ten team skills of the paper's Table 2, in its order.
SKILLS = (
    "teammate modeling",
    "opponent modeling",
    "basic damage target timing",
    "ultimate timing",
    "tactical obstacle exploitation",
    "tactical positioning",
    "balancing defensive and offensive play",
    "strategic sacrifice",
    "plan adaptation",
    "multi-step team-level planning",
)
TOP_KEYS = ("format", "version", "id", "name", "controller", "briefing", "skills", "position",
            "lines", "search")  # fmt: skip
SEARCH_KEYS = ("depth", "exhaustive_depth", "sequences", "nodes", "wins_by_length", "samples",
               "sample_seed", "sampled_wins_by_length")  # fmt: skip
MAX_LINES = 1024
MIN_TICKS, MAX_TICKS = 5, 10


@dataclass(frozen=True)
class Scenario:
    """One endgame scenario.

    Attributes:
        id: 1 to 8.
        name: The challenge in a few words ("Trust the healer").
        controller: The registered System that plays Team B (`"tdm-alpha"` or `"tdm-beta"`).
        briefing: One paragraph for the player: the situation, not the answer.
        skills: The team skills the winning lines need (names from `SKILLS`).
        position: The start, an authored position (`"marl-bgs/position"`), Team A left.
        lines: The winning lines the solver kept (at most its `keep`, 64 by default; the
            `search` field counts every win it found); each is one entry per tick of Team A's
            `[move, target, ultimate]` per agent of the position's Team A.
        search: How the lines were found (`search.SearchReport.as_dict`): the depth, the
            levels searched in full with their sequences, nodes and exact wins by length,
            then the random samples and their wins by length.
    """

    id: int
    name: str
    controller: str
    briefing: str
    skills: tuple[str, ...]
    position: dict
    lines: tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]
    search: dict

    @property
    def ticks_left(self) -> int:
        """Ticks from the position to the horizon (5 to 10)."""
        return int(self.position["horizon"]) - int(self.position["tick"])

    def living(self, team: int) -> list[str]:
        """The classes alive at the start on one team.

        Args:
            team: 0 for Team A, 1 for Team B.

        Returns:
            Class names, in the team's slot order.
        """
        agents = self.position["teams"][team]["agents"]
        return [a["class"] for a in agents if a.get("alive", True)]

    def as_dict(self) -> dict:
        """The scenario as its file's JSON document.

        Returns:
            The document `read_scenario` reads back to an equal record.
        """
        return {
            "format": SCENARIO_FORMAT,
            "version": SCENARIO_VERSION,
            "id": self.id,
            "name": self.name,
            "controller": self.controller,
            "briefing": self.briefing,
            "skills": list(self.skills),
            "position": self.position,
            "lines": [[[list(a) for a in tick] for tick in line] for line in self.lines],
            "search": self.search,
        }


def _wins(raw: Any, where: str, depth: int) -> None:
    for k, v in mapping(raw, where).items():
        if not k.isdigit() or not 1 <= int(k) <= depth:
            raise ValueError(f"{where}.{k}: expected a line length 1..{depth}")
        whole(v, f"{where}.{k}", 1)


def _search(raw: Any, where: str) -> dict:
    fields(raw, where, SEARCH_KEYS)
    depth = whole(raw["depth"], f"{where}.depth", 1, MAX_TICKS)
    full = whole(raw["exhaustive_depth"], f"{where}.exhaustive_depth", 0, depth)
    for key in ("sequences", "nodes"):
        for i, v in enumerate(sequence(raw[key], f"{where}.{key}", full, full)):
            whole(v, f"{where}.{key}[{i}]", 0)
    _wins(raw["wins_by_length"], f"{where}.wins_by_length", full)
    whole(raw["samples"], f"{where}.samples", 0)
    whole(raw["sample_seed"], f"{where}.sample_seed", 0, 2**31 - 1)
    _wins(raw["sampled_wins_by_length"], f"{where}.sampled_wins_by_length", depth)
    return raw


def _lines(raw: Any, where: str, agents: int, ticks: int) -> tuple:
    lines = []
    for i, line in enumerate(sequence(raw, where, 1, MAX_LINES)):
        at = f"{where}[{i}]"
        entries = []
        for t, tick in enumerate(sequence(line, at, 1, ticks)):
            acts = []
            for k, act in enumerate(sequence(tick, f"{at}[{t}]", agents, agents)):
                cell = sequence(act, f"{at}[{t}][{k}]", 3, 3)
                acts.append(tuple(
                    whole(v, f"{at}[{t}][{k}][{h}]", 0, HEAD_LIMITS[h] - 1)
                    for h, v in enumerate(cell)
                ))  # fmt: skip
            entries.append(tuple(acts))
        lines.append(tuple(entries))
    if len(set(lines)) != len(lines):
        raise ValueError(f"{where}: a line is listed twice")
    return tuple(lines)


def read_scenario(doc: Any, where: str = "scenario") -> Scenario:
    """Check a scenario document and build its record; errors name the field.

    Args:
        doc: The parsed JSON document.
        where: How messages name the document (its file name).

    Returns:
        The `Scenario`.

    Raises:
        ValueError: A missing, unknown or out-of-range field, a position that does not
            parse, or a line that does not fit the position, naming the field.
        FieldTypeError: A field of the wrong type.
    """
    fields(doc, where, TOP_KEYS)
    if doc["format"] != SCENARIO_FORMAT:
        raise ValueError(f"{where}.format: expected {SCENARIO_FORMAT!r}, got {doc['format']!r}")
    if doc["version"] != SCENARIO_VERSION:
        raise ValueError(f"{where}.version: expected {SCENARIO_VERSION}, got {doc['version']!r}")
    sid = whole(doc["id"], f"{where}.id", 1, 8)
    name = string(doc["name"], f"{where}.name", 60)
    controller = choice(doc["controller"], f"{where}.controller", CONTROLLERS, "controller")
    briefing = string(doc["briefing"], f"{where}.briefing", 1200)
    if not name.strip() or not briefing.strip():
        raise ValueError(f"{where}: name and briefing must not be empty")
    skills = tuple(
        choice(s, f"{where}.skills[{i}]", SKILLS, "skill")
        for i, s in enumerate(sequence(doc["skills"], f"{where}.skills", 1, len(SKILLS)))
    )
    if len(set(skills)) != len(skills):
        raise ValueError(f"{where}.skills: a skill is listed twice")
    position = mapping(doc["position"], f"{where}.position")
    try:
        parsed = parse_position(json.loads(json.dumps(position)))
    except ValueError as err:
        kind = type(err) if isinstance(err, TypeError) else ValueError
        raise kind(f"{where}.position: {err}") from None
    if position["teams"][0]["spawn_end"] != "left":
        raise ValueError(f"{where}.position.teams[0].spawn_end: Team A starts on the left end")
    ticks = int(parsed.state.horizon) - int(parsed.state.tick)
    if not MIN_TICKS <= ticks <= MAX_TICKS:
        raise ValueError(
            f"{where}.position: {ticks} ticks left; a scenario leaves {MIN_TICKS} to {MAX_TICKS}"
        )
    agents = int(parsed.state.present[:TEAM_SIZE].sum())
    lines = _lines(doc["lines"], f"{where}.lines", agents, ticks)
    search = _search(doc["search"], f"{where}.search")
    return Scenario(sid, name, controller, briefing, skills, position, lines, search)


def load_scenario_file(path: Path | str) -> Scenario:
    """Read and check one scenario file (strict JSON: no duplicate keys, no NaN).

    Args:
        path: The file.

    Returns:
        The `Scenario`.

    Raises:
        ValueError: Not strict JSON, or a bad field, naming the file and the field.
    """
    path = Path(path)
    return read_scenario(strict_json(path.read_bytes(), path.name), path.name)


def load_scenarios(folder: Path | str = DATA) -> tuple[Scenario, ...]:
    """Every `scenario_<id>.json` in `folder`, by id.

    Args:
        folder: Where the files are (the package's `data/` by default).

    Returns:
        The `Scenario` records, sorted by id.

    Raises:
        ValueError: A file that does not read, or whose id does not match its name.
    """
    scenarios = []
    for path in sorted(Path(folder).glob("scenario_*.json")):
        scenario = load_scenario_file(path)
        if path.name != f"scenario_{scenario.id}.json":
            raise ValueError(f"{path.name}.id: {scenario.id} does not match the file name")
        scenarios.append(scenario)
    return tuple(sorted(scenarios, key=lambda s: s.id))


# The eight scenarios, read once from data/ (what `marl_bgs.scenarios.SCENARIOS` names).
SCENARIOS: tuple[Scenario, ...] = load_scenarios()
