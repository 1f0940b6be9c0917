"""Passwords are stored as Argon2 hashes (ASVS 11.4.2): the production settings name Argon2 first
and alone, and a password set in the service is stored under an Argon2 hasher, never in clear."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jobgrant.service.accounts.models import User

pytestmark = pytest.mark.django_db


def test_outside_the_tests_the_settings_hash_with_argon2_only() -> None:
    """The suite runs with a cheaper Argon2 (JOBGRANT_ENV=test); anywhere else, Django's own."""
    script = "import json, jobgrant.service.settings as s; print(json.dumps(s.PASSWORD_HASHERS))"
    env = os.environ | {"JOBGRANT_ENV": "development"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, check=True)
    assert json.loads(out.stdout) == ["django.contrib.auth.hashers.Argon2PasswordHasher"]


def test_a_password_is_stored_as_an_argon2_hash() -> None:
    user = User.objects.create_user(username="hash-check", password="a long passphrase 2026")
    stored = User.objects.get(pk=user.pk).password
    assert stored.startswith("argon2$argon2id$") and "a long passphrase" not in stored
    assert user.check_password("a long passphrase 2026") and not user.check_password("wrong")
