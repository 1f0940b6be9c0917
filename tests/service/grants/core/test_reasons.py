"""One reason check (grants/core/input.py): every reason an officer or an employer types is text,
trimmed, required unless the decision may go without one, not too long, and free of anything that
looks like a SIN, each field keeping its own sentences."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import jobgrant.service.grants
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.actions import DECLINE_REASON, WITHDRAWAL_REASON
from jobgrant.service.grants.applications.actions import DENIAL_REASON
from jobgrant.service.grants.changes.actions import DECISION_REASON
from jobgrant.service.grants.claims.input import CLAIM_REASON
from jobgrant.service.grants.core.input import ReasonRule, Words, checked_reason
from jobgrant.service.grants.intakes.input import CLOSING_REASON
from jobgrant.service.grants.integrity.actions import CLEAR_REASON
from jobgrant.service.grants.payments.holds import HOLD_REASON
from jobgrant.service.grants.payments.recovery import RECEIVABLE_REASON
from jobgrant.service.grants.ranking.actions import OVERRIDE_REASON

A_SIN = "Trainee 046 454 286 left."
PLAIN_SIN = (
    "must not contain a social insurance number",
    "ne doit pas contenir de numéro d'assurance sociale",
)
#: Each field's rule, with the words it answers: (missing, too long, holds a SIN), as the API has
#: always answered them.
EVERY_RULE: dict[str, tuple[ReasonRule, int | None, Words, Words, Words]] = {
    "decline an offer": (
        DECLINE_REASON,
        2000,
        ("is required to decline the offer", "est obligatoire pour refuser l'offre"),
        ("must be at most 2000 characters", "doit compter au plus 2000 caractères"),
        PLAIN_SIN,
    ),
    "withdraw an offer": (
        WITHDRAWAL_REASON,
        2000,
        ("is required to withdraw the offer", "est obligatoire pour retirer l'offre"),
        ("must be at most 2000 characters", "doit compter au plus 2000 caractères"),
        PLAIN_SIN,
    ),
    "deny an application": (
        DENIAL_REASON,
        None,
        ("is required to deny", "est obligatoire pour refuser"),
        ("", ""),
        (
            "must not contain a social insurance number: it is sent to the applicant",
            "ne doit pas contenir de numéro d'assurance sociale : il est envoyé au demandeur",
        ),
    ),
    "decide a change": (
        DECISION_REASON,
        4000,
        ("is required to deny", "est obligatoire pour refuser"),
        ("must have at most 4000 characters", "doit compter au plus 4000 caractères"),
        PLAIN_SIN,
    ),
    "assess a claim": (
        CLAIM_REASON,
        4000,
        ("is required", "est obligatoire"),
        ("must have at most 4000 characters", "doit compter au plus 4000 caractères"),
        PLAIN_SIN,
    ),
    "hold a payment": (
        HOLD_REASON,
        2000,
        ("is required (1 to 2000 characters)", "est obligatoire (1 à 2000 caractères)"),
        ("is required (1 to 2000 characters)", "est obligatoire (1 à 2000 caractères)"),
        PLAIN_SIN,
    ),
    "raise or write off a receivable": (
        RECEIVABLE_REASON,
        2000,
        (
            "is required (1 to 2000 characters): the employer reads it",
            "est obligatoire (1 à 2000 caractères) : l'employeur la lit",
        ),
        (
            "is required (1 to 2000 characters): the employer reads it",
            "est obligatoire (1 à 2000 caractères) : l'employeur la lit",
        ),
        (
            "must not contain a social insurance number: it is sent to the employer",
            "ne doit pas contenir de numéro d'assurance sociale : il est envoyé à l'employeur",
        ),
    ),
    "close an intake early": (
        CLOSING_REASON,
        2000,
        ("is required to close an intake early", "est obligatoire pour fermer un appel tôt"),
        ("must have at most 2000 characters", "doit compter au plus 2000 caractères"),
        PLAIN_SIN,
    ),
    "clear a risk flag": (
        CLEAR_REASON,
        2000,
        (
            "is required to clear a flag: say what you checked",
            "est obligatoire pour lever un signalement : dites ce que vous avez vérifié",
        ),
        ("must have at most 2000 characters", "doit compter au plus 2000 caractères"),
        PLAIN_SIN,
    ),
    "ask to decide against the ranking": (
        OVERRIDE_REASON,
        4000,
        (
            "is required: say why the decision goes against the ranking",
            "est obligatoire : dites pourquoi la décision va à l'encontre du classement",
        ),
        ("must have at most 4000 characters", "doit compter au plus 4000 caractères"),
        PLAIN_SIN,
    ),
}


def refusal(
    raw: object, rule: ReasonRule, *, required: bool = True, path: str = "reason"
) -> list[tuple[str, str, str]]:
    with pytest.raises(ServiceError) as refused:
        checked_reason(raw, rule, required=required, path=path)
    assert refused.value.status == 422 and refused.value.code == "INVALID_INPUT"
    return [(p["field"], p["message_en"], p["message_fr"]) for p in refused.value.problems]


@pytest.mark.parametrize("field", EVERY_RULE)
def test_a_reason_is_trimmed(field: str) -> None:
    assert checked_reason("  The course was cancelled.\n", EVERY_RULE[field][0]) == (
        "The course was cancelled."
    )


@pytest.mark.parametrize("field", EVERY_RULE)
@pytest.mark.parametrize("blank", [None, "", "   \n"])
def test_a_missing_reason_is_refused_in_the_fields_own_words(field: str, blank: object) -> None:
    rule, _, missing, _, _ = EVERY_RULE[field]
    assert refusal(blank, rule) == [("reason", *missing)]


@pytest.mark.parametrize("field", EVERY_RULE)
def test_a_reason_longer_than_the_fields_maximum_is_refused_in_its_own_words(field: str) -> None:
    rule, most, _, too_long, _ = EVERY_RULE[field]
    assert rule.most == most
    if most is None:
        assert checked_reason("x" * 100_000, rule) == "x" * 100_000
        return
    assert checked_reason("x" * most, rule) == "x" * most
    assert refusal("x" * (most + 1), rule) == [("reason", *too_long)]


@pytest.mark.parametrize("field", EVERY_RULE)
def test_a_reason_that_holds_a_sin_is_refused_in_the_fields_own_words(field: str) -> None:
    rule, _, _, _, holds_sin = EVERY_RULE[field]
    assert refusal(A_SIN, rule) == [("reason", *holds_sin)]


@pytest.mark.parametrize("field", EVERY_RULE)
def test_a_reason_that_is_not_text_is_refused(field: str) -> None:
    assert refusal(12, EVERY_RULE[field][0]) == [("reason", "must be text", "doit être du texte")]


def test_a_reason_that_may_be_left_out_is_empty_and_names_its_own_path() -> None:
    assert checked_reason(None, CLAIM_REASON, required=False) == ""
    assert checked_reason("  ", CLAIM_REASON, required=False) == ""
    assert refusal(A_SIN, CLAIM_REASON, required=False, path="lines[2].reason") == [
        ("lines[2].reason", *PLAIN_SIN)
    ]


def test_every_problem_of_a_reason_is_named_at_once() -> None:
    too_long_with_a_sin = A_SIN + "x" * 4000
    assert [message for _, message, _ in refusal(too_long_with_a_sin, CLAIM_REASON)] == [
        PLAIN_SIN[0],
        "must have at most 4000 characters",
    ]


def test_every_reason_rule_of_the_grant_is_in_the_table_above() -> None:
    """A new kind of reason gets its row here, so that its words are checked too."""
    found = set()
    for module in pkgutil.walk_packages(
        jobgrant.service.grants.__path__, "jobgrant.service.grants."
    ):
        if ".migrations" in module.name:
            continue
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, ReasonRule):
                found.add(id(value))
    assert found == {id(row[0]) for row in EVERY_RULE.values()}


def test_no_module_of_the_grant_checks_a_reason_by_itself() -> None:
    """Only the one check asks whether free text looks like a SIN."""
    grants = Path(jobgrant.service.grants.__file__).parent
    the_one = grants / "core" / "input.py"
    found = [
        str(path.relative_to(grants))
        for path in grants.rglob("*.py")
        if path != the_one and "looks_like_sin" in path.read_text("utf-8")
    ]
    assert not found
