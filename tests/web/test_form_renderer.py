"""The form renderer writes select boxes in Python (web/form_renderer.py): the same HTML as
Django's templates, for every kind of select and value, in both languages."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms
from django.conf import settings
from django.forms.renderers import DjangoTemplates
from django.utils import translation
from django.utils.translation import gettext_lazy

from jobgrant.service.web.form_renderer import QuickSelects

CHOICES: list[Any] = [
    ("", gettext_lazy("Any")),
    ("a", "A & <b>"),
    ('Group "g"', [("g1", "G1"), ("g2", "L'été")]),
    (3, 3),
]
WIDGETS = {
    "select": forms.Select(choices=CHOICES),
    "with attributes": forms.Select(
        choices=CHOICES,
        attrs={"aria-describedby": "id_x_helptext", "required": True, "disabled": False},
    ),
    "multiple": forms.SelectMultiple(choices=CHOICES),
    "yes or no": forms.NullBooleanSelect(),
    "empty": forms.Select(choices=[]),
}
VALUES: list[Any] = ["", "a", "g2", "3", 3, None, ["a", "g1"], True, False, "<x>"]


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("kind", WIDGETS)
def test_a_select_is_written_as_django_writes_it(kind: str, language: str) -> None:
    widget = WIDGETS[kind]
    with translation.override(language):
        for value in VALUES:
            if kind == "yes or no" and isinstance(value, list):
                continue  # not a value it takes
            expected = widget.render("x", value, {"id": "id_x"}, DjangoTemplates())
            assert widget.render("x", value, {"id": "id_x"}, QuickSelects()) == expected


def test_the_service_renders_forms_with_it() -> None:
    assert settings.FORM_RENDERER == "jobgrant.service.web.form_renderer.QuickSelects"
    field = forms.ChoiceField(choices=CHOICES)
    bound = forms.Form().__class__(data={"x": "a"})
    bound.fields["x"] = field
    assert '<option value="a" selected>A &amp; &lt;b&gt;</option>' in str(bound["x"])
