"""The words of a refused payment or recovery action, defined once, in `service.refusals`' style
(added to `refusals.WORDINGS` when this module is imported, as `change_refusals` does)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from jobgrant.service.errors import ServiceError
from jobgrant.service.refusals import WORDINGS, Wording, refused

PAYMENT_WORDINGS: dict[str, Wording] = {
    "BUILDER_AUTHORIZES": Wording(
        gettext_lazy("Another finance officer must authorize this batch"),
        gettext_lazy(
            "You built this payment batch. To keep duties separate, the person who builds a "
            "batch cannot also authorize it: another finance officer must authorize it."
        ),
    ),
    "CERTIFIER_AUTHORIZES": Wording(
        gettext_lazy("You certified a claim in this batch"),
        gettext_lazy(
            "You certified claim %(claim)s of application %(application)s, which this batch "
            "pays. Nobody authorizes a payment on a claim they certified: another finance "
            "officer must authorize it."
        ),
    ),
    "PAYEE_CONFLICT": Wording(
        gettext_lazy("You have a conflict of interest"),
        gettext_lazy(
            "You are affiliated with an employer this payment goes to, so you cannot build, "
            "authorize or release it. Another finance officer must."
        ),
    ),
    "NOTHING_TO_PAY": Wording(
        gettext_lazy("There is nothing to pay"),
        gettext_lazy(
            "No certified claim of %(jurisdiction)s in fiscal year %(year)s is waiting for "
            "payment, so no batch was built."
        ),
    ),
    "BATCH_NOT_AUTHORIZED": Wording(
        gettext_lazy("This batch is not authorized"),
        gettext_lazy("Only an authorized batch can be exported; this one is now “%(state)s”."),
    ),
    "SECOND_APPROVER_NEEDED": Wording(
        gettext_lazy("Another finance officer must approve this write-off"),
        gettext_lazy(
            "You asked for this write-off. A write-off needs a second person: another finance "
            "officer must approve it."
        ),
    ),
    "RECEIVABLE_CLOSED": Wording(
        gettext_lazy("Nothing is owed on this receivable"),
        gettext_lazy("This receivable is now “%(state)s”: nothing more can be recovered on it."),
    ),
    "TOO_MUCH": Wording(
        gettext_lazy("The amount is more than what is owed"),
        gettext_lazy(
            "%(amount)s is more than the %(owed)s still owed on this receivable (after what is "
            "already netted from a payment on its way). Nothing was recorded."
        ),
    ),
    "NO_PAYMENT_TO_RECOVER": Wording(
        gettext_lazy("Nothing was paid to get back"),
        gettext_lazy(
            "The %(funder)s government paid %(paid)s on this file and %(owed)s is already owed "
            "back, so no receivable of %(amount)s can be raised."
        ),
    ),
}

PAYMENT_TRANSITIONS = {
    "authorize": gettext_lazy(
        "Only a batch awaiting authorization can be authorized; this one is now “%(state)s”."
    ),
    "hold": gettext_lazy(
        "Only a payment in a batch awaiting authorization can be held; it is now “%(state)s”."
    ),
    "lift": gettext_lazy("Only a held payment can be released; this one is now “%(state)s”."),
}

WORDINGS.update(PAYMENT_WORDINGS)


def illegal_payment_transition(action: str, state: str, state_label: object) -> ServiceError:
    return refused(
        409,
        "ILLEGAL_TRANSITION",
        lambda: {"state": state_label},
        text=PAYMENT_TRANSITIONS[action],
        extra={"state": state},
    )


def batch_not_found() -> ServiceError:
    return ServiceError(
        404, "NOT_FOUND", "No such payment batch.", "Aucun lot de paiements de ce genre."
    )


def payment_not_found() -> ServiceError:
    return ServiceError(404, "NOT_FOUND", "No such payment.", "Aucun paiement de ce genre.")


def receivable_not_found() -> ServiceError:
    return ServiceError(
        404, "NOT_FOUND", "No such receivable.", "Aucune somme à recouvrer de ce genre."
    )
