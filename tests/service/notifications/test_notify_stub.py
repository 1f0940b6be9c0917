"""The GC Notify stand-in refuses what GC Notify refuses: the delivery tests' passes mean
something only if a wrong token or body would have failed them."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
import requests
from notifications_python_client.notifications import NotificationsAPIClient
from tests.notify_stub import NotifyStub

TEMPLATE = str(uuid.uuid4())
GOOD = {
    "email_address": "someone@example.com",
    "template_id": TEMPLATE,
    "personalisation": {"subject": "Hello", "body": "Text"},
    "reference": "outbox-1@jobgrant.example",
}


@pytest.fixture
def stub() -> Iterator[NotifyStub]:
    running = NotifyStub(templates={TEMPLATE: {"subject", "body"}}).start()
    yield running
    running.stop()


def post(stub: NotifyStub, body: Any, *, token: str | None = None) -> requests.Response:
    token = token if token is not None else bearer(stub.service_id, stub.secret)
    return requests.post(
        f"{stub.base_url}/v2/notifications/email",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=5,
    )


def bearer(issuer: str, secret: str, issued: float | None = None, alg: str = "HS256") -> str:
    claims = {"iss": issuer, "iat": int(issued if issued is not None else time.time())}
    return jwt.encode(claims, secret, algorithm=alg)


def test_the_notify_client_is_accepted_and_answered_as_notify_answers(stub: NotifyStub) -> None:
    client: Any = NotificationsAPIClient(stub.api_key, base_url=stub.base_url)
    created = client.send_email_notification(
        email_address="someone@example.com",
        template_id=TEMPLATE,
        personalisation={"subject": "Hello", "body": "Text"},
        reference="outbox-1@jobgrant.example",
    )
    assert created["reference"] == "outbox-1@jobgrant.example"
    assert created["content"] == {
        "subject": "Hello",
        "body": "Text",
        "from_email": "jobgrant@notification.canada.ca",
    }
    listed = client.get_all_notifications(reference="outbox-1@jobgrant.example")
    [notification] = listed["notifications"]
    assert notification["id"] == created["id"] and notification["type"] == "email"
    assert client.get_all_notifications(reference="outbox-2@jobgrant.example") == {
        "notifications": [],
        "links": {
            "current": f"{stub.base_url}/v2/notifications?reference=outbox-2%40jobgrant.example"
        },
    }


@pytest.mark.parametrize(
    "token",
    [
        pytest.param(lambda s: bearer(s.service_id, str(uuid.uuid4())), id="another secret"),
        pytest.param(lambda s: bearer(str(uuid.uuid4()), s.secret), id="another service"),
        pytest.param(lambda s: bearer(s.service_id, s.secret, time.time() - 31), id="iat 31 s ago"),
        pytest.param(lambda s: bearer(s.service_id, s.secret, time.time() + 31), id="iat ahead"),
        pytest.param(lambda s: bearer(s.service_id, s.secret, alg="HS512"), id="not HS256"),
        pytest.param(lambda s: "not.a.token", id="garbage"),
    ],
)
@pytest.mark.filterwarnings("ignore:The HMAC key is 36 bytes long")  # HS512 with a short key
def test_a_token_notify_would_refuse_is_refused_with_403(stub: NotifyStub, token: Any) -> None:
    answer = post(stub, GOOD, token=token(stub))
    assert answer.status_code == 403
    assert answer.json()["errors"][0]["error"] == "AuthError"
    assert stub.accepted == []


def test_no_token_is_401(stub: NotifyStub) -> None:
    answer = requests.post(f"{stub.base_url}/v2/notifications/email", json=GOOD, timeout=5)
    assert answer.status_code == 401


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"email_address": "nobody@localhost"}, "ValidationError"),
        ({"template_id": "welcome"}, "ValidationError"),
        ({"template_id": str(uuid.uuid4())}, "BadRequestError"),
        ({"personalisation": {"subject": "Hello"}}, "BadRequestError"),
        ({"personalisation": {"subject": "Hello", "body": "x", "name": "y"}}, "BadRequestError"),
        ({"reference": None}, "ValidationError"),
        ({"sms_sender_id": "x"}, "ValidationError"),
    ],
)
def test_a_body_notify_would_refuse_is_refused_with_400(
    stub: NotifyStub, change: dict[str, Any], error: str
) -> None:
    answer = post(stub, {**GOOD, **change})
    assert answer.status_code == 400
    assert answer.json()["errors"][0]["error"] == error
    assert stub.accepted == []
