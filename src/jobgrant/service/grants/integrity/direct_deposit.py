"""An organization's direct-deposit account, set by its administrator.

The account number is sealed and indexed (registry/bank_accounts.py), never written in clear,
never in the audit trail (which keeps the institution, the transit and the last digits). It
lives here, beside the flags, because changing it changes what they find: the undecided files of
every organization that holds the old or the new account have their bank-account flags worked
out again in the same transaction.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.integrity.actions import rework_bank_accounts
from jobgrant.service.people.organizations import is_admin
from jobgrant.service.refusals import forbidden_for
from jobgrant.service.registry import bank_accounts
from jobgrant.service.registry.models import Employer

FIELDS = ("institution", "transit", "account")


@audited_refusals_of("employer")
def set_bank_account(user: User, employer: Employer, typed: Mapping[str, object]) -> Employer:
    """Check the three numbers (422 naming each wrong field, nothing written), then seal and
    store the account for the organization `user` administers."""
    if not is_admin(user, employer):
        raise forbidden_for("NOT_YOUR_ORGANIZATION")
    raw = {name: str(typed.get(name) or "") for name in FIELDS}
    wrong = bank_accounts.problems(raw["institution"], raw["transit"], raw["account"])
    if wrong:
        raise bad_input([problem(name, *words) for name, words in wrong.items()])
    account = bank_accounts.checked(raw["institution"], raw["transit"], raw["account"])
    with transaction.atomic():
        locked = Employer.objects.select_for_update().get(pk=employer.pk)
        before = locked.bank_account_index
        locked.bank_account_key_id, sealed = bank_accounts.seal(account)
        locked.bank_account_ciphertext = sealed
        locked.bank_account_index = bank_accounts.blind_index(account)
        locked.bank_institution, locked.bank_transit = account.institution, account.transit
        locked.bank_account_last_digits = bank_accounts.last_digits(account)
        locked.save()
        summary = {"account": locked.masked_bank_account, "changed": bool(before)}
        record(user.username, "organization.set_bank_account", "employer", locked.pk, summary)
        rework_bank_accounts(user.username, [before, locked.bank_account_index])
    return locked
