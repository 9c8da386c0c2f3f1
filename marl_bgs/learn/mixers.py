"""Value mixing for the Q-learners: VDN's sum and QMIX's monotonic mixer.

QMIX (Rashid et al., 2018) mixes the agents' chosen Q-values into Q_tot with weights that
hypernetworks compute from the world state (`env.world_state`, Team A's frame); the weights
are taken in absolute value and the hidden layer is ELU, so d Q_tot / d Q_i >= 0 for every
agent: the best joint action of Q_tot is each agent's own best action, which is what lets
the agents act greedily one by one.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax.numpy as jnp


def vdn(q: Any, mask: Any) -> Any:
    """VDN's team value (…,): the sum of the learner's agents' Q-values (…, 5)."""
    return jnp.sum(q * mask.astype(q.dtype), axis=-1)


class QMixer(nn.Module):
    """Q_tot (…,) from agent Q-values (…, 5) and the world state (…, width)."""

    embed: int = 32
    hyper_hidden: int = 64

    @nn.compact
    def __call__(self, q: Any, world: Any) -> Any:
        agents = q.shape[-1]

        def hyper(width: int, name: str) -> Any:
            h = nn.relu(nn.Dense(self.hyper_hidden, name=f"{name}_hidden")(world))
            return nn.Dense(width, name=name)(h)

        w1 = jnp.abs(hyper(agents * self.embed, "w1")).reshape(*q.shape[:-1], agents, self.embed)
        b1 = nn.Dense(self.embed, name="b1")(world)
        hidden = nn.elu(jnp.einsum("...a,...ae->...e", q, w1) + b1)
        w2 = jnp.abs(hyper(self.embed, "w2"))
        b2 = hyper(1, "b2")[..., 0]
        return jnp.sum(hidden * w2, axis=-1) + b2
