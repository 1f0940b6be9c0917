"""Users, their roles, what they may act for, and API tokens (stored hashed)."""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy

from jobgrant.service import links
from jobgrant.service.choices import JURISDICTION_CHOICES


class Role(models.TextChoices):
    """The roles; labels in lower case, as the pages use them inside a sentence."""

    EMPLOYER = "employer", gettext_lazy("employer")
    OFFICER = "officer", gettext_lazy("program officer")
    FINANCE = "finance", gettext_lazy("finance officer")
    ANALYST = "analyst", gettext_lazy("policy analyst")
    AUDITOR = "auditor", gettext_lazy("auditor")
    ADMIN = "admin", gettext_lazy("administrator")
    # Programs, streams and intakes of a jurisdiction (or every one, when federal).
    PROGRAM_MANAGER = "program_manager", gettext_lazy("program manager")


#: The roles that must pass a second factor (TOTP or a recovery code) at every sign-in.
STAFF_ROLES = frozenset(
    {Role.OFFICER, Role.FINANCE, Role.ANALYST, Role.AUDITOR, Role.ADMIN, Role.PROGRAM_MANAGER}
)


class User(AbstractUser):  # type: ignore[django-manager-missing]  # Passkey: django-otp's Device
    """A person. Officers work for a jurisdiction, or for Ottawa (`federal`, any jurisdiction)."""

    role = models.CharField(max_length=16, choices=Role.choices, default=Role.EMPLOYER)
    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES, blank=True)
    federal = models.BooleanField(default=False, help_text="Works for the federal government.")
    preferred_language = models.CharField(max_length=2, default="en")
    may_view_sin = models.BooleanField(default=False)
    # Employers a user acts for (role employer), or is affiliated with (anyone else: a conflict
    # of interest that forbids acting on their files).
    employers = models.ManyToManyField(
        "registry.Employer", blank=True, related_name="users", through="accounts.Membership"
    )
    # Raised to end every session and API token of the account for good (deactivation, a new
    # password): a session remembers the hash it was signed in under, and the hash depends on
    # this number; a token remembers the number it was issued under, and must match it.
    # A default in the database too: servers of the release before insert users without it.
    session_epoch = models.PositiveIntegerField(default=0, db_default=0)

    class Meta(AbstractUser.Meta):
        constraints = [
            # One account per address, whatever its case (the code checks first, with a clear
            # error; this is what holds when two requests race). Blank addresses aside.
            models.UniqueConstraint(
                Lower("email"), condition=~models.Q(email=""), name="one_account_per_email"
            )
        ]

    def save(self, *args: Any, **kwargs: Any) -> None:
        """An account deactivated, whichever way it is saved (the staff pages, a shell), ends
        every session and token it had, for good: its epoch is raised and its tokens deleted,
        so a reactivation revives none of them. (A queryset's update() is not a save: use
        end_every_session() after one.)"""
        fields = kwargs.get("update_fields")
        if self._being_deactivated(fields):
            self.session_epoch += 1
            if fields is not None:
                kwargs["update_fields"] = {*fields, "session_epoch"}
            ApiToken.objects.filter(user=self).delete()
        super().save(*args, **kwargs)

    def _being_deactivated(self, fields: Any) -> bool:
        """Saved inactive (with is_active among the fields saved) while the row is active."""
        if not self.pk or self.is_active or (fields is not None and "is_active" not in fields):
            return False
        return bool(type(self).objects.filter(pk=self.pk, is_active=True).exists())

    def end_every_session(self) -> int:
        """End every session and API token of the account for good (the caller saves nothing
        else); how many tokens were deleted."""
        type(self).objects.filter(pk=self.pk).update(session_epoch=models.F("session_epoch") + 1)
        self.refresh_from_db(fields=["session_epoch"])
        return int(ApiToken.objects.filter(user=self).delete()[0])

    def _get_session_auth_hash(self, secret: str | None = None) -> str:
        """Django's hash of the password (every session keeps it, and ends when it no longer
        matches), with the session epoch mixed in once it was raised: sessions signed in
        before that epoch never open anything again, even after a reactivation."""
        if not self.session_epoch:
            return str(super()._get_session_auth_hash(secret=secret))  # type: ignore[misc]
        return salted_hmac(
            "jobgrant.accounts.User.session_auth_hash",
            f"{self.password}\n{self.session_epoch}",
            secret=secret,
            algorithm="sha256",
        ).hexdigest()


TOKEN_PREFIX_LENGTH = 8


#: The name a token gets when its client gives none.
DEFAULT_CLIENT = "default"
CLIENT_NAME_MAX = 64


class ApiToken(models.Model):
    """A bearer token for one named client of one user (a script, an integration), with an
    expiry; only its SHA-256 is stored, so a database leak reveals no usable token. Asking
    again for the same client replaces its token, so a user has one per client, not one per
    sign-in."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=CLIENT_NAME_MAX, default=DEFAULT_CLIENT)
    prefix = models.CharField(max_length=TOKEN_PREFIX_LENGTH, db_index=True)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    # The user's session epoch when the token was issued: once the epoch is raised (deactivation,
    # a new password) the token opens nothing again, even if it was issued in a request that
    # raced the deletion of the user's tokens. Null: issued by a server of the release before
    # (such a token is deleted at a deactivation or a new password, as it always was).
    epoch = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="one_token_per_client")
        ]

    @classmethod
    def issue(cls, user: User, name: str | None = None, days: int | None = None) -> str:
        """Create (or replace) the token of `user`'s client `name`, valid `days` days (the
        default from settings), and return it: the only time it is ever seen. Without a name
        (code that hands out tokens itself, such as the tests' helpers) the token gets a name
        of its own, its prefix."""
        return cls.issue_row(user, name, days)[1]

    @classmethod
    def issue_row(
        cls, user: User, name: str | None = None, days: int | None = None
    ) -> tuple[ApiToken, str]:
        token = links.new_token()
        lifetime = dt.timedelta(days=days or settings.API_TOKEN_DEFAULT_DAYS)
        name = name or f"token-{token[:TOKEN_PREFIX_LENGTH]}"
        cls.objects.filter(user=user, name=name).delete()
        row = cls.objects.create(
            user=user,
            epoch=user.session_epoch,  # as loaded when the password was checked: never newer
            name=name,
            prefix=token[:TOKEN_PREFIX_LENGTH],
            digest=links.digest(token),
            expires_at=timezone.now() + lifetime,
        )
        return row, token

    @classmethod
    def user_for(cls, token: str) -> User | None:
        """The active user an unexpired token belongs to, looked up at every request: a token
        revoked, or a user deactivated, by any server process is refused by every other one
        from the next request on (one indexed query, joined to the user; no process keeps a
        copy that could outlive the row). The same statement says whether the user acts for any
        organization (`acts_for_organizations`): an officer who acts for none cannot be tied to
        a file's employers, and the check of each action then reads nothing more."""
        # A plain statement built once (every API request asks; the ORM built this join anew).
        found = User.objects.raw(_user_for_sql(), [links.digest(token), timezone.now()])
        return next(iter(found), None)


@functools.cache
def _user_for_sql() -> str:
    columns = ", ".join(f'u."{field.column}"' for field in User._meta.concrete_fields)
    acts_for = (
        f'EXISTS (SELECT 1 FROM "{User.employers.through._meta.db_table}" e'
        ' WHERE e."user_id" = u."id") AS "acts_for_organizations"'
    )
    return (
        f'SELECT {columns}, {acts_for} FROM "{User._meta.db_table}" u'
        f' JOIN "{ApiToken._meta.db_table}" t ON t."user_id" = u."id"'
        ' WHERE t."digest" = %s AND t."expires_at" > %s AND u."is_active"'
        ' AND (t."epoch" = u."session_epoch" OR t."epoch" IS NULL)'
    )


class LinkPurpose(models.TextChoices):
    """What an e-mailed link to a person's own account does."""

    VERIFY_EMAIL = "verify_email", "confirm the email address"
    STAFF_SETUP = "staff_setup", "choose a new staff account's password"
    PASSWORD_RESET = "password_reset", "reset a forgotten password"
    CHANGE_EMAIL = "change_email", "prove a new email address"


class AccountLink(models.Model):
    """A link e-mailed to a person that acts on their account (people/account_links.py makes and
    opens them). Only the token's digest is stored (links.py). It works until `expires_at`, once
    (`used_at`), and only while the account's password and address are what they were when it was
    sent (`account_stamp`, a digest of both): a changed password stops every link sent before."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="account_links")
    purpose = models.CharField(max_length=16, choices=LinkPurpose.choices)
    digest = models.CharField(max_length=64, unique=True)
    account_stamp = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    # CHANGE_EMAIL: the address the link was sent to, which using it puts in force.
    # A default in the database too: servers of the release before insert links without it.
    email = models.EmailField(max_length=254, blank=True, default="", db_default="")


from jobgrant.service.accounts.organization_models import *  # noqa: E402,F403
from jobgrant.service.accounts.passkey_models import *  # noqa: E402,F403
