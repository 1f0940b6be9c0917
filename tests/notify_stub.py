"""A stand-in for GC Notify's API on a free local port (a real HTTP server, one thread a request),
that checks what it receives as GC Notify does and can fail on purpose.

It checks, on every request, the `Authorization: Bearer` JWT as Notify does: HS256, `iss` the
service id, `iat` within 30 seconds of now, signed with the API key's secret (else 403
AuthError). POST /v2/notifications/email: a JSON object with only Notify's fields, a valid
`email_address`, a `template_id` that is one of the service's templates, `personalisation` with
exactly that template's placeholders (Notify ignores extra ones; the stub refuses them, to catch
a mistake of ours), and a `reference` (optional at Notify; jobgrant always sends one); else 400
ValidationError or BadRequestError, as Notify answers. It answers 201 with Notify's notification
JSON. GET /v2/notifications?reference=… lists the accepted notifications with that reference
(after `listing_lag` seconds, to stand for a listing that lags), newest first.

On purpose, for a share `fail` of the requests (seeded), one of `modes`:
- "500": refused with a 500, not accepted;
- "429": refused with a 429 and `Retry-After: retry_after`, not accepted;
- "slow": accepted, then answered only after `slow_seconds` (past the client's timeout);
- "accepted-500": accepted, then answered 500 (a retry must find it by its reference).
With `rate_limit=(requests, seconds)` it refuses, as Notify does with its rolling limit, a request
that would make more than `requests` in the last `seconds` (429 RateLimitError).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import jwt

FIELDS = {"email_address", "template_id", "personalisation", "reference", "email_reply_to_id"}
QUERY = {"reference", "template_type", "status", "older_than", "include_jobs"}
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-zA-Z]{2,}$")
MODES = ("500", "429", "slow", "accepted-500")


class RefusalError(Exception):
    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status, self.error, self.message = status, error, message


@dataclass
class Accepted:
    id: str
    reference: str | None
    email_address: str
    template_id: str
    personalisation: dict[str, Any]
    at: float

    def as_json(self, base_url: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "reference": self.reference,
            "email_address": self.email_address,
            "phone_number": None,
            "type": "email",
            "status": "created",
            "template": {"id": self.template_id, "version": 1, "uri": f"{base_url}/t"},
            "body": self.personalisation.get("body", ""),
            "subject": self.personalisation.get("subject", ""),
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(self.at)),
            "sent_at": None,
            "completed_at": None,
        }


@dataclass
class NotifyStub:
    templates: dict[str, set[str]]  # template id → its placeholders
    fail: float = 0.0
    modes: tuple[str, ...] = MODES
    retry_after: str = "1"
    slow_seconds: float = 2.0
    listing_lag: float = 0.0
    rate_limit: tuple[int, float] | None = None
    seed: int = 0
    service_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    secret: str = field(default_factory=lambda: str(uuid.uuid4()))
    accepted: list[Accepted] = field(default_factory=list)
    failed_on_purpose: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)  # by error: AuthError, ValidationError
    requests: list[tuple[str, float]] = field(default_factory=list)  # (method, time)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _random: random.Random = field(init=False)
    _server: ThreadingHTTPServer | None = None

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    @property
    def api_key(self) -> str:
        return f"jobgrant_test-{self.service_id}-{self.secret}"

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> NotifyStub:
        self._server = _QuietServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def by_reference(self) -> Counter[str | None]:
        with self._lock:
            return Counter(a.reference for a in self.accepted)

    def snapshot(self) -> list[Accepted]:
        with self._lock:
            return list(self.accepted)

    # --- what a request gets --------------------------------------------------------------
    def check_token(self, authorization: str | None) -> None:
        if not authorization or not authorization.startswith("Bearer "):
            raise RefusalError(
                401, "AuthError", "Unauthorized: authentication token must be provided"
            )
        token = authorization.removeprefix("Bearer ").strip()
        try:
            if jwt.get_unverified_header(token).get("alg") != "HS256":
                raise RefusalError(403, "AuthError", "Invalid token: algorithm used is not HS256")
            claims = jwt.decode(
                token, key=self.secret, algorithms=["HS256"], options={"require": ["iss", "iat"]}
            )
        except jwt.PyJWTError as error:
            raise RefusalError(403, "AuthError", f"Invalid token: {error}") from None
        if claims["iss"] != self.service_id:
            raise RefusalError(403, "AuthError", "Invalid token: service not found")
        if abs(time.time() - int(claims["iat"])) > 30:
            raise RefusalError(
                403, "AuthError", "Error: Your system clock must be accurate to 30 s"
            )

    def check_rate(self, method: str) -> None:
        with self._lock:
            now = time.monotonic()
            if self.rate_limit is not None:
                most, seconds = self.rate_limit
                recent = [t for _, t in self.requests if t > now - seconds]
                if len(recent) >= most:
                    self.refused["RateLimitError"] += 1
                    raise RefusalError(429, "RateLimitError", f"Exceeded rate limit of {most}")
            self.requests.append((method, now))

    def on_purpose(self) -> str | None:
        with self._lock:
            if self._random.random() >= self.fail:
                return None
            mode = self._random.choice(self.modes)
            self.failed_on_purpose[mode] += 1
            return mode

    def check_email(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise RefusalError(400, "ValidationError", "the body must be a JSON object")
        extra = set(body) - FIELDS
        if extra:
            raise RefusalError(
                400, "ValidationError", f"Additional properties not allowed: {extra}"
            )
        address = body.get("email_address")
        if not isinstance(address, str) or not EMAIL.match(address):
            raise RefusalError(400, "ValidationError", "email_address Not a valid email address")
        template = str(body.get("template_id"))
        try:
            uuid.UUID(template)
        except ValueError:
            raise RefusalError(400, "ValidationError", "template_id is not a valid UUID") from None
        if template not in self.templates:
            raise RefusalError(400, "BadRequestError", "Template not found")
        self.check_personalisation(body.get("personalisation"), self.templates[template])
        if not isinstance(body.get("reference"), str) or not body["reference"]:
            raise RefusalError(400, "ValidationError", "reference is required by jobgrant's stub")
        return body

    @staticmethod
    def check_personalisation(given: Any, wanted: set[str]) -> None:
        if not isinstance(given, dict):
            raise RefusalError(400, "ValidationError", "personalisation must be an object")
        if missing := wanted - set(given):
            raise RefusalError(
                400, "BadRequestError", f"Missing personalisation: {sorted(missing)}"
            )
        if extra := set(given) - wanted:
            raise RefusalError(400, "BadRequestError", f"Unknown personalisation: {sorted(extra)}")

    def accept(self, body: dict[str, Any]) -> Accepted:
        accepted = Accepted(
            id=str(uuid.uuid4()),
            reference=body.get("reference"),
            email_address=body["email_address"],
            template_id=body["template_id"],
            personalisation=body["personalisation"],
            at=time.monotonic(),
        )
        with self._lock:
            self.accepted.append(accepted)
        return accepted

    def listed(self, reference: str | None) -> list[Accepted]:
        visible_before = time.monotonic() - self.listing_lag
        with self._lock:
            found = [
                a
                for a in self.accepted
                if a.at <= visible_before and (reference is None or a.reference == reference)
            ]
        return found[::-1]


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a worker killed by T5, a timed-out request) is expected."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler(stub: NotifyStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the client's session expects

        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            self._answer("POST", lambda mode: self._post(raw, mode))

        def do_GET(self) -> None:
            self._answer("GET", self._get)

        def _answer(self, method: str, handle: Any) -> None:
            try:
                stub.check_token(self.headers.get("Authorization"))
                stub.check_rate(method)
                status, body, headers = handle(stub.on_purpose())
            except RefusalError as refusal:
                if refusal.status != 429:
                    with stub._lock:
                        stub.refused[refusal.error] += 1
                error = {"error": refusal.error, "message": refusal.message}
                status, body = refusal.status, {"status_code": refusal.status, "errors": [error]}
                headers = {"Retry-After": stub.retry_after} if refusal.status == 429 else {}
            self._send(status, body, headers)

        def _post(self, raw: bytes, mode: str | None) -> tuple[int, Any, dict[str, str]]:
            if urlparse(self.path).path != "/v2/notifications/email":
                raise RefusalError(404, "ResourceNotFound", "Not found")
            try:
                body = stub.check_email(json.loads(raw or b"null"))
            except json.JSONDecodeError:
                raise RefusalError(400, "ValidationError", "Invalid JSON supplied") from None
            refused = _refused_on_purpose(mode, stub.retry_after)
            if refused:
                return refused
            accepted = stub.accept(body)
            if mode == "slow":
                time.sleep(stub.slow_seconds)
            if mode == "accepted-500":
                return _server_error()
            return 201, _created(accepted, stub.base_url), {}

        def _get(self, mode: str | None) -> tuple[int, Any, dict[str, str]]:
            url = urlparse(self.path)
            if url.path != "/v2/notifications":
                raise RefusalError(404, "ResourceNotFound", "Not found")
            query = parse_qs(url.query)
            if unknown := set(query) - QUERY:
                raise RefusalError(400, "ValidationError", f"Additional properties: {unknown}")
            nothing_to_accept = "500" if mode == "accepted-500" else mode
            refused = _refused_on_purpose(nothing_to_accept, stub.retry_after)
            if refused:
                return refused
            if mode == "slow":
                time.sleep(stub.slow_seconds)
            found = stub.listed(query.get("reference", [None])[0])
            current = f"{stub.base_url}{self.path}"
            listing = {"notifications": [a.as_json(stub.base_url) for a in found]}
            return 200, {**listing, "links": {"current": current}}, {}

        def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a "slow" answer)

    return Handler


def _refused_on_purpose(
    mode: str | None, retry_after: str
) -> tuple[int, Any, dict[str, str]] | None:
    if mode == "500":
        return _server_error()
    if mode == "429":
        error = {"error": "RateLimitError", "message": "Exceeded rate limit (on purpose)"}
        return 429, {"status_code": 429, "errors": [error]}, {"Retry-After": retry_after}
    return None


def _server_error() -> tuple[int, Any, dict[str, str]]:
    error = {"error": "InternalServerError", "message": "Internal server error"}
    return 500, {"status_code": 500, "errors": [error]}, {}


def _created(accepted: Accepted, base_url: str) -> dict[str, Any]:
    return {
        "id": accepted.id,
        "reference": accepted.reference,
        "content": {
            "subject": accepted.personalisation.get("subject", ""),
            "body": accepted.personalisation.get("body", ""),
            "from_email": "jobgrant@notification.canada.ca",
        },
        "uri": f"{base_url}/v2/notifications/{accepted.id}",
        "template": {"id": accepted.template_id, "version": 1, "uri": f"{base_url}/t"},
        "scheduled_for": None,
    }
