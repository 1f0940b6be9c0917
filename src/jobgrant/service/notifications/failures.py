"""What a failed attempt was: permanent or not, how the row records it, and the least wait.

The row keeps the error's kind and code, never its message (which may quote the address or the
body): "SMTPDataError 451", "Notify 429", "Notify ReadTimeout".
"""

from __future__ import annotations

import smtplib
from dataclasses import dataclass


@dataclass(frozen=True)
class Failure:
    permanent: bool
    described: str
    at_least_seconds: float = 0.0  # the next attempt waits at least this (or its back-off)


def smtp_code(error: Exception) -> int | None:
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        return max(codes) if codes else None
    return getattr(error, "smtp_code", None)


def smtp_failure(error: Exception) -> Failure:
    """An SMTP server's 5xx is permanent; its 4xx, a refused connection, a timeout are not."""
    code = smtp_code(error)
    described = f"{type(error).__name__}" + (f" {code}" if code is not None else "")
    return Failure(permanent=code is not None and 500 <= code < 600, described=described)
