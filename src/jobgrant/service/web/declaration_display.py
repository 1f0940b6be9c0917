"""What the pages show of an application's declarations: one row per answer, worded for people
(the review before submitting, the employer's application page, the officer's). Reads only."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from jobgrant.service.grants.applications.declarations import Declared
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.declarations import (
    ApplicationDeclaration,
    PreparedBy,
    Relation,
)
from jobgrant.service.web.templatetags.jobgrant import money

#: A checked declaration (before it is saved) or a saved one: the same fields.
Declaration = Declared | ApplicationDeclaration


def declaration_rows(declared: Declaration) -> list[tuple[str, str]]:
    """(question, answer) for each part of the declarations."""
    return [
        (_("The training provider is"), _provider(declared)),
        (
            _("Provider's address"),
            f"{declared.provider_street_address}, {declared.provider_city} "
            f"{declared.provider_postal_code}",
        ),
        (_("Provider's telephone number"), declared.provider_phone),
        (_("Prepared by"), _preparer(declared)),
        (_("Related to the provider"), _ties(declared)),
        (_("Other government funding"), _other_funding(declared)),
        (_("Trainer's attestation signed by"), declared.trainer_name),
    ]


def _provider(declared: Declaration) -> str:
    if declared.provider_public_institution:
        return _("A public institution")
    return _("A private provider, business number %(bn)s") % {
        "bn": declared.provider_business_number
    }


def _preparer(declared: Declaration) -> str:
    who = str(PreparedBy(declared.prepared_by).label)
    if declared.prepared_by == PreparedBy.EMPLOYER:
        return who
    return _("%(who)s: %(name)s, paid %(fee)s") % {
        "who": who,
        "name": declared.preparer_name,
        "fee": money(declared.preparer_fee_cents or 0),
    }


def _ties(declared: Declaration) -> str:
    if not declared.related_to_provider:
        return _("No")
    named = ", ".join(str(Relation(code).label) for code in declared.relations)
    return _("Yes: %(relations)s") % {"relations": named}


def _other_funding(declared: Declaration) -> str:
    if not declared.other_funding:
        return _("No")
    return _("Yes: %(program)s, %(amount)s") % {
        "program": declared.other_funding_program,
        "amount": money(declared.other_funding_cents or 0),
    }


def declarations_context(application: Application) -> dict[str, Any]:
    """The application's declarations for its page; without any, why there are none: made
    before they were asked (past draft), or not yet made (a draft)."""
    made = ApplicationDeclaration.objects.filter(application_id=application.pk).first()
    if made is None:
        return {"declarations": None, "declarations_not_asked": application.state != State.DRAFT}
    return {"declarations": declaration_rows(made), "declared": made}
