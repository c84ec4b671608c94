"""One error type for a refused value in every layer (services/fields.py), and the checks the file
readers share: what they refuse and how the refusal reads."""

from __future__ import annotations

import math
import pickle

import pytest

from tablestorm.services.engine import SEVEN_CARD_STUD, Stakes, Structure, TableOptions
from tablestorm.services.engine.phh import PhhError, PhhFormatError
from tablestorm.services.fields import FieldError, mapping, number


def test_a_field_error_reads_field_then_reason() -> None:
    error = FieldError("--duration", "must be at least 1, got 0")
    assert str(error) == "--duration: must be at least 1, got 0"
    assert (error.field, error.reason) == ("--duration", "must be at least 1, got 0")
    assert isinstance(error, ValueError)


def test_within_names_the_field_from_further_out_and_keeps_its_kind() -> None:
    assert str(FieldError("tournaments[0].name", "required").within("day.yaml: ")) == (
        "day.yaml: tournaments[0].name: required"
    )
    nested = PhhFormatError("antes", "expected 3 values").within("[2].")
    assert type(nested) is PhhFormatError and isinstance(nested, PhhError)
    assert (nested.field, nested.reason) == ("[2].antes", "expected 3 values")


@pytest.mark.parametrize("error", [FieldError("seats", "at most 8"), PhhFormatError("toml", "bad")])
def test_a_field_error_survives_pickling(error: FieldError) -> None:
    """As a Ray task's error does."""
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.field, copy.reason, str(copy)) == (type(error), error.field, error.reason, str(error))


def test_the_engine_names_the_stakes_field() -> None:
    with pytest.raises(FieldError) as caught:
        TableOptions(SEVEN_CARD_STUD, Stakes(small_bet=4, big_bet=8, bring_in=9))
    assert (caught.value.field, caught.value.reason) == ("stakes.bring_in", "must be between 1 and stakes.small_bet")
    with pytest.raises(FieldError, match=r"^structure: no_limit is not offered for Seven Card Stud$"):
        TableOptions(SEVEN_CARD_STUD, Stakes.default(4), structure=Structure.NO_LIMIT)


def test_mapping_refuses_a_non_mapping_and_names_the_first_unknown_key() -> None:
    assert mapping({"a": 1}, "x", ("a", "b")) == {"a": 1}
    with pytest.raises(FieldError, match=r"^games\[0\]: expected a mapping, got list$"):
        mapping([], "games[0]", ("game",))
    with pytest.raises(FieldError, match=r"^x\.2: unknown field \(known: a, b\)$"):
        mapping({"a": 1, "zz": 2, 2: 3}, "x", ("b", "a"))


def test_mapping_reads_an_absent_section_as_empty_only_when_optional() -> None:
    assert mapping(None, "bot_mix", ("random",), optional=True) == {}
    with pytest.raises(FieldError, match=r"^structure: expected a mapping, got NoneType$"):
        mapping(None, "structure", ("game",))


@pytest.mark.parametrize(
    ("value", "integer", "reason"),
    [
        (True, False, "expected a number, got True"),
        ("ten", False, "expected a number, got 'ten'"),
        (math.inf, False, "expected a number, got inf"),
        (math.nan, False, "expected a number, got nan"),
        (1.5, True, "expected a whole number, got 1.5"),
        (math.inf, True, "expected a whole number, got inf"),
    ],
)
def test_number_refuses_what_is_no_finite_number(value: object, integer: bool, reason: str) -> None:
    with pytest.raises(FieldError) as caught:
        number(value, "levels[0].ante", integer=integer)
    assert (caught.value.field, caught.value.reason) == ("levels[0].ante", reason)


def test_number_gives_an_int_or_a_float() -> None:
    assert number(3.0, "x", integer=True) == 3 and type(number(3.0, "x", integer=True)) is int
    assert type(number(3, "x")) is float
