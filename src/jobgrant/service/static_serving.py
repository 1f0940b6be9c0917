"""WhiteNoise, with the static files it found from the finders read once per process.

With `WHITENOISE_USE_FINDERS` (development and tests) WhiteNoise walks every source static file
and stats it each time its middleware is made. A server makes it once, but Django's test client
makes it anew for each client: about 15 ms each, a quarter of the CPU of a test that asks a
thousand questions with a client each. The source files do not change under a running process
(`static_files._digest_at_start` relies on the same), so what the walk found is kept for the
process's life, per static prefix and per what decides the files' headers.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):  # type: ignore[misc]  # untyped
    _found: ClassVar[dict[tuple[Any, ...], dict[str, Any]]] = {}

    def add_files_from_finders(self) -> None:
        key = (self.static_prefix, *whitenoise_settings())
        found = self._found.get(key)
        if found is None:
            before: dict[str, Any] = self.files
            self.files: dict[str, Any] = {}
            super().add_files_from_finders()
            found, self.files = self.files, before
            self._found[key] = found
        self.files.update(found)


def whitenoise_settings() -> list[tuple[str, Any]]:
    """The WHITENOISE_* settings and DEBUG (their defaults' source), which decide the headers."""
    names = sorted(name for name in dir(settings) if name.startswith("WHITENOISE_"))
    return [("DEBUG", settings.DEBUG), *((name, repr(getattr(settings, name))) for name in names)]
