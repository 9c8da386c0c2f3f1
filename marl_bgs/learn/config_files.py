"""Reading training settings: TOML files, JSON (a run's config.json) and `key=value`
overrides, each value coerced to its field's type or refused naming the field.

    cfg = load_config("rec.toml", ["num_envs=64", "maps=curriculum"], algo="rec-ippo")
"""

from __future__ import annotations

import json
import tomllib
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.checks import FieldTypeError
from ..maps import HELD_OUT_MAPS, SPLITS
from .config import CONFIG_CLASSES, CONFIG_FORMAT, CONFIG_VERSION, TrainConfig
from .config_checks import refuse
from .registry import ALGOS


def _hints(cls: type[TrainConfig]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _coerce(name: str, hint: Any, value: Any) -> Any:
    """A raw TOML/JSON/command-line value as the field's type (refused if it cannot be)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if name == "maps" and isinstance(value, str):
        if value not in SPLITS:
            trainable = [k for k, ids in SPLITS.items() if not set(ids) & set(HELD_OUT_MAPS)]
            refuse(name, f"unknown split {value!r}; use one of {', '.join(trainable)} or map ids")
        return SPLITS[value]
    if origin is tuple:
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, (list, tuple)):
            refuse(name, f"expected a list, got {value!r}", FieldTypeError)
        return tuple(_coerce(name, args[0], v) for v in value)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None or (isinstance(value, str) and value.lower() in ("none", "null", "")):
            return None
        inner = [a for a in args if a is not type(None)][0]
        return _coerce(name, inner, value)
    if hint is bool:
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            refuse(name, f"expected true or false, got {value!r}", FieldTypeError)
        return value
    if hint is int:
        if isinstance(value, str):
            try:
                value = int(value.replace("_", ""))
            except ValueError:
                refuse(name, f"expected a whole number, got {value!r}", FieldTypeError)
        if isinstance(value, bool) or not isinstance(value, int):  # even 64.0: never rounded
            refuse(name, f"expected a whole number, got {value!r}", FieldTypeError)
        return value
    if hint is float:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                refuse(name, f"expected a number, got {value!r}", FieldTypeError)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            refuse(name, f"expected a number, got {value!r}", FieldTypeError)
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            refuse(name, f"expected a string, got {value!r}", FieldTypeError)
        return value
    raise TypeError(f"config.{name}: unsupported field type {hint!r}")  # a bug in this file


def _parse_override(text: str) -> tuple[str, Any]:
    if not isinstance(text, str) or "=" not in text:
        raise ValueError(f"override {text!r}: expected key=value")
    key, raw = (p.strip() for p in text.split("=", 1))
    try:
        value = tomllib.loads(f"v = {raw}")["v"]  # numbers, booleans, [lists], "strings"
    except tomllib.TOMLDecodeError:
        value = raw  # a bare word such as rec-ippo or training
    return key, value


def from_dict(data: dict, algo: str | None = None) -> TrainConfig:
    """A config from a mapping (TOML table or saved JSON); unknown keys are refused."""
    if not isinstance(data, dict):
        raise ValueError("config: expected a table of settings")
    data = dict(data)
    fmt = data.pop("format", CONFIG_FORMAT)
    version = data.pop("version", CONFIG_VERSION)
    if fmt != CONFIG_FORMAT:
        raise ValueError(f"config.format: expected {CONFIG_FORMAT!r}, got {fmt!r}")
    if version != CONFIG_VERSION:
        raise ValueError(f"config.version: unsupported version {version!r}")
    given = data.get("algo")
    if given is not None and not isinstance(given, str):
        refuse("algo", f"expected an algorithm name, got {given!r}", FieldTypeError)
    if given is not None and given not in CONFIG_CLASSES:
        refuse("algo", f"unknown algorithm {given!r}; known: {', '.join(ALGOS)}")
    if given is not None and algo is not None and given != algo:
        refuse("algo", f"the settings say {given!r} but {algo!r} was asked for")
    name = algo or given or "rec-ippo"
    if name not in CONFIG_CLASSES:
        refuse("algo", f"unknown algorithm {name!r}; known: {', '.join(ALGOS)}")
    cls = CONFIG_CLASSES[name]
    hints = _hints(cls)
    values = {}
    for key, value in data.items():
        if key not in hints:
            refuse(key, f"unknown setting; known: {', '.join(sorted(hints))}")
        values[key] = _coerce(key, hints[key], value)
    values["algo"] = name
    return cls(**values)


def load_config(
    path: str | Path | None = None, overrides: Sequence[str] = (), algo: str | None = None
) -> TrainConfig:
    """Defaults of `algo`, then a TOML, YAML (needs PyYAML) or saved JSON file, then
    `key=value` overrides."""
    data: dict = {}
    if path is not None:
        data = read_settings(path)
    for text in overrides:
        key, value = _parse_override(text)
        data[key] = value
    return from_dict(data, algo=algo or data.get("algo"))


def read_settings(path: str | Path) -> dict:
    """The table of settings in a .toml, .yaml/.yml or .json file (errors name `config`)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config: no file at {path}")
    text = path.read_text()
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            data = json.loads(text)
        elif suffix in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:
                raise ValueError(f"config: {path} is YAML, which needs PyYAML") from None
            data = yaml.safe_load(text) or {}
        else:
            data = tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as err:
        raise ValueError(f"config: cannot read {path}: {err}") from None
    except Exception as err:  # yaml.YAMLError without importing yaml here
        if type(err).__module__.startswith("yaml"):
            raise ValueError(f"config: cannot read {path}: {err}") from None
        raise
    if not isinstance(data, dict):
        raise ValueError(f"config: {path} must hold a table of settings")
    return data


def read_json(path: str | Path) -> TrainConfig:
    """A config saved by `TrainConfig.save`."""
    return from_dict(json.loads(Path(path).read_text()))


__all__ = ["from_dict", "load_config", "read_json", "read_settings"]
