"""The per-unit actor: encoders shared over the observation's rows, each target scored from
its own row.

Why: the flat actor reads the observation as one long vector, so what it learns about "an
enemy in row 7" does not carry over to row 8, and what it learns about an obstacle at one
index of the obstacle list does not carry over to another index (the list's order differs
from map to map, and the test maps are maps it never saw). Here one encoder reads every unit
row (`core/observation.py`'s layout: self, allies, enemies), one every obstacle box and one
every turned wall (each with the agent's own position beside it, so that it can judge where
the obstacle lies from the agent); the rows are pooled (self; allies' sum; enemies' sum and
maximum; obstacles' maximum), joined with the game block and the class, and pass the same
torso as the flat actor (two layers, or Dense -> GRU -> Dense). The 198 joint logits are
factored: move (9) + target (11) + Ultimate (2), where each target's logit is the product of
a query from the torso and a key from that target's own row (own-slot targets mapped from
team slots to rows by the agent's slot) and "no target" has its own head.

Written once over an array namespace `xp` with the weights as a flat dict of named arrays:
training runs it with `jax.numpy` (`UnitActor` gives it a Flax-like `init`/`apply`), the
`.npz` policy file and the browser with NumPy. Imports no JAX at load time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.actions import NUM_MOVES, NUM_TARGETS, NUM_ULTIMATE
from ..core.classes import NUM_CLASSES
from ..core.observation import (
    BOX_START,
    BOX_WIDTH,
    GAME_START,
    GLOBAL_WIDTH,
    OBS_WIDTH,
    UNIT_SLICES,
    UNIT_WIDTH,
    WALL_START,
    WALL_WIDTH,
)
from ..core.state import MAX_OBSTACLES, MAX_TURNED_WALLS, NUM_SLOTS, TEAM_SIZE
from .logits import NEG

ARCHS = ("mlp", "units")
_POS = UNIT_SLICES["position"]


def _own_rows() -> np.ndarray:
    """ONE_HOT[s, k, r] = 1 where agent slot s sees own team slot k in row r (itself in
    row 0, its allies in slot order in rows 1-4)."""
    out = np.zeros((TEAM_SIZE, TEAM_SIZE, TEAM_SIZE), np.float32)
    for s in range(TEAM_SIZE):
        for k in range(TEAM_SIZE):
            out[s, k, 0 if k == s else (k + 1 if k < s else k)] = 1.0
    return out


OWN_ROWS = _own_rows()


def unit_weight_shapes(hidden: int, recurrent: bool, embed: int) -> dict[str, tuple[int, ...]]:
    """Every weight of the per-unit actor by its `.npz` name, and its shape."""
    h, e = hidden, embed
    joined = 4 * e + e + GLOBAL_WIDTH + NUM_CLASSES
    shapes: dict[str, tuple[int, ...]] = {
        "unit.kernel": (UNIT_WIDTH, e), "unit.bias": (e,),
        "box.kernel": (BOX_WIDTH + 2, e), "box.bias": (e,),
        "wall.kernel": (WALL_WIDTH + 2, e), "wall.bias": (e,),
    }  # fmt: skip
    if recurrent:
        shapes["in.kernel"], shapes["in.bias"] = (joined, h), (h,)
        for gate in ("ir", "iz", "in"):
            shapes[f"gru.{gate}.kernel"], shapes[f"gru.{gate}.bias"] = (h, h), (h,)
        for gate in ("hr", "hz", "hn"):
            shapes[f"gru.{gate}.kernel"] = (h, h)
        shapes["gru.hn.bias"] = (h,)
        shapes["out.kernel"], shapes["out.bias"] = (h, h), (h,)
    else:
        shapes.update({"torso0.kernel": (joined, h), "torso0.bias": (h,),
                       "torso1.kernel": (h, h), "torso1.bias": (h,)})  # fmt: skip
    shapes.update({
        "move.kernel": (h, NUM_MOVES), "move.bias": (NUM_MOVES,),
        "ultimate.kernel": (h, NUM_ULTIMATE), "ultimate.bias": (NUM_ULTIMATE,),
        "no_target.kernel": (h, 1), "no_target.bias": (1,),
        "query.kernel": (h, e), "query.bias": (e,),
        "key.kernel": (e, e), "key.bias": (e,),
    })  # fmt: skip
    return shapes


def _sigmoid(xp: Any, x: Any) -> Any:
    return 0.5 * (xp.tanh(0.5 * x) + 1.0)


def unit_forward(xp: Any, w: dict, recurrent: bool, memory: Any, x: Any, avail: Any,
                 reset: Any, neg: float) -> tuple[Any, Any]:  # fmt: skip
    """New memory and masked logits (…, 5, 198) from actor inputs `x` (…, 5, OBS_WIDTH +
    5 classes), legal choices `avail` and new-game flags `reset` (…, 5); the agent axis is
    the second to last (it gives each agent's team slot). Illegal logits are `neg`."""
    if x.shape[-2] != TEAM_SIZE:
        raise ValueError(f"x: expected a team's {TEAM_SIZE} agents on axis -2, got {x.shape}")
    lead = x.shape[:-1]

    def dense(name, v):
        return v @ w[f"{name}.kernel"] + w[f"{name}.bias"]

    def relu(v):
        return xp.maximum(v, 0.0)

    obs, cls = x[..., :OBS_WIDTH], x[..., OBS_WIDTH:]
    rows = xp.reshape(obs[..., :GAME_START], (*lead, NUM_SLOTS, UNIT_WIDTH))
    seen = rows[..., 0:1] * rows[..., 1:2]  # present and known to the team
    units = relu(dense("unit", rows)) * seen  # (…, 10, E)
    me = rows[..., 0, _POS]  # (…, 2) own position
    boxes = xp.reshape(obs[..., BOX_START:WALL_START], (*lead, MAX_OBSTACLES, BOX_WIDTH))
    walls = xp.reshape(obs[..., WALL_START:], (*lead, MAX_TURNED_WALLS, WALL_WIDTH))

    def obstacles(name, table, count):
        here = xp.broadcast_to(me[..., None, :], (*lead, count, 2))
        return relu(dense(name, xp.concatenate([table, here], -1))) * table[..., 0:1]

    blocked = xp.concatenate([obstacles("box", boxes, MAX_OBSTACLES),
                              obstacles("wall", walls, MAX_TURNED_WALLS)], -2)  # fmt: skip
    enemies = units[..., TEAM_SIZE:, :]
    joined = xp.concatenate([
        units[..., 0, :], units[..., 1:TEAM_SIZE, :].sum(-2), enemies.sum(-2),
        enemies.max(-2), blocked.max(-2), obs[..., GAME_START:BOX_START], cls,
    ], -1)  # fmt: skip
    if recurrent:
        h = xp.where(reset[..., None], xp.zeros_like(memory), memory)
        v = relu(dense("in", joined))
        r = _sigmoid(xp, dense("gru.ir", v) + h @ w["gru.hr.kernel"])
        z = _sigmoid(xp, dense("gru.iz", v) + h @ w["gru.hz.kernel"])
        n = xp.tanh(dense("gru.in", v) + r * dense("gru.hn", h))
        memory = (1.0 - z) * n + z * h
        out = relu(dense("out", memory))
    else:
        out = relu(dense("torso1", relu(dense("torso0", joined))))
    row_scores = (dense("key", units) * dense("query", out)[..., None, :]).sum(-1)  # (…, 10)
    own = (row_scores[..., None, :TEAM_SIZE] * xp.asarray(OWN_ROWS, row_scores.dtype)).sum(-1)
    target = xp.concatenate([dense("no_target", out), own, row_scores[..., TEAM_SIZE:]], -1)
    move, ult = dense("move", out), dense("ultimate", out)
    joint = move[..., :, None, None] + target[..., None, :, None] + ult[..., None, None, :]
    logits = xp.reshape(joint, (*lead, NUM_MOVES * NUM_TARGETS * NUM_ULTIMATE))
    return memory, xp.where(avail, logits, xp.asarray(neg, logits.dtype))


class UnitActor:
    """The per-unit actor with a Flax-like face (`init`, `apply`), so the learners, the
    rollout and checkpoints use it as they use `networks.Actor`; its parameters are
    `{"params": {name: array}}` with the `.npz` names."""

    def __init__(self, hidden: int, recurrent: bool, embed: int) -> None:
        self.hidden, self.recurrent, self.embed = hidden, recurrent, embed

    def init(self, key: Any, memory: Any, x: Any, avail: Any, reset: Any) -> dict:
        """Fresh weights: LeCun-normal kernels and zero biases, orthogonal recurrent
        kernels, and heads scaled by 0.01 (near-uniform first choices, as `Actor`)."""
        import jax
        import jax.numpy as jnp

        del memory, x, avail, reset
        init = jax.nn.initializers
        shapes = unit_weight_shapes(self.hidden, self.recurrent, self.embed)
        keys = jax.random.split(key, len(shapes))
        heads = ("move", "ultimate", "no_target", "query")
        params = {}
        for k, (name, shape) in zip(keys, shapes.items(), strict=True):
            layer, leaf = name.rsplit(".", 1)
            if leaf == "bias":
                params[name] = jnp.zeros(shape, jnp.float32)
            elif layer.startswith("gru.h"):
                params[name] = init.orthogonal()(k, shape, jnp.float32)
            elif layer in heads:
                params[name] = init.orthogonal(0.01)(k, shape, jnp.float32)
            else:
                params[name] = init.lecun_normal()(k, shape, jnp.float32)
        return {"params": params}

    def apply(self, params: dict, memory: Any, x: Any, avail: Any, reset: Any):
        import jax.numpy as jnp

        return unit_forward(jnp, params["params"], self.recurrent, memory, x, avail, reset, NEG)
