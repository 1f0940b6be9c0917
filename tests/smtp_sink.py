"""A real SMTP server on a free local port (aiosmtpd), that keeps every message it accepted.

Used by the notification tests, by tests/reliability/outbox_t5.py and by bench/messages.py. It can
refuse a share of the deliveries with a transient `451` (a mail server that is busy), to test the
worker's retries.
"""

from __future__ import annotations

import random
import socket
import threading
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Arrived:
    """What the server accepted: the envelope and the parsed message."""

    sender: str
    recipients: list[str]
    message: EmailMessage

    @property
    def message_id(self) -> str:
        return str(self.message["Message-ID"])


@dataclass
class SmtpSink:
    """Accepts mail; refuses each delivery with `refusal` (a transient 451 unless told) with
    probability `refuse` (seeded)."""

    refuse: float = 0.0
    seed: int = 0
    refusal: str = "451 4.3.0 Busy: try again later"
    arrived: list[Arrived] = field(default_factory=list)
    refused: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _random: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        with self._lock:
            if self._random.random() < self.refuse:
                self.refused += 1
                return self.refusal
            parsed = message_from_bytes(envelope.original_content, policy=policy.default)
            assert isinstance(parsed, EmailMessage)
            self.arrived.append(Arrived(envelope.mail_from, list(envelope.rcpt_tos), parsed))
        return "250 2.0.0 Accepted"

    def snapshot(self) -> list[Arrived]:
        with self._lock:
            return list(self.arrived)


class RunningSink:
    """An SmtpSink served on 127.0.0.1:port until stop()."""

    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink
        self.port = free_port()
        self.controller = Controller(sink, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()
