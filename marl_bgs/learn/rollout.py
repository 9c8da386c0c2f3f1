"""Playing T ticks of `num_envs` games with `lax.scan`: the learner as Team A, an opponent
drawn per game as Team B, finished games restarted between ticks.

Opponents (section S6.2): when a game starts, its Team B is drawn by the config's weights
among the learner's current weights (self-play, sampling its actions, with its own memory),
one of the saved copies in the pool (uniformly among the filled slots), the fixed policies
and the scripted Systems. The draw and every System's memory live in the carry, so
everything runs in the one compiled program. Every candidate acts in every game and the
drawn one's actions are kept: simple, and under `vmap` a branch would compute them all
anyway (so each pool slot costs one more actor pass over Team B per tick).

Partners: Team A's slots named in `teammates` are played by a System; the learner's
decisions there are replaced and masked out of the loss.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from ..core.state import RESULT_A, RESULT_B, RESULT_DRAW, TEAM_SIZE
from ..env import TeamDeathmatch
from ..env_state import EnvState
from ..systems.base import System, check_jax_actions
from .actor_view import ActorView
from .config import PPOConfig, TrainConfig
from .losses import ValueNorm
from .networks import Networks, actor_inputs, world_inputs
from .opponents import Pool, learner_plays_team_b

Params = Any


class Memory(NamedTuple):
    """Recurrent memory per game and agent (N, 5, width)."""

    actor: Any
    critic: Any


class Opponents(NamedTuple):
    pick: Any  # (N,) int32: index into `TrainConfig.opponent_names()`
    slot: Any  # (N,) int32: the pool slot played where the pick is the pool
    memory: Any  # (N, 5, width) actor memory of the current weights or the pool copy
    scripted: tuple  # each System's memory (fixed policies, then scripted), batched
    nav: Any = None  # Team B's steering memory for the learner's copies (`nav_inputs`)


class Live(NamedTuple):
    """Everything about the games in progress that an update carries to the next."""

    env: EnvState
    memory: Memory
    opponents: Opponents
    episode_return: Any  # (N,) shaped return so far, mean over the learner's agents
    partners: Any  # the partner team's memory, batched over games (a dummy without one)
    nav: Any = None  # Team A's steering memory per game with `nav_inputs` (actor_view.py)


class Transition(NamedTuple):
    """One tick of Team A's decisions (each leaf (N, 5, ...) or (N, ...))."""

    x: Any  # actor inputs (N, 5, actor width)
    world: Any  # (N, OBS_WIDTH) Team A's world state ((N, 1) zeros for a local critic)
    classes: Any  # (N, 5)
    avail: Any  # (N, 5, 198)
    reset: Any  # (N, 5) first decision of a game: memory zeroed before it
    action: Any  # (N, 5)
    log_prob: Any  # (N, 5)
    value: Any  # (N, 5) in reward units
    reward: Any  # (N, 5)
    done: Any  # (N, 5) the game ended at this tick
    mask: Any  # (N, 5) slot the learner plays (roster used, not a partner)


# Summed over an update's ticks; invalid_actions counts out-of-range actions (from Team B's
# opponents or Team A's partners: the learner samples only in range), which train() refuses.
STAT_NAMES = ("games", "wins", "losses", "draws", "margin", "episode_return", "ticks",
              "invalid_actions")  # fmt: skip


def stat_metrics(stats: Any, by_opp: Any) -> dict:
    """An update's game statistics as log metrics (the names every learner logs)."""
    out = {n if n in ("games", "invalid_actions") else f"games_{n}": stats[i]
           for i, n in enumerate(STAT_NAMES)}  # fmt: skip
    out["games_by_opponent"] = by_opp[0]
    out["wins_by_opponent"] = by_opp[1]
    out["losses_by_opponent"] = by_opp[2]
    return out


def critic_inputs(cfg: PPOConfig, x: Any, world: Any, classes: Any) -> Any:
    if cfg.critic == "local":
        return x
    return world_inputs(world, classes, per_agent=cfg.reward_form == "per_agent")


class Rollout:
    """Builds the per-tick step and the T-tick scan for one config and env.

    The Q-learners' `QRollout` (q_rollout.py) reuses all of it, changing only Team A's step
    (`learner_step`), what a tick records (`transition_type`) and how a policy turns its
    scores into actions (`policy_parts`, `choose`)."""

    transition_type: type = Transition

    def __init__(
        self,
        cfg: TrainConfig,
        env: TeamDeathmatch,
        nets: Networks,
        scripted: Sequence[System],
        reward_fn: Callable,
        partners: System | None = None,
        learner_slots: Any = None,
    ) -> None:
        """`scripted`: the fixed policies then the scripted Systems, as the config names
        them; `partners` plays Team A where `learner_slots` ((5,) bool) is False."""
        self.cfg, self.env, self.nets = cfg, env, nets
        self.scripted = tuple(scripted)
        self.reward_fn = reward_fn
        self.partners = partners
        self.learner_slots = jnp.ones(TEAM_SIZE, bool) if learner_slots is None else learner_slots
        self.first_system = 2 if cfg.uses_pool else 1  # pick of the first System
        filled, empty = (jnp.asarray(cfg.opponent_weights(f), jnp.float32) for f in (True, False))
        self.opp_logits = (jnp.log(filled / filled.sum()), jnp.log(empty / empty.sum()))
        self.num_opponents = len(cfg.opponent_names())
        assert self.num_opponents == self.first_system + len(self.scripted)
        self.view = ActorView(getattr(cfg, "nav_inputs", False))
        # where no game can draw the learner's weights for Team B, their actor pass there is
        # skipped and Team B needs no steering scores
        self.learner_plays_b = learner_plays_team_b(cfg)
        self.opp_view = ActorView(self.view.nav and self.learner_plays_b)

    # ---- starting --------------------------------------------------------------------
    def init_live(self, key: Any) -> Live:
        n, width = self.cfg.num_envs, self.nets.memory_width
        k_env, k_opp = jax.random.split(key)
        _, state = self.env.reset(k_env)
        zeros = jnp.zeros((n, TEAM_SIZE, width))
        none = jnp.zeros(n, jnp.int32)
        opponents = self._draw_opponents(k_opp, Opponents(
            none, none, zeros, self._scripted_init(k_opp), self.opp_view.init(n)
        ), jnp.ones(n, bool), self.opp_logits[1], jnp.zeros((), jnp.int32))  # fmt: skip
        partners = self._partners_init(k_opp)
        return Live(state, Memory(zeros, zeros), opponents, jnp.zeros(n), partners,
                    self.view.init(n))  # fmt: skip

    def _partners_init(self, key: Any) -> Any:
        if self.partners is None:
            return jnp.zeros(self.cfg.num_envs, jnp.int32)
        return jax.vmap(self.partners.init)(jax.random.split(key, self.cfg.num_envs))

    def _scripted_init(self, key: Any) -> tuple:
        n = self.cfg.num_envs
        keys = jax.random.split(key, len(self.scripted) or 1)
        return tuple(
            jax.vmap(s.init)(jax.random.split(k, n))
            for s, k in zip(self.scripted, keys, strict=False)
        )

    def opponent_logits(self, params: tuple) -> Any:
        """The draw's log-weights over `opponent_names` for the rollout's `params` (the
        pool's share goes to the current weights until its first copy is saved)."""
        return jnp.where(params[3].count > 0, *self.opp_logits)

    def _draw_opponents(self, key: Any, opp: Opponents, new_game: Any, logits: Any,
                        pool_count: Any):  # fmt: skip
        """New games draw their Team B by `logits` (a pool slot among the `pool_count`
        filled ones) and start its memory afresh."""
        k_pick, k_mem, k_slot = jax.random.split(key, 3)
        pick = jax.random.categorical(k_pick, logits, shape=new_game.shape)
        pick = jnp.where(new_game, pick.astype(jnp.int32), opp.pick)
        slot = jax.random.randint(k_slot, new_game.shape, 0, jnp.maximum(pool_count, 1))
        slot = jnp.where(new_game, slot, opp.slot)
        memory = jnp.where(new_game[:, None, None], 0.0, opp.memory)
        fresh = self._scripted_init(k_mem)

        def keep(a, b):
            m = new_game.reshape(new_game.shape + (1,) * (a.ndim - 1))
            return jnp.where(m, a, b)

        scripted = jax.tree.map(keep, fresh, opp.scripted)
        return opp._replace(pick=pick, slot=slot, memory=memory, scripted=scripted)

    # ---- acting ----------------------------------------------------------------------
    def learner_step(self, actor_params: Params, critic_params: Params, vnorm: ValueNorm,
                     memory: Memory, state: EnvState, inputs: Any, key: Any,
                     x: Any = None):  # fmt: skip
        """Team A's sampled actions, log-probabilities and values for one tick, from its
        `inputs` (`env.teams_inputs(state)[0]`; `x`: the actor's inputs when the view adds
        to the observation)."""
        env, nets, cfg = self.env, self.nets, self.cfg
        reset = jnp.broadcast_to(state.new_game[:, None], inputs.present.shape)
        x = actor_inputs(inputs.obs, inputs.classes) if x is None else x
        if cfg.critic == "world":
            world = env.world_state(state)[:, 0]
        else:
            world = jnp.zeros((x.shape[0], 1))
        a_mem, logits = nets.actor.apply(actor_params, memory.actor, x, inputs.avail, reset)
        cx = critic_inputs(cfg, x, world, inputs.classes)
        c_mem, value = nets.critic.apply(critic_params, memory.critic, cx, reset)
        value = vnorm.denorm(value) if cfg.value_norm else value
        action = jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)
        log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[..., None], -1)[..., 0]
        part = dict(x=x, world=world, classes=inputs.classes, avail=inputs.avail, reset=reset,
                    action=action, log_prob=log_prob, value=value, mask=inputs.present)  # fmt: skip
        return Memory(a_mem, c_mem), part

    def policy_parts(self, policy: Any) -> tuple[Any, Any]:
        """A policy's network parameters and its exploration setting (None: PPO samples)."""
        return policy, None

    def choose(self, key: Any, scores: Any, avail: Any, explore: Any) -> Any:
        """Actions (N, 5) from masked scores (N, 5, 198): PPO samples its logits."""
        del avail, explore
        return jax.random.categorical(key, scores, axis=-1).astype(jnp.int32)

    def opponent_step(self, actor_params: Params, pool: Pool, opp: Opponents, state: EnvState,
                      inputs: Any, key: Any):  # fmt: skip
        """Team B's actions: the drawn opponent's, per game (`inputs`: Team B's)."""
        k_self, k_scripted = jax.random.split(key)
        if self.learner_plays_b:
            memory, actions, nav = self.learner_copies_step(actor_params, pool, opp, state,
                                                            inputs, k_self)  # fmt: skip
        else:  # every game draws a System below
            memory, nav = opp.memory, opp.nav
            actions = jnp.zeros(inputs.present.shape, jnp.int32)
        mems = []
        keys = jax.random.split(k_scripted, len(self.scripted) or 1)
        for i, (system, k) in enumerate(zip(self.scripted, keys, strict=False)):
            game_keys = jax.random.split(k, self.cfg.num_envs)
            acts, mem = jax.vmap(system.act)(game_keys, inputs, opp.scripted[i])
            acts = check_jax_actions(acts, self.cfg.num_envs, system, "opponent")
            actions = jnp.where((opp.pick == self.first_system + i)[:, None], acts, actions)
            mems.append(mem)
        nav = self.opp_view.moved(inputs, nav, actions)
        return opp._replace(memory=memory, scripted=tuple(mems), nav=nav), actions

    def learner_copies_step(self, actor_params: Params, pool: Pool, opp: Opponents,
                            state: EnvState, inputs: Any, key: Any):  # fmt: skip
        """Team B's actions where the current weights or a pool copy play it, with their
        recurrent memory and the steering memory (not yet advanced by the moves)."""
        reset = jnp.broadcast_to(state.new_game[:, None], inputs.present.shape)
        x, nav = self.opp_view.read(inputs, opp.nav)

        def actor(params):
            return self.nets.actor.apply(params, opp.memory, x, inputs.avail, reset)

        params, explore = self.policy_parts(actor_params)
        memory, logits = actor(params)
        if self.cfg.uses_pool:  # every copy on every game; each game keeps its slot's
            pool_params, pool_explore = self.policy_parts(pool.params)
            mems, all_logits = jax.vmap(actor)(pool_params)
            games = jnp.arange(opp.slot.shape[0])
            in_pool = (opp.pick == 1)[:, None, None]
            memory = jnp.where(in_pool, mems[opp.slot, games], memory)
            logits = jnp.where(in_pool, all_logits[opp.slot, games], logits)
            if explore is not None:  # each copy plays with the exploration it was saved with
                explore = jnp.where(opp.pick == 1, pool_explore[opp.slot], explore)
        return memory, self.choose(key, logits, inputs.avail, explore), nav

    def partner_step(self, live: Live, state: EnvState, inputs: Any, actions: Any, mask: Any,
                     key: Any):  # fmt: skip
        """Team A's partner slots (`inputs`: Team A's): the partner team's actions there,
        and those slots dropped from the loss mask."""
        if self.partners is None:
            return actions, mask, live.partners
        k_fresh, k_act = jax.random.split(key)
        fresh = self._partners_init(k_fresh)
        memory = jax.tree.map(
            lambda a, b: jnp.where(state.new_game.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
            fresh, live.partners,
        )  # fmt: skip
        keys = jax.random.split(k_act, self.cfg.num_envs)
        theirs, memory = jax.vmap(self.partners.act)(keys, inputs, memory)
        theirs = check_jax_actions(theirs, self.cfg.num_envs, self.partners, "teammates")
        learner = self.learner_slots[None, :]
        return jnp.where(learner, actions, theirs), mask & learner, memory

    # ---- one tick and the scan ---------------------------------------------------------
    def team_a_extra(self, params: tuple, live: Live, state: EnvState, inputs: Any,
                     part: dict, key: Any) -> tuple[Live, dict]:  # fmt: skip
        """What a subclass adds to Team A's tick before partners act (`KickRollout`: the
        teacher's labels and the games it plays); here nothing, so PPO's tick is unchanged.
        `key` is the tick's own key: a subclass derives its keys from it by `fold_in`."""
        del params, state, inputs, key
        return live, part

    def team_a_taken(self, live: Live, inputs: Any, actions: Any) -> Live:
        """What a subclass keeps once Team A's actions (N, 5) are final (`KickRollout`: the
        teacher's memory, advanced by the moves actually made); here nothing."""
        del inputs, actions
        return live

    def tick(self, params: tuple, live: Live, key: Any):
        actor_params, critic_params, vnorm, pool = params[:4]
        k_opp, k_act, k_team_b, k_reset, k_partner = jax.random.split(key, 5)
        state = live.env
        opp = self._draw_opponents(k_opp, live.opponents, state.new_game,
                                   self.opponent_logits(params), pool.count)  # fmt: skip
        inputs_a, inputs_b = self.env.teams_inputs(state)  # computed once for both teams
        x_a, nav = self.view.read(inputs_a, live.nav) if self.view.nav else (None, None)
        memory, part = self.learner_step(
            actor_params, critic_params, vnorm, live.memory, state, inputs_a, k_act, x_a
        )
        live, part = self.team_a_extra(params, live, state, inputs_a, part, key)
        a_actions, part["mask"], partners = self.partner_step(
            live, state, inputs_a, part["action"], part["mask"], k_partner
        )
        nav = self.view.moved(inputs_a, nav, a_actions)  # the moves actually taken
        live = self.team_a_taken(live, inputs_a, a_actions)
        opp, b_actions = self.opponent_step(actor_params, pool, opp, state, inputs_b, k_team_b)
        actions = jnp.concatenate([a_actions, b_actions], axis=1)
        _, after, _, done, info = self.env.step_env(None, state, actions)
        reward = self.reward_fn(state, after, info)[:, :TEAM_SIZE].astype(jnp.float32)
        ended = done["__all__"]
        mask = part["mask"].astype(jnp.float32)  # the learner's agents (partners left out)
        step_return = jnp.sum(reward * mask, 1) / jnp.maximum(mask.sum(1), 1.0)
        ep_return = live.episode_return + step_return
        result = after.game.result
        score = after.game.score
        stats = jnp.stack([
            ended.sum(),
            (ended & (result == RESULT_A)).sum(),
            (ended & (result == RESULT_B)).sum(),
            (ended & (result == RESULT_DRAW)).sum(),
            jnp.where(ended, score[:, 0] - score[:, 1], 0).sum(),
            jnp.where(ended, ep_return, 0.0).sum(),
            jnp.where(ended, after.game.tick, 0).sum(),
            info["invalid_action"].sum(),
        ]).astype(jnp.float32)  # fmt: skip
        onehot = jax.nn.one_hot(opp.pick, self.num_opponents) * ended[:, None]
        by_opp = jnp.stack([
            onehot.sum(0), (onehot * (result == RESULT_A)[:, None]).sum(0),
            (onehot * (result == RESULT_B)[:, None]).sum(0),
        ])  # fmt: skip
        _, restarted = self.env.reset_done(k_reset, after)
        done5 = jnp.broadcast_to(ended[:, None], reward.shape)
        trans = self.transition_type(reward=reward, done=done5, **part)
        live = live._replace(env=restarted, memory=memory, opponents=opp,
                             episode_return=jnp.where(ended, 0.0, ep_return),
                             partners=partners, nav=nav)  # fmt: skip
        return live, (trans, stats, by_opp)

    def run(self, params: tuple, live: Live, key: Any):
        """T ticks with `params` = (actor, critic, value norm, pool); returns the new live
        games, the transitions (T, ...), the bootstrap values of the last state (N, 5) and
        the summed episode statistics."""
        keys = jax.random.split(key, self.cfg.rollout_len)
        live, (traj, stats, by_opp) = jax.lax.scan(
            lambda lv, k: self.tick(params, lv, k), live, keys
        )
        actor_params, critic_params, vnorm, _ = params[:4]
        state = live.env
        inputs = self.env.team_inputs(state, 0)
        x = self.view.read(inputs, live.nav)[0] if self.view.nav else None
        _, part = self.learner_step(
            actor_params, critic_params, vnorm, live.memory, state, inputs,
            jax.random.PRNGKey(0), x,
        )  # fmt: skip
        return live, traj, part["value"], stats.sum(0), by_opp.sum(0)
