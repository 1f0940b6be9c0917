"""Why a capped figure is what it is: one sentence per cap (claim_figures records the figures),
in the current language; `in_both` gives the two the API answers."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from jobgrant.service.choices import CostCategory
from jobgrant.service.language import in_both_languages
from jobgrant.service.ledger.models import Funder
from jobgrant.service.refusals import amount

SENTENCES = {
    "line": gettext_lazy(
        "Trainee %(trainee)s, %(category)s: %(before)s claimed. The agreement allows "
        "%(agreed)s for this line and %(approved)s is already approved, so %(after)s counts."
    ),
    "trainee": gettext_lazy(
        "Trainee %(trainee)s: the government's share would be %(before)s. The most for one "
        "trainee is %(maximum)s, and %(elsewhere)s already goes to the same person in other "
        "files this fiscal year, so the share is held to %(after)s."
    ),
    "agreement": gettext_lazy(
        "The government's money to date would be %(before)s. The agreement commits "
        "%(after)s, so it is held to that."
    ),
    "funder": gettext_lazy(
        "The share of the funder “%(funder)s” to date would be %(before)s. The agreement "
        "commits %(after)s from this funder, so it is held to that."
    ),
}


def why(cap: dict[str, Any]) -> str:
    """The sentence of one cap, in the current language."""
    values: dict[str, object] = {
        key.removesuffix("_cents"): amount(int(value)) if key.endswith("_cents") else value
        for key, value in cap.items()
    }
    if "category" in cap:
        values["category"] = str(CostCategory(cap["category"]).label).lower()
    if "funder" in cap:
        values["funder"] = Funder(cap["funder"]).label
    return str(SENTENCES[cap["rule"]]) % values


def in_both(cap: dict[str, Any]) -> tuple[str, str]:
    return in_both_languages(lambda: why(cap))
