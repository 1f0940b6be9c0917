"""A quote for one application: request JSON in, the `jobgrant quote` JSON contract out."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from jobgrant.rules.batch import DELIVERIES
from jobgrant.rules.evaluate import default_library, evaluate
from jobgrant.rules.evaluation import Evaluation, Totals
from jobgrant.rules.money import format_amount
from jobgrant.rules.policies import DEFAULT_POLICY, Policy, PolicyLibrary, UnknownPolicyError
from jobgrant.rules.requests import (
    InvalidRequestError,
    Problem,
    QuoteRequest,
    build_batch,
    parse_quote_request,
)
from jobgrant.rules.trace import explain as explain_application


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause CPython's cycle collector while a request's objects are built.

    A quote of 10,000 trainees builds some 100,000 small dicts, strings and dataclasses, none of
    which can form a reference cycle; the collector would still run hundreds of times over the
    growing heap (about 40 % of the time of a large quote). Reference counting frees everything
    as usual; the collector resumes, if it was on, when the block ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def quote(
    raw: object,
    *,
    policy: str | None = None,
    explain: bool = False,
    library: PolicyLibrary | None = None,
) -> dict[str, Any]:
    """Validate `raw`, evaluate it and return the quote JSON (raises InvalidRequestError)."""
    library = library or default_library()
    with cycle_collection_paused():
        request = parse_quote_request(raw)
        chosen = choose_policy(library, policy or request.policy or DEFAULT_POLICY)
        start = library.start_date(chosen)
        early = [
            Problem(field, "before_policy", start.isoformat())
            for field, day in (
                ("application_date", request.application_date),
                ("training.start_date", request.start_date),
            )
            if day < start
        ]
        if early:
            raise InvalidRequestError(early)
        batch, order = build_batch([request])
        evaluation = evaluate(batch, chosen, library=library)
        return quote_json(evaluation, request, order[0], explain=explain)


def choose_policy(library: PolicyLibrary, name: str) -> Policy:
    try:
        return library.get(name)
    except UnknownPolicyError:
        known = ", ".join(library.policies)
        raise InvalidRequestError(
            [Problem("policy", "unknown_policy", f"{name}; known: {known}")]
        ) from None


def _money(totals: Totals, row: int) -> dict[str, str]:
    return _money_of_rows(totals, [row])[0]


def _money_of_rows(totals: Totals, rows: list[int]) -> list[dict[str, str]]:
    """The figures of these rows (not whole columns), each column read once into Python ints."""
    columns = (totals.eligible_cost, totals.federal, totals.provincial, totals.in_kind)
    picked = [column[rows].tolist() for column in columns]
    return [
        {
            "eligible_cost": format_amount(eligible),
            "federal": format_amount(federal),
            "provincial": format_amount(provincial),
            "employer": format_amount(eligible - federal - provincial),
            "in_kind": format_amount(in_kind),
        }
        for eligible, federal, provincial, in_kind in zip(*picked, strict=True)
    ]


def quote_json(
    ev: Evaluation, request: QuoteRequest, trainee_rows: list[int], *, explain: bool = False
) -> dict[str, Any]:
    """The quote of application 0 of `ev`, trainees in the request's order."""
    employer_ids = [e.id for e in request.employers]
    totals = _money(ev.applications, 0)
    totals["government"] = format_amount(ev.applications.at(0)["government"])
    result: dict[str, Any] = {
        "policy": ev.policy.name,
        "jurisdiction": request.jurisdiction,
        "region": request.region,
        "delivery": DELIVERIES[int(ev.delivery[0])],
        "fiscal_year": ev.fiscal_year(0),
        "eligible": bool(ev.eligible[0]),
        "reasons": [r.as_dict() for r in ev.reasons(0, employer_ids, trainee_rows)],
        "totals": totals,
        "employers": [
            {"id": eid, **money}
            for eid, money in zip(
                employer_ids,
                _money_of_rows(ev.employers, list(range(len(employer_ids)))),
                strict=True,
            )
        ],
        "trainees": [
            {"index": i, "employer_id": trainee.employer_id, **money}
            for i, (trainee, money) in enumerate(
                zip(request.trainees, _money_of_rows(ev.trainees, trainee_rows), strict=True)
            )
        ],
    }
    if explain:
        result["explanation"] = explain_application(ev, 0, trainee_rows)
    return result
