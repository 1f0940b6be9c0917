"""The risk flags' pages and an organization's direct-deposit account in the axe pass of
test_accessibility.py (T16), each page empty and in its error state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ACCOUNT = {"institution": "003", "transit": "01234", "account": "1234567"}


def a_flagged_file(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Acme and Lakeshore (both the demonstration employer's) give the same account: Acme's
    submitted file is flagged."""
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.integrity.direct_deposit import set_bank_account
    from jobgrant.service.grants.models.integrity import RiskFlag
    from jobgrant.service.registry.models import Employer

    employer = User.objects.get(username="demo-employer")
    acme = Employer.objects.get(name="Acme Precision Machining")
    lakeshore = Employer.objects.get(name="Lakeshore Logistics")
    set_bank_account(employer, acme, ACCOUNT)
    set_bank_account(employer, lakeshore, ACCOUNT)
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    flag = RiskFlag.objects.filter(application=application).first()
    assert flag is not None
    return {"application": application.pk, "flag": flag.pk, "acme": acme.pk}


def flag_groups(group: Any, visit: Any, click: Any, fill_and_click: Any) -> tuple[Any, ...]:
    """The groups, made with test_accessibility's Group, Visit and actions."""
    Group, Visit = group, visit  # noqa: N806 - read as the classes they are
    return (
        Group(
            "risk flags, an officer",
            "demo-officer-on-1",
            (
                Visit(
                    "web:officer-review",
                    kwargs=lambda made: {"application_id": made["application"]},
                    error=click("form[id^=clear-flag] .jg-button"),
                    label="with a risk flag",
                ),
                Visit(
                    "web:officer-flag-clear",
                    kwargs=lambda made: {"flag_id": made["flag"]},
                    error=click("form[id^=clear-flag] .jg-button"),
                ),
                Visit("web:reports-flags"),
            ),
            setup=a_flagged_file,
        ),
        Group(
            "risk flags, an analyst",
            "demo-analyst",
            (Visit("web:reports-flags"),),
            setup=a_flagged_file,
        ),
        Group(
            "direct deposit",
            "demo-employer",
            (
                Visit(
                    "web:organization-bank-account",
                    kwargs=lambda made: {"employer_id": made["acme"]},
                    error=click("#save-bank-account"),
                ),
            ),
            setup=a_flagged_file,
        ),
    )


FLAG_EXCLUDED: dict[str, str] = {}
