"""A sentence writes its date in words in the page's language ("submitted on December 1, 2026",
"soumis le 1er décembre 2026"), never as an ISO date (tables and machine-readable attributes
may keep ISO)."""

from __future__ import annotations

import re
from pathlib import Path

SERVICE = Path(__file__).parents[2] / "src" / "jobgrant" / "service"
#: A value given to a translated sentence and formatted by Django's date filter.
ISO_IN_SENTENCE = re.compile(r"{%\s*blocktranslate[^%]*\|date:")


def test_no_translated_sentence_formats_its_date_as_iso() -> None:
    found = [
        f"{path.relative_to(SERVICE)}:{number}"
        for path in sorted(SERVICE.rglob("*.html"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ISO_IN_SENTENCE.search(line)
    ]
    assert found == []
