"""The crowd of `make load` (bench/load/run.py starts the servers and signs the accounts in).

Who is in it, by Locust's weights (of every 100 simulated people), and what each does, each
person waiting 0.5 to 1.0 s (uniform) after each answer before the next request:

- 30 employers through the API: quote (task weight 3), apply and submit (2), list their files
  (3), read one of their files (3), read an approved file's agreement (1);
- 30 employers on the pages: their dashboard (4), a file's page (3), an approved file's
  agreement (1), the first step of applying (1);
- 10 officers who recommend (demo-officer-on-1): recommend a submitted file through the API,
  its open risk flags cleared first (3), the queue (2), a file's review page (2);
- 10 officers who approve (demo-officer-on-2): approve a recommended file through the API (3),
  the queue (2), a file's review page (2);
- 10 finance officers (demo-finance): the budgets page (2), the budgets through the API (1);
- 10 analysts (demo-analyst): the KPIs page (2), the KPIs through the API (1).

Every other person of each kind reads the pages (and the API's answers) in French.
The employers are the `load-employer-N` accounts run.py made (several people per account); the
files one person submits are recommended by the first officer, then approved by the second
(the queues below, shared by the crowd in this one Locust process), and the approved ones are
read by their employer. A request fails when its status is not the one expected.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import sys
import uuid
from collections import deque
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from locust import between, task
from locust.contrib.fasthttp import FastHttpUser
from requests.cookies import create_cookie

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from approvals import application_body

CROWD: dict[str, Any] = json.loads(Path(os.environ["JOBGRANT_LOAD_CROWD"]).read_text())
EMPLOYERS: list[dict[str, Any]] = CROWD["employers"]
# Files on their way: submitted (for the recommender), recommended (for the approver), and each
# employer account's files and approved files.
SUBMITTED: deque[int] = deque()
RECOMMENDED: deque[int] = deque()
FILES: dict[str, list[int]] = {account["username"]: [] for account in EMPLOYERS}
APPROVED: dict[str, list[int]] = {account["username"]: [] for account in EMPLOYERS}
OWNER: dict[int, str] = {}
REVIEWED: deque[int] = deque(maxlen=200)  # files an officer may open
_next_person: dict[str, itertools.count[int]] = {}
_next_key = itertools.count()


def _today() -> dt.date:
    return dt.datetime.now().astimezone().date()


def fiscal_year(today: dt.date) -> str:
    start = today.year if today.month >= 4 else today.year - 1
    return f"{start}-{(start + 1) % 100:02d}"


class Person(FastHttpUser):
    # geventhttpclient's client, not python-requests': the load generator shares the two cores
    # with the servers, and python-requests cost it about twice the CPU a request (2.9 against
    # 1.5 ms: docs/benchmarks.md, "The crowd").
    abstract = True
    wait_time = between(0.5, 1.0)

    def on_start(self) -> None:
        # Numbered within their kind: every other one of each kind reads in French.
        number = next(_next_person.setdefault(type(self).__name__, itertools.count()))
        self.language = "fr" if number % 2 else "en"
        self.number = number

    def use_session(self, cookies: dict[str, str]) -> None:
        host = urlsplit(self.host or "").hostname or ""
        for name, value in cookies.items():
            self.client.cookiejar.set_cookie(create_cookie(name, value, domain=host))

    def page(self, route: str, name: str, pk: int = 0) -> None:
        """GET the page `route` ("employer-application") in the person's language (run.py wrote
        each address), grouped under `name` with the language: a success when it ends, after
        any redirection, in a 200 that is a signed-in person's page: it has the sign-out
        button (the fast client's answer does not say where a redirection ended, so a
        redirection to the sign-in page is told by its missing button)."""
        path = CROWD["pages"][self.language][route].format(pk=pk)
        sign_out = CROWD["pages"][self.language]["sign-out"]
        with self.client.get(
            path, name=f"page {name} ({self.language})", catch_response=True
        ) as answer:
            if answer.status_code != 200 or f'action="{sign_out}"' not in (answer.text or ""):
                answer.failure(f"{answer.status_code} {path} {(answer.text or '')[:200]}")
            else:
                answer.success()

    def api(
        self, method: str, path: str, token: str, name: str, expect: int = 200, **kw: Any
    ) -> Any:
        headers = {"Authorization": f"Bearer {token}", "Accept-Language": self.language}
        if method == "POST":
            headers["Idempotency-Key"] = f"load-{uuid.uuid4()}"
        with self.client.request(
            method, f"/api/v1{path}", headers=headers, name=f"api {name}", catch_response=True, **kw
        ) as answer:
            if answer.status_code != expect:
                answer.failure(f"{answer.status_code} {answer.text[:200]}")
                return None
            answer.success()
            return answer.json()


class EmployerApi(Person):
    weight = 30

    def on_start(self) -> None:
        super().on_start()
        self.account = EMPLOYERS[self.number % len(EMPLOYERS)]
        self.token = self.account["token"]
        self.body = application_body({"business_number": self.account["business_number"]}, _today())

    @task(3)
    def quote(self) -> None:
        self.api("POST", "/quote", self.token, "POST /quote", json=self.body)

    @task(2)
    def apply_and_submit(self) -> None:
        made = self.api(
            "POST", "/applications", self.token, "POST /applications", 201, json=self.body
        )
        if made is None:
            return
        pk = int(made["id"])
        submitted = self.api(
            "POST", f"/applications/{pk}/submit", self.token, "POST /applications/[id]/submit"
        )
        FILES[self.account["username"]].append(pk)
        OWNER[pk] = self.account["username"]
        if submitted is not None:
            SUBMITTED.append(pk)

    @task(3)
    def list_files(self) -> None:
        self.api("GET", "/applications", self.token, "GET /applications")

    @task(3)
    def read_file(self) -> None:
        files = FILES[self.account["username"]]
        if files:
            self.api(
                "GET",
                f"/applications/{files[-1 - self.number % len(files)]}",
                self.token,
                "GET /applications/[id]",
            )

    @task(1)
    def read_agreement(self) -> None:
        approved = APPROVED[self.account["username"]]
        if approved:
            self.api(
                "GET",
                f"/applications/{approved[-1]}/agreement",
                self.token,
                "GET /applications/[id]/agreement",
            )


class EmployerPages(Person):
    weight = 30

    def on_start(self) -> None:
        super().on_start()
        self.account = EMPLOYERS[self.number % len(EMPLOYERS)]
        self.use_session(self.account["cookies"])

    @task(4)
    def dashboard(self) -> None:
        self.page("employer-dashboard", "employer dashboard")

    @task(3)
    def application(self) -> None:
        files = FILES[self.account["username"]]
        if files:
            pk = files[-1 - self.number % len(files)]
            self.page("employer-application", "employer application", pk)

    @task(1)
    def agreement(self) -> None:
        approved = APPROVED[self.account["username"]]
        if approved:
            self.page("employer-agreement", "employer agreement", approved[-1])

    @task(1)
    def apply(self) -> None:
        self.page("employer-apply", "employer apply")


class Officer(Person):
    abstract = True
    username = ""

    def on_start(self) -> None:
        super().on_start()
        self.token = CROWD["staff"][self.username]
        self.use_session(CROWD["staff_cookies"][self.username])

    @task(2)
    def queue(self) -> None:
        self.page("officer-queue", "officer queue")

    @task(2)
    def review(self) -> None:
        if REVIEWED:
            pk = REVIEWED[self.number % len(REVIEWED)]
            self.page("officer-review", "officer review", pk)


class Recommender(Officer):
    weight = 10
    username = "demo-officer-on-1"

    @task(3)
    def recommend(self) -> None:
        if not SUBMITTED:
            return
        pk = SUBMITTED.popleft()
        self.clear_flags(pk)
        if self.api(
            "POST", f"/applications/{pk}/recommend", self.token, "POST /applications/[id]/recommend"
        ):
            RECOMMENDED.append(pk)
            REVIEWED.append(pk)

    def clear_flags(self, pk: int) -> None:
        """Clear the file's open risk flags first, as an officer must (RISK_FLAGS_OPEN otherwise):
        the crowd's files, alike and many, may flag one another's price."""
        path = f"/applications/{pk}/risk-flags"
        for flag in self.api("GET", path, self.token, "GET /applications/[id]/risk-flags") or []:
            if flag["state"] == "open":
                self.api(
                    "POST",
                    f"/risk-flags/{flag['id']}/clear",
                    self.token,
                    "POST /risk-flags/[id]/clear",
                    json={"reason": "Load test: checked against the provider's published rates."},
                )


class Approver(Officer):
    weight = 10
    username = "demo-officer-on-2"

    @task(3)
    def approve(self) -> None:
        if not RECOMMENDED:
            return
        pk = RECOMMENDED.popleft()
        if self.api(
            "POST", f"/applications/{pk}/approve", self.token, "POST /applications/[id]/approve"
        ):
            APPROVED[OWNER[pk]].append(pk)


class Finance(Person):
    weight = 10

    def on_start(self) -> None:
        super().on_start()
        self.token = CROWD["staff"]["demo-finance"]
        self.use_session(CROWD["staff_cookies"]["demo-finance"])

    @task(2)
    def budgets_page(self) -> None:
        self.page("finance-budgets", "finance budgets")

    @task(1)
    def budgets(self) -> None:
        self.api("GET", "/budgets", self.token, "GET /budgets")


class Analyst(Person):
    weight = 10

    def on_start(self) -> None:
        super().on_start()
        self.token = CROWD["staff"]["demo-analyst"]
        self.use_session(CROWD["staff_cookies"]["demo-analyst"])

    @task(2)
    def kpis_page(self) -> None:
        self.page("analyst-kpis", "analyst KPIs")

    @task(1)
    def kpis(self) -> None:
        self.api("GET", f"/kpis?fiscal_year={fiscal_year(_today())}", self.token, "GET /kpis")
