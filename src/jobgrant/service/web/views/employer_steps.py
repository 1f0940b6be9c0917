"""What the wizard's pages share: the quote of the draft, the trainees' rows as the page shows
them, and the training summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils import timezone

from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import Stream
from jobgrant.service.language import in_language
from jobgrant.service.registry.models import Employer
from jobgrant.service.web import labels
from jobgrant.service.web.forms import employer as shared
from jobgrant.service.web.forms import employer_trainees as trainee_forms
from jobgrant.service.web.forms.employer_apply import Organizations
from jobgrant.service.web.forms.employer_draft import Checked, payload, preview_quote
from jobgrant.service.web.forms.employer_trainees import TraineeRow
from jobgrant.service.web.pages import error_context

if TYPE_CHECKING:
    from jobgrant.service.web.forms.employer_trainees import TraineeRows


def try_quote(
    found: Checked, rows: list[TraineeRow] | None
) -> tuple[dict[str, Any] | None, list[tuple[str, str]]]:
    """The kernel's quote of the draft with these trainees, or the (field, message) problems the
    service reports."""
    if found.organizations is None or found.training is None or not rows:
        return None, []
    body = payload(found.organizations, found.training, rows)
    try:
        return preview_quote(body, timezone.localdate()), []
    except ServiceError as error:
        return None, shared.service_problems(error)


def employers_by_id(organizations: Organizations) -> dict[str, Employer]:
    return {e.business_number: e for e in organizations.all}


def tables(found: Checked, quote: dict[str, Any]) -> dict[str, Any]:
    assert found.organizations is not None
    return shared.quote_tables(
        quote,
        employers_by_id(found.organizations),
        lead_id=found.organizations.lead.business_number,
    )


def live_quote(found: Checked, formset: TraineeRows) -> dict[str, Any]:
    """The quote with the trainees of `formset`, or the problems to correct first."""
    rows = trainee_forms.checked_trainees(formset)
    if rows is None:
        return {"quote_problems": error_context(*formset)["error_links"]}
    quote, problems = try_quote(found, rows)
    if quote is None:
        return {"quote_problems": [(f"#{key}", message) for key, message in problems]}
    return {"quote": quote, **tables(found, quote)}


def draft_trainees(found: Checked, typed: list[dict[str, str]], *, bound: bool) -> TraineeRows:
    """The trainees' rows of the draft: with their errors (`bound`) or as typed."""
    if bound and found.forms.get("trainees"):
        formset: TraineeRows = found.forms["trainees"][0]
        return formset
    if bound:
        return trainee_forms.trainees_formset(
            trainee_forms.trainees_data(typed), found.employer_choices
        )
    return trainee_forms.trainees_formset(None, found.employer_choices, typed)


def trainee_rows(formset: TraineeRows, reasons: dict[str, list[str]]) -> list[dict[str, Any]]:
    return [
        {
            "index": i,
            "number": i + 1,
            "form": form,
            "slot": f"trainee-{i}",
            "reasons": reasons.get(f"trainee-{i}", []),
        }
        for i, form in enumerate(formset)
    ]


def training_summary(found: Checked) -> dict[str, Any]:
    training = found.training
    if training is None:
        return {}
    return {
        "setting_label": labels.setting_labels().get(training.setting, training.setting),
        "hours_label": shared.show_hours(training.hours),
        "stream_label": _stream_label(training.stream),
    }


def _stream_label(stream_id: int | None) -> str:
    """The chosen stream's name in the page's language ("" when none was chosen)."""
    stream = Stream.objects.filter(pk=stream_id).first() if stream_id else None
    if stream is None:
        return ""
    return in_language(en=stream.name_en, fr=stream.name_fr)


def review_trainees(rows: list[TraineeRow], organizations: Organizations) -> list[dict[str, Any]]:
    names = employers_by_id(organizations)
    statuses = labels.status_labels()
    return [
        {
            "number": i + 1,
            "employer": names.get(t.employer),
            "status": statuses.get(t.status, t.status),
            "costs": [t.amounts[part] for part in trainee_forms.AMOUNTS],
        }
        for i, t in enumerate(rows)
    ]
