"""The course an application funds (training.course): kept with the application as sent, checked
by the rules kernel, and of no weight in any figure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.conftest import applications, changes_audited
from tests.personas import EMPLOYER

from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions

pytestmark = pytest.mark.django_db
Body = Callable[..., dict[str, Any]]


def with_course(make_body: Body, course: Any) -> dict[str, Any]:
    body = make_body()
    body["training"]["course"] = course
    return body


def test_the_course_is_stored_with_the_application_and_changes_no_figure(
    make_body: Body,
) -> None:
    without = actions.create_application(EMPLOYER.get(), make_body())
    course = actions.create_application(
        EMPLOYER.get(), with_course(make_body, "CNC machining certificate")
    )
    assert course.request["training"]["course"] == "CNC machining certificate"
    assert course.quote == without.quote


@pytest.mark.parametrize(
    ("course", "english", "french"),
    [
        ("", "must not be blank", "ne doit pas être vide"),
        ("x" * 201, "must have at most 200 characters", "doit compter au plus 200 caractères"),
        (
            "CNC\x07machining",
            "must not contain control characters",
            "ne doit pas contenir de caractères de contrôle",
        ),
        (["CNC"], "must be text", "doit être du texte"),
    ],
)
def test_a_bad_course_is_refused_naming_the_field_and_nothing_is_written(
    make_body: Body, course: Any, english: str, french: str
) -> None:
    entries_before = changes_audited()
    with pytest.raises(ServiceError) as refused:
        actions.create_application(EMPLOYER.get(), with_course(make_body, course))
    assert refused.value.status == 422
    assert refused.value.problems == [
        {"field": "training.course", "message_en": english, "message_fr": french}
    ]
    assert applications().count() == 0
    assert changes_audited() == entries_before
