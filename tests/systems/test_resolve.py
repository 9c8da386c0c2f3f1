"""systems/resolve.py: the one place a written System becomes a System."""

from __future__ import annotations

import pytest

from marl_bgs.systems.base import System
from marl_bgs.systems.resolve import resolve_system, system_from_text


def test_registered_names_and_per_slot_lists_resolve():
    assert system_from_text("tdm-beta", "--vs").name == "tdm-beta"
    assert resolve_system("random", "team_a").name == "random"
    mixed = resolve_system(["tdm-alpha"] * 4 + ["random"], "team_b")
    assert isinstance(mixed, System)
    assert mixed.name == "tdm-alpha|tdm-alpha|tdm-alpha|tdm-alpha|random"


def test_a_name_wins_over_a_folder_of_the_same_name(tmp_path, monkeypatch):
    (tmp_path / "tdm-gamma").mkdir()
    monkeypatch.chdir(tmp_path)
    assert system_from_text("tdm-gamma", "--vs").name == "tdm-gamma"


@pytest.mark.parametrize(
    ("text", "host", "message"),
    [
        ("tdm-delta", True, r"^--vs: 'tdm-delta' is not a registered System \(random, .*LLM"),
        ("tdm-delta", False, r"^--vs: 'tdm-delta' is not .*\), a training run folder"),
        ("llm:m@http://127.0.0.1:9/v1", False, r"^--vs: 'llm:m@.*an LLM plays on the host"),
    ],
)
def test_unknown_text_and_misplaced_llms_are_refused_naming_the_field(text, host, message):
    with pytest.raises(ValueError, match=message):
        system_from_text(text, "--vs", host=host)


def test_a_missing_policy_file_names_the_field_and_the_text(tmp_path):
    gone = tmp_path / "gone.npz"
    with pytest.raises(ValueError, match=r"^--vs: '.*gone\.npz': .*does not exist"):
        system_from_text(str(gone), "--vs")


def test_a_spec_of_no_known_form_is_refused():
    with pytest.raises(ValueError, match=r"^team_a: expected a System, a system name"):
        resolve_system(42, "team_a")
