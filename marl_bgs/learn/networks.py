"""The actor and critic: one network shared by the five agents, the class as an input.

Flax linen, not nnx: linen modules are stateless descriptions and parameters are a plain
pytree, which is what `lax.scan`, optax, orbax and a later NumPy `.npz` export all want; nnx's
mutable objects would have to be split back into such a pytree at every one of those seams.

Every network has the recurrent signature `(memory, x, reset) -> (memory, out)`, the
feedforward ones ignoring and returning their one-wide dummy memory, so that the rollout and
the loss have one code path. A recurrent memory is zeroed wherever `reset` (the agent's
new-game flag) is set, before the step, so no game sees another game's past.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp

from ..core.actions import NUM_JOINT
from ..core.classes import NUM_CLASSES
from ..core.observation import OBS_WIDTH
from ..core.state import TEAM_SIZE
from .actor_view import base_inputs
from .logits import NEG

# Illegal logits: the lowest float32, so exp() is exactly 0 and gumbel-argmax never picks
# them, while staying finite (−inf would turn 0·log 0 into NaN in the entropy's gradient).
ACTOR_WIDTH = OBS_WIDTH + NUM_CLASSES
WORLD_WIDTH = OBS_WIDTH + NUM_CLASSES + TEAM_SIZE


def mask_logits(logits: Any, avail: Any) -> Any:
    """Illegal choices set to NEG: sampling can never pick one."""
    return jnp.where(avail, logits, NEG)


def log_probs(masked: Any) -> Any:
    return jax.nn.log_softmax(masked, axis=-1)


def entropy(masked: Any, avail: Any) -> Any:
    """Entropy over the legal choices only."""
    lp = log_probs(masked)
    return -jnp.sum(jnp.where(avail, jnp.exp(lp) * lp, 0.0), axis=-1)


def action_log_prob(masked: Any, action: Any) -> Any:
    return jnp.take_along_axis(log_probs(masked), action[..., None], axis=-1)[..., 0]


def actor_inputs(obs: Any, classes: Any) -> Any:
    """An agent's own observation and its class one-hot (…, OBS_WIDTH + 5)."""
    return base_inputs(jnp, obs, classes)


def world_inputs(world: Any, classes: Any, per_agent: bool) -> Any:
    """Team A's world state for each of its agents (…, 5, WORLD_WIDTH); with `per_agent`
    the agent's class and slot are appended (one value per agent), else zeros (one value
    for the whole team, as feedforward MAPPO's team-reward critic predicts)."""
    lead = classes.shape
    w = jnp.broadcast_to(world[..., None, :], (*lead, world.shape[-1]))
    cls = jax.nn.one_hot(classes, NUM_CLASSES, dtype=w.dtype)
    slot = jnp.broadcast_to(jnp.eye(TEAM_SIZE, dtype=w.dtype), (*lead, TEAM_SIZE))
    extra = jnp.concatenate([cls, slot], -1)
    return jnp.concatenate([w, extra if per_agent else jnp.zeros_like(extra)], -1)


def _layer(hidden: int, norm: bool, x: Any) -> Any:
    """Dense, then LayerNorm when `norm` (PQN's stabiliser), then ReLU."""
    x = nn.Dense(hidden)(x)
    return nn.relu(nn.LayerNorm()(x) if norm else x)


class Torso(nn.Module):
    """Two ReLU layers."""

    hidden: int
    norm: bool = False

    @nn.compact
    def __call__(self, x):
        return _layer(self.hidden, self.norm, _layer(self.hidden, self.norm, x))


class Recurrent(nn.Module):
    """Dense -> GRU -> Dense, memory zeroed where `reset`."""

    hidden: int
    norm: bool = False

    @nn.compact
    def __call__(self, memory, x, reset):
        memory = jnp.where(reset[..., None], 0.0, memory)
        x = _layer(self.hidden, self.norm, x)
        memory, y = nn.GRUCell(self.hidden)(memory, x)
        return memory, _layer(self.hidden, self.norm, y)


class Actor(nn.Module):
    """Scores over the 198 joint actions, masked to the legal ones: logits for the PPO
    actors, Q-values for the Q-learners (the same network, so export and Systems are one)."""

    hidden: int
    recurrent: bool
    norm: bool = False  # LayerNorm after each hidden layer (PQN-VDN)

    @nn.compact
    def __call__(self, memory, x, avail, reset):
        if self.recurrent:
            memory, h = Recurrent(self.hidden, self.norm)(memory, x, reset)
        else:
            h = Torso(self.hidden, self.norm)(x)
        logits = nn.Dense(NUM_JOINT, kernel_init=nn.initializers.orthogonal(0.01))(h)
        return memory, mask_logits(logits, avail)


class Critic(nn.Module):
    """One value per agent (its input decides: local view or world state)."""

    hidden: int
    recurrent: bool

    @nn.compact
    def __call__(self, memory, x, reset):
        if self.recurrent:
            memory, h = Recurrent(self.hidden)(memory, x, reset)
        else:
            h = Torso(self.hidden)(x)
        return memory, nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(h)[..., 0]


class Networks(NamedTuple):
    actor: Actor
    critic: Critic
    memory_width: int  # hidden for recurrent networks, 1 (a dummy) for feedforward
    critic_width: int  # input width of the critic
    actor_width: int = ACTOR_WIDTH  # input width of the actor (more with `nav_inputs`)


def make_actor(hidden: int, recurrent: bool, norm: bool = False, arch: str = "mlp",
               embed: int = 0) -> Any:  # fmt: skip
    """The actor of `arch`: the flat `Actor`, or the per-unit `unit_net.UnitActor`."""
    if arch == "units":
        from .unit_net import UnitActor

        return UnitActor(hidden, recurrent, embed)
    return Actor(hidden, recurrent, norm)


def make_networks(hidden: int, recurrent: bool, critic: str, arch: str = "mlp",
                  embed: int = 0, nav: bool = False) -> Networks:  # fmt: skip
    """The PPO actor and critic; `nav`: the actor (and a local critic) also reads TDM-Alpha's
    steering scores (`actor_view.py`)."""
    from .actor_view import actor_width

    a_width = actor_width(nav)
    width = a_width if critic == "local" else WORLD_WIDTH
    return Networks(make_actor(hidden, recurrent, arch=arch, embed=embed),
                    Critic(hidden, recurrent), hidden if recurrent else 1, width,
                    a_width)  # fmt: skip


def make_q_network(hidden: int, recurrent: bool, norm: bool) -> Networks:
    """The Q-learners' per-agent network (an `Actor` scoring Q-values) and no critic."""
    return Networks(Actor(hidden, recurrent, norm), None, hidden if recurrent else 1, 0)


def init_actor(nets: Networks, key: Any) -> Any:
    """The actor's (or Q-network's) parameters alone."""
    mem = jnp.zeros((TEAM_SIZE, nets.memory_width))
    reset = jnp.ones(TEAM_SIZE, bool)
    avail = jnp.ones((TEAM_SIZE, NUM_JOINT), bool)
    return nets.actor.init(key, mem, jnp.zeros((TEAM_SIZE, nets.actor_width)), avail, reset)


def init_params(nets: Networks, key: Any) -> tuple[Any, Any]:
    """Actor and critic parameters from one key (inputs shaped as one game's team)."""
    k_a, k_c = jax.random.split(key)
    mem = jnp.zeros((TEAM_SIZE, nets.memory_width))
    reset = jnp.ones(TEAM_SIZE, bool)
    avail = jnp.ones((TEAM_SIZE, NUM_JOINT), bool)
    actor = nets.actor.init(k_a, mem, jnp.zeros((TEAM_SIZE, nets.actor_width)), avail, reset)
    critic = nets.critic.init(k_c, mem, jnp.zeros((TEAM_SIZE, nets.critic_width)), reset)
    return actor, critic
