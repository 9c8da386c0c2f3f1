"""The demonstration folder format: its names and limits, the shard arrays, the settings
that produced it, and the writing of shards and the manifest (each file whole, then renamed;
each listed with its size and SHA-256)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...core.actions import NUM_JOINT
from ...core.checks import whole
from ...core.observation import OBS_WIDTH
from ...core.position import OFFICIAL_ROSTER
from ...core.state import TEAM_SIZE
from ...maps import HELD_OUT_MAPS, NUM_MAPS, SPLITS

DEMOS_FORMAT = "marl-bgs/demos"
DEMOS_VERSION = 1
MANIFEST = "demos.json"
PACKED = (NUM_JOINT + 7) // 8  # bytes of one agent's packed legal actions
CLASS_NAMES = ("mage", "warrior", "hunter", "rogue", "priest")

# Each shard array: dtype and the shape after (ticks, games).
FIELDS: dict[str, tuple[np.dtype, tuple[int, ...]]] = {
    "obs": (np.dtype(np.float32), (TEAM_SIZE, OBS_WIDTH)),
    "avail": (np.dtype(np.uint8), (TEAM_SIZE, PACKED)),
    "present": (np.dtype(np.bool_), (TEAM_SIZE,)),
    "alive": (np.dtype(np.bool_), (TEAM_SIZE,)),
    "classes": (np.dtype(np.int8), (TEAM_SIZE,)),
    "new_game": (np.dtype(np.bool_), ()),
    "action": (np.dtype(np.int16), (TEAM_SIZE,)),
    "reward": (np.dtype(np.float32), (TEAM_SIZE,)),
    "done": (np.dtype(np.bool_), ()),
    "world": (np.dtype(np.float32), (OBS_WIDTH,)),
}


@dataclass(frozen=True)
class DemoSettings:
    """What to record: who plays, where, how much, and how it is cut into shards.

    `teacher` and each of `opponents` is a registered System name (`tdm-alpha`, ...), a
    training run folder or a policy `.npz`. `maps` never holds a held-out map (validation
    42-46 and test 47-51): demonstrations are training data.
    """

    teacher: str = "tdm-alpha"
    opponents: tuple[str, ...] = ("tdm-alpha", "tdm-beta", "tdm-gamma")
    maps: tuple[int, ...] = SPLITS["curriculum"] + SPLITS["training"]
    roster: tuple[str, ...] = OFFICIAL_ROSTER  # both teams
    winning_score: int = 20
    horizon: int = 300
    num_envs: int = 256
    chunk_ticks: int = 32  # ticks per compiled scan (one host transfer)
    steps: int = 2_000_000  # game steps (one tick of one game) to record, rounded up to chunks
    shard_steps: int = 65_536  # game steps per shard, rounded up to whole chunks
    seed: int = 0

    def __post_init__(self) -> None:
        check_settings(self)

    @property
    def chunks(self) -> int:
        per_chunk = self.num_envs * self.chunk_ticks
        return -(-self.steps // per_chunk)

    @property
    def chunks_per_shard(self) -> int:
        return max(1, -(-self.shard_steps // (self.num_envs * self.chunk_ticks)))

    def to_dict(self) -> dict:
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def check_settings(s: DemoSettings) -> None:
    """Refuse settings that cannot be recorded, naming the field."""
    if not isinstance(s.teacher, str) or not s.teacher:
        raise ValueError("teacher: expected a System name, run folder or .npz path")
    if not isinstance(s.opponents, tuple) or not s.opponents:
        raise ValueError("opponents: expected one or more System names, run folders or .npz")
    for i, o in enumerate(s.opponents):
        if not isinstance(o, str) or not o:
            raise ValueError(f"opponents[{i}]: expected a System name, run folder or .npz path")
    if not isinstance(s.maps, tuple) or not s.maps:
        raise ValueError("maps: expected one or more map ids")
    for i, m in enumerate(s.maps):
        whole(m, f"maps[{i}]", 0, NUM_MAPS - 1)
        if m in HELD_OUT_MAPS:
            raise ValueError(
                f"maps[{i}]: map {m} is held out (validation 42-46, test 47-51); "
                "demonstrations are training data"
            )
    if not isinstance(s.roster, tuple) or not 1 <= len(s.roster) <= TEAM_SIZE:
        raise ValueError(f"roster: expected 1 to {TEAM_SIZE} class names")
    for i, c in enumerate(s.roster):
        if c not in CLASS_NAMES:
            raise ValueError(f"roster[{i}]: unknown class {c!r}; known: {', '.join(CLASS_NAMES)}")
    whole(s.winning_score, "winning_score", 1, 1000)
    whole(s.horizon, "horizon", 1, 100_000)
    whole(s.num_envs, "num_envs", 1, 1 << 20)
    whole(s.chunk_ticks, "chunk_ticks", 1, 100_000)
    whole(s.steps, "steps", 1, 1 << 40)
    whole(s.shard_steps, "shard_steps", 1, 1 << 40)
    whole(s.seed, "seed", 0, 2**63 - 1)


def settings_from(data: dict, where: str = "settings") -> DemoSettings:
    """`DemoSettings` from a manifest's JSON object (lists back to tuples), checked."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object")
    names = {f.name for f in dataclasses.fields(DemoSettings)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown setting")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    try:
        return DemoSettings(**values)
    except ValueError as err:
        raise ValueError(f"{where}.{err}") from None
    except TypeError as err:
        raise ValueError(f"{where}: {err}") from None


REWARD_FIELDS = ("reward_form", "win_reward", "kill_credit", "red_zone_kill", "damage",
                  "useful_healing", "teammate_death", "red_zone_death", "healing_range",
                  "own_red_zone")  # fmt: skip


def new_folder(out: str | Path, force: bool) -> Path:
    """The output folder, checked and created; with `force`, emptied of old demonstrations."""
    from ...outputs import check_new_files

    folder = check_new_files(out, [MANIFEST], force, "out")
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("shard-*.npz"):
        if not force:
            raise ValueError(f"out: {folder} already holds {old.name}; pass force (--force)")
        old.unlink()
    return folder


def new_manifest(source: str, settings: dict | None, envs: int, provenance: dict) -> dict:
    """A manifest with no shard yet: what `write_shard` and the recorders fill in."""
    return {
        "format": DEMOS_FORMAT,
        "version": DEMOS_VERSION,
        "source": source,
        "settings": settings,
        "provenance": provenance,
        "envs": envs,
        "shards": [],
        "steps": 0,
        "games_finished": 0,
        "results": {"teacher_won": 0, "teacher_lost": 0, "draws": 0},
        "teacher_illegal_choices": 0,
        "seconds": 0.0,
    }


def write_shard(folder: Path, manifest: dict, chunks: list[dict]) -> None:
    from ...outputs import write_atomic

    arrays = {name: np.concatenate([c[name] for c in chunks]) for name in FIELDS}
    name = f"shard-{len(manifest['shards']):05d}.npz"
    path = write_atomic(folder / name, lambda tmp: _savez(tmp, arrays))
    ticks = int(arrays["done"].shape[0])
    manifest["shards"].append(
        {"file": name, "ticks": ticks, "bytes": path.stat().st_size, "sha256": sha256(path)}
    )
    manifest["steps"] += ticks * int(arrays["done"].shape[1])


def _savez(path: Path, arrays: dict) -> None:
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)


def write_manifest(folder: Path, manifest: dict) -> None:
    from ...outputs import write_atomic

    text = json.dumps(manifest, indent=1) + "\n"
    write_atomic(folder / MANIFEST, lambda tmp: tmp.write_text(text))


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
