"""What the demonstration's seed and its ranked intake (demo.py, demo_ranking.py) both use: the
organizations' business numbers, the clock standing at a moment, the declarations of a ready
file, and the risk flags raised and cleared on demonstration files. Imports neither, so that
neither imports the other through it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager

import time_machine
from django.db import transaction
from stdnum import luhn

from jobgrant.service.accounts.models import User
from jobgrant.service.api.examples import EXAMPLE_DECLARATIONS
from jobgrant.service.grants.models.applications import Application


def business_number(stem: str) -> str:
    """A valid BN9 (8 digits and their Luhn check digit) for demonstration employers."""
    return stem + luhn.calc_check_digit(stem)


@contextmanager
def clock_at(moment: dt.datetime) -> Iterator[None]:
    """The clock stands at `moment` (as the demonstration history moves it)."""
    with time_machine.travel(moment, tick=False):
        yield


#: What demo-employer declares of its ready files: prepared by Acme itself, Mohawk College a
#: public college with no ties to it: the API's example.
READY_DECLARATIONS = dict(EXAMPLE_DECLARATIONS)


def clear_demo_flags(officer: User, application: Application) -> None:
    """Clear the file's open risk flags as the demonstration's officer, saying what they checked
    (the demonstration's prices and providers may raise some; an officer clears each before
    recommending)."""
    from jobgrant.service.grants.integrity.actions import clear_flag
    from jobgrant.service.grants.models.integrity import FlagState, RiskFlag

    for flag in RiskFlag.objects.filter(application=application, state=FlagState.OPEN):
        clear_flag(officer, flag, "Demonstration file: checked against the provider's rates.")


#: The account the demonstration's two organizations share (a made-up branch and number).
DEMO_SHARED_ACCOUNT = {"institution": "003", "transit": "01234", "account": "7654321"}


def raise_demo_flags(application_ids: list[int], *, share_account: bool = True) -> list[int]:
    """Flags to look at on the demonstration files: Acme and Lakeshore Logistics (both
    demo-employer's, unrelated businesses) are given one direct-deposit account (unless not
    `share_account`), which flags every undecided file of either ("Bank account shared with
    another employer"); then each file of `application_ids` is worked out again, which also
    raises "Price far above the usual price" on a file costing at least twice the median of
    three or more other files of its provider or course. Returns the ids of the open flags on
    those files.

    The seed does not share the account: every file demo-employer makes afterwards (the
    browser walks', the history's) would be flagged, and each recommendation would wait on it."""
    from jobgrant.service.audit.codes import DEMO_SEED
    from jobgrant.service.grants.integrity.actions import raise_on_submission
    from jobgrant.service.grants.integrity.direct_deposit import set_bank_account
    from jobgrant.service.grants.models.integrity import FlagState, RiskFlag

    employer = User.objects.get(username="demo-employer")
    for number in ("10000000", "20000000") if share_account else ():
        set_bank_account(
            employer,
            employer.employers.get(business_number=business_number(number)),
            DEMO_SHARED_ACCOUNT,
        )
    files = Application.objects.filter(pk__in=application_ids).order_by("id")
    with transaction.atomic():
        for application in files:
            raise_on_submission(DEMO_SEED, application)
    open_flags = RiskFlag.objects.filter(application__in=files, state=FlagState.OPEN)
    return list(open_flags.order_by("id").values_list("pk", flat=True))
