"""The stream an application is made to: where a program has several streams open on the day
(Ontario's first-come grant and its ranked selection, say), the employer chooses one, by its id
or its code, in the body's `stream`; where only one is open, that one needs no choosing.

Each refusal is a 422 naming `stream` in English and French; nothing is written.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.models.applications import Intake, Stream

#: The application body's field naming the stream: an id (a whole number) or a code (text).
STREAM = "stream"
CODE_MAX = Stream._meta.get_field("code").max_length or 32
#: Ids are the database's 64-bit integers (api.schemas.MAX_DATABASE_ID).
ID_MAX = 2**63 - 1


def stream_problems(payload: dict[str, Any]) -> list[dict[str, str]]:
    """What is wrong with the shape of the body's `stream` (absent or null: nothing)."""
    value = payload.get(STREAM)
    if value is None:
        return []
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= ID_MAX:
        return []
    if isinstance(value, str) and 0 < len(value) <= CODE_MAX:
        return []
    return [
        problem(
            STREAM,
            f"must be a stream's id (a whole number from 1) or its code (text of 1 to {CODE_MAX}"
            " characters)",
            f"doit être le numéro d'un volet (un nombre entier à partir de 1) ou son code (un"
            f" texte de 1 à {CODE_MAX} caractères)",
        )
    ]


def chosen_intake(open_intakes: list[Intake], chosen: object, received: dt.date) -> Intake:
    """The open intake of the stream `chosen` names (its id or code), or of the only stream
    open when none is named; 422 naming `stream` otherwise. `open_intakes`: the program's
    intakes open on `received`, at least one, one per stream."""
    if chosen is None:
        if len(open_intakes) == 1:
            return open_intakes[0]
        raise bad_input([_choose_one(open_intakes, received)])
    if isinstance(chosen, str):
        matching = [i for i in open_intakes if i.stream.code == chosen]
        if len(matching) > 1:
            raise bad_input([_ambiguous_code(chosen, matching)])
    else:
        matching = [i for i in open_intakes if i.stream_id == chosen]
    if not matching:
        raise bad_input([_not_open(open_intakes, received)])
    return matching[0]


def _listed(intakes: list[Intake], language: str) -> str:
    names = (
        f"{i.stream_id} ({i.stream.name_en if language == 'en' else i.stream.name_fr})"
        for i in intakes
    )
    return "; ".join(names)


def _choose_one(intakes: list[Intake], received: dt.date) -> dict[str, str]:
    day = received.isoformat()
    return problem(
        STREAM,
        f"is required: {len(intakes)} streams take applications on {day}; give the id of one"
        f" of them: {_listed(intakes, 'en')}",
        f"est obligatoire\u00a0: {len(intakes)} volets reçoivent des demandes le {day}; donnez le"
        f" numéro de l'un d'eux\u00a0: {_listed(intakes, 'fr')}",
    )


def _ambiguous_code(code: str, intakes: list[Intake]) -> dict[str, str]:
    return problem(
        STREAM,
        f"names {len(intakes)} open streams by the code {code}; give the id of one of them:"
        f" {_listed(intakes, 'en')}",
        f"désigne {len(intakes)} volets ouverts par le code {code}; donnez le numéro de l'un"
        f" d'eux\u00a0: {_listed(intakes, 'fr')}",
    )


def _not_open(intakes: list[Intake], received: dt.date) -> dict[str, str]:
    day = received.isoformat()
    return problem(
        STREAM,
        f"names no stream of the program taking applications on {day}; the open ones:"
        f" {_listed(intakes, 'en')}",
        f"ne désigne aucun volet du programme qui reçoit des demandes le {day}; les volets"
        f" ouverts\u00a0: {_listed(intakes, 'fr')}",
    )
