"""The words of a refused claim or receipt, defined once, in `service.refusals`' style.

Added to `refusals.WORDINGS` when this module is imported (by `claim_actions`, which every page
and API operation on claims imports), as `change_refusals` does for change requests.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service.errors import ServiceError
from jobgrant.service.refusals import WORDINGS, Wording, refused

CLAIM_WORDINGS: dict[str, Wording] = {
    "CLAIM_NOT_FOUND": Wording(
        gettext_lazy("There is no such claim"),
        gettext_lazy("No claim of yours has this number."),
    ),
    "AGREEMENT_NOT_CLAIMABLE": Wording(
        gettext_lazy("This agreement cannot be claimed against now"),
        gettext_lazy(
            "Claims can be made only against an accepted agreement; this one is now “%(state)s”."
        ),
    ),
    "CLAIM_BEFORE_TRAINING": Wording(
        gettext_lazy("The training has not started"),
        gettext_lazy("Claims can be made from the training's start, on %(date)s."),
    ),
    "CLAIM_ALREADY_OPEN": Wording(
        gettext_lazy("Another claim is not yet decided"),
        gettext_lazy(
            "Claim %(number)s on this file is not yet decided. Finish it, or wait for its "
            "decision, before you start another."
        ),
    ),
    "FINAL_CLAIM_MADE": Wording(
        gettext_lazy("The final claim is approved"),
        gettext_lazy(
            "The final claim of this file is approved and its unused money released: only an "
            "amendment of an approved claim can still be made."
        ),
    ),
    "TRAINEE_NOT_CONFIRMED": Wording(
        gettext_lazy("A trainee is not confirmed"),
        gettext_lazy(
            "Trainee %(trainee)s (%(name)s) has no confirmed participant form, so no cost can be "
            "claimed for them. Ask them to complete the form, or take their lines out."
        ),
    ),
    "NO_TRAINEE_CONFIRMED": Wording(
        gettext_lazy("No trainee has confirmed yet"),
        gettext_lazy(
            "Nothing can be claimed until a trainee confirms their participation. Not "
            "confirmed yet: %(trainees)s. Each confirms by opening the link in the invitation "
            "emailed to them and completing the participant form. Invite them, or send the "
            "invitation again, from “Trainees and their confirmation of participation” on the "
            "application's page."
        ),
    ),
    "CLAIM_ONCE_SUBMITTED": Wording(
        gettext_lazy("This claim stays on the file"),
        gettext_lazy(
            "Claim %(number)s was submitted once and returned to you: it stays on the file. "
            "Change its amounts and submit it again."
        ),
    ),
    "NOTHING_CLAIMED": Wording(
        gettext_lazy("The claim claims nothing"),
        gettext_lazy("Enter at least one actual cost above zero before you submit the claim."),
    ),
    "NO_RECEIPTS": Wording(
        gettext_lazy("Receipts are missing"),
        gettext_lazy(
            "Attach the itemized invoice and the proof of payment (PDF, PNG or JPEG) before you "
            "submit the claim."
        ),
    ),
    "TOO_MANY_RECEIPTS": Wording(
        gettext_lazy("This claim has all the receipts it can have"),
        gettext_lazy("A claim can have at most %(count)s receipts."),
    ),
    "CLAIM_NOT_ASSIGNED": Wording(
        gettext_lazy("This file is not assigned to you"),
        gettext_lazy(
            "Only the officer the file is assigned to can assess its claims. Assign it to "
            "yourself first."
        ),
    ),
    "CLAIM_ILLEGAL_TRANSITION": Wording(
        gettext_lazy("This is no longer possible for this claim"),
        gettext_lazy("This action is not possible for a claim that is now “%(state)s”."),
    ),
    "CLAIM_BUDGET_SHORT": Wording(
        gettext_lazy("The agreement's money cannot cover this"),
        gettext_lazy(
            "The ledger holds %(available)s of the funder “%(funder)s” for this, and "
            "%(requested)s is needed. Nothing was changed."
        ),
    ),
}
WORDINGS.update(CLAIM_WORDINGS)


def trainee_list(trainees: list[tuple[int, str]]) -> str:
    """“Trainee 1 (Ana Roy) and trainee 2 (b@example.ca)”, in the current language."""
    named = [
        (
            _("trainee %(number)s (%(name)s)") % {"number": number, "name": name}
            if name
            else _("trainee %(number)s") % {"number": number}
        )
        for number, name in trainees
    ]
    text = (
        named[0]
        if len(named) == 1
        else _("%(some)s and %(last)s")
        % {
            "some": ", ".join(named[:-1]),
            "last": named[-1],
        }
    )
    return text[:1].upper() + text[1:]


def claim_not_found() -> ServiceError:
    return refused(404, "CLAIM_NOT_FOUND")


def illegal_claim_transition(state: str, label: object) -> ServiceError:
    return refused(
        409, "CLAIM_ILLEGAL_TRANSITION", lambda: {"state": label}, extra={"state": state}
    )
