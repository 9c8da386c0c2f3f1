"""Out-of-range actions are refused, never rewritten (issue 18, part 1).

The contract: actions are integer arrays of the exact shape, every value in range (flat
0..197; move 0..8, target 0..10, Ultimate 0..1). Concrete actions are refused where they
enter (`env.step`, `Game.step_slots`), naming the field and value; traced ones are flagged
per slot in `info["invalid_action"]`, and evaluate and the trainer refuse a batch holding
any, naming the System. A wrong-shaped JAX System answer is refused when it is traced. An
in-range but illegal action is the rules' business ("stay" / "no target") and no error.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import marl_bgs  # noqa: E402
from marl_bgs import Game  # noqa: E402
from marl_bgs.core.position import starting_position  # noqa: E402
from marl_bgs.systems import jax_system  # noqa: E402


@pytest.fixture(scope="module")
def env_and_state():
    env = marl_bgs.make("tdm", num_envs=2, map_id=[47])
    _, state = env.reset(jax.random.PRNGKey(0))
    return env, state


def agents(value):
    return {f"{t}{i}": value for t in "ab" for i in range(5)}


BAD_ENV_ACTIONS = [
    (np.full((2, 10), 500), r"actions: flat action 500 at index \(0, 0\) is outside 0\.\.197"),
    (np.full((2, 10), -1), r"flat action -1"),
    (np.full((2, 10), 198, np.int16), r"flat action 198"),
    (np.full((2, 10), 2**40), r"flat action 1099511627776"),  # no wrap into range
    (jnp.full((2, 10), 198), r"flat action 198"),  # a concrete JAX array
    (np.full((2, 10), 3.0), r"actions: dtype float64 is not an integer type"),
    (np.full((2, 10), True), r"dtype bool"),
    (np.zeros((2, 10, 2), int), r"actions: shape \(2, 10, 2\)"),
    (np.zeros((2, 9), int), r"actions: shape \(2, 9\)"),
    (np.zeros((2, 10, 3), int) + [9, 0, 0], r"actions: move 9 at index \(0, 0\) is outside 0\.\.8"),
    (np.zeros((2, 10, 3), int) + [0, 11, 0], r"target 11"),
    (np.zeros((2, 10, 3), int) + [0, 0, 2], r"ultimate 2"),
    (np.zeros((2, 10, 3), int) + [0, -1, 0], r"target -1"),
    ({**agents(np.zeros(2, int)), "b4": np.asarray([0, 198])},
     r"actions\['b4'\]: flat action 198 at index \(1,\)"),
    ({**agents(np.zeros(2, int)), "a1": np.asarray([0.0, 1.0])}, r"actions\['a1'\]: dtype"),
    ({**agents(np.zeros(2, int)), "a2": [[0, 0, 7], [0, 0, 0]]}, r"actions\['a2'\]: ultimate 7"),
    ({**agents(np.zeros(2, int)), "a3": "stay"}, r"actions\['a3'\]: dtype"),
    ({**agents(np.zeros(2, int)), "a4": [1, None]}, r"actions\['a4'\]: dtype object"),
    ({k: v for k, v in agents(np.zeros(2, int)).items() if k != "b0"}, r"no action for agent 'b0'"),
    ({**agents(np.zeros(2, int)), "c0": np.zeros(2, int)}, r"actions: unknown agent 'c0'; agents are a0\.\.a4, b0\.\.b4"),
    ({**agents(np.zeros(2, int)), "A0": 0, 7: 0}, r"actions: unknown agent 'A0', 7;"),
]  # fmt: skip


@pytest.mark.parametrize("actions,message", BAD_ENV_ACTIONS)
def test_env_refuses_concrete_out_of_range_actions(env_and_state, actions, message):
    env, state = env_and_state
    with pytest.raises(ValueError, match=message):
        env.step(None, state, actions)


def test_env_flags_traced_out_of_range_actions(env_and_state):
    env, state = env_and_state

    @jax.jit
    def step(state, actions):
        _, after, _, _, info = env.step(None, state, actions)
        return after, info["invalid_action"]

    acts = jnp.zeros((2, 10), jnp.int32).at[1, 7].set(500).at[0, 2].set(-3)
    _, flags = step(state, acts)
    expected = np.zeros((2, 10), bool)
    expected[1, 7] = expected[0, 2] = True
    np.testing.assert_array_equal(np.asarray(flags), expected)
    _, flags = step(state, jnp.full((2, 10), 197, jnp.int32))  # in range (illegal or not)
    assert not np.asarray(flags).any()


def test_single_game_env_flags_too():
    env = marl_bgs.make("tdm", map_id=47)
    _, state = env.reset(jax.random.PRNGKey(0))
    out = jax.jit(lambda s, a: env.step(jax.random.PRNGKey(1), s, a)[4]["invalid_action"])(
        state, jnp.zeros(10, jnp.int32).at[4].set(198)
    )
    assert np.asarray(out).tolist() == [False] * 4 + [True] + [False] * 5


BAD_SLOTS = [
    (np.full((10, 3), -1), r"slots\[0\] \(a0\): move -1 is outside 0\.\.8"),
    (np.zeros((10, 3), int) + [0, 0, 2], r"slots\[0\] \(a0\): ultimate 2"),
    (np.asarray([[0, 0, 0]] * 9 + [[0, 11, 0]]), r"slots\[9\] \(b4\): target 11"),
    (np.zeros((10, 3)), r"slots: dtype float64"),
    (np.zeros((10, 2), int), r"slots: expected shape \(10, 3\)"),
    (np.zeros((5, 3), int), r"slots: expected shape"),
    ([[0, 0, "u"]] * 10, r"slots: dtype"),
]  # fmt: skip


@pytest.mark.parametrize("slots,message", BAD_SLOTS)
def test_game_step_slots_refuses_out_of_range(slots, message):
    game = Game(starting_position(47))
    with pytest.raises(ValueError, match=message):
        game.step_slots(slots)
    assert int(game.state.tick) == 0  # nothing was played


def test_an_in_range_illegal_action_is_no_error():
    game = Game(starting_position(47))
    game.step_slots(np.zeros((10, 3), int) + [0, 10, 1])  # enemy 4 out of reach, Ultimate
    assert int(game.state.tick) == 1


def _out_of_range(key, inputs):
    del key
    return jnp.where(inputs.present, 200, 0).astype(jnp.int32)


def _three_slots(key, inputs):
    del key
    return jnp.zeros(3, jnp.int32)


def _floats(key, inputs):
    del key
    return jnp.zeros(5, jnp.float32)


def test_evaluate_refuses_a_system_with_out_of_range_actions():
    bad = jax_system(_out_of_range, name="overflow")
    with pytest.raises(ValueError, match=r"team_b: System 'overflow' played an out-of-range "
                       r"action \(game 0, agent b0\)"):  # fmt: skip
        marl_bgs.evaluate("random", bad, maps=[47], games=2, horizon=6, progress=False)


@pytest.mark.parametrize("fn,message", [
    (_three_slots, r"team_a: System 'short' returned actions of shape \(2, 3\) for 2 games"),
    (_floats, r"team_a: System 'short' returned float32 actions"),
])  # fmt: skip
def test_evaluate_refuses_a_wrong_shaped_system_when_traced(fn, message):
    short = jax_system(fn, name="short")
    with pytest.raises(ValueError, match=message):
        marl_bgs.evaluate(short, "random", maps=[47], games=2, horizon=6, progress=False)


def test_act_both_refuses_a_wrong_shaped_system(env_and_state):
    from marl_bgs.systems.both_teams import act_both
    from marl_bgs.systems.registry import by_name

    env, state = env_and_state
    short = jax_system(_three_slots, name="short")
    with pytest.raises(ValueError, match=r"systems\[1\]: System 'short' returned actions"):
        act_both(env, state, (by_name("random"), short), (None, None), jax.random.PRNGKey(0))


def test_training_refuses_an_opponent_with_out_of_range_actions(tmp_path, monkeypatch):
    pytest.importorskip("optax")
    pytest.importorskip("orbax.checkpoint")
    from marl_bgs.learn.config_files import load_config
    from marl_bgs.learn.trainer import train
    from marl_bgs.systems.registry import BUILDERS
    from tests.learn.test_trainer import TINY

    bad = jax_system(_out_of_range, name="overflow")
    monkeypatch.setitem(BUILDERS, "overflow", lambda: bad)
    cfg = load_config(None, [*TINY, 'scripted_opponents=["overflow"]', "opponent_self=0",
                             "opponent_scripted=1", f'out="{tmp_path / "run"}"'],
                      algo="ff-ippo")  # fmt: skip
    with pytest.raises(ValueError, match=r"training: \d+ out-of-range actions in update 1 "
                       r"from the opponents \(overflow\)"):  # fmt: skip
        train(cfg, progress=False, plots=False)
    assert not (tmp_path / "run" / "updates.csv").exists()  # nothing of it was logged


@pytest.mark.parametrize(
    "flat,message",
    [
        (np.asarray([197.9, 0, 0, 0, 0]), r"flat_a: expected whole numbers, got dtype float64"),
        (np.asarray([True] * 5), r"flat_a: expected whole numbers, got dtype bool"),
        (np.asarray([0, 0, 0, 0, 198]), r"flat_a: expected 5 flat actions in 0\.\.197"),
    ],
)
def test_slots_from_flat_takes_whole_numbers_only(flat, message):
    """197.9 was cut to 197 without a word."""
    from marl_bgs import Game
    from marl_bgs.core.position import starting_position

    game = Game(starting_position(47))
    with pytest.raises(ValueError, match=message):
        game.slots_from_flat(flat, np.zeros(5, np.int64))
    assert game.slots_from_flat(np.arange(5, dtype=np.int64), np.zeros(5, np.int32)).shape == (
        10,
        3,
    )
