"""The wall time and CPU time of each stage of `make test`, printed at its end.

    python tests/stage_clock.py begin                      # forget the last run's stages
    python tests/stage_clock.py run NAME -- COMMAND ...    # run a stage, note its times
    python tests/stage_clock.py report                     # the table, and the run's total

A stage's CPU time is that of the processes it started and waited for (the operating system adds
a process's time to its parent's when the parent waits for it): the test processes, the servers
and workers the tests start and stop, mypy, Chromium (whose processes outlive the Playwright
driver that started them: the clock adopts them as their subreaper, so that their time counts
too). Stages that run side by side each count
their own. A failed stage prints the table so far, so that a red build shows it too.

Standard library only: it runs before the project's environment exists (the install stage).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

NOTES = Path(os.environ.get("JOBGRANT_STAGE_CLOCK", "var/stage-clock.jsonl"))


def begin() -> None:
    NOTES.parent.mkdir(parents=True, exist_ok=True)
    NOTES.write_text(json.dumps({"begin": time.time()}) + "\n")


def run(name: str, command: list[str]) -> int:
    _adopt_orphans()
    started_wall, started = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    code = _wait_reaping(subprocess.Popen(command))
    _reap_orphans()
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ended.ru_utime - started.ru_utime) + (ended.ru_stime - started.ru_stime)
    note = {"stage": name, "start": started_wall, "wall": time.time() - started_wall}
    note |= {"cpu": cpu, "code": code}
    NOTES.parent.mkdir(parents=True, exist_ok=True)
    with NOTES.open("a") as notes:  # one short line per write: whole even when stages end at once
        notes.write(json.dumps(note) + "\n")
    if code != 0:
        print(f"\nStage {name} failed (exit {code}).")
        report()
    return code


def _adopt_orphans() -> None:
    """Become the subreaper of the stage's processes (Linux): a process whose parent ended
    without waiting for it (Chromium's, once Playwright's driver has gone) is handed to us
    rather than to init, so that its CPU time is counted in the stage's when we wait for it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass  # elsewhere the figure leaves out such processes' time, as before


def _wait_reaping(process: subprocess.Popen[bytes]) -> int:
    """The command's exit code, reaping each adopted process as soon as it ends meanwhile: one
    left a zombie keeps its PID taken, and a PostgreSQL postmaster killed by T4 (adopted when
    pg_ctl, its parent, has gone) would then seem to run still, so that no new postmaster may
    start on its data directory ("lock file postmaster.pid already exists")."""
    while True:
        pid, status = os.waitpid(-1, 0)  # the command is our child until this reaps it
        if pid == process.pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode


def _reap_orphans() -> None:
    """Wait for the adopted processes that have ended (those still running are left be)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def report() -> None:
    if not NOTES.exists():
        return
    lines = [json.loads(line) for line in NOTES.read_text().splitlines() if line.strip()]
    begun = next((line["begin"] for line in lines if "begin" in line), None)
    stages = sorted((line for line in lines if "stage" in line), key=lambda line: line["start"])
    if not stages:
        return
    begun = begun or stages[0]["start"]
    print("\nThe stages of this run (wall time, CPU time of the processes each started):")
    print(f"  {'stage':<28} {'started':>8} {'wall':>8} {'CPU':>8}  result")
    for stage in stages:
        result = "passed" if stage["code"] == 0 else f"FAILED ({stage['code']})"
        print(
            f"  {stage['stage']:<28} {_clock(stage['start'] - begun):>8}"
            f" {_clock(stage['wall']):>8} {_clock(stage['cpu']):>8}  {result}"
        )
    total = max(stage["start"] + stage["wall"] for stage in stages) - begun
    load = ", ".join(f"{figure:.1f}" for figure in os.getloadavg())
    print(f"  {'whole run':<28} {'':>8} {_clock(total):>8}  (load average now {load})")


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}:{rest:02d}"


def main(arguments: list[str]) -> int:
    if arguments[:1] == ["begin"]:
        begin()
        return 0
    if arguments[:1] == ["report"]:
        report()
        return 0
    if arguments[:1] == ["run"] and len(arguments) > 3 and arguments[2] == "--":
        return run(arguments[1], arguments[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
