"""French typography and words in the French catalogue: one word for a trainee ("personne en
formation"), one name for an intake ("appel de demandes", in the catalogue and in the code), a
no-break space before a colon, and no phrase the review found wrong."""

from __future__ import annotations

import re
from pathlib import Path

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


#: The intake's one French name is « appel de demandes »; the old name must not come back.
OLD_INTAKE_NAME = re.compile(r"p[ée]riodes?\s+de\s+r[ée]ception", re.IGNORECASE)
ROOT = Path(__file__).resolve().parents[2]


def test_an_intake_is_an_appel_de_demandes_in_the_catalogue() -> None:
    wrong = [t for t in translations() if OLD_INTAKE_NAME.search(t)]
    assert not wrong, wrong[:10]


def test_an_intake_is_an_appel_de_demandes_in_the_code_templates_and_docs() -> None:
    suffixes = {".py", ".html", ".txt", ".yaml", ".md", ".js"}
    files = [
        path
        for root in (ROOT / "src" / "jobgrant", ROOT / "docs", ROOT / "scenarios")
        for path in root.rglob("*")
        if path.suffix in suffixes and path.is_file()
    ] + [ROOT / "README.md"]
    wrong = [str(p) for p in files if OLD_INTAKE_NAME.search(p.read_text(errors="ignore"))]
    assert len(files) > 100
    assert not wrong, wrong


def test_no_phrase_found_wrong_is_left() -> None:
    assert not [t for t in translations() if "telle que remplie" in t]


def test_a_label_and_its_text_follow_the_page_language() -> None:
    from django.utils import translation

    with translation.override("fr"):
        assert labelled("Pourquoi", "abandon") == "Pourquoi\u00a0: abandon"
    with translation.override("en"):
        assert labelled("Why", "dropped out") == "Why: dropped out"
