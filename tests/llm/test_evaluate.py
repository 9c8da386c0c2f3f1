"""An LLM side through `evaluate` and the command line, against TDM-Alpha, on a fake server:
short games (horizon 30, first to 3, map 47, one spawn-swapped pair)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import marl_bgs
from marl_bgs.cli import main
from marl_bgs.evaluation import GAME_COLUMNS
from marl_bgs.llm.fake import FakeChatServer
from marl_bgs.llm.schema import FAILURE_KINDS
from marl_bgs.llm.stats import AGENT_COLUMNS, COUNT_FIELDS, SIDE_FIELDS, check_counts
from marl_bgs.llm.system import llm_system
from marl_bgs.replay import ReplayError, load_replay
from marl_bgs.systems import host_system

SHORT = dict(maps=[47], games=2, horizon=30, winning_score=3, progress=False)


def mostly_legal(body: dict, n: int) -> str:
    """Every seventh request fails in turn by each kind the fake server can show."""
    kinds = ["illegal", "broken", "cut_off", "empty", "http_500"]
    return kinds[(n // 7) % len(kinds)] if n % 7 == 6 else "legal"


@pytest.fixture(scope="module")
def played():
    with FakeChatServer(mostly_legal) as server:
        system = llm_system("fake-model", server.base_url)
        result = marl_bgs.evaluate(system, "tdm-alpha", record=[0, 1], **SHORT)
        requests, behaviours = len(server.requests), list(server.behaviours)
    return result, requests, behaviours


def test_games_table_is_unchanged_and_the_llm_table_adds_up(played):
    result, requests, behaviours = played
    assert list(result.games.columns) == list(GAME_COLUMNS)
    assert (result.games["system_a"] == "llm:fake-model").all()
    assert (result.games["ticks"] > 0).all()
    llm = result.llm
    assert list(llm.columns) == ["game", "side", "system", *AGENT_COLUMNS, *SIDE_FIELDS]
    assert len(llm) == 2 * 5 and set(llm["side"]) == {"a"}
    for _, row in llm.iterrows():
        check_counts(row.to_dict())
    assert int(llm["requests"].sum()) == requests
    for kind, behaviour in [
        ("illegal", "illegal"),
        ("unparsable", "broken"),
        ("cut_off", "cut_off"),
        ("empty", "empty"),
        ("server_error", "http_500"),
    ]:
        assert int(llm[kind].sum()) == behaviours.count(behaviour) > 0
    assert int(llm["legal"].sum()) == behaviours.count("legal")
    # each game's side rows agree on its ticks, which are the game's ticks
    for g, rows in llm.groupby("game"):
        assert rows["ticks"].nunique() == 1
        assert int(rows["ticks"].iloc[0]) == int(result.games.loc[g, "ticks"])
    totals = result.meta["llm"]["a"]
    assert totals["requests"] == requests and totals["games"] == 2
    assert totals["legal_share"] == pytest.approx(totals["legal"] / requests)
    assert totals["seconds_per_tick"] > 0
    json.dumps(result.meta["llm"], allow_nan=False)


def test_save_writes_the_llm_table(played, tmp_path):
    result, _, _ = played
    paths = result.save(tmp_path)
    assert (tmp_path / "llm.csv").exists() and (tmp_path / "llm.parquet").exists()
    pd.testing.assert_frame_equal(pd.read_parquet(paths["llm_parquet"]), result.llm)
    assert "llm" in json.loads((tmp_path / "meta.json").read_text())


def test_the_replay_carries_the_counts_and_reads_back(played):
    result, _, _ = played
    replay = result.replay(1)
    part = replay.llm["a"]
    assert part["system"] == "llm:fake-model" and part["ticks"] == replay.ticks
    rows = result.llm[result.llm["game"] == 1]
    assert [a["requests"] for a in part["agents"]] == rows["requests"].tolist()
    back = load_replay(replay.to_bytes())
    assert back.llm == replay.llm
    assert "llm" in json.loads(replay.to_bytes())
    assert replay.as_seen_by("a").llm == replay.llm
    doc = json.loads(replay.to_bytes())
    doc["llm"]["a"]["agents"][0]["legal"] = -1
    with pytest.raises(ReplayError, match=r"^llm\.a\.agents\[0\]\.legal"):
        load_replay(json.dumps(doc).encode())
    doc["llm"] = {"c": {}}
    with pytest.raises(ReplayError, match=r"^llm\.c: unknown side"):
        load_replay(json.dumps(doc).encode())


def test_a_non_llm_side_has_no_llm_rows_or_files(tmp_path):
    first = host_system(
        lambda inputs: np.argmax(np.asarray(inputs.avail), axis=-1).astype(np.int32),
        name="first-legal",
    )
    result = marl_bgs.evaluate(first, "tdm-alpha", record=[0], **SHORT)
    assert result.llm.empty and "llm" not in result.meta
    assert set(result.save(tmp_path)) == {"csv", "parquet", "meta"}
    replay = result.replay(0)
    assert replay.llm is None and "llm" not in json.loads(replay.to_bytes())


def test_cli_eval_with_an_llm_side(tmp_path, capsys):
    with FakeChatServer("legal") as server:
        spec = f"llm:fake-model@{server.base_url}"
        rc = main(
            ["eval", "--a", spec, "--b", "tdm-alpha", "--maps", "47", "--games", "2"]
            + ["--horizon", "30", "--winning-score", "3", "--quiet", "--out", str(tmp_path)]
        )
        asked = len(server.requests)
    out = capsys.readouterr().out
    assert rc == 0, out
    line = next(x for x in out.splitlines() if x.startswith("a: llm:fake-model:"))
    assert f"{asked} of {asked} replies legal (failed: none)" in line
    assert "s per tick" in line
    table = pd.read_csv(tmp_path / "llm.csv")
    assert int(table["requests"].sum()) == asked
    assert set(COUNT_FIELDS) | set(FAILURE_KINDS) <= set(table.columns)


def test_cli_refuses_a_bad_llm_spec(capsys):
    assert main(["eval", "--a", "llm:only-a-model", "--b", "random", "--games", "2"]) == 2
    assert "team_a: system: 'llm:only-a-model' needs a model and a server" in (
        capsys.readouterr().err
    )


def test_padded_games_of_a_short_batch_are_never_asked():
    """4 games in batches of 3: the second batch pads 1 game to 3; the model is asked only
    about the real one, so the server's requests are exactly those counted."""
    with FakeChatServer(mostly_legal) as server:
        system = llm_system("fake-model", server.base_url)
        kw = {**SHORT, "games": 4, "horizon": 8}
        result = marl_bgs.evaluate(system, "tdm-alpha", batch_size=3, **kw)
        requests = len(server.requests)
    assert sorted(result.llm["game"].unique().tolist()) == [0, 1, 2, 3]
    assert int(result.llm["requests"].sum()) == requests > 0
