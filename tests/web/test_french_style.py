"""French typography and words in the French catalogue: one word for a trainee ("personne en
formation"), a no-break space before a colon, and no phrase the review found wrong."""

from __future__ import annotations

import re

import polib  # type: ignore[import-untyped]

from jobgrant.service.language import labelled
from jobgrant.service.web.messages import CATALOGUE

NO_BREAK = "\u00a0\u202f"


def translations() -> list[str]:
    found = []
    for entry in polib.pofile(str(CATALOGUE)):
        found += [entry.msgstr, *entry.msgstr_plural.values()]
    return [text for text in found if text]


def test_a_colon_in_french_has_a_no_break_space_before_it() -> None:
    wrong = [t for t in translations() if re.search(rf"[^{NO_BREAK}]:(\s|$)", t)]
    assert not wrong, wrong[:10]


def test_a_trainee_is_a_personne_en_formation_throughout() -> None:
    other_words = re.compile(r"\b(stagiaires?|participante?s?|apprenante?s?)\b", re.IGNORECASE)
    wrong = [t for t in translations() if other_words.search(t)]
    assert not wrong, wrong[:10]


def test_no_phrase_found_wrong_is_left() -> None:
    assert not [t for t in translations() if "telle que remplie" in t]


def test_a_label_and_its_text_follow_the_page_language() -> None:
    from django.utils import translation

    with translation.override("fr"):
        assert labelled("Pourquoi", "abandon") == "Pourquoi\u00a0: abandon"
    with translation.override("en"):
        assert labelled("Why", "dropped out") == "Why: dropped out"
