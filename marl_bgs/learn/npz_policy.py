"""An exported actor: the policy `.npz` format, and its forward pass written once over an
array namespace `xp`, so the same file plays on NumPy (the browser, `NumpyPolicy`) and inside
compiled JAX games (`NumpyPolicy.jax_system`, `npz_system`) with the same logits.

    export_npz("runs/rec", "rec.npz")          # learn/policy.py: from a run folder
    policy = NumpyPolicy.load("rec.npz")       # no JAX needed
    actions, memory = policy.act(inputs, memory, greedy=True)

Both engines mask illegal actions to the lowest float32 (`logits.NEG`), so neither sampling
nor the greedy argmax can pick one. This module imports no JAX at load time.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..core.actions import NUM_JOINT
from ..core.backend import is_numpy
from ..core.classes import NUM_CLASSES
from ..core.observation import OBS_WIDTH
from ..core.state import TEAM_SIZE
from .actor_view import (
    ActorView,
    actor_width,
    base_inputs,
    numpy_memory,
    numpy_moved,
    numpy_read,
)
from .logits import NEG
from .unit_net import ARCHS, unit_forward, unit_weight_shapes

NPZ_FORMAT = "marl-bgs/policy-npz"
# 2 added layer_norm and q_values, 3 arch and embed (the per-unit actor, `unit_net.py`), 4
# nav_inputs (the actor also reads TDM-Alpha's steering scores, `actor_view.py`); older files
# (without them) still load. A file is written with the oldest version that can hold it, so
# exports of actors without the steering scores are unchanged, byte for byte.
NPZ_VERSION = 4
NAV_VERSION = 4  # the first version with nav_inputs
PLAIN_VERSION = NAV_VERSION - 1  # what a file without the steering scores is written as
META_FIELDS = ("format", "version", "hidden", "recurrent", "obs_width", "num_classes",
               "num_actions")  # fmt: skip
META_FIELDS_V2 = ("layer_norm", "q_values")
META_FIELDS_V3 = ("arch", "embed")
META_FIELDS_V4 = ("nav_inputs",)


# ---- the forward pass, written once over `xp` -----------------------------------------------
def weight_shapes(hidden: int, recurrent: bool, in_width: int = OBS_WIDTH + NUM_CLASSES,
                  num_actions: int = NUM_JOINT, norm: bool = False, arch: str = "mlp",
                  embed: int = 0) -> dict[str, tuple[int, ...]]:  # fmt: skip
    """Every weight the actor has, by its `.npz` name, and its shape (`norm`: with a
    LayerNorm's scale and bias after each hidden layer, as PQN-VDN's Q-network; `arch`
    "units": the per-unit actor of `unit_net.py` with rows encoded `embed` wide)."""
    if arch == "units":
        return unit_weight_shapes(hidden, recurrent, embed)
    h = hidden
    if recurrent:
        shapes = {"in.kernel": (in_width, h), "in.bias": (h,)}
        for gate in ("ir", "iz", "in"):
            shapes[f"gru.{gate}.kernel"] = (h, h)
            shapes[f"gru.{gate}.bias"] = (h,)
        for gate in ("hr", "hz", "hn"):
            shapes[f"gru.{gate}.kernel"] = (h, h)
        shapes["gru.hn.bias"] = (h,)
        shapes["out.kernel"], shapes["out.bias"] = (h, h), (h,)
    else:
        shapes = {"torso0.kernel": (in_width, h), "torso0.bias": (h,),
                  "torso1.kernel": (h, h), "torso1.bias": (h,)}  # fmt: skip
    if norm:
        for layer in _hidden_layers(recurrent):
            shapes[f"{layer}.norm.scale"] = shapes[f"{layer}.norm.bias"] = (h,)
    shapes["logits.kernel"], shapes["logits.bias"] = (h, num_actions), (num_actions,)
    return shapes


def _hidden_layers(recurrent: bool) -> tuple[str, str]:
    return ("in", "out") if recurrent else ("torso0", "torso1")


def flax_to_weights(actor_params: Any, recurrent: bool, norm: bool = False) -> dict[str, Any]:
    """The Flax actor's parameter tree (`networks.Actor`) as flat `.npz` names."""
    p = actor_params["params"]
    if norm:
        inner = p["Recurrent_0"] if recurrent else p["Torso_0"]
        w_norm = {f"{layer}.norm.{leaf}": inner[f"LayerNorm_{i}"][leaf]
                  for i, layer in enumerate(_hidden_layers(recurrent))
                  for leaf in ("scale", "bias")}  # fmt: skip
        return {**flax_to_weights(actor_params, recurrent), **w_norm}
    w = {"logits.kernel": p["Dense_0"]["kernel"], "logits.bias": p["Dense_0"]["bias"]}
    if recurrent:
        r = p["Recurrent_0"]
        w["in.kernel"], w["in.bias"] = r["Dense_0"]["kernel"], r["Dense_0"]["bias"]
        w["out.kernel"], w["out.bias"] = r["Dense_1"]["kernel"], r["Dense_1"]["bias"]
        for gate, leaves in r["GRUCell_0"].items():
            for leaf, value in leaves.items():
                w[f"gru.{gate}.{leaf}"] = value
    else:
        t = p["Torso_0"]
        for i in range(2):
            w[f"torso{i}.kernel"] = t[f"Dense_{i}"]["kernel"]
            w[f"torso{i}.bias"] = t[f"Dense_{i}"]["bias"]
    return w


def _sigmoid(xp: Any, x: Any) -> Any:
    return 0.5 * (xp.tanh(0.5 * x) + 1.0)  # no overflow for large |x|


def _layer_norm(xp: Any, x: Any, scale: Any, bias: Any) -> Any:
    """Flax's LayerNorm (epsilon 1e-6, variance as E[x^2] - E[x]^2 clipped at 0)."""
    mean = xp.mean(x, axis=-1, keepdims=True)
    var = xp.maximum(xp.mean(x * x, axis=-1, keepdims=True) - mean * mean, 0.0)
    return (x - mean) / xp.sqrt(var + 1e-6) * scale + bias


def actor_forward(xp: Any, w: dict, recurrent: bool, memory: Any, obs: Any, classes: Any,
                  avail: Any, reset: Any, norm: bool = False, arch: str = "mlp",
                  extra: Any = None) -> tuple[Any, Any]:  # fmt: skip
    """Masked logits (…, 198) and the new memory, as `networks.Actor` computes them
    (Q-values for a Q-learner's network; `norm`: its LayerNorms; `arch` "units": the
    per-unit actor, whose agent axis must be the second to last).

    `obs` (…, OBS_WIDTH) float32, `classes` (…,) ints, `avail` (…, 198) bools, `reset`
    (…,) bools (the agent's new-game flag: memory zeroed before the step), `memory`
    (…, hidden) for a recurrent actor (ignored and returned as given otherwise); `extra`
    (…, 9): TDM-Alpha's steering scores for an actor that reads them.
    """
    x = base_inputs(xp, obs, classes)
    if extra is not None:
        x = xp.concatenate([x, xp.asarray(extra, x.dtype)], axis=-1)
    if arch == "units":
        return unit_forward(xp, w, recurrent, memory, x, avail, reset, NEG)

    def dense(name, v):
        return v @ w[f"{name}.kernel"] + w[f"{name}.bias"]

    def hidden(name, v):
        v = dense(name, v)
        if norm:
            v = _layer_norm(xp, v, w[f"{name}.norm.scale"], w[f"{name}.norm.bias"])
        return xp.maximum(v, 0.0)

    if recurrent:
        h = xp.where(reset[..., None], xp.zeros_like(memory), memory)
        v = hidden("in", x)
        r = _sigmoid(xp, dense("gru.ir", v) + h @ w["gru.hr.kernel"])
        z = _sigmoid(xp, dense("gru.iz", v) + h @ w["gru.hz.kernel"])
        n = xp.tanh(dense("gru.in", v) + r * dense("gru.hn", h))
        memory = (1.0 - z) * n + z * h
        out = hidden("out", memory)
    else:
        out = hidden("torso1", hidden("torso0", x))
    logits = dense("logits", out)
    return memory, xp.where(avail, logits, xp.asarray(NEG, logits.dtype))


_NPZ_SYSTEMS: dict[tuple, Any] = {}


def npz_system(path: str | Path, greedy: bool = False):
    """A JAX System playing the actor saved in a policy `.npz` (see `NumpyPolicy.jax_system`).

    The same file (path and modification time) and mode give the same System object, so
    compiled games are reused.
    """
    if not isinstance(greedy, bool):
        raise ValueError(f"greedy: expected true or false, got {greedy!r}")
    path = Path(path).expanduser()
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        raise ValueError(f"path: {path} does not exist") from None
    key = (str(path.resolve()), stamp, greedy)
    if key not in _NPZ_SYSTEMS:
        policy = NumpyPolicy.load(path)
        name = f"npz:{path.stem}" + (":greedy" if greedy else "")
        _NPZ_SYSTEMS[key] = policy.jax_system(greedy, name=name)
    return _NPZ_SYSTEMS[key]


def check_weights_spec(spec: Any, where: str) -> None:
    """Refuse a malformed `{"weights": "policy.npz", "greedy": bool?}` (no file is read)."""
    if not isinstance(spec, dict):
        raise ValueError(f'{where}: expected {{"weights": file}}, got {spec!r}')
    extra = sorted(set(spec) - {"weights", "greedy"})
    if extra:
        raise ValueError(f"{where}: unknown field(s) {extra}")
    path = spec.get("weights")
    if not isinstance(path, str) or not path.endswith(".npz"):
        raise ValueError(f"{where}.weights: expected a policy .npz file, got {path!r}")
    if not isinstance(spec.get("greedy", False), bool):
        raise ValueError(f"{where}.greedy: expected true or false, got {spec['greedy']!r}")


def system_from_weights_spec(spec: Any, where: str):
    """A JAX System from `{"weights": file, "greedy": bool?}` (a relative file is read from
    the working directory: entrants files hand over a spec already joined to their folder)."""
    check_weights_spec(spec, where)
    path = Path(spec["weights"]).expanduser()
    try:
        return npz_system(path, spec.get("greedy", False))
    except ValueError as err:
        field, _, why = str(err).partition(":")
        name = "weights" if field == "path" else field
        raise ValueError(f"{where}.{name}:{why}") from None


def save_weights_npz(path: str | Path, weights: dict, hidden: int, recurrent: bool,
                     source: str = "", norm: bool = False, q_values: bool = False,
                     arch: str = "mlp", embed: int = 0, nav: bool = False) -> Path:  # fmt: skip
    """The `.npz` file format: weights by name plus metadata, no pickled objects.

    `norm`: the network has LayerNorms (their weights are among `weights`); `q_values`: it
    scores Q-values, so every reader plays its best legal action; `arch`, `embed`: which
    actor (`unit_net.ARCHS`) and its row width; `nav`: it also reads TDM-Alpha's steering
    scores (version 4; the other files are written as version 3)."""
    if arch not in ARCHS:
        raise ValueError(f"arch: expected one of {', '.join(ARCHS)}, got {arch!r}")
    if nav and arch != "mlp":
        raise ValueError(f"nav: the steering scores feed the flat network only, not {arch!r}")
    expected = weight_shapes(hidden, recurrent, actor_width(nav), norm=norm, arch=arch,
                             embed=embed)  # fmt: skip
    if set(weights) != set(expected):
        raise ValueError(f"weights: expected {sorted(expected)}, got {sorted(weights)}")
    arrays = {k: np.asarray(v, np.float32) for k, v in weights.items()}
    for k, shape in expected.items():
        if arrays[k].shape != shape:
            raise ValueError(f"weights.{k}: expected shape {shape}, got {arrays[k].shape}")
    meta = {
        "format": np.asarray(NPZ_FORMAT),
        "version": np.asarray(NAV_VERSION if nav else PLAIN_VERSION, np.int64),
        "hidden": np.asarray(hidden, np.int64), "recurrent": np.asarray(bool(recurrent)),
        "obs_width": np.asarray(OBS_WIDTH, np.int64),
        "num_classes": np.asarray(NUM_CLASSES, np.int64),
        "num_actions": np.asarray(NUM_JOINT, np.int64), "source": np.asarray(str(source)),
        "layer_norm": np.asarray(bool(norm)), "q_values": np.asarray(bool(q_values)),
        "arch": np.asarray(arch), "embed": np.asarray(int(embed), np.int64),
    }  # fmt: skip
    if nav:
        meta["nav_inputs"] = np.asarray(True)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:  # a file object keeps np.savez from appending ".npz"
        np.savez_compressed(f, **meta, **arrays)
    return path


def _meta_int(data: dict, name: str, low: int) -> int:
    v = data[name]
    if v.shape != () or not np.issubdtype(v.dtype, np.integer) or int(v) < low:
        raise ValueError(f"{name}: expected a whole number >= {low}, got {v!r}")
    return int(v)


class NumpyPolicy:
    """A `.npz` actor run with NumPy (or any `xp`): the same logits as the JAX policy."""

    def __init__(self, weights: dict, hidden: int, recurrent: bool, source: str = "",
                 norm: bool = False, q_values: bool = False, arch: str = "mlp",
                 embed: int = 0, nav: bool = False) -> None:  # fmt: skip
        self.weights = weights
        self.nav = nav  # reads TDM-Alpha's steering scores: memory is (network's, steering)
        self.arch, self.embed = arch, embed
        self.hidden = hidden
        self.recurrent = recurrent
        self.source = source
        self.norm = norm
        self.q_values = q_values  # a Q-network: always greedy

    @classmethod
    def load(cls, path: str | Path) -> NumpyPolicy:
        """Read and check a `.npz` written by `export_npz` (ValueError naming the field)."""
        try:
            with open(Path(path), "rb") as f:
                magic = f.read(6)
        except FileNotFoundError:
            raise ValueError(f"path: {path} does not exist") from None
        except OSError as err:
            raise ValueError(f"path: cannot read {path} ({err.strerror})") from None
        if magic == b"\x93NUMPY":
            raise ValueError(f"path: {path} holds one array, not a policy .npz archive")
        if not magic.startswith(b"PK\x03\x04"):  # NumPy would try anything else as a pickle
            raise ValueError(f"path: {path} is not a policy .npz (not a zip archive)")
        try:
            npz = np.load(Path(path), allow_pickle=False)
        except FileNotFoundError:
            raise ValueError(f"path: {path} does not exist") from None
        except (ValueError, OSError, zipfile.BadZipFile, EOFError) as err:
            raise ValueError(f"path: {path} is not a policy .npz ({err})") from None
        data: dict[str, np.ndarray] = {}
        with npz:
            for name in npz.files:
                try:
                    data[name] = npz[name]
                except (ValueError, OSError, zipfile.BadZipFile, EOFError) as err:
                    raise ValueError(f"{name}: cannot be read ({err})") from None
        for name in META_FIELDS:
            if name not in data:
                raise ValueError(f"{name}: missing from {path}")
        fmt = data["format"]
        if fmt.shape != () or fmt.dtype.kind != "U" or str(fmt) != NPZ_FORMAT:
            raise ValueError(f"format: expected {NPZ_FORMAT!r}, got {fmt!r}")
        version = _meta_int(data, "version", 0)
        if version not in range(1, NPZ_VERSION + 1):
            raise ValueError(f"version: unsupported version {version} (expected 1 to "
                             f"{NPZ_VERSION})")  # fmt: skip
        hidden = _meta_int(data, "hidden", 1)
        flags = {}
        for name in ("recurrent", *(META_FIELDS_V2 if version >= 2 else ()),
                     *(META_FIELDS_V4 if version >= NAV_VERSION else ())):  # fmt: skip
            if name not in data:
                raise ValueError(f"{name}: missing from {path}")
            v = data[name]
            if v.shape != () or v.dtype != np.bool_:
                raise ValueError(f"{name}: expected true or false, got {v!r}")
            flags[name] = bool(v)
        norm, q_values = flags.get("layer_norm", False), flags.get("q_values", False)
        nav = flags.get("nav_inputs", False)
        arch, embed = "mlp", 0
        if version >= 3:
            for name in META_FIELDS_V3:
                if name not in data:
                    raise ValueError(f"{name}: missing from {path}")
            a = data["arch"]
            if a.shape != () or a.dtype.kind != "U" or str(a) not in ARCHS:
                raise ValueError(f"arch: expected one of {', '.join(ARCHS)}, got {a!r}")
            arch, embed = str(a), _meta_int(data, "embed", 0)
            if arch == "units" and embed < 1:
                raise ValueError(f"embed: the per-unit actor needs a width >= 1, got {embed}")
            if nav and arch != "mlp":
                raise ValueError(f"nav_inputs: the steering scores feed the flat network "
                                 f"only, not arch {arch!r}")  # fmt: skip
        for name, want in (("obs_width", OBS_WIDTH), ("num_classes", NUM_CLASSES),
                           ("num_actions", NUM_JOINT)):  # fmt: skip
            if _meta_int(data, name, 1) != want:
                raise ValueError(f"{name}: {int(data[name])} does not match this package ({want})")
        recurrent = flags["recurrent"]
        source = (
            str(data["source"]) if "source" in data and data["source"].dtype.kind == "U" else ""
        )
        expected = weight_shapes(hidden, recurrent, actor_width(nav), norm=norm, arch=arch,
                                 embed=embed)  # fmt: skip
        known = set(expected) | set(META_FIELDS) | {"source"}
        known |= set(META_FIELDS_V2) if version >= 2 else set()
        known |= set(META_FIELDS_V3) if version >= 3 else set()
        known |= set(META_FIELDS_V4) if version >= NAV_VERSION else set()
        extra = sorted(set(data) - known)
        if extra:
            raise ValueError(f"{extra[0]}: unknown field in a policy .npz")
        weights = {}
        for name, shape in expected.items():
            if name not in data:
                raise ValueError(f"{name}: missing from {path}")
            arr = data[name]
            if arr.shape != shape:
                raise ValueError(f"{name}: expected shape {shape}, got {arr.shape}")
            if arr.dtype != np.float32:
                raise ValueError(f"{name}: expected float32 weights, got {arr.dtype}")
            if not np.isfinite(arr).all():
                raise ValueError(f"{name}: holds non-finite values")
            weights[name] = arr
        return cls(weights, hidden, recurrent, source, norm, q_values, arch, embed, nav)

    def init_memory(self, *lead: int) -> Any:
        """Zero memory for a team (lead = (5,)) or a batch of teams ((games, 5)); with
        `nav`, that array and the steering memory (one team's, or a list per game)."""
        lead = lead or (TEAM_SIZE,)
        memory = np.zeros((*lead, self.hidden if self.recurrent else 1), np.float32)
        if not self.nav:
            return memory
        return memory, numpy_memory(lead[0] if len(lead) > 1 else None)

    def fits(self, memory: Any, lead: tuple[int, ...]) -> bool:
        """Whether `memory` (as `init_memory` gives it) is for teams of shape `lead`: a host
        System starts afresh when the number of games changes."""
        if memory is None:
            return False
        network = memory[0] if self.nav else memory
        return tuple(network.shape[:-1]) == tuple(lead)

    def logits(self, inputs: Any, memory: Any, xp: Any = np) -> tuple[Any, Any]:
        """New memory and masked logits for `TeamInputs` (one game or a batch of games).
        With `nav`, the steering memory returned has not yet seen this tick's moves (`act`
        adds them); the steering scores are computed on NumPy whatever `xp` is."""
        extra = None
        if self.nav:
            memory, nav = memory
            extra, nav = numpy_read(inputs, nav)
        obs = xp.asarray(inputs.obs, dtype=xp.float32)
        new_game = xp.asarray(inputs.new_game)
        reset = xp.broadcast_to(new_game[..., None], obs.shape[:-1])
        w = (
            {k: xp.asarray(v) for k, v in self.weights.items()}
            if not is_numpy(xp)
            else self.weights
        )
        memory, logits = actor_forward(
            xp, w, self.recurrent, xp.asarray(memory, dtype=xp.float32), obs,
            xp.asarray(inputs.classes), xp.asarray(inputs.avail), reset, self.norm, self.arch,
            None if extra is None else xp.asarray(extra),
        )  # fmt: skip
        return ((memory, nav) if self.nav else memory), logits

    def act(self, inputs: Any, memory: Any, greedy: bool = True,
            rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """Actions (…, 5) int32 and the new memory; sampling uses `rng` (Gumbel-max). A
        Q-network (`q_values`) always plays its best legal action."""
        memory, logits = self.logits(inputs, memory)
        if not greedy and not self.q_values:
            if rng is None:
                raise ValueError("rng: sampling needs a numpy Generator (or greedy=True)")
            u = rng.random(logits.shape, dtype=np.float64)
            gumbel = -np.log(-np.log(np.clip(u, 1e-300, 1.0 - 1e-16)))
            logits = np.where(np.asarray(inputs.avail), logits + gumbel, -np.inf)
        actions = np.argmax(logits, axis=-1).astype(np.int32)
        if self.nav:
            memory = (memory[0], numpy_moved(inputs, memory[1], actions))
        return actions, memory

    def jax_system(self, greedy: bool = False, name: str | None = None):
        """This policy as a JAX System (runs inside compiled games, as `learned_system`):
        the same forward pass on `jax.numpy`, sampling with the key the protocol hands it."""
        import jax
        import jax.numpy as jnp

        from ..systems.base import System

        weights = {k: jnp.asarray(v) for k, v in self.weights.items()}
        width = self.hidden if self.recurrent else 1
        greedy = greedy or self.q_values
        view = ActorView(self.nav)

        def init(key: Any) -> Any:
            del key
            memory = jnp.zeros((TEAM_SIZE, width), jnp.float32)
            return (memory, view.init()) if self.nav else memory

        def act(key: Any, inputs: Any, memory: Any) -> tuple[Any, Any]:
            memory, nav = memory if self.nav else (memory, None)
            extra = None
            if self.nav:
                extra, nav = view.steering(inputs, nav)
            reset = jnp.broadcast_to(inputs.new_game, inputs.present.shape)
            memory, logits = actor_forward(
                jnp, weights, self.recurrent, memory, jnp.asarray(inputs.obs, jnp.float32),
                inputs.classes, inputs.avail, reset, self.norm, self.arch, extra,
            )  # fmt: skip
            if greedy:
                actions = jnp.argmax(logits, axis=-1)
            else:
                actions = jax.random.categorical(key, logits, axis=-1)
            actions = actions.astype(jnp.int32)
            if self.nav:
                return actions, (memory, view.moved(inputs, nav, actions))
            return actions, memory

        label = name or f"npz:{self.source or 'policy'}" + (":greedy" if greedy else "")
        return System(label, act, init)

    def host_system(self, greedy: bool = True, seed: int = 0, name: str | None = None):
        """This policy as a host System (NumPy on the host, all games at once)."""
        from ..systems.base import host_system

        rng = np.random.default_rng(seed)

        def fn(inputs, memory):
            if not self.fits(memory, np.shape(inputs.present)):
                memory = self.init_memory(*np.shape(inputs.present))
            return self.act(inputs, memory, greedy=greedy, rng=rng)

        label = name or f"npz:{self.source or 'policy'}" + (":greedy" if greedy else "")
        return host_system(fn, name=label)
