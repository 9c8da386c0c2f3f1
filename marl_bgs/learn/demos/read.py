"""Reading demonstrations: the manifest and every shard checked (a hostile or damaged
file is refused naming the field, before any large array is read), returns to each game's
end, and a learner's batch."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...core.actions import NUM_JOINT
from ...core.checks import strict_json
from .format import (
    CLASS_NAMES,
    DEMOS_FORMAT,
    DEMOS_VERSION,
    FIELDS,
    MANIFEST,
    settings_from,
    sha256,
)


@dataclass
class Demos:
    """A checked folder of demonstrations: its manifest and shard paths. Arrays are read
    one shard at a time (`shard(i)`), or all at once (`arrays()`) when they fit."""

    folder: Path
    manifest: dict

    @property
    def num_shards(self) -> int:
        return len(self.manifest["shards"])

    @property
    def envs(self) -> int:
        return int(self.manifest["envs"])

    def shard(self, i: int) -> dict[str, np.ndarray]:
        """Shard `i`'s arrays (avail unpacked to bool (T, N, 5, 198)), checked."""
        entry = self.manifest["shards"][i]
        arrays = _read_shard(self.folder / entry["file"], entry, self.envs, f"shards[{i}]")
        arrays["avail"] = np.unpackbits(arrays["avail"], axis=-1, count=NUM_JOINT).astype(bool)
        return arrays

    def arrays(self) -> dict[str, np.ndarray]:
        """Every shard's arrays joined along the ticks."""
        parts = [self.shard(i) for i in range(self.num_shards)]
        return {name: np.concatenate([p[name] for p in parts]) for name in FIELDS}

    def returns(self, gamma: float = 0.999) -> tuple[np.ndarray, np.ndarray]:
        """(ticks, N, 5) each agent's discounted return from each tick to its game's end,
        and (ticks, N) whether that game ended within the recording (a game cut off by the
        recording's end has an incomplete return: leave it out of value targets)."""
        reward = np.concatenate([self._small(i, "reward") for i in range(self.num_shards)])
        done = np.concatenate([self._small(i, "done") for i in range(self.num_shards)])
        return discounted_returns(reward, done, gamma)

    def _small(self, i: int, name: str) -> np.ndarray:
        entry = self.manifest["shards"][i]
        return _read_shard(self.folder / entry["file"], entry, self.envs, f"shards[{i}]", (name,))[
            name
        ]


def discounted_returns(
    reward: np.ndarray, done: np.ndarray, gamma: float
) -> tuple[np.ndarray, np.ndarray]:
    """Returns to each game's end, backwards over the ticks: reward (T, N, 5), done (T, N)."""
    ret = np.zeros(reward.shape, np.float32)
    complete = np.zeros(done.shape, bool)
    acc = np.zeros(reward.shape[1:], np.float32)
    ended = np.zeros(done.shape[1:], bool)
    g = np.float32(gamma)
    for t in range(reward.shape[0] - 1, -1, -1):
        acc = np.where(done[t][:, None], 0.0, acc * g).astype(np.float32)
        ended = np.where(done[t], True, ended)
        acc = (acc + reward[t]).astype(np.float32)
        ret[t] = acc
        complete[t] = ended
    return ret, complete


def read_demos(folder: str | Path) -> Demos:
    """Open a demonstrations folder: its manifest checked field by field, and every shard
    it lists present with the recorded size and SHA-256 (the arrays themselves are checked
    when a shard is read).

    Raises:
        ValueError: A missing or malformed manifest or shard, naming the field.
    """
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        raise ValueError(f"demos: no {MANIFEST} in {folder}")
    manifest = strict_json(path.read_bytes(), MANIFEST)
    if not isinstance(manifest, dict):
        raise ValueError(f"{MANIFEST}: expected an object")
    if manifest.get("format") != DEMOS_FORMAT:
        raise ValueError(f"format: expected {DEMOS_FORMAT!r}, got {manifest.get('format')!r}")
    if manifest.get("version") != DEMOS_VERSION:
        raise ValueError(f"version: unsupported {manifest.get('version')!r} (expected 1)")
    if manifest.get("source") not in ("play", "replays"):
        raise ValueError(f"source: expected 'play' or 'replays', got {manifest.get('source')!r}")
    if manifest["source"] == "play":
        settings_from(manifest.get("settings"), "settings")
    envs = manifest.get("envs")
    if not isinstance(envs, int) or isinstance(envs, bool) or not 1 <= envs <= 1 << 20:
        raise ValueError(f"envs: expected a whole number of games, got {envs!r}")
    shards = manifest.get("shards")
    if not isinstance(shards, list):
        raise ValueError("shards: expected a list")
    steps = 0
    for i, entry in enumerate(shards):
        where = f"shards[{i}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected an object")
        name = entry.get("file")
        if not isinstance(name, str) or Path(name).name != name or not name.endswith(".npz"):
            raise ValueError(f"{where}.file: expected a .npz file name in the folder, got {name!r}")
        for field in ("ticks", "bytes"):
            v = entry.get(field)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{where}.{field}: expected a positive whole number, got {v!r}")
        digest = entry.get("sha256")
        if not isinstance(digest, str) or len(digest) != 64:
            raise ValueError(f"{where}.sha256: expected 64 hex digits")
        shard = folder / name
        if not shard.is_file():
            raise ValueError(f"{where}.file: {name} is missing from {folder}")
        if shard.stat().st_size != entry["bytes"]:
            raise ValueError(f"{where}.bytes: {name} holds {shard.stat().st_size} bytes, "
                             f"the manifest says {entry['bytes']}")  # fmt: skip
        if sha256(shard) != digest:
            raise ValueError(f"{where}.sha256: {name} does not match its recorded digest")
        steps += entry["ticks"] * envs
    if manifest.get("steps") != steps:
        raise ValueError(f"steps: the manifest says {manifest.get('steps')!r}, its shards "
                         f"hold {steps}")  # fmt: skip
    return Demos(folder, manifest)


def _read_shard(
    path: Path, entry: dict, envs: int, where: str, names: Sequence[str] = tuple(FIELDS)
) -> dict[str, np.ndarray]:
    """The named arrays of one shard, each member's header checked (dtype, shape) before
    its data is read, then its values (finite floats, actions in range, known classes)."""
    from numpy.lib import format as npy

    ticks = entry["ticks"]
    out: dict[str, np.ndarray] = {}
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as err:
        raise ValueError(f"{where}: {path.name} is not a .npz archive ({err})") from None
    with zf:
        members = set(zf.namelist())
        extra = sorted(m for m in members if m[:-4] not in FIELDS or not m.endswith(".npy"))
        if extra:
            raise ValueError(f"{where}.{extra[0]}: unknown array in {path.name}")
        for name in names:
            dtype, tail = FIELDS[name]
            want = (ticks, envs, *tail)
            if f"{name}.npy" not in members:
                raise ValueError(f"{where}.{name}: missing from {path.name}")
            try:
                with zf.open(f"{name}.npy") as f:
                    version = npy.read_magic(f)
                    header = npy.read_array_header_1_0 if version == (1, 0) else (
                        npy.read_array_header_2_0)  # fmt: skip
                    shape, fortran, got = header(f)
                    if got != dtype or fortran or tuple(shape) != want:
                        raise ValueError(
                            f"{where}.{name}: expected {dtype} {want}, got {got} {tuple(shape)}"
                        )
                    data = f.read(int(np.prod(want)) * dtype.itemsize + 1)
            except (OSError, zipfile.BadZipFile, EOFError) as err:
                raise ValueError(f"{where}.{name}: cannot be read ({err})") from None
            except ValueError as err:
                if str(err).startswith(where):
                    raise
                raise ValueError(f"{where}.{name}: not an array ({err})") from None
            if len(data) != int(np.prod(want)) * dtype.itemsize:
                raise ValueError(f"{where}.{name}: holds {len(data)} bytes, not {want}")
            arr = np.frombuffer(data, dtype).reshape(want).copy()
            _check_values(arr, name, f"{where}.{name}")
            out[name] = arr
    return out


def _check_values(arr: np.ndarray, name: str, where: str) -> None:
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{where}: holds non-finite values")
    if name == "action" and arr.size and (arr.min() < 0 or arr.max() >= NUM_JOINT):
        raise ValueError(f"{where}: actions must lie in 0..{NUM_JOINT - 1}")
    if name == "classes" and arr.size and (arr.min() < 0 or arr.max() >= len(CLASS_NAMES)):
        raise ValueError(f"{where}: class ids must lie in 0..{len(CLASS_NAMES) - 1}")


def learner_batch(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays a student trains on: where a choice counts (present, alive agents whose
    chosen action was legal) beside the inputs; `avail` must be unpacked (`Demos.shard`)."""
    legal = np.take_along_axis(arrays["avail"], arrays["action"][..., None].astype(np.int64), -1)
    counts = arrays["present"] & arrays["alive"] & legal[..., 0]
    return {**arrays, "counts": counts}
