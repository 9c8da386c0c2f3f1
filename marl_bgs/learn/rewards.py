"""The training reward: the game's +1/-1/0 plus Table S9's combat and support terms.

Computed inside the compiled loop from what the batched env's `step` returns: the state
before the tick, the state after it, and `info["record"]`, the tick record (`TickInfo`:
damage and healing matrices [source, recipient] in milli-HP, ability healing above maximum
health per recipient, deaths, and the points each death gave). Who receives what:

- damage: the attacker, per point dealt to an enemy up to the enemy's start-of-tick health
  (when several attackers overkill one enemy, the paid amount is split in proportion to what
  each dealt);
- useful healing: the healer, per point of ability healing that did not go above the ally's
  maximum (`record.excess`, split over that recipient's healers in proportion);
- kill credit (+ Red Zone kill when the death gave 2 points, i.e. the victim stood in its own
  Red Zone at the start of the tick): every agent with damage > 0 on the victim in the tick
  it died, and every Priest whose useful healing reached one of those agents in that tick;
- teammate death (+ Red Zone death): shared by the victim's team;
- healing range: shared, per (living Priest, living ally) pair within the Priest's Basic
  range after the tick, both outside their own Red Zone;
- own Red Zone: each living agent standing in its own Red Zone after the tick.

Per-agent form: shared terms + the agent's own. Team form: shared terms + the team's total
of own terms. Both teams are scored (each from its own side), shape (num_envs, 10).
A `reward_fn(prev_state, state, info) -> (num_envs, 10)` of your own can replace this.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..core import classes
from ..core.sight import TEAM
from ..core.state import (
    ARENA_WIDTH_MILLI,
    LEFT,
    MILLI,
    RESULT_A,
    RESULT_B,
    RESULT_OPEN,
    TEAM_SIZE,
    State,
)
from .config import TrainConfig

RewardFn = Callable[[Any, Any, dict], Any]
TERMS = (
    "win_reward", "kill_credit", "red_zone_kill", "damage", "useful_healing",
    "teammate_death", "red_zone_death", "healing_range", "own_red_zone",
)  # fmt: skip


def in_own_red_zone(game: State) -> Any:
    """Per slot: standing in its own team's Red Zone (the rules' test, on these positions)."""
    end = game.spawn_end[jnp.asarray(TEAM)]
    x = game.pos[:, 0]
    depth = game.red_zone_depth
    return jnp.where(end == LEFT, x <= depth, x >= ARENA_WIDTH_MILLI - depth)


def _share(part: Any, whole: Any) -> Any:
    return jnp.where(whole > 0, part / jnp.maximum(whole, 1), 0.0)


def reward_terms(prev: State, after: State, record: Any) -> dict[str, Any]:
    """One game's terms, unweighted: own terms (10,) per slot, shared terms (2,) per team,
    in events or health points. Zero for a tick played after the game had ended."""
    team = jnp.asarray(TEAM)
    enemy = team[:, None] != team[None, :]
    counted = prev.result == RESULT_OPEN
    dmg = record.damage.astype(jnp.float32) * enemy
    heal = record.healing.astype(jnp.float32)

    taken = dmg.sum(0)
    paid = jnp.minimum(taken, prev.health.astype(jnp.float32))
    damage = (dmg * _share(paid, taken)[None, :]).sum(1) / MILLI

    healed = heal.sum(0)
    useful_pair = heal * _share(healed - record.excess, healed)[None, :]
    useful = useful_pair.sum(1) / MILLI

    killed = record.killed
    red_death = killed & (record.points == 2)
    landed = (dmg > 0) & killed[None, :]  # [attacker, victim]
    priest = prev.cls == classes.PRIEST
    helped = (useful_pair > 0) & priest[:, None]  # [priest, healed agent]
    via_heal = (helped.astype(jnp.int32) @ landed.astype(jnp.int32)) > 0  # [priest, victim]
    credit = landed | via_heal
    kills = credit.sum(1).astype(jnp.float32)
    red_kills = (credit & red_death[None, :]).sum(1).astype(jnp.float32)

    living = after.present & after.alive
    red = in_own_red_zone(after)
    d = (after.pos[:, None, :] - after.pos[None, :, :]).astype(jnp.int32)
    near = (d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1]) <= int(
        classes.BASIC_RANGE_SQ[classes.PRIEST]
    )
    ok = living & ~red
    pairs = (priest & ok)[:, None] & ok[None, :] & near & ~enemy
    pairs = pairs & ~jnp.eye(team.shape[0], dtype=bool)

    def per_team(x):
        return jnp.stack([x[:TEAM_SIZE].sum(), x[TEAM_SIZE:].sum()]).astype(jnp.float32)

    sign = jnp.where(after.result == RESULT_A, 1.0, jnp.where(after.result == RESULT_B, -1.0, 0.0))
    ended = counted & (after.result != RESULT_OPEN)
    game = jnp.where(ended, jnp.stack([sign, -sign]), 0.0)
    own = {
        "kill_credit": kills,
        "red_zone_kill": red_kills,
        "damage": damage,
        "useful_healing": useful,
        "own_red_zone": (living & red).astype(jnp.float32),
    }
    shared = {
        "win_reward": game,
        "teammate_death": per_team(killed),
        "red_zone_death": per_team(red_death),
        "healing_range": per_team(pairs.sum(1)),
    }
    zero = jnp.float32(0.0)
    own = {k: jnp.where(counted, v, zero) for k, v in own.items()}
    shared = {k: jnp.where(counted, v, zero) for k, v in shared.items()}
    return {"own": own, "shared": shared}


def combine(terms: dict, weights: dict[str, float], form: str) -> Any:
    """Weighted sum per slot (10,), in the per-agent or the team form."""
    own = sum(weights[k] * v for k, v in terms["own"].items())
    shared = sum(weights[k] * v for k, v in terms["shared"].items())
    team = np.asarray(TEAM)
    if form == "team":
        totals = jnp.stack([own[:TEAM_SIZE].sum(), own[TEAM_SIZE:].sum()])
        own = totals[team]
    return own + shared[team]


def make_reward_fn(cfg: TrainConfig) -> RewardFn:
    """The built-in reward with the config's amounts and form, batched over games."""
    weights = {k: float(getattr(cfg, k)) for k in TERMS}
    form = cfg.reward_form

    def one(prev, after, record):
        return combine(reward_terms(prev, after, record), weights, form)

    def reward_fn(prev_state, state, info):
        return jax.vmap(one)(prev_state.game, state.game, info["record"])

    return reward_fn
