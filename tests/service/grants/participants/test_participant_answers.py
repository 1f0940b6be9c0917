"""The participant form's answers as the service checks them: the equity questions may be left
blank, a SIN's problem is named for what it is, and the signature ignores accents."""

from __future__ import annotations

import datetime as dt

import pytest
from tests.participants import answers

from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.participants.form import FIELDS, check_answers

TODAY = dt.date(2027, 1, 4)
EQUITY = FIELDS[10:17]


def problems_of(typed: dict[str, str]) -> dict[str, str]:
    with pytest.raises(ServiceError) as caught:
        check_answers(typed, today=TODAY)
    return {p["field"]: p["message_en"] for p in caught.value.problems}


def test_the_equity_questions_left_blank_are_not_errors() -> None:
    blank = answers(**dict.fromkeys(EQUITY, ""))
    fields = check_answers(blank, today=TODAY)
    assert {name: fields[name] for name in EQUITY} == dict.fromkeys(EQUITY, "prefer-not-to-say")


def test_an_equity_answer_that_is_no_choice_is_still_an_error() -> None:
    assert list(problems_of(answers(gender="robot"))) == ["gender"]


def test_nine_digits_failing_the_check_are_called_not_a_valid_sin() -> None:
    found = problems_of(answers(sin="123 456 789"))["sin"]
    assert "not a valid Social Insurance Number" in found
    assert "9 digits" not in found


def test_a_sin_starting_with_0_or_8_is_not_valid_either() -> None:
    # 046 454 286 passes the check digit, but no SIN begins with 0 (nor 8).
    assert "not a valid" in problems_of(answers(sin="046 454 286"))["sin"]


def test_too_few_digits_say_how_many_were_typed() -> None:
    found = problems_of(answers(sin="130 692 54"))["sin"]
    assert "9 digits" in found and "8" in found


def test_the_signature_matches_whatever_the_accents_the_case_and_the_spaces() -> None:
    for typed in ("Amelie Tremblay", "AMÉLIE   tremblay", " amelie TREMBLAY "):
        assert check_answers(answers(consent_name=typed), today=TODAY)["consent_name"]
    assert list(problems_of(answers(consent_name="Amélie Gagnon"))) == ["consent_name"]
