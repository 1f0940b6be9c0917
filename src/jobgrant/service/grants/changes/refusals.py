"""The words of a refused change request, defined once, in `service.refusals`' style.

They are added to `refusals.WORDINGS` when this module is imported (by `change_actions`,
which every page and API operation on change requests imports),
so that `refusals.shown` reads them like any other; kept here so that the branches adding
refusals of their own do not all edit one dictionary.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from jobgrant.service.errors import ServiceError
from jobgrant.service.refusals import WORDINGS, Wording, refused

CHANGE_WORDINGS: dict[str, Wording] = {
    "CHANGE_ALREADY_OPEN": Wording(
        gettext_lazy("A change request is already awaiting a decision"),
        gettext_lazy(
            "Change request %(id)s on this agreement is still awaiting a decision. Only one "
            "change request can be open at a time: wait for its decision, then ask again."
        ),
    ),
    "CLAIM_UNDER_ASSESSMENT": Wording(
        gettext_lazy("A claim is being assessed"),
        gettext_lazy(
            "A claim on this agreement is under assessment. No change can be asked for until "
            "the claim is decided."
        ),
    ),
    "AGREEMENT_NOT_CHANGEABLE": Wording(
        gettext_lazy("This agreement cannot be changed now"),
        gettext_lazy("Only an accepted agreement can be changed; this one is now “%(state)s”."),
    ),
    "NO_AGREEMENT": Wording(
        gettext_lazy("This application has no agreement"),
        gettext_lazy("Only an approved application has an agreement that can be changed."),
    ),
    "CHANGE_NOT_ELIGIBLE": Wording(
        gettext_lazy("The change would make the training ineligible"),
        gettext_lazy(
            "With this change, the training would not meet the eligibility rules: %(reasons)s"
        ),
    ),
    "REQUESTER_DECIDES": Wording(
        gettext_lazy("Another person must decide this change"),
        gettext_lazy(
            "You asked for this change. To keep duties separate, the person who asks for a "
            "change cannot also decide it."
        ),
    ),
}

CHANGE_TRANSITIONS = {
    "approve_change": gettext_lazy(
        "Only a change request awaiting a decision can be approved; this one is now “%(state)s”."
    ),
    "deny_change": gettext_lazy(
        "Only a change request awaiting a decision can be denied; this one is now “%(state)s”."
    ),
}

WORDINGS.update(CHANGE_WORDINGS)


def illegal_change_transition(action: str, state: str, state_label: object) -> ServiceError:
    """A 409 ILLEGAL_TRANSITION for a change request (the application's own sentences stay the
    application workflow's, in refusals.ILLEGAL_TRANSITIONS)."""
    return refused(
        409,
        "ILLEGAL_TRANSITION",
        lambda: {"state": state_label},
        text=CHANGE_TRANSITIONS[action],
        extra={"state": state},
    )


def change_not_found() -> ServiceError:
    return ServiceError(
        404, "NOT_FOUND", "No such change request.", "Aucune demande de modification de ce genre."
    )
