"""The WSGI application of `jobgrant serve`, with each request's CPU time recorded per route:
what `bench/load/run.py --cpu-by-endpoint` serves instead, so that `make load` can give the
server CPU of each endpoint (the median a request), which the workers' total cannot.

Each worker times each request on its process's CPU clock, from the call of the application to
the close of its answer (gunicorn writes the answer and its access line in between, so both are
in it), keyed by method and path with each number as [id], each sample with the time it ended
(run.py keeps those of Locust's run), and writes them to `$JOBGRANT_LOAD_CPU_DIR/<pid>.json`
every 50 requests and when the worker exits (the file is rewritten whole each time)."""

from __future__ import annotations

import atexit
import json
import os
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from jobgrant.service.wsgi import application as _application

_SAMPLES: defaultdict[str, list[tuple[float, float]]] = defaultdict(list)  # (ended, CPU s)
_NUMBER = re.compile(r"/\d+")


def route(environ: dict[str, Any]) -> str:
    """ "GET /api/v1/applications/[id]" for GET /api/v1/applications/41."""
    path = _NUMBER.sub("/[id]", environ.get("PATH_INFO", ""))
    return f"{environ.get('REQUEST_METHOD', '')} {path}"


def _write() -> None:
    folder = Path(os.environ["JOBGRANT_LOAD_CPU_DIR"])
    (folder / f"{os.getpid()}.json").write_text(json.dumps(_SAMPLES))


class _Timed:
    """The answer's body, its close recording the request's CPU."""

    def __init__(self, body: Iterable[bytes], key: str, began: float) -> None:
        self.body, self.key, self.began = body, key, began

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            _SAMPLES[self.key].append((time.time(), time.process_time() - self.began))
            if sum(len(samples) for samples in _SAMPLES.values()) % 50 == 0:
                _write()


atexit.register(_write)


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> _Timed:
    began = time.process_time()
    return _Timed(_application(environ, start_response), route(environ), began)
