"""The words of the completion report's and the follow-ups' refusals, in the one table of
wordings (`service.refusals`), so that the API and the pages show them as every refusal."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from jobgrant.service.errors import ServiceError
from jobgrant.service.refusals import WORDINGS, Wording, refused

OUTCOME_WORDINGS: dict[str, Wording] = {
    "NO_AGREEMENT_IN_FORCE": Wording(
        gettext_lazy("There is no agreement in force"),
        gettext_lazy(
            "A completion report is made for a file whose agreement was accepted; this one "
            "is “%(state)s”."
        ),
    ),
    "TRAINING_NOT_ENDED": Wording(
        gettext_lazy("The training has not ended yet"),
        gettext_lazy(
            "The completion report opens %(days)s days before the training ends, on "
            "%(opens)s; the training ends on %(end)s."
        ),
    ),
    "NO_COMPLETION_REPORT": Wording(
        gettext_lazy("The completion report is not started"),
        gettext_lazy("This file has no completion report yet: start it first."),
    ),
    "REPORT_SUBMITTED": Wording(
        gettext_lazy("The completion report was already submitted"),
        gettext_lazy(
            "This completion report was submitted and can no longer be changed. Contact "
            "your officer if something must be corrected."
        ),
    ),
    "OUTCOMES_MISSING": Wording(
        gettext_lazy("Some trainees have no outcome yet"),
        gettext_lazy(
            "Give the outcome of every confirmed trainee, and rate every item for every "
            "employer, before you submit: %(missing)s."
        ),
    ),
    "NO_FOLLOW_UP": Wording(
        gettext_lazy("No follow-up waits for an answer"),
        gettext_lazy(
            "There is no follow-up at %(milestone)s months waiting for your answers in this "
            "file: it was answered, it lapsed, or it was not sent yet."
        ),
    ),
    "FOLLOW_UP_LINK_NOT_FOUND": Wording(
        gettext_lazy("This link is not valid"),
        gettext_lazy(
            "This link is not valid: check that you copied the whole link from the message."
        ),
    ),
    "FOLLOW_UP_LINK_USED": Wording(
        gettext_lazy("This survey was already answered"),
        gettext_lazy(
            "Your answers were already received through this link, and it cannot be used "
            "again. Thank you for taking part."
        ),
    ),
    "FOLLOW_UP_LINK_EXPIRED": Wording(
        gettext_lazy("This survey is closed"),
        gettext_lazy(
            "This survey is closed: its time to answer is over, and it will not be sent again."
        ),
    ),
    "FOLLOW_UP_LINK_REPLACED": Wording(
        gettext_lazy("This link was replaced by a newer one"),
        gettext_lazy("A reminder brought you a newer link: use the one in the latest message."),
    ),
}
WORDINGS.update(OUTCOME_WORDINGS)


def outcome_refused(
    code: str, status: int = 409, extra: dict[str, object] | None = None, **values: object
) -> ServiceError:
    """A refusal whose sentence is filled with `values` (plain strings and numbers, or lazy
    labels rendered in each language); `extra` goes to the problem+json body."""
    return refused(status, code, (lambda: values) if values else None, extra=extra)
