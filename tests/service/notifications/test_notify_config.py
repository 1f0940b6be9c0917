"""GC Notify's settings: a bad one stops the process at start-up, naming the variable; a message
that could not be sent is never queued."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from tests.personas import EMPLOYER
from tests.service.notifications.conftest import EN_TEMPLATE, FR_TEMPLATE, OWN_TEMPLATE

from jobgrant.service.accounts.models import User
from jobgrant.service.notifications import notify_config
from jobgrant.service.notifications.models import Message
from jobgrant.service.notifications.outbox import enqueue
from jobgrant.service.notifications.pacing import Pace, PausedError

# Fixed, not drawn: they are in the parametrized tests' ids, which pytest-xdist's workers must
# collect alike.
SERVICE, SECRET = "4f2a9c1e-5b7d-4e3a-9c61-2d8e0f1a3b5c", "9e1d7c3b-2a4f-4b6e-8d0c-1f3a5e7b9d2c"
GOOD = {
    "JOBGRANT_DELIVERY": "notify",
    "JOBGRANT_NOTIFY_BASE_URL": "https://api.notification.canada.ca",
    "JOBGRANT_NOTIFY_API_KEY": f"jobgrant-{SERVICE}-{SECRET}",
    "JOBGRANT_NOTIFY_TEMPLATES": json.dumps({"en": EN_TEMPLATE, "fr": FR_TEMPLATE}),
    "JOBGRANT_NOTIFY_TIMEOUT_SECONDS": "10",
    "JOBGRANT_NOTIFY_RATE_PER_MINUTE": "1000",
    "JOBGRANT_NOTIFY_WORKERS": "1",
    "JOBGRANT_NOTIFY_LISTING_LAG_SECONDS": "30",
}


@pytest.fixture
def configured(settings: Any) -> Any:
    for name, value in GOOD.items():
        setattr(settings, name, value)
    return settings


def start_django(tmp_path: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    """Start Django in a new process, as `jobgrant worker` or a server does."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.settings",
        "JOBGRANT_ENV": "development",
        "JOBGRANT_VAR_DIR": str(tmp_path),
        **environment,
    }
    code = "import django; django.setup(); print('started')"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )


def test_a_delivery_that_is_neither_smtp_nor_notify_stops_the_start(tmp_path: Path) -> None:
    started = start_django(tmp_path, JOBGRANT_DELIVERY="gcnotify")
    assert started.returncode != 0
    assert "JOBGRANT_DELIVERY must be smtp or notify, not 'gcnotify'" in started.stderr


def test_notify_without_an_api_key_stops_the_start(tmp_path: Path) -> None:
    environment = {**GOOD, "JOBGRANT_NOTIFY_API_KEY": ""}
    started = start_django(tmp_path, **environment)
    assert started.returncode != 0
    assert "JOBGRANT_NOTIFY_API_KEY must be GC Notify's key" in started.stderr


def test_notify_well_configured_starts(tmp_path: Path) -> None:
    started = start_django(tmp_path, **GOOD)
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "started"


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [
        ("JOBGRANT_NOTIFY_BASE_URL", "api.notification.canada.ca", "must be an http(s)://"),
        ("JOBGRANT_NOTIFY_API_KEY", f"jobgrant-{SERVICE}", "name-serviceid-secret"),
        ("JOBGRANT_NOTIFY_API_KEY", f"-{SERVICE}-{SECRET}", "name-serviceid-secret"),
        ("JOBGRANT_NOTIFY_TEMPLATES", "", "must be a JSON object"),
        ("JOBGRANT_NOTIFY_TEMPLATES", "{en:", "is not JSON"),
        ("JOBGRANT_NOTIFY_TEMPLATES", json.dumps({"en": EN_TEMPLATE}), "no 'fr' template"),
        (
            "JOBGRANT_NOTIFY_TEMPLATES",
            json.dumps({"en": EN_TEMPLATE, "fr": "welcome-fr"}),
            "['fr'] must be a GC Notify template id",
        ),
        (
            "JOBGRANT_NOTIFY_TEMPLATES",
            json.dumps({"en": EN_TEMPLATE, "fr": FR_TEMPLATE, "no_such_kind.en": OWN_TEMPLATE}),
            "'no_such_kind.en' is neither a language",
        ),
        (
            "JOBGRANT_NOTIFY_TEMPLATES",
            json.dumps({"en": EN_TEMPLATE, "fr": FR_TEMPLATE, "password_reset.de": OWN_TEMPLATE}),
            "'password_reset.de' is neither a language",
        ),
        ("JOBGRANT_NOTIFY_TEMPLATES", "@/nonexistent/templates.json", "no file"),
        ("JOBGRANT_NOTIFY_TIMEOUT_SECONDS", "0", "TIMEOUT_SECONDS must be a number above 0"),
        ("JOBGRANT_NOTIFY_TIMEOUT_SECONDS", "60", "LEASE_SECONDS (120) must be longer"),
        ("JOBGRANT_NOTIFY_RATE_PER_MINUTE", "lots", "RATE_PER_MINUTE must be a number above 0"),
        ("JOBGRANT_NOTIFY_WORKERS", "1.5", "WORKERS must be a whole number above 0"),
        ("JOBGRANT_NOTIFY_LISTING_LAG_SECONDS", "-1", "LISTING_LAG_SECONDS must be a number"),
    ],
)
def test_a_bad_notify_setting_is_refused_naming_it(
    configured: Any, name: str, value: str, error: str
) -> None:
    setattr(configured, name, value)
    with pytest.raises(ImproperlyConfigured, match=re.escape(error)):
        notify_config.current()


def test_templates_may_come_from_a_file_and_a_kind_may_have_its_own(
    configured: Any, tmp_path: Path
) -> None:
    file = tmp_path / "templates.json"
    mapping = {"en": EN_TEMPLATE, "fr": FR_TEMPLATE, "password_reset.fr": OWN_TEMPLATE}
    file.write_text(json.dumps(mapping))
    configured.JOBGRANT_NOTIFY_TEMPLATES = f"@{file}"
    config = notify_config.current()
    assert config.service_id == SERVICE
    assert config.template_for("password_reset", "fr") == OWN_TEMPLATE
    assert config.template_for("password_reset", "en") == EN_TEMPLATE
    assert config.template_for("application_received", "fr") == FR_TEMPLATE


def test_each_worker_keeps_to_its_share_of_the_published_limit(configured: Any) -> None:
    assert notify_config.current().seconds_between_requests == pytest.approx(0.06)
    configured.JOBGRANT_NOTIFY_WORKERS = "4"
    assert notify_config.current().seconds_between_requests == pytest.approx(0.24)


@pytest.mark.django_db
def test_a_message_notify_could_not_send_is_not_queued(configured: Any) -> None:
    configured.JOBGRANT_NOTIFY_TEMPLATES = json.dumps({"en": EN_TEMPLATE})
    subject = User.objects.get(username=EMPLOYER.username)
    with pytest.raises(ImproperlyConfigured, match="no 'fr' template"), transaction.atomic():
        enqueue("password_reset", subject=subject, to="a@example.com", language="fr", context={})
    assert not Message.objects.exists()


def test_the_pace_leaves_the_interval_between_requests_and_a_pause_holds_them_all() -> None:
    now = [100.0]
    pace = Pace(clock=lambda: now[0], sleep=lambda seconds: now.__setitem__(0, now[0] + seconds))
    waits = [pace.wait_turn(0.06) for _ in range(101)]
    assert waits[0] == 0 and now[0] == pytest.approx(106.0)  # 100 gaps of 60 ms
    pace.pause(120)
    assert pace.wait_turn(0.06) == pytest.approx(120.0)  # from 106 s to the end of the pause
    assert now[0] == pytest.approx(226.0)
    assert pace.wait_turn(0.06) == pytest.approx(0.06)
    pace.pause(30)
    with pytest.raises(PausedError) as paused:
        pace.wait_turn(0.06, most=2.0)
    assert paused.value.seconds == pytest.approx(30.0)
    assert now[0] == pytest.approx(226.06)  # it did not sleep
