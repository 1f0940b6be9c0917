"""The words of a refused ranking or override, in `service.refusals`' style.

They are added to `refusals.WORDINGS` when this module is imported (by the ranking's actions,
which the application actions and every page and API operation on rankings import)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from jobgrant.service.errors import ServiceError
from jobgrant.service.refusals import WORDINGS, Wording, refused

RANKING_WORDINGS: dict[str, Wording] = {
    "INTAKE_NOT_RANKABLE": Wording(
        gettext_lazy("This intake cannot be ranked"),
        gettext_lazy(
            "Only a closed intake of a stream that ranks its applications can be ranked; this "
            "one is now “%(state)s”. A ranking, once made, is never made again."
        ),
    ),
    "INTAKE_ALREADY_RANKED": Wording(
        gettext_lazy("This intake is already ranked"),
        gettext_lazy(
            "It was ranked on %(date)s. A ranking, once made, is never made again: its files "
            "keep their places."
        ),
    ),
    "SCORING_UNKNOWN": Wording(
        gettext_lazy("The stream names no known scoring criteria"),
        gettext_lazy(
            "The stream's scoring criteria “%(scoring)s” are not among the rules' criteria sets, "
            "so its intake cannot be ranked. Name a known criteria set on the stream."
        ),
    ),
    "INTAKE_NOT_RANKED": Wording(
        gettext_lazy("The intake is not ranked yet"),
        gettext_lazy(
            "This application belongs to an intake that is ranked when it closes. It can be "
            "approved once the intake is ranked, in the order of the ranking."
        ),
    ),
    "OUT_OF_RANK_NOT_SIGNED_OFF": Wording(
        gettext_lazy("This decision goes against the ranking"),
        gettext_lazy(
            "This application is ranked %(rank)s, %(side)s the cut-off of its intake. To "
            "%(decision)s it, ask for an override with a written reason; a program manager must "
            "sign it off before the decision can be taken."
        ),
    ),
    "IN_RANK": Wording(
        gettext_lazy("No override is needed"),
        gettext_lazy(
            "This decision follows the ranking: the application is ranked %(rank)s, %(side)s the "
            "cut-off. Take the decision itself."
        ),
    ),
    "NOT_RANKED": Wording(
        gettext_lazy("This application is not ranked"),
        gettext_lazy("Only an application of a ranked intake can be decided against its rank."),
    ),
    "OVERRIDE_ALREADY_OPEN": Wording(
        gettext_lazy("An override is already open for this application"),
        gettext_lazy(
            "Override %(id)s on this application is still open. It must be signed off or "
            "refused before another is asked for."
        ),
    ),
    "OVERRIDE_NOT_AWAITING": Wording(
        gettext_lazy("This override is not awaiting a sign-off"),
        gettext_lazy(
            "Only an override awaiting a sign-off can be signed off or refused; this one is "
            "now “%(state)s”."
        ),
    ),
    "SIGN_OFF_BY_ANOTHER": Wording(
        gettext_lazy("A second person must sign this off"),
        gettext_lazy(
            "You asked for this override. The sign-off must come from a second person: a "
            "program manager or an administrator."
        ),
    ),
}
WORDINGS.update(RANKING_WORDINGS)


ABOVE = gettext_lazy("above")
BELOW = gettext_lazy("below")
DECISION_VERBS = {"approve": gettext_lazy("approve"), "deny": gettext_lazy("deny")}


def side_of(rank: object) -> object:
    """Where a rank stands against the cut-off, as a page says it (lazy, in each language)."""
    return ABOVE if getattr(rank, "within_budget", False) else BELOW


def override_not_found() -> ServiceError:
    return ServiceError(404, "NOT_FOUND", "No such override.", "Aucune dérogation de ce genre.")


def intake_not_found() -> ServiceError:
    return ServiceError(404, "NOT_FOUND", "No such intake.", "Aucun appel de demandes de ce genre.")


__all__ = ["refused"]
