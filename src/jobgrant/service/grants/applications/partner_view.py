"""What a consortium partner sees of an application: its own share, never the others'.

The applicant (anyone acting for the lead organization) and staff see the whole application; a
user who acts only for partners sees their employers' rows of the quote, their trainees, the
reasons about those and the application-wide ones, and totals that are the sum of their own
shares. The explanation tree (every trainee's computation) is left out for them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from jobgrant.rules.money import format_amount, parse_amount
from jobgrant.service.accounts.models import Membership, Role, User
from jobgrant.service.grants.models.applications import Application, ApplicationEmployer

FIGURES = ("eligible_cost", "federal", "provincial", "employer", "in_kind")


def own_share(user: User, application: Application) -> set[str] | None:
    """The references (the quote's employer ids) of the partners `user` acts for, or None when
    `user` may see the whole application (staff, or the applicant's people)."""
    return own_shares(user, [application])[application.pk]


def own_shares(user: User, applications: list[Application]) -> dict[int, set[str] | None]:
    """`own_share` of each application, in two queries whatever their number (a list's page)."""
    if user.role != Role.EMPLOYER:
        return dict.fromkeys((application.pk for application in applications), None)
    mine = set(Membership.objects.filter(user=user).values_list("employer_id", flat=True))
    links: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for application_id, employer_id, reference in (
        ApplicationEmployer.objects.filter(application_id__in=[a.pk for a in applications])
        .order_by("application_id", "position")
        .values_list("application_id", "employer_id", "reference")
    ):
        links[application_id].append((employer_id, reference))
    return {application.pk: _own(mine, links[application.pk]) for application in applications}


def _own(mine: set[int], links: list[tuple[int, str]]) -> set[str] | None:
    if links and links[0][0] in mine:
        return None
    return {reference for employer_id, reference in links if employer_id in mine}


def partner_quote(quote: dict[str, Any], own: set[str]) -> dict[str, Any]:
    """The quote cut down to the partner's own rows, its totals summed from them."""
    employers = [e for e in quote.get("employers") or [] if e.get("id") in own]
    trainees = [t for t in quote.get("trainees") or [] if t.get("employer_id") in own]
    indexes = {t.get("index") for t in trainees}
    reasons = [
        r
        for r in quote.get("reasons") or []
        if r.get("employer") in own
        or r.get("trainee") in indexes
        or (r.get("employer") is None and r.get("trainee") is None)
    ]
    totals = {key: _sum(employers, key) for key in FIGURES}
    government = parse_amount(totals["federal"]) + parse_amount(totals["provincial"])
    totals["government"] = format_amount(government)
    return {
        **{k: v for k, v in quote.items() if k != "explanation"},
        "employers": employers,
        "trainees": trainees,
        "reasons": reasons,
        "totals": totals,
    }


def _sum(rows: list[dict[str, Any]], key: str) -> str:
    return format_amount(sum(parse_amount(str(row.get(key) or "0")) for row in rows))
