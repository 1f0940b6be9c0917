"""E-mailed links, made one way (service/links.py): a random token in the link, its digest
stored, the row found again by the digest of the token brought back; the links to a person's own
account (people/account_links.py) among them."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse
from django.utils import timezone, translation
from tests.personas import EMPLOYER

import jobgrant.service
from jobgrant.service import links
from jobgrant.service.accounts.models import (
    AccountLink,
    ApiToken,
    EmailVerification,
    LinkPurpose,
    User,
)
from jobgrant.service.errors import ServiceError
from jobgrant.service.log_redaction import redact
from jobgrant.service.people import account_links, organizations, password_reset, staff

SERVICE = Path(jobgrant.service.__file__).parent
NEW_PASSWORD = "a calm harbour at dawn 47"


def test_absolute_url_joins_the_base_url_and_the_path(settings: Any) -> None:
    settings.JOBGRANT_BASE_URL = "https://jobgrant.example.ca/"
    assert links.absolute_url("/en/employer/") == "https://jobgrant.example.ca/en/employer/"
    assert links.absolute_url("fr/") == "https://jobgrant.example.ca/fr/"


def test_a_token_is_new_each_time_in_the_shape_its_address_has_always_had() -> None:
    assert links.new_token() != links.new_token()
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", links.new_token())
    assert re.fullmatch(r"[0-9a-f]{64}", links.new_token(as_hex=True))


def test_only_the_digest_of_a_token_is_stored_and_it_is_its_sha256() -> None:
    token = links.new_token()
    assert re.fullmatch(r"[0-9a-f]{64}", links.digest(token))
    assert token not in links.digest(token)
    assert links.digest(token) == links.digest(token) != links.digest(token + "x")


@pytest.mark.django_db
def test_a_row_is_found_by_its_token_and_by_nothing_else(demo: None) -> None:
    from tests.personas import EMPLOYER

    row, token = ApiToken.issue_row(EMPLOYER.get(), "walked")
    assert list(links.by_token(ApiToken.objects.all(), token)) == [row]
    assert not links.by_token(ApiToken.objects.all(), row.digest).exists()


def test_no_module_but_links_makes_or_digests_a_token() -> None:
    """One mechanism: tokens are made and digested in links.py only (the secret key of the
    settings is not a link's token)."""
    makers = re.compile(r"secrets\.token_|sha256\(token")
    found = {
        path.relative_to(SERVICE).as_posix()
        for path in SERVICE.rglob("*.py")
        if makers.search(path.read_text())
    }
    assert found == {"links.py", "settings.py"}


def test_a_message_s_address_is_written_by_links_only() -> None:
    """One way to write the address a message shows: links.page_link (the page's route in the
    recipient's language, made absolute), never a path written by hand or made absolute apart.
    The pages (web/) write their own relative addresses (the language toggle): they send none."""
    by_hand = re.compile(r'absolute_url\(|f"/\{language\}/')
    found = sorted(
        path.relative_to(SERVICE).as_posix()
        for path in SERVICE.rglob("*.py")
        if not {"migrations", "web"} & set(path.relative_to(SERVICE).parts)
        and by_hand.search(path.read_text())
    )
    assert found == ["links.py"]


def test_page_link_is_the_page_s_address_in_the_recipient_s_language(settings: Any) -> None:
    settings.JOBGRANT_BASE_URL = "https://jobgrant.example.ca/"
    assert links.page_link("web:participate", "fr", token="abc") == (
        "https://jobgrant.example.ca/fr/participer/abc/"
    )
    assert links.page_link("web:employer-claim", "fr", 7) == (
        "https://jobgrant.example.ca/fr/employeur/demandes-de-remboursement/7/"
    )
    assert links.page_link("web:employer-claim", "en", 7) == (
        "https://jobgrant.example.ca/en/employer/claims/7/"
    )


def test_no_module_uses_django_s_token_generators() -> None:
    """The account's links (confirmation, set-up, reset) are links.py's tokens too: no signed
    token of Django's, no user id in base 64 in an address."""
    others = re.compile(r"TokenGenerator|token_generator|urlsafe_base64_")
    found = [path.name for path in SERVICE.rglob("*.py") if others.search(path.read_text())]
    assert found == []


# --- The links to a person's own account (people/account_links.py) ----------------------------

#: Every page a link's token opens, and what it answers to a token nobody was sent.
LINK_PAGES = {
    "participate": 404,
    "trainee-follow-up": 404,
    "comparison-follow-up": 404,
    "invitation": 404,
    "verify-email": 404,
    "account-setup": 404,
    "account-email-confirm": 404,
    "password-reset-confirm": 200,  # the page that says the link does not work any more
    "dispute": 404,
}


def token_routes() -> set[str]:
    """The names of the routes whose address ends in a token."""
    names: set[str] = set()

    def walk(patterns: list[Any]) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns)
            elif str(entry.pattern).endswith("<str:token>/"):
                names.add(str(entry.name))

    walk(get_resolver().url_patterns)
    return names


def test_every_link_page_is_known_here() -> None:
    assert token_routes() == set(LINK_PAGES)


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(LINK_PAGES))
def test_a_made_up_token_opens_nothing(demo: None, name: str) -> None:
    page = Client().get(reverse(f"web:{name}", kwargs={"token": links.new_token()}))
    assert page.status_code == LINK_PAGES[name]
    if page.status_code == 200:
        assert "does not work any more" in page.content.decode()


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("name", sorted(LINK_PAGES))
def test_every_link_s_token_is_kept_out_of_the_logs(name: str, language: str) -> None:
    """In both languages: the French addresses have French words (participer/, suivi/…)."""
    token = links.new_token()
    with translation.override(language):
        path = reverse(f"web:{name}", kwargs={"token": token})
    line = f'"GET {path}?next=/x HTTP/1.1" 404'
    assert token not in redact(line) and "[redacted]" in redact(line)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_password_reset_s_own_pages_are_not_taken_for_tokens(language: str) -> None:
    with translation.override(language):
        for name in ("password-reset", "password-reset-sent", "password-reset-done"):
            assert redact(reverse(f"web:{name}")) == reverse(f"web:{name}")
        form = reverse("web:password-reset-confirm", kwargs={"token": "set-password"})
    assert redact(form) == form


def new_employer() -> User:
    user = User.objects.create_user("ada", "ada@example.com", "welding-sparks", is_active=False)
    EmailVerification.objects.create(user=user, email=user.email)
    return user


@pytest.mark.django_db
def test_a_confirmation_link_works_once_and_spends_the_others(demo: None) -> None:
    user = new_employer()
    first, second = (account_links.issue(user, LinkPurpose.VERIFY_EMAIL) for _ in range(2))
    assert organizations.verification_user(first) == organizations.verification_user(second)
    assert organizations.verify_email(second) == user
    for used in (first, second):
        assert organizations.verification_user(used) is None
        with pytest.raises(ServiceError) as again:
            organizations.verify_email(used)
        assert again.value.code == "LINK_NOT_VALID"
    assert not AccountLink.objects.filter(user=user, used_at__isnull=True).exists()


@pytest.mark.django_db
def test_a_link_opens_only_what_it_was_sent_for(demo: None) -> None:
    user = new_employer()
    token = account_links.issue(user, LinkPurpose.VERIFY_EMAIL)
    assert password_reset.reset_user(token) is None
    assert staff.setup_user(token) is None
    stored = AccountLink.objects.get(user=user)
    assert stored.digest == links.digest(token) and token not in stored.digest


@pytest.mark.django_db
def test_a_reset_link_expires(demo: None, settings: Any) -> None:
    user = EMPLOYER.get()
    token = account_links.issue(user, LinkPurpose.PASSWORD_RESET)
    timeout = dt.timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    with time_machine.travel(timezone.now() + timeout - dt.timedelta(minutes=1)):
        assert password_reset.reset_user(token) == user
    with time_machine.travel(timezone.now() + timeout + dt.timedelta(seconds=1)):
        assert password_reset.reset_user(token) is None
        with pytest.raises(ServiceError):
            password_reset.reset_password(token, NEW_PASSWORD)
    assert not EMPLOYER.get().check_password(NEW_PASSWORD)


@pytest.mark.django_db
def test_a_reset_link_stops_working_once_the_password_changed(demo: None) -> None:
    user = EMPLOYER.get()
    first, second = (account_links.issue(user, LinkPurpose.PASSWORD_RESET) for _ in range(2))
    assert password_reset.reset_user(first) == password_reset.reset_user(second) == user  # both
    user.set_password("changed on the account page")  # any way, not through a link
    user.save(update_fields=["password"])
    assert password_reset.reset_user(first) is password_reset.reset_user(second) is None
    third = account_links.issue(user, LinkPurpose.PASSWORD_RESET)
    assert password_reset.reset_password(third, NEW_PASSWORD) == user
    assert password_reset.reset_user(third) is None  # once
    assert EMPLOYER.get().check_password(NEW_PASSWORD)
    asked_after = account_links.issue(EMPLOYER.get(), LinkPurpose.PASSWORD_RESET)
    assert password_reset.reset_user(asked_after) == user  # the new password's links work
