"""The burden on employers, for analysts (and officers, for their jurisdiction, as the KPIs):
per step and firm size, the median time from a step's first view to its submission and how often
it was sent back; the fields whose errors the forms showed most often. Suppressed as the KPIs
are. A GET, bookmarkable; the choice of jurisdiction and year is the KPIs'."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, override
from django.views.decorators.http import require_GET

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.outcomes.access import default_jurisdiction, read_burden
from jobgrant.service.outcomes.tables import Row, Table
from jobgrant.service.refusals import shown
from jobgrant.service.web.field_errors import form_name
from jobgrant.service.web.forms import employer as shared
from jobgrant.service.web.forms.kpis import KpiChoice
from jobgrant.service.web.labels import cost_labels, jurisdiction_name
from jobgrant.service.web.pages import error_context, query_params, user_required
from jobgrant.service.web.views.analyst_kpis import table_context

TEMPLATE = "web/analyst/burden.html"

#: The page each form of an employer or a trainee belongs to, by its recorded name.
FORM_PAGES = {
    "employer_apply.OrganizationsForm": BurdenStep.APPLY_ORGANIZATIONS,
    "employer_apply.PartnerForm": BurdenStep.APPLY_ORGANIZATIONS,
    "employer_training.TrainingForm": BurdenStep.APPLY_TRAINING,
    "employer_trainees.TraineeForm": BurdenStep.APPLY_TRAINEES,
    "employer_declarations.DeclarationsForm": BurdenStep.APPLY_DECLARATIONS,
    "employer_draft.ReviewForm": BurdenStep.APPLY_REVIEW,
    "participants.ParticipantForm": BurdenStep.PARTICIPANT_FORM,
    "claims.ClaimLinesForm": BurdenStep.CLAIM,
    "claims.ReceiptsForm": BurdenStep.CLAIM,
    "changes.DatesForm": BurdenStep.CHANGE,
    "changes.ProviderForm": BurdenStep.CHANGE,
    "changes.TraineesForm": BurdenStep.CHANGE,
    "changes.CostsForm": BurdenStep.CHANGE,
    "completion.CompletionReport": BurdenStep.COMPLETION,
}

#: What an error's code means, for the codes the forms use most.
CODE_LABELS = {
    "required": gettext_lazy("left empty"),
    "invalid": gettext_lazy("not valid"),
    "invalid_choice": gettext_lazy("not one of the choices"),
    "max_length": gettext_lazy("too long"),
    "min_length": gettext_lazy("too short"),
    "max_value": gettext_lazy("too large"),
    "min_value": gettext_lazy("too small"),
}


@require_GET
@user_required(Role.ANALYST, Role.OFFICER)
def burden_page(request: HttpRequest, user: User) -> HttpResponse:
    data = {"jurisdiction": default_jurisdiction(user) or ""}
    data.update(query_params(request))
    form = KpiChoice(data, user)
    context: dict[str, Any] = {"title": _("The burden on employers"), "form": form}
    if not form.is_valid():
        return render(request, TEMPLATE, {**context, **error_context(form)}, status=422)
    jurisdiction, year = form.choice()
    try:
        report = read_burden(user, jurisdiction, year)
    except ServiceError as error:
        context["refusal"] = shown(error)
        return render(request, TEMPLATE, context, status=error.status)
    tables = [_with_field_labels(table) for table in report.tables]
    context.update(
        {
            "place": jurisdiction_name(jurisdiction) if jurisdiction else _("Canada"),
            "year": year,
            "tables": [table_context(table) for table in tables if table.id != "field-errors"],
            "errors_tables": [
                table_context(t) for t in tables if t.id == "field-errors" and t.rows
            ],
            "suppressed": report.suppressed,
            "threshold": report.threshold,
            "as_of": report.as_of,
        }
    )
    return render(request, TEMPLATE, context)


def _with_field_labels(table: Table) -> Table:
    """The table of field errors, each row named by its page, its field's label and what the
    error means, in both languages (the recorded names are the code's)."""
    if table.id != "field-errors":
        return table
    rows = []
    for row in table.rows:
        form, field, code = row.key.split("/", 2)
        labels = (_label(form, field, code, "en"), _label(form, field, code, "fr"))
        rows.append(Row(row.key, *labels, row.figures))
    return replace(table, rows=tuple(rows))


def _label(form: str, field: str, code: str, lang: str) -> str:
    with override(lang):
        step = FORM_PAGES.get(form)
        page = str(step.label) if step is not None else _("Another page")
        meaning = CODE_LABELS.get(code)
        what = str(meaning) if meaning is not None else _("another check")
        name = _field_name(form, field)
        return _("%(page)s — %(field)s: %(what)s") % {"page": page, "field": name, "what": what}


def _field_name(form: str, field: str) -> str:
    """The field's label as its page shows it (the wizard names its fields when it is built)."""
    if field == "__all__":
        return _("the whole form")
    found = _form_classes().get(form)
    fields = getattr(found, "base_fields", {})
    widget = fields.get(field)
    if widget is not None and widget.label:
        return str(widget.label)
    if form.startswith("employer_"):
        return str(cost_labels().get(field) or shared.field_label(field))
    return field.replace("_", " ")


@cache
def _form_classes() -> dict[str, type[forms.BaseForm]]:
    """Every form class of the service, by its recorded name."""
    found: dict[str, type[forms.BaseForm]] = {}
    waiting: list[type[forms.BaseForm]] = [forms.BaseForm]
    while waiting:
        for subclass in waiting.pop().__subclasses__():
            found.setdefault(form_name(subclass), subclass)
            waiting.append(subclass)
    return found
