"""The logs as JSON lines (python-json-logger), one object per line, without link tokens.

Each line has `time`, `level`, `logger`, `message`, `request_id` (request_id.py) and whatever
fields the call gave (`extra=`): the worker's delivery line, say, has `message_id`, `kind`,
`attempt` and `outcome`. The whole line is passed through the redaction of e-mailed links'
tokens (log_redaction.py) after it is written, so a token in any field (a path, a Referer, an
exception's text) is replaced too. SINs are never logged (the outbox refuses one in a message;
the PII scan checks the logs).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from jobgrant.service.log_redaction import RedactingGunicornLogger, redact

FIELDS = "{asctime}{levelname}{name}{message}{request_id}"
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}


class JsonLines(JsonFormatter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fmt", FIELDS)
        kwargs.setdefault("style", "{")
        kwargs.setdefault("rename_fields", RENAMED)
        kwargs.setdefault("json_ensure_ascii", False)
        kwargs.setdefault("timestamp", False)
        super().__init__(*args, **kwargs)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        moment = datetime.fromtimestamp(record.created, tz=UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class JsonGunicornLogger(RedactingGunicornLogger):
    """gunicorn's logger (`jobgrant serve --logger-class`): its own lines and the access log as
    the same JSON lines, the access line with the request's fields and its request id (read from
    the answer's X-Request-ID), every atom without link tokens (RedactingGunicornLogger)."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for logger in (self.error_log, self.access_log):
            for handler in logger.handlers:
                handler.setFormatter(JsonLines())

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
        if not self.access_log_enabled:
            return
        atoms = self.atoms(resp, req, environ, request_time)
        fields = {
            "request_id": atoms.get("{x-request-id}o", ""),
            "method": atoms["m"],
            "path": atoms["U"],
            "query": atoms["q"],
            "status": int(atoms["s"]) if str(atoms["s"]).isdigit() else atoms["s"],
            "bytes": atoms["B"],
            "duration_ms": atoms["M"],
            "remote_addr": atoms["h"],
            "referer": atoms["f"],
            "user_agent": atoms["a"],
        }
        try:
            self.access_log.info("%s %s %s", atoms["m"], atoms["U"], atoms["s"], extra=fields)
        except Exception:
            self.exception("the access log line could not be written")
