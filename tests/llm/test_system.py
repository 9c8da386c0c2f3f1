"""llm_system against a fake OpenAI-compatible server on 127.0.0.1: every behaviour is
handled and counted, the request carries only legal names, concurrency is bounded, and no
server or thread outlives a test."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from marl_bgs.core.position import starting_position
from marl_bgs.core.state import TEAM_SIZE
from marl_bgs.game import Game
from marl_bgs.llm.fake import FakeChatServer, legal_choice
from marl_bgs.llm.stats import COUNT_FIELDS, check_counts
from marl_bgs.llm.system import DEFAULT_SYSTEM_PROMPT, llm_system, parse_spec
from marl_bgs.llm.view import flat_action, format_actor_view, legal_menu
from marl_bgs.systems.base import TeamInputs
from tests.llm.test_view import played_game


@pytest.fixture(autouse=True)
def no_threads_left():
    before = threading.active_count()
    yield
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threading.active_count() <= before, [t.name for t in threading.enumerate()]


@pytest.fixture(scope="module")
def inputs() -> TeamInputs:
    """Three games' team-a inputs at tick 12 (the example position, so combat is legal)."""
    one = played_game().team_inputs(0)
    return TeamInputs(*(np.stack([np.asarray(x)] * 3) for x in one))


def one_game(inputs: TeamInputs, g: int = 0) -> TeamInputs:
    return TeamInputs(*(np.asarray(x)[g] for x in inputs))


def asked_agents(inputs: TeamInputs) -> list[int]:
    one = one_game(inputs)
    return [k for k in range(TEAM_SIZE) if legal_menu(one, k).choices > 1]


def run_tick(server: FakeChatServer, inputs: TeamInputs, **options):
    system = llm_system("fake-model", server.base_url, **options)
    actions, memory = system.act(None, inputs, system.init(None))
    return system, actions, system.report(memory)


def totals(report) -> dict:
    out = dict.fromkeys(COUNT_FIELDS, 0)
    for game in report:
        for row in game:
            check_counts(row)
            for k in COUNT_FIELDS:
                out[k] += row[k]
    return out


def test_legal_replies_are_played(inputs):
    with FakeChatServer("legal") as server:
        system, actions, report = run_tick(server, inputs)
    one = one_game(inputs)
    for k in range(TEAM_SIZE):
        menu = legal_menu(one, k)
        if menu.choices > 1:
            body = {"messages": [{"role": "user", "content": format_actor_view(one, k)}]}
            want = legal_choice(body)
            assert actions[0, k] == menu.flat[(want["move"], want["combat"])]
    assert (actions == actions[0]).all()  # three copies of the same game
    t = totals(report)
    asked = 3 * len(asked_agents(inputs))
    assert t["requests"] == t["legal"] == t["asked"] == asked == len(server.requests)
    assert t["fallback"] == 0 and t["usage_reported"] == asked and t["prompt_tokens"] > 0
    assert report[0][0]["ticks"] == 1 and report[0][0]["tick_seconds"] > 0
    assert system.name == "llm:fake-model" and system.on_host


@pytest.mark.parametrize(
    "behaviour, kind",
    [
        ("illegal", "illegal"),
        ("broken", "unparsable"),
        ("prose", "unparsable"),
        ("cut_off", "cut_off"),
        ("empty", "empty"),
        ("http_500", "server_error"),
    ],
)
def test_each_failure_becomes_stay_no_attack_and_is_counted(inputs, behaviour, kind):
    with FakeChatServer(behaviour) as server:
        _, actions, report = run_tick(server, inputs)
    asked = asked_agents(inputs)
    assert (actions[:, asked] == flat_action(0, 0, 0)).all()
    for game in report:
        for row in game:
            expect = int(row["agent"] in asked)
            assert row[kind] == row["fallback"] == row["requests"] == expect
            assert row["legal"] == 0
    assert totals(report)[kind] == 3 * len(asked)


def test_padded_but_complete_json_is_accepted(inputs):
    with FakeChatServer("padded") as server:
        _, _, report = run_tick(server, inputs)
    t = totals(report)
    assert t["legal"] == t["requests"] > 0


def test_a_slow_reply_times_out_within_the_bound(inputs):
    with FakeChatServer("slow", slow_seconds=5.0) as server:
        start = time.perf_counter()
        _, actions, report = run_tick(server, inputs, timeout=0.3)
        elapsed = time.perf_counter() - start
    assert elapsed < 3.0  # all requests wait at once (16 in flight), not one after another
    t = totals(report)
    assert t["timeout"] == t["fallback"] == t["requests"] == 3 * len(asked_agents(inputs))
    assert (actions == 0).all()


def test_failures_are_counted_per_agent(inputs):
    # agent 0's requests fail, everyone else's are legal
    def script(body, n):
        text = body["messages"][-1]["content"]
        return "illegal" if "You are ally_0," in text else "legal"

    with FakeChatServer(script) as server:
        _, _, report = run_tick(server, inputs)
    for game in report:
        by_agent = {row["agent"]: row for row in game}
        assert by_agent[0]["illegal"] == 1 and by_agent[0]["legal"] == 0
        assert all(by_agent[k]["illegal"] == 0 for k in range(1, TEAM_SIZE))


def test_rethink_is_off_by_default_and_re_asks_once_with_the_error(inputs):
    calls = []

    def script(body, n):
        calls.append(body)
        return "illegal" if len(body["messages"]) == 2 else "legal"

    with FakeChatServer(script) as server:
        _, actions, report = run_tick(server, inputs, rethink=True)
    asked = 3 * len(asked_agents(inputs))
    t = totals(report)
    assert t["requests"] == 2 * asked and t["rethinks"] == asked
    assert t["illegal"] == asked and t["legal"] == asked and t["fallback"] == 0
    again = [b for b in calls if len(b["messages"]) == 4]
    assert len(again) == asked
    assert again[0]["messages"][2]["role"] == "assistant"
    assert "rejected" in again[0]["messages"][3]["content"]
    assert "teleport" in again[0]["messages"][3]["content"]
    with FakeChatServer("illegal") as server:
        _, _, report = run_tick(server, inputs)
    assert totals(report)["rethinks"] == 0


def test_request_carries_the_schema_with_only_legal_names(inputs):
    with FakeChatServer("legal") as server:
        run_tick(server, inputs, seed=7, max_tokens=32)
    one = one_game(inputs)
    by_agent = {}
    for body in server.requests:
        agent = int(body["messages"][-1]["content"].split("You are ally_")[1][0])
        by_agent[agent] = body
    assert sorted(by_agent) == asked_agents(inputs)
    for agent, body in by_agent.items():
        menu = legal_menu(one, agent)
        schema = body["response_format"]["json_schema"]
        assert body["response_format"]["type"] == "json_schema" and schema["strict"] is True
        props = schema["schema"]["properties"]
        assert props["move"]["enum"] == list(menu.moves)
        assert props["combat"]["enum"] == list(menu.combats)
        assert body["temperature"] == 0.0 and body["seed"] == 7 and body["max_tokens"] == 32
        assert body["model"] == "fake-model"
        assert body["messages"][0] == {"role": "system", "content": DEFAULT_SYSTEM_PROMPT}
        assert body["messages"][-1]["content"] == format_actor_view(one, agent)
    # combat names the prompt offers really are this tick's, e.g. the Mage's Basic on enemy 0
    assert (
        "enemy_0_basic"
        in by_agent[0]["response_format"]["json_schema"]["schema"]["properties"]["combat"]["enum"]
    )


@pytest.mark.parametrize("limit", [1, 4])
def test_concurrency_is_bounded(inputs, limit):
    with FakeChatServer("legal", delay=0.05) as server:
        run_tick(server, inputs, concurrency=limit)
    assert len(server.requests) == 3 * len(asked_agents(inputs)) > limit
    assert server.peak_in_flight == limit


def test_custom_system_prompt_history_and_extra_body(inputs):
    game = played_game()
    with FakeChatServer("legal") as server:
        system = llm_system(
            "m",
            server.base_url,
            "secret",
            system_prompt="Be brave.",
            history=1,
            extra_body={"chat_template_kwargs": {"enable_thinking": False}},
            slots=[0],
        )
        memory = system.init(None)
        one = game.team_inputs(0)
        batch = TeamInputs(*(np.asarray(x)[None] for x in one))
        system.act(None, batch, memory)
        first = server.requests[-1]
        system.act(None, batch._replace(new_game=np.asarray([False])), memory)
        second = server.requests[-1]
        system.act(None, batch._replace(new_game=np.asarray([True])), memory)
        third = server.requests[-1]
    assert len(server.requests) == 3  # slot 0 only
    assert first["messages"][0] == {"role": "system", "content": "Be brave."}
    assert first["chat_template_kwargs"] == {"enable_thinking": False}
    assert len(first["messages"]) == 2
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][2]["content"] == '{"move":"east","combat":"enemy_0_basic"}'
    assert len(third["messages"]) == 2  # a new game forgets the earlier turns
    rows = system.report(memory)[0]
    assert [r["agent"] for r in rows] == [0] and rows[0]["requests"] == 1


def test_others_play_the_remaining_slots_and_finished_games_are_not_asked():
    from marl_bgs.systems.numpy_play import numpy_system

    game = Game(starting_position(47), backend="numpy")
    one = game.team_inputs(0)
    done = game.state._replace(score=np.asarray([20, 3], game.state.score.dtype))
    finished = Game(game.state_dict())
    finished.state = done
    pairs = zip(one, finished.team_inputs(0), strict=True)
    batch = TeamInputs(*(np.stack([np.asarray(a), np.asarray(b)]) for a, b in pairs))
    with FakeChatServer("legal") as server:
        system = llm_system("m", server.base_url, slots=[4], others="tdm-alpha")
        actions, memory = system.act(None, batch, system.init(None))
    alpha = numpy_system("tdm-alpha")
    want, _ = alpha.act(one, alpha.init(), None)
    assert (actions[0, :4] == np.asarray(want)[:4]).all()
    assert len(server.requests) == 1  # slot 4 of the open game only
    rows = system.report(memory)
    assert rows[0][0]["ticks"] == 1 and rows[1][0]["ticks"] == 0 and rows[1][0]["decisions"] == 0


def test_bad_options_name_the_field():
    url = "http://127.0.0.1:9/v1"
    cases = [
        (dict(model="", base_url=url), TypeError, "^model:"),
        (dict(model="m", base_url="127.0.0.1:8001"), ValueError, "^base_url:"),
        (dict(model="m", base_url=None), TypeError, "^base_url:"),
        (dict(model="m", base_url=url, api_key=3), TypeError, "^api_key:"),
        (dict(model="m", base_url=url, api_key="sk-1\r\nX-Evil: 1"), ValueError, "^api_key:"),
        (dict(model="m", base_url=url, api_key="clé"), ValueError, "^api_key:"),
        (dict(model="m", base_url=url, temperature=-1), ValueError, "^temperature:"),
        (dict(model="m", base_url=url, concurrency=0), ValueError, "^concurrency:"),
        (dict(model="m", base_url=url, timeout=0), ValueError, "^timeout:"),
        (dict(model="m", base_url=url, slots=[0, 0]), ValueError, "^slots:"),
        (dict(model="m", base_url=url, slots=[5]), ValueError, r"^slots\[0\]:"),
        (dict(model="m", base_url=url, history=-1), ValueError, "^history:"),
        (dict(model="m", base_url=url, rethink="yes"), TypeError, "^rethink:"),
        (dict(model="m", base_url=url, extra_body={"model": "x"}), ValueError, "^extra_body"),
        (dict(model="m", base_url=url, system_prompt=3), TypeError, "^system_prompt:"),
        (dict(model="m", base_url=url, others="random"), ValueError, "^others:"),
        (dict(model="m", base_url=url, temprature=0), TypeError, "^temprature: unknown"),
    ]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            llm_system(**kwargs)


def test_spec_parsing():
    assert parse_spec("llm:Qwen/Qwen3.5-9B@http://127.0.0.1:8001/v1") == (
        "Qwen/Qwen3.5-9B",
        "http://127.0.0.1:8001/v1",
    )
    assert parse_spec("llm:a@b@https://host/v1") == ("a@b", "https://host/v1")
    with pytest.raises(ValueError, match="needs a model and a server"):
        parse_spec("llm:model-only")


def test_an_unreachable_server_is_a_server_error(inputs):
    with FakeChatServer("legal") as server:
        url = server.base_url  # closed when the block ends: nothing listens there now
    system = llm_system("m", url, timeout=2.0)
    actions, memory = system.act(None, inputs, system.init(None))
    t = totals(system.report(memory))
    assert t["server_error"] == t["requests"] > 0 and (actions == 0).all()


def test_a_hostile_completion_body_is_a_server_error():
    from marl_bgs.llm.client import ChatError, _read_completion

    for raw in (b"[" * 100_000, b'{"choices": 3}', b"\xff", b'{"choices": [{"message": 1}]}'):
        with pytest.raises(ChatError) as err:
            _read_completion(raw, 0.0)
        assert err.value.kind == "server_error"
