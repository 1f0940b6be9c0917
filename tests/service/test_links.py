"""E-mailed links, made one way (service/links.py): a random token in the link, its digest
stored, the row found again by the digest of the token brought back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import jobgrant.service
from jobgrant.service import links
from jobgrant.service.accounts.models import ApiToken

SERVICE = Path(jobgrant.service.__file__).parent


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
