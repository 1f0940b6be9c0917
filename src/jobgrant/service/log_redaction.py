"""Keep the tokens of e-mailed links out of every log: Django's and gunicorn's access log.

A link's token (links.py) is the only key to what it opens: a trainee's form, an invitation, an
account's confirmation, a staff account's first password, a password reset. So a log line that
names its path (Django's "Not Found: …" warning, gunicorn's request line, a Referer) shows
/participate/[redacted]/ (in French /participer/[redacted]/) instead. Django's loggers get
`RedactLinkTokens` as a filter (settings.LOGGING); `jobgrant serve` runs gunicorn with
`RedactingGunicornLogger`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from gunicorn.glogging import Logger  # type: ignore[import-untyped]

#: The addresses that end in a link's token: /<lang>/<one of these>/<token>/, in English and
#: in French (the password reset's own pages, beside its link, are not tokens). A test checks
#: every link page in both languages.
LINK_PREFIXES = (
    "participate",
    "participer",
    "follow-up",
    "suivi",
    "comparison",
    "comparaison",
    "invitation",
    "register/verify",
    "inscription/verifier",
    "account/setup",
    "compte/activation",
    "account/email/confirm",
    "compte/courriel/confirmer",
    "password-reset",
    "mot-de-passe-oublie",
    "dispute",
    "contestation",
)
_NOT_TOKENS = r"(?!(?:sent|done|envoye|termine|set-password)/)"
_TOKEN = re.compile(rf"(/(?:{'|'.join(LINK_PREFIXES)})/){_NOT_TOKENS}[^/?#\s\"']+")
REDACTED = r"\1[redacted]"


def redact(text: str) -> str:
    return _TOKEN.sub(REDACTED, text)


class RedactLinkTokens(logging.Filter):
    """Rewrites a record's message (and its arguments) without the token; keeps every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()
            }
        request = getattr(record, "request", None)
        if request is not None and _TOKEN.search(getattr(request, "path", "")):
            record.request = None  # Django's error e-mails and formatters read the path from it
        return True


class RedactingGunicornLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger, with every access-log atom stripped of the token."""

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        found = super().atoms(resp, req, environ, request_time)
        return {k: redact(v) if isinstance(v, str) else v for k, v in found.items()}
