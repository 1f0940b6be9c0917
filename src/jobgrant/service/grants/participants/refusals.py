"""The words of the participant refusals, in the one table of wordings (`service.refusals`), so
that the API and the pages show them as they show every refusal."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from jobgrant.service.errors import ServiceError
from jobgrant.service.refusals import WORDINGS, Wording, refused

PARTICIPANT_WORDINGS: dict[str, Wording] = {
    "NOT_APPROVED": Wording(
        gettext_lazy("Trainees are invited once the application is approved"),
        gettext_lazy(
            "Trainees can only be invited to confirm their participation in an approved "
            "application; this one is now “%(state)s”."
        ),
    ),
    "ALREADY_INVITED": Wording(
        gettext_lazy("This trainee already has an invitation"),
        gettext_lazy(
            "Trainee %(number)s already has a slot that is “%(state)s”. Re-send its link, or "
            "revoke it before inviting again."
        ),
    ),
    "PARTICIPANT_NOT_FOUND": Wording(
        gettext_lazy("No such trainee slot"),
        gettext_lazy("There is no such trainee slot in your applications."),
    ),
    "LINK_NOT_FOUND": Wording(
        gettext_lazy("This link is not valid"),
        gettext_lazy(
            "This link is not valid: check that you copied the whole link from the message, or "
            "ask your employer to send you a new one."
        ),
    ),
    "LINK_USED": Wording(
        gettext_lazy("This link has already been used"),
        gettext_lazy(
            "Your answers were already received through this link, and it cannot be used "
            "again. If something must be corrected, contact your employer."
        ),
    ),
    "LINK_EXPIRED": Wording(
        gettext_lazy("This link has expired"),
        gettext_lazy("This link has expired. Ask your employer to send you a new one."),
    ),
    "LINK_REPLACED": Wording(
        gettext_lazy("This link was replaced by a newer one"),
        gettext_lazy(
            "A newer link was sent to you by email. Use the link in the most recent message."
        ),
    ),
    "LINK_REVOKED": Wording(
        gettext_lazy("This invitation was cancelled"),
        gettext_lazy(
            "Your employer cancelled this invitation. If you think this is a mistake, contact "
            "your employer."
        ),
    ),
    "LINK_CLOSED": Wording(
        gettext_lazy("This training is no longer funded"),
        gettext_lazy(
            "The grant for this training is no longer in force, so there is nothing to "
            "confirm. Contact your employer if you have questions."
        ),
    ),
    "SIN_VIEW_NOT_ALLOWED": Wording(
        gettext_lazy("You cannot see this SIN in full"),
        gettext_lazy(
            "Viewing a Social Insurance Number in full needs its own permission, on a file you "
            "handle or audit."
        ),
    ),
}
WORDINGS.update(PARTICIPANT_WORDINGS)
PARTICIPANT_TRANSITIONS = {
    "resend": gettext_lazy(
        "Only the link of a trainee who has not answered yet can be re-sent; this slot is now "
        "“%(state)s”."
    ),
    "revoke": gettext_lazy("This slot cannot be revoked: it is now “%(state)s”."),
    "submit": gettext_lazy("This invitation has already been answered."),
}


def link_refused(code: str, status: int = 410) -> ServiceError:
    """A dead link: 404 when no invitation has this token, 410 when it was one."""
    return refused(status, code)


def illegal_participant_transition(action: str, state: str, label: object) -> ServiceError:
    return refused(
        409,
        "ILLEGAL_TRANSITION",
        lambda: {"state": label},
        text=PARTICIPANT_TRANSITIONS.get(action),
        extra={"state": state},
    )
