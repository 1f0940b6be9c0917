"""A pace for the requests of one process: at most one per interval, and none while paused.

GC Notify allows a service 1,000 API requests a minute (JOBGRANT_NOTIFY_RATE_PER_MINUTE). Each of
JOBGRANT_NOTIFY_WORKERS worker processes keeps to its share by leaving at least
60 × workers / rate seconds between two of its requests (ADR 0025: no shared counter, so no
commit or Redis round trip per message; a 429 from Notify is the backstop if more workers run
than declared). A 429's Retry-After pauses every request of the process, not only its row's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


class PausedError(Exception):
    """The process's next turn is further off than a request may wait (a long Retry-After):
    the row goes back to the queue instead of holding its lease while the worker sleeps."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"paused for {seconds:.1f} s")
        self.seconds = seconds


@dataclass
class Pace:
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    _next: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_turn(self, interval: float, most: float = float("inf")) -> float:
        """Block until this process may make its next request; returns the seconds waited.
        Raises PausedError, taking no turn, if that is more than `most` seconds away."""
        with self._lock:
            now = self.clock()
            turn = max(now, self._next)
            if turn - now > most:
                raise PausedError(turn - now)
            self._next = turn + interval
        waited = turn - now
        if waited > 0:
            self.sleep(waited)
        return waited

    def pause(self, seconds: float) -> None:
        """No request from this process for `seconds` (GC Notify said 429, Retry-After)."""
        with self._lock:
            self._next = max(self._next, self.clock() + seconds)
