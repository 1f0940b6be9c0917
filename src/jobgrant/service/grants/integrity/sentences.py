"""Why a flag was raised, in a sentence written from its stored figures in the reader's language.

A flag stores its kind, its subject and its figures; the sentence is written when it is read, so
the same flag reads in English on one page and in French on the other, and a better wording
applies to the flags already raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from jobgrant.rules.money import format_money
from jobgrant.service.grants.models.integrity import FlagKind, RiskFlag
from jobgrant.service.language import current_language


def _money(cents: object) -> str:
    return format_money(int(str(cents or 0)), current_language())


def _listed(items: object) -> str:
    return ", ".join(str(item) for item in items) if isinstance(items, list) else ""


def _relation(code: str) -> str:
    return {
        "owners": pgettext("relation", "owners in common"),
        "directors": pgettext("relation", "directors in common"),
        "family": pgettext("relation", "family ties"),
        "shared_address": pgettext("relation", "a shared address"),
    }.get(code, code)


def _related(subject: str, f: dict[str, Any]) -> str:
    if subject == "declared":
        relations = [_relation(str(code)) for code in f.get("relations") or []]
        if not relations:
            return _("The employer declared that it is related to the training provider.")
        return _(
            "The employer declared that it is related to the training provider: %(relations)s."
        ) % {"relations": ", ".join(relations)}
    values = {"employer": f.get("employer", ""), "number": f.get("business_number", "")}
    if subject.startswith("business_number:"):
        return (
            _(
                "The training provider's business number is the same as that of the employer "
                "%(employer)s (%(number)s)."
            )
            % values
        )
    if subject.startswith("address:"):
        return _(
            "The training provider's address is the same as that of the employer "
            "%(employer)s (postal code %(postal)s)."
        ) % {**values, "postal": f.get("postal_code", "")}
    if subject.startswith("phone:"):
        return _(
            "The training provider's telephone number is the same as that of the employer "
            "%(employer)s (%(phone)s)."
        ) % {**values, "phone": f.get("phone", "")}
    return _(
        "The training provider %(provider)s is paid into the same bank account as the "
        "employer %(employer)s."
    ) % {**values, "provider": f.get("provider", "")}


def _price(subject: str, f: dict[str, Any]) -> str:
    values = {
        "price": _money(f.get("price_cents")),
        "usual": _money(f.get("usual_cents")),
        "files": f.get("files", 0),
        "percent": f.get("percent", 0),
        "threshold": (f.get("threshold") or {}).get("value", 0),
        "name": f.get("name", ""),
    }
    if subject == "provider":
        text = _(
            "The cost per trainee, %(price)s, is %(percent)s%% of the usual price of the "
            "provider %(name)s: %(usual)s, the median of its %(files)s other files. A flag is "
            "raised at %(threshold)s%%."
        )
    else:
        text = _(
            "The cost per trainee, %(price)s, is %(percent)s%% of the usual price of the course "
            "%(name)s: %(usual)s, the median of %(files)s other files. A flag is raised at "
            "%(threshold)s%%."
        )
    return text % values


def _prepared(subject: str, f: dict[str, Any]) -> str:
    return _(
        "The employer declared that the training provider prepared the application (%(name)s, "
        "paid %(fee)s)."
    ) % {"name": f.get("preparer") or "—", "fee": _money(f.get("fee_cents"))}


def _receipt(subject: str, f: dict[str, Any]) -> str:
    if ":invoice:" in subject:
        return _(
            "The invoice number %(invoice)s of the receipt %(name)s, from the training provider "
            "%(provider)s, is also on a receipt of another file with the same provider: "
            "%(files)s (numbers compared without case, spaces, dashes or leading zeros)."
        ) % {
            "invoice": f.get("invoice", ""),
            "name": f.get("receipt", ""),
            "provider": f.get("provider", ""),
            "files": _listed(f.get("files")),
        }
    return _(
        "The receipt %(name)s (the same file, by its SHA-256) is also a receipt of another file: "
        "%(files)s."
    ) % {"name": f.get("receipt", ""), "files": _listed(f.get("files"))}


def _bank(subject: str, f: dict[str, Any]) -> str:
    return _(
        "The employer %(employer)s is paid into the account %(account)s, which %(count)s other "
        "organization(s) not in this file also gave: %(others)s."
    ) % {
        "employer": f.get("employer", ""),
        "account": f.get("account", ""),
        "count": f.get("count", 0),
        "others": _listed(f.get("others")),
    }


def _trainee(subject: str, f: dict[str, Any]) -> str:
    return _(
        "Trainee %(trainee)s was funded in files %(files)s over the fiscal years %(years)s: "
        "%(total)s of government money in all, more than %(threshold)s."
    ) % {
        "trainee": f.get("trainee", ""),
        "files": _listed(f.get("files")),
        "years": _listed(f.get("years")),
        "total": _money(f.get("government_cents")),
        "threshold": _money((f.get("threshold") or {}).get("value", 0)),
    }


def _receivables(subject: str, f: dict[str, Any]) -> str:
    return _(
        "%(count)s of the %(files)s other files of the provider %(name)s had money to pay back "
        "(a receivable). A flag is raised from %(threshold)s."
    ) % {
        "count": f.get("with_receivables", 0),
        "files": f.get("files", 0),
        "name": f.get("name", ""),
        "threshold": (f.get("threshold") or {}).get("value", 0),
    }


WRITERS: dict[str, Callable[[str, dict[str, Any]], str]] = {
    FlagKind.RELATED_PROVIDER: _related,
    FlagKind.PRICE_ABOVE_USUAL: _price,
    FlagKind.PREPARED_BY_PROVIDER: _prepared,
    FlagKind.RECEIPT_REUSED: _receipt,
    FlagKind.SHARED_BANK_ACCOUNT: _bank,
    FlagKind.TRAINEE_ACROSS_YEARS: _trainee,
    FlagKind.PROVIDER_RECEIVABLES: _receivables,
}


def sentence(flag: RiskFlag) -> str:
    """Why the flag was raised, with the figures it compared, in the current language."""
    figures = flag.figures if isinstance(flag.figures, dict) else {}
    return WRITERS[flag.kind](flag.subject, figures)


def threshold_source(flag: RiskFlag) -> dict[str, Any] | None:
    """The parameter a flag's threshold came from (name, value, date, sources), if any."""
    figures = flag.figures if isinstance(flag.figures, dict) else {}
    found = figures.get("threshold")
    return found if isinstance(found, dict) else None
