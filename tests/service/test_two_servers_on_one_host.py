"""Two `jobgrant serve` on one host (one user, one var directory, two ports): each keeps its own
gunicorn control socket, both keep answering, and each can be stopped alone.

gunicorn's control socket (`gunicornc`) is by default one path per user
($XDG_RUNTIME_DIR/gunicorn.ctl, else ~/.gunicorn/gunicorn.ctl): the second server took it over
from the first, and the first one stopped removed it from under the second.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from gunicorn.ctl.client import ControlClient  # type: ignore[import-untyped]
from tests.live_servers import Process, get, migrated, serve, stop

ANNOUNCED = "Control socket listening at "


def control_socket(server: Process) -> str:
    """The path the server's gunicorn says it listens on for gunicornc."""
    for line in server.output().splitlines():
        if line.startswith("{") and json.loads(line)["message"].startswith(ANNOUNCED):
            return str(json.loads(line)["message"].removeprefix(ANNOUNCED))
    raise AssertionError(f"no control socket announced:\n{server.output()[-2000:]}")


def stats(path: str) -> dict[str, object]:
    with ControlClient(path, timeout=30) as client:
        found: dict[str, object] = client.send_command("show stats")
        return found


def test_two_servers_on_one_host_each_keep_their_own_control_socket(tmp_path: Path) -> None:
    home = tmp_path / "home"  # the user's default control socket would be made in there
    home.mkdir()
    var = migrated(tmp_path / "var")
    saved = {name: os.environ.pop(name, None) for name in ("HOME", "XDG_RUNTIME_DIR")}
    os.environ["HOME"] = str(home)
    try:
        with serve(var, workers=1) as first, serve(var, workers=1) as second:
            paths = control_socket(first), control_socket(second)
            assert paths[0] != paths[1], "both servers on one control socket"
            assert not (home / ".gunicorn").exists()
            for server in (first, second):
                assert get(server.port, "/healthz")[0] == 200
                assert get(server.port, "/readyz")[0] == 200
            assert stats(paths[0])["pid"] == first.process.pid
            assert stats(paths[1])["pid"] == second.process.pid

            # The first stopped through its own socket: the second answers, and so does its socket.
            with ControlClient(paths[0], timeout=30) as client:
                client.send_command("shutdown")
            first.process.wait(timeout=60)
            assert get(second.port, "/healthz")[0] == 200
            assert stats(paths[1])["pid"] == second.process.pid
            assert not Path(paths[0]).exists() and Path(paths[1]).exists()

            stop(second)  # and the second alone, by its signal
            assert second.process.returncode == 0
            assert not Path(paths[1]).exists()
    finally:
        for name, value in saved.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value
