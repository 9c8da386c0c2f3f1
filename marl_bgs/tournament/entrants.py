"""The entrants file: who plays a season and how each one is loaded.

    {"format": "marl-bgs/entrants", "version": 1, "season": "season0",
     "field_size": 9,                                   # optional, the "Big Nine"
     "entrants": [{"name": "TDM-Alpha", "type": "scripted", "load": {"system": "tdm-alpha"}},
                  {"name": "My PPO", "type": "learned",
                   "load": {"entry_point": "my_pkg.agents:load", "kwargs": {"path": "ck/7"}}}],
     "challengers": [...]}                              # optional, same entry shape

`{"system": name}` names a registered System; `{"entry_point": "module:function"}` calls a
function that returns a System (with `kwargs` if given), so a learned checkpoint joins a season
by adding one entry to this file, without changing any code. A run trained by
`marl_bgs.learn.train` joins directly: `{"checkpoint": "runs/rec", "step": 40, "greedy": false}`
(`step` and `greedy` optional: the newest checkpoint, sampled actions), and so does an actor
exported to a policy file: `{"weights": "entrants/ppo/policy.npz", "greedy": false}`. A
relative checkpoint folder or weights file is read from the entrants file's folder (from the
working directory for a document given to `parse_entrants`); `kwargs` are passed as given.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.checks import FieldTypeError, strict_json, string, whole

ENTRANTS_FORMAT = "marl-bgs/entrants"
ENTRANTS_VERSION = 1
TYPES = ("scripted", "learned", "llm", "hybrid")
DEFAULT_FIELD_SIZE = 9
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,39}$")
SEASON_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
ENTRY_POINT_PATTERN = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
LOAD_KINDS = ("system", "entry_point", "checkpoint", "weights")


@dataclass(frozen=True)
class Entrant:
    """One entrant: a display name, its kind, and how to build its System."""

    name: str
    type: str
    load: dict = field(hash=False)
    base: Path | None = field(default=None, hash=False, compare=False)  # entrants file's folder

    @property
    def slug(self) -> str:
        """The name as a file-name part: lower case, runs of other characters as '-'."""
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")

    def as_dict(self) -> dict:
        return {"name": self.name, "type": self.type, "load": self.load}


@dataclass(frozen=True)
class SeasonSpec:
    """A validated entrants file."""

    season: str
    entrants: tuple[Entrant, ...]
    challengers: tuple[Entrant, ...] = ()
    field_size: int = DEFAULT_FIELD_SIZE
    description: str = ""

    def as_dict(self) -> dict:
        return {
            "format": ENTRANTS_FORMAT,
            "version": ENTRANTS_VERSION,
            "season": self.season,
            "description": self.description,
            "field_size": self.field_size,
            "entrants": [e.as_dict() for e in self.entrants],
            "challengers": [e.as_dict() for e in self.challengers],
        }


def _fail(where: str, message: str, kind: type[ValueError] = ValueError) -> None:
    raise kind(f"{where}: {message}")


def _entrant(raw: Any, where: str, base: Path | None = None) -> Entrant:
    if not isinstance(raw, dict):
        _fail(where, f"expected an object, got {type(raw).__name__}", FieldTypeError)
    extra = sorted(set(raw) - {"name", "type", "load", "description"})
    if extra:
        _fail(where, f"unknown field(s) {extra}")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        _fail(f"{where}.name", f"expected 1-40 letters, digits, spaces or ._+- , got {name!r}")
    kind = raw.get("type")
    if kind not in TYPES:
        _fail(f"{where}.type", f"expected one of {', '.join(TYPES)}, got {kind!r}")
    load = raw.get("load")
    if not isinstance(load, dict):
        _fail(
            f"{where}.load",
            f'expected {{"system": name}}, {{"entry_point": ...}}, {{"checkpoint": folder}} '
            f'or {{"weights": file}}, got {load!r}',
        )
    if sum(k in load for k in LOAD_KINDS) != 1:
        _fail(
            f"{where}.load",
            "give exactly one of 'system', 'entry_point', 'checkpoint' and 'weights'",
        )
    if "weights" in load:
        from ..learn.npz_policy import check_weights_spec  # no JAX imported: fields only

        check_weights_spec(load, f"{where}.load")
    elif "checkpoint" in load:
        from ..learn.policy import check_spec  # no JAX imported: only the fields are checked

        check_spec(load, f"{where}.load")
    elif "system" in load:
        if set(load) != {"system"}:
            _fail(f"{where}.load", f"unknown field(s) {sorted(set(load) - {'system'})}")
        if not isinstance(load["system"], str) or not load["system"]:
            _fail(f"{where}.load.system", f"expected a system name, got {load['system']!r}")
    else:
        extra = sorted(set(load) - {"entry_point", "kwargs"})
        if extra:
            _fail(f"{where}.load", f"unknown field(s) {extra}")
        ep = load["entry_point"]
        if not isinstance(ep, str) or not ENTRY_POINT_PATTERN.match(ep):
            _fail(f"{where}.load.entry_point", f"expected 'module:function', got {ep!r}")
        if not isinstance(load.get("kwargs", {}), dict):
            _fail(f"{where}.load.kwargs", "expected an object of keyword arguments")
    return Entrant(name, kind, dict(load), base)


def parse_entrants(data: Any, base: Path | None = None) -> SeasonSpec:
    """Validate an entrants document; errors name the offending field. `base` is the folder
    relative checkpoint and weights paths are read from (default: the working directory)."""
    if not isinstance(data, dict):
        _fail("entrants file", f"expected a JSON object, got {type(data).__name__}", FieldTypeError)
    if data.get("format") != ENTRANTS_FORMAT:
        _fail("format", f"expected {ENTRANTS_FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != ENTRANTS_VERSION:
        _fail("version", f"expected {ENTRANTS_VERSION}, got {data.get('version')!r}")
    extra = sorted(
        set(data)
        - {"format", "version", "season", "entrants", "challengers", "field_size", "description"}
    )
    if extra:
        _fail("entrants file", f"unknown field(s) {extra}")
    season = data.get("season")
    if not isinstance(season, str) or not SEASON_PATTERN.match(season):
        _fail("season", f"expected lower-case letters, digits, '-' or '_', got {season!r}")
    description = string(data.get("description", ""), "description", 10_000)
    size = whole(data.get("field_size", DEFAULT_FIELD_SIZE), "field_size", 2, 1000)
    lists = {}
    for key in ("entrants", "challengers"):
        raw = data.get(key, [] if key == "challengers" else None)
        if not isinstance(raw, list):
            _fail(key, f"expected a list of entrants, got {raw!r}", FieldTypeError)
        lists[key] = tuple(_entrant(e, f"{key}[{i}]", base) for i, e in enumerate(raw))
    if len(lists["entrants"]) < 2:
        _fail("entrants", "a round robin needs at least two entrants")
    if len(lists["entrants"]) > size:
        _fail("entrants", f"{len(lists['entrants'])} entrants exceed field_size {size}")
    seen: dict[str, str] = {}
    for key in ("entrants", "challengers"):
        for i, e in enumerate(lists[key]):
            if e.slug in seen:
                _fail(f"{key}[{i}].name", f"{e.name!r} repeats {seen[e.slug]!r}")
            seen[e.slug] = e.name
    return SeasonSpec(season, lists["entrants"], lists["challengers"], size, description)


def load_entrants(path: str | Path) -> SeasonSpec:
    """Read and validate an entrants file (relative model paths in it are read from its
    folder)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"entrants file: {path} does not exist") from None
    except OSError as err:
        raise ValueError(f"entrants file: {path} cannot be read ({err.strerror})") from None
    data = strict_json(raw, f"entrants file {path}")
    return parse_entrants(data, path.parent)


def resolved_load(entrant: Entrant, key: str) -> dict:
    """The load spec with a relative `key` path joined to the entrants file's folder."""
    spec = dict(entrant.load)
    if entrant.base is not None and not Path(spec[key]).expanduser().is_absolute():
        spec[key] = str(entrant.base / spec[key])
    return spec


def build_system(entrant: Entrant):
    """The System that plays for an entrant (imports JAX-side code only when called)."""
    from ..systems.base import System

    where = f"entrant {entrant.name!r}: load"
    if "weights" in entrant.load or "checkpoint" in entrant.load:
        from ..systems.resolve import resolve_system

        key = "weights" if "weights" in entrant.load else "checkpoint"
        return resolve_system(resolved_load(entrant, key), where)
    if "system" in entrant.load:  # a registered name only (no LLM: seasons run unattended)
        from ..systems.registry import by_name

        try:
            return by_name(entrant.load["system"])
        except ValueError as err:
            raise ValueError(f"{where}.system: {err}") from None
    module_name, func_name = entrant.load["entry_point"].split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"{where}.entry_point: cannot import {module_name!r} ({err})") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ValueError(f"{where}.entry_point: {module_name} has no function {func_name!r}")
    try:
        system = func(**entrant.load.get("kwargs", {}))
    except Exception as err:  # the entrant's own code: say whose loader failed, and how
        raise ValueError(
            f"{where}.entry_point: {entrant.load['entry_point']} raised {type(err).__name__}: {err}"
        ) from err
    if not isinstance(system, System):
        raise ValueError(
            f"{where}.entry_point: {entrant.load['entry_point']} returned "
            f"{type(system).__name__}, not a System"
        )
    if system.on_host:  # its answers are checked as it plays: say which entrant's failed
        return system._replace(act=_naming(system.act, f"entrant {entrant.name!r}"))
    return system


def _naming(act, who: str):
    """A host System's `act` whose refusals (`check_host_actions`) name the entrant."""

    def named(key, inputs, memory):
        try:
            return act(key, inputs, memory)
        except ValueError as err:
            raise ValueError(f"{who}: {err}") from err

    return named
