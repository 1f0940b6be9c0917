"""The logs as JSON lines keep the link tokens out (the redaction of log_redaction.py, on the
new format): in the message, its arguments, any extra field, and gunicorn's access line, whose
fields are the request's and whose request id is the answer's X-Request-ID."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
from types import SimpleNamespace

from gunicorn.config import Config  # type: ignore[import-untyped]

from jobgrant.service.log_redaction import RedactLinkTokens
from jobgrant.service.observability.logs import JsonGunicornLogger, JsonLines
from jobgrant.service.observability.request_id import RequestIdFilter, bound

TOKEN = "Qm9vbS1hLXRva2VuLXRoYXQtb3BlbnMtYS1mb3Jt"


def test_a_record_is_one_json_object_without_the_token_in_any_field() -> None:
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.addFilter(RequestIdFilter())
    handler.addFilter(RedactLinkTokens())
    handler.setFormatter(JsonLines())
    logger = logging.getLogger("jobgrant.test-json-lines")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with bound("req-1"):
            logger.warning(
                "Not Found: %s",
                f"/en/participate/{TOKEN}/",
                extra={"path": f"/fr/suivi/{TOKEN}/", "referer": f"/en/invitation/{TOKEN}/x"},
            )
    finally:
        logger.removeHandler(handler)
    printed = buffer.getvalue()
    assert printed.count("\n") == 1 and TOKEN not in printed
    line = json.loads(printed)
    assert line["message"] == "Not Found: /en/participate/[redacted]/"
    assert line["path"] == "/fr/suivi/[redacted]/"
    assert line["referer"] == "/en/invitation/[redacted]/x"
    assert (line["level"], line["logger"], line["request_id"]) == (
        "WARNING",
        "jobgrant.test-json-lines",
        "req-1",
    )
    assert line["time"].endswith("Z")


def test_gunicorn_access_line_is_json_with_the_request_id_and_without_the_token() -> None:
    config = Config()
    config.set("accesslog", "-")
    gunicorn_log = JsonGunicornLogger(config)
    buffer = io.StringIO()
    for handler in gunicorn_log.access_log.handlers:
        handler.setStream(buffer)  # type: ignore[attr-defined]
    response = SimpleNamespace(
        status="404 Not Found", sent=1702, headers=[("X-Request-ID", "lb-77")]
    )
    request = SimpleNamespace(headers=[("REFERER", f"https://x/en/participate/{TOKEN}/")])
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": f"/en/participate/{TOKEN}/?a=1",
        "PATH_INFO": f"/en/participate/{TOKEN}/",
        "QUERY_STRING": "a=1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.0.0.5",
        "HTTP_REFERER": f"https://x/en/participate/{TOKEN}/",
        "HTTP_USER_AGENT": "probe/1",
    }
    gunicorn_log.access(response, request, environ, dt.timedelta(milliseconds=42))
    printed = buffer.getvalue()
    assert printed.count("\n") == 1 and TOKEN not in printed
    line = json.loads(printed)
    assert line["logger"] == "gunicorn.access" and line["request_id"] == "lb-77"
    assert line["message"] == "GET /en/participate/[redacted]/ 404"
    assert (line["method"], line["path"], line["status"]) == (
        "GET",
        "/en/participate/[redacted]/",
        404,
    )
    assert (line["bytes"], line["duration_ms"], line["remote_addr"]) == (1702, 42, "10.0.0.5")
    assert line["referer"] == "https://x/en/participate/[redacted]/"
