"""The French catalogue: compile it (at set-up) and check it is complete (in the tests).

python -m jobgrant.service.web.messages compile   # django.po -> django.mo, with polib
python -m jobgrant.service.web.messages check     # exit 1 on an untranslated or fuzzy message
"""

from __future__ import annotations

import sys
from pathlib import Path

import polib  # type: ignore[import-untyped]

CATALOGUE = Path(__file__).parent / "locale" / "fr" / "LC_MESSAGES" / "django.po"


def problems(path: Path = CATALOGUE) -> list[str]:
    """Every untranslated, fuzzy or obsolete message of the catalogue."""
    catalogue = polib.pofile(str(path))
    found = [f"untranslated: {e.msgid!r}" for e in catalogue.untranslated_entries()]
    found += [f"fuzzy: {e.msgid!r}" for e in catalogue.fuzzy_entries()]
    found += [f"obsolete: {e.msgid!r}" for e in catalogue.obsolete_entries()]
    if catalogue.metadata_is_fuzzy:
        found.append("the catalogue's header is marked fuzzy")
    for field in ("Content-Type", "Plural-Forms", "Language"):
        if field not in catalogue.metadata:  # e.g. "Plural-Forms\u00a0:", which gettext ignores
            found.append(f"the catalogue's header has no {field!r} field")
    return found


def compile_catalogue(path: Path = CATALOGUE) -> Path:
    target = path.with_suffix(".mo")
    polib.pofile(str(path)).save_as_mofile(str(target))
    return target


def main(argv: list[str]) -> int:
    if argv[1:] == ["compile"]:
        sys.stdout.write(f"compiled {compile_catalogue()}\n")
        return 0
    if argv[1:] == ["check"]:
        found = problems()
        sys.stdout.writelines(f"{problem}\n" for problem in found)
        return 1 if found else 0
    sys.stdout.write(__doc__ or "")
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
