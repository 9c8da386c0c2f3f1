"""The reply check accepts exactly one legal JSON object and rejects, never repairs, the rest."""

from __future__ import annotations

import pytest

from marl_bgs.llm.schema import ReplyRejected, parse_reply, reply_schema, response_format
from marl_bgs.llm.view import Menu

MENU = Menu(
    moves=("stay", "east"),
    combats=("no_combat", "enemy_2_basic"),
    flat={
        ("stay", "no_combat"): 0,
        ("stay", "enemy_2_basic"): 18,
        ("east", "no_combat"): 66,
        ("east", "enemy_2_basic"): 84,
    },
)


def test_schema_lists_only_the_legal_names():
    schema = reply_schema(MENU)
    assert schema["properties"]["move"]["enum"] == ["stay", "east"]
    assert schema["properties"]["combat"]["enum"] == ["no_combat", "enemy_2_basic"]
    assert schema["required"] == ["move", "combat"] and schema["additionalProperties"] is False
    fmt = response_format(MENU)
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True


@pytest.mark.parametrize(
    "content, action",
    [
        ('{"move":"east","combat":"enemy_2_basic"}', 84),
        ('{"combat":"no_combat","move":"stay"}', 0),
        ('  {\n  "move": "east",\n  "combat": "no_combat"\n}\n\n', 66),  # padded, complete
    ],
)
def test_legal_replies(content, action):
    assert parse_reply(content, "stop", MENU) == action


@pytest.mark.parametrize(
    "content, finish, kind",
    [
        ('{"move":"east","combat":"no_combat"}', "length", "cut_off"),
        ('{"move":"east",', "length", "cut_off"),
        ("", "stop", "empty"),
        ("   \n", "stop", "empty"),
        (None, "stop", "empty"),
        ('{"move":"east",', "stop", "unparsable"),
        ('I go east. {"move":"east","combat":"no_combat"}', "stop", "unparsable"),
        ('```json\n{"move":"east","combat":"no_combat"}\n```', "stop", "unparsable"),
        ('{"move":"east","combat":"no_combat"} ok', "stop", "unparsable"),
        ('{"move":"east","combat":"no_combat","why":"x"}', "stop", "unparsable"),
        ('{"move":"east","move":"stay","combat":"no_combat"}', "stop", "unparsable"),
        ('{"move":3,"combat":"no_combat"}', "stop", "unparsable"),
        ('["east","no_combat"]', "stop", "unparsable"),
        ("[" * 100_000, "stop", "unparsable"),  # deep nesting: RecursionError in the parser
        ('{"move":' + "1" * 5000 + "}", "stop", "unparsable"),  # an int over the digit limit
        ('{"move":"teleport","combat":"no_combat"}', "stop", "illegal"),
        ('{"move":"East","combat":"no_combat"}', "stop", "illegal"),
        ('{"move":"east","combat":"enemy_3_basic"}', "stop", "illegal"),
    ],
)
def test_rejected_replies(content, finish, kind):
    with pytest.raises(ReplyRejected) as err:
        parse_reply(content, finish, MENU)
    assert err.value.kind == kind


def test_a_pair_outside_the_mask_is_illegal():
    menu = MENU._replace(flat={k: v for k, v in MENU.flat.items() if k != ("east", "no_combat")})
    with pytest.raises(ReplyRejected) as err:
        parse_reply('{"move":"east","combat":"no_combat"}', "stop", menu)
    assert err.value.kind == "illegal"
