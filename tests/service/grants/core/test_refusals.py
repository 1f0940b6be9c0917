"""Refusals are worded once (service.refusals): the API's messages in both languages and the
page's title and sentence come from the same translated wording."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.utils import translation

from jobgrant.service import refusals
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.workflow import TRANSITIONS
from jobgrant.service.grants.models.applications import State


@pytest.mark.parametrize("code", sorted(refusals.WORDINGS))
def test_every_refusal_has_a_title_and_a_sentence_in_each_language(code: str) -> None:
    wording = refusals.WORDINGS[code]
    with translation.override("en"):
        english = (str(wording.title), str(wording.text))
    with translation.override("fr"):
        french = (str(wording.title), str(wording.text))
    assert all(english) and all(french)
    assert english[0] != french[0] and english[1] != french[1], f"{code} is not translated"


def test_every_action_of_the_workflow_says_why_it_is_illegal() -> None:
    assert set(refusals.ILLEGAL_TRANSITIONS) == set(TRANSITIONS)


def test_the_access_check_and_the_page_give_the_same_words_in_each_language() -> None:
    officer = SimpleNamespace(pk=7)
    application = SimpleNamespace(recommended_by_id=7)
    with pytest.raises(ServiceError) as raised:
        access.check_not_recommender(officer, application)  # type: ignore[arg-type]
    error = raised.value
    assert (error.status, error.code) == (403, "SEPARATION_OF_DUTIES")
    for language in ("en", "fr"):
        with translation.override(language):
            page = refusals.shown(error)
            sentence = str(refusals.WORDINGS["SEPARATION_OF_DUTIES"].text)
            title = str(refusals.WORDINGS["SEPARATION_OF_DUTIES"].title)
        assert page["text"] == sentence == (error.message_en, error.message_fr)[language == "fr"]
        assert page["title"] == title
    assert error.message_fr.startswith("Vous avez recommandé cette demande.")


def test_a_budget_refusal_names_the_amounts_as_each_language_writes_them() -> None:
    def values() -> dict[str, object]:
        return {
            "funder": "F",
            "requested": refusals.amount(123456),
            "available": refusals.amount(5),
        }

    error = refusals.refused(409, "BUDGET_EXHAUSTED", values)
    assert "$1,234.56" in error.message_en and "$0.05" in error.message_en
    assert "1\u00a0234,56\u00a0$" in error.message_fr and "0,05\u00a0$" in error.message_fr


def test_an_illegal_transition_names_the_state_in_each_language() -> None:
    error = refusals.illegal_transition("approve", "denied", State.DENIED.label)
    assert error.extra == {"state": "denied"}
    assert error.message_en.endswith("this one is now “Denied”.")
    assert error.message_fr.endswith("à l'état «\u00a0Refusée\u00a0».")


def test_a_refusal_from_elsewhere_is_shown_with_its_own_sentence() -> None:
    error = ServiceError(409, "SOMETHING_ELSE", "It went wrong.", "Ça n'a pas marché.")
    with translation.override("fr"):
        page = refusals.shown(error)
    assert page == {
        "title": "Le service a refusé cette décision",
        "text": "Ça n'a pas marché.",
        "nothing": "Rien n'a été modifié.",
    }
