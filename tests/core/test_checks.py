"""The field checker (`marl_bgs.core.checks`): what each check accepts, what it returns, and
that every refusal names the field and has the type that says what was wrong (a wrong type
is `FieldTypeError`, also a `ValueError`; a right type with a wrong value is `ValueError`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from marl_bgs.core import checks
from marl_bgs.core.checks import FieldTypeError


@contextmanager
def refused(kind: type, text: str) -> Iterator[None]:
    """The block raises `kind` with `text` in its message; a refusal of a value (`kind`
    ValueError) must not be a FieldTypeError, which says the type was wrong."""
    with pytest.raises(ValueError) as err:
        yield
    assert isinstance(err.value, kind), type(err.value)
    assert kind is FieldTypeError or not isinstance(err.value, FieldTypeError), err.value
    assert text in str(err.value), str(err.value)


def test_field_type_error_is_both_a_type_error_and_a_value_error():
    assert issubclass(FieldTypeError, TypeError) and issubclass(FieldTypeError, ValueError)


# --- whole ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 47, -3, np.int32(47), np.int64(47), np.uint8(47)])
def test_whole_accepts_python_and_numpy_integers_as_int(value):
    got = checks.whole(value, "n")
    assert got == int(value) and type(got) is int


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 47.0, np.float32(1), "47", None])
def test_whole_refuses_bools_floats_and_strings_naming_the_field(value):
    with refused(FieldTypeError, f"map_id: expected a whole number, got {value!r}"):
        checks.whole(value, "map_id")


@pytest.mark.parametrize(
    "value, lo, hi, message",
    [
        (0, 1, None, "count: 0 must be at least 1"),
        (11, None, 10, "count: 11 must be at most 10"),
        (11, 1, 10, "count: 11 is out of range [1, 10]"),
        (0, 1, 10, "count: 0 is out of range [1, 10]"),
    ],
)
def test_whole_out_of_range_is_a_value_error_naming_the_bounds(value, lo, hi, message):
    with refused(ValueError, message):
        checks.whole(value, "count", lo, hi)


def test_whole_bounds_are_inclusive():
    assert checks.whole(1, "n", 1, 10) == 1
    assert checks.whole(10, "n", 1, 10) == 10


def test_long_values_are_shortened_in_messages():
    # repr of "x" * 100 is 102 characters: the message keeps its first 57, then "...".
    value = "x" * 100
    with pytest.raises(FieldTypeError) as err:
        checks.whole(value, "n")
    assert str(err.value) == "n: expected a whole number, got '" + "x" * 56 + "..."


# --- number and thousandths ----------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [(3, 3.0), (2.5, 2.5), (np.float32(0.5), 0.5), (np.int64(-4), -4.0), (2**53, 2.0**53)],
)
def test_number_accepts_finite_numbers_as_float(value, expected):
    got = checks.number(value, "x")
    assert got == expected and type(got) is float


@pytest.mark.parametrize("value", [True, np.bool_(False), "1.5", None, [1.0]])
def test_number_refuses_non_numbers(value):
    with refused(FieldTypeError, "teams[0].agents[1].x: expected a number"):
        checks.number(value, "teams[0].agents[1].x")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), np.float32("nan")])
def test_number_refuses_nan_and_infinities(value):
    with refused(ValueError, "y: must be finite"):
        checks.number(value, "y")


def test_number_refuses_integers_past_float_precision():
    # 2**53 + 1 is the first whole number a float64 cannot hold.
    with refused(ValueError, f"h: {2**53 + 1} is too large"):
        checks.number(2**53 + 1, "h")


@pytest.mark.parametrize(
    "value, lo, hi, message",
    [
        (-0.5, 0, None, "r: -0.5 must be at least 0"),
        (10.5, None, 10, "r: 10.5 must be at most 10"),
        (10.5, 0, 10, "r: 10.5 must lie in [0, 10]"),
    ],
)
def test_number_out_of_range(value, lo, hi, message):
    with refused(ValueError, message):
        checks.number(value, "r", lo, hi)


@pytest.mark.parametrize(
    "value, milli",
    [
        (1.234, 1234),
        (0.1, 100),  # 0.1 * 1000 = 100.00000000000001 in float64: within the tolerance
        (-2.5, -2500),
        (19.5, 19500),
        (0.001, 1),
        (99999.999, 99999999),
    ],
)
def test_thousandths_on_the_grid(value, milli):
    got = checks.thousandths(value, "x")
    assert got == milli and type(got) is int


@pytest.mark.parametrize("value", [1.2345, 0.0005, 5.0001])
def test_thousandths_refuses_a_fourth_decimal(value):
    with refused(ValueError, f"x: {value} has more than three decimals"):
        checks.thousandths(value, "x")


# --- boolean, choice, string, mapping --------------------------------------------------------


def test_boolean_takes_true_and_false_only():
    assert checks.boolean(True, "b") is True
    assert checks.boolean(np.bool_(False), "b") is False
    for value in ("false", 0, 1, None):
        with refused(FieldTypeError, f"alive: expected true or false, got {value!r}"):
            checks.boolean(value, "alive")


def test_choice_names_the_options():
    options = ("mage", "warrior")
    assert checks.choice("mage", "class", options) == "mage"
    with refused(FieldTypeError, "rosters[0][2]: expected one of mage, warrior, got 3"):
        checks.choice(3, "rosters[0][2]", options)
    with refused(ValueError, "rosters[0][2]: unknown class 'paladin'; known: mage, warrior"):
        checks.choice("paladin", "rosters[0][2]", options, what="class")


def test_string_and_its_length():
    assert checks.string("abc", "name", most=3) == "abc"
    with refused(ValueError, "name: longer than 3 characters"):
        checks.string("abcd", "name", most=3)
    with refused(FieldTypeError, "name: expected a string, got b'abc'"):
        checks.string(b"abc", "name")


def test_mapping_takes_dicts_only():
    assert checks.mapping({"a": 1}, "m") == {"a": 1}
    with refused(FieldTypeError, "m: expected an object, got [('a', 1)]"):
        checks.mapping([("a", 1)], "m")


# --- sequence and one_or_many ----------------------------------------------------------------


def test_sequence_takes_lists_and_tuples_as_a_list():
    got = checks.sequence((1, 2), "s")
    assert got == [1, 2] and type(got) is list


@pytest.mark.parametrize("value", ["ab", b"ab", {"a": 1}, {1, 2}, 5])
def test_sequence_refuses_strings_mappings_and_sets(value):
    with refused(FieldTypeError, "rosters: expected a list"):
        checks.sequence(value, "rosters")


@pytest.mark.parametrize(
    "value, lo, hi, message",
    [
        ([1], 2, 2, "rosters: expected 2 items, got 1"),
        ([], 1, 5, "rosters: expected 1 to 5 items, got 0"),
        ([1] * 6, 1, 5, "rosters: expected 1 to 5 items, got 6"),
        ([], 1, None, "rosters: expected at least 1 items, got 0"),
    ],
)
def test_sequence_length_messages(value, lo, hi, message):
    with refused(ValueError, message):
        checks.sequence(value, "rosters", lo, hi)


def test_one_or_many():
    assert checks.one_or_many(7, "seed") == ([7], False)
    assert checks.one_or_many([7, 8], "seed") == ([7, 8], True)
    with refused(ValueError, "seed: expected at least 1 items, got 0"):
        checks.one_or_many([], "seed")


# --- fields -------------------------------------------------------------------------------


def test_fields_names_the_unknown_and_the_missing_key():
    ok = {"a": 1, "b": 2}
    assert checks.fields(ok, "top", ["a"], ["b"]) is ok
    with refused(ValueError, "top.c: unknown key"):
        checks.fields({"a": 1, "c": 3}, "top", ["a"], ["b"])
    with refused(ValueError, "top.a: required"):
        checks.fields({"b": 2}, "top", ["a"], ["b"])
    with refused(ValueError, "frames[3].x: unknown field"):
        checks.fields({"a": 1, "x": 0}, "frames[3]", ["a"], word="field")
    with refused(FieldTypeError, "top: expected an object"):
        checks.fields([], "top", ["a"])


# --- plain_json and strict_json ----------------------------------------------------------


def nested(depth: int):
    """A list nested `depth` levels below the top (depth 0: a bare number)."""
    value = 0
    for _ in range(depth):
        value = [value]
    return value


def test_plain_json_depth_limit():
    # The innermost number of nested(3) sits at depth 3: allowed with max_depth 3, not 2.
    value = nested(3)
    assert checks.plain_json(value, "doc", max_depth=3) is value
    with refused(ValueError, "doc: nested more than 2 levels deep"):
        checks.plain_json(value, "doc", max_depth=2)


def test_plain_json_size_limit():
    # {"a": [1, 2, 3]} is 5 values: the dict, the list and three numbers.
    value = {"a": [1, 2, 3]}
    assert checks.plain_json(value, "doc", max_items=5) is value
    with refused(ValueError, "doc: more than 4 values"):
        checks.plain_json(value, "doc", max_items=4)


def test_plain_json_walks_a_deep_structure_without_recursion():
    with refused(ValueError, "doc: nested more than 24 levels deep"):
        checks.plain_json(nested(100_000), "doc")


def test_strict_json_reads_text_and_utf8_bytes():
    assert checks.strict_json('{"a": [1, 2.5, "é"]}', "f") == {"a": [1, 2.5, "é"]}
    assert checks.strict_json('{"a": "é"}'.encode(), "f") == {"a": "é"}


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbf{}",  # UTF-8 with a byte-order mark
        b"\xff\xfe" + '{"a": 1}'.encode("utf-16-le"),
        b"\xfe\xff" + '{"a": 1}'.encode("utf-16-be"),
    ],
)
def test_strict_json_names_a_byte_order_mark(data):
    with refused(ValueError, "replay.json: starts with a byte-order mark"):
        checks.strict_json(data, "replay.json")


def test_strict_json_refuses_bytes_that_are_not_utf8_naming_the_byte():
    # b'{"a": "' is 7 bytes: the bad byte 0xff is byte 7 (counting from 0).
    with refused(ValueError, "f: not UTF-8 text (byte 7)"):
        checks.strict_json(b'{"a": "\xff"}', "f")


def test_strict_json_refuses_a_key_twice():
    with refused(ValueError, "f: the key 'a' appears twice in one object"):
        checks.strict_json('{"a": 1, "a": 2}', "f")


@pytest.mark.parametrize(
    "text, where",
    [
        ('{"obstacles": [{}, {"theta": NaN}]}', "obstacles[1].theta"),
        ("[1, 2, Infinity]", "[2]"),
        ("-Infinity", "(the document)"),
    ],
)
def test_strict_json_names_where_a_nan_or_infinity_stands(text, where):
    with refused(ValueError, f"map.json: {where}: "):
        checks.strict_json(text, "map.json")


def test_strict_json_names_line_and_column_of_a_syntax_error():
    # Line 2 is '  "a": ' and the value is missing at column 8, where the '}' stands.
    with refused(ValueError, "f: not valid JSON (Expecting value at line 2, column 8;"):
        checks.strict_json('{\n  "a": }', "f")


def test_strict_json_survives_deep_nesting_and_huge_integers():
    with refused(ValueError, "f: nested too deeply"):
        checks.strict_json("[" * 100_000 + "]" * 100_000, "f")
    with pytest.raises(ValueError, match=r"^f: "):  # Python refuses ints over 4300 digits
        checks.strict_json("9" * 5000, "f")


def test_strict_json_raises_the_error_type_asked_for():
    class ReplayError(ValueError):
        pass

    with pytest.raises(ReplayError, match=re.escape("r: the key 'k' appears twice")):
        checks.strict_json('{"k": 1, "k": 1}', "r", error=ReplayError)


def test_a_numpy_integer_past_two_to_the_53_is_refused_like_a_python_one():
    # float64 holds every integer up to 2^53 exactly; 2^53 + 1 would be rounded silently
    with pytest.raises(ValueError, match="x: 9007199254740993 is too large"):
        checks.number(np.int64(2**53 + 1), "x")
    with pytest.raises(ValueError, match="too large"):
        checks.number(np.uint64(2**64 - 1), "x")
    assert checks.number(np.int64(2**53), "x") == 2.0**53  # the last exact one passes
