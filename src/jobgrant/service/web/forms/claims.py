"""The forms of a claim: the employer's amounts per line, the receipts, the officer's decision.

Each form turns what was typed into the body the API takes (`as_body`), so the pages and the API
ask `grants.claim_actions` the same thing and get the same checks. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.rules.money import format_amount, format_money
from jobgrant.service.choices import CostCategory
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.claims.input import REASON_MAX
from jobgrant.service.grants.claims.reasons import why
from jobgrant.service.grants.claims.receipts import INVOICE_NUMBER_MAX, invoice_number
from jobgrant.service.language import current_language, localized
from jobgrant.service.web.forms.employer import AmountField, amount_messages


def category_label(category: str) -> str:
    return str(CostCategory(category).label)


class ClaimLinesForm(forms.Form):
    """One amount per (trainee slot, category) row: `rows` are dicts with participant,
    trainee, name, category and the amount to start from (cents)."""

    is_final = forms.BooleanField(
        label=gettext_lazy("This is my final claim: the training is over and every cost is paid"),
        required=False,
    )

    def __init__(self, data: Any, rows: list[dict[str, Any]], *, final: bool = False) -> None:
        initial: dict[str, Any] = {"is_final": "yes" if final else ""}
        for row in rows:
            initial[self.name_of(row)] = format_amount(int(row["cents"]))
        super().__init__(data, initial=initial, auto_id="%s")
        self.rows = rows
        self.final = final
        self.posted: list[dict[str, Any]] = []  # the rows sent, in the body's order
        for row in rows:
            label = _("Trainee %(number)s (%(name)s): %(category)s") % {
                "number": row["trainee"],
                "name": row["name"],
                "category": category_label(row["category"]).lower(),
            }
            field = AmountField(label=label, required=False)
            field.error_messages.update(amount_messages(label))
            self.fields[self.name_of(row)] = field
        for row in rows:
            row["bound"] = self[self.name_of(row)]

    @staticmethod
    def name_of(row: dict[str, Any]) -> str:
        return f"amount-{row['participant']}-{row['category']}"

    def cents_of(self, row: dict[str, Any]) -> int:
        """The row's amount: as typed (blank is 0), or as saved when the post did not carry
        the field at all (a browser sends every field; another client may send only some)."""
        name = self.name_of(row)
        return int(self.cleaned_data[name] if name in self.data else row["cents"])

    def as_body(self) -> dict[str, Any]:
        """The claim's lines: the amounts above zero (a line left at zero claims nothing)."""
        self.posted = [row for row in self.rows if self.cents_of(row)]
        lines = [
            {
                "participant": row["participant"],
                "category": row["category"],
                "amount": format_amount(self.cents_of(row)),
            }
            for row in self.posted
        ]
        typed = any(self.name_of(row) in self.data for row in self.rows)
        final = bool(self.cleaned_data["is_final"]) if typed else self.final
        return {"is_final": final, "lines": lines}

    def field_of(self, path: str) -> str | None:
        """The field a service problem at `lines[i].…` is about."""
        if path.startswith("lines["):
            index = path[6:].split("]", 1)[0]
            if index.isdigit() and int(index) < len(self.posted):
                return self.name_of(self.posted[int(index)])
        return None


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def clean(self, data: Any, initial: Any = None) -> Any:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data]
        return [single(data, initial)] if data else []


class ReceiptsForm(forms.Form):
    file = MultipleFileField(
        label=gettext_lazy("Receipts: the itemized invoice and the proof of payment"),
        help_text=gettext_lazy(
            "PDF, PNG or JPEG files, at most 10 MB each. You can choose several."
        ),
        widget=MultipleFileInput(attrs={"accept": "application/pdf,image/png,image/jpeg"}),
        required=False,  # the claim's one form saves the amounts with or without files
    )
    invoice_number = forms.CharField(
        label=gettext_lazy("Invoice or receipt number (optional)"),
        help_text=gettext_lazy(
            "The number the training provider printed on the invoice or receipt you attach now, "
            "as it appears there; it is kept with each file chosen with it. At most 60 "
            "characters. Officers compare it with the other files' receipts of the same provider."
        ),
        required=False,
        strip=False,  # the service trims, and counts what was typed (as the API does)
        widget=forms.TextInput(attrs={"maxlength": INVOICE_NUMBER_MAX, "autocomplete": "off"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)

    def clean_invoice_number(self) -> str:
        given = self.cleaned_data.get("invoice_number") or ""
        try:
            invoice_number(given)
        except ServiceError as error:
            raise forms.ValidationError(
                [_invoice_message(found) for found in error.problems]
            ) from None
        return str(given)


def _invoice_message(found: dict[str, str]) -> str:
    """The service's words without the field's name in brackets: the label says it."""
    text = localized(found)
    for prefix in ("(invoice number) ", "(numéro de facture) "):
        text = text.removeprefix(prefix)
    return _("The invoice number %(problem)s.") % {"problem": text}


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason, read by the employer"),
        max_length=REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        error_messages={"required": gettext_lazy("Write the reason the employer will read.")},
    )

    def __init__(self, data: Any = None, *, prefix: str) -> None:
        super().__init__(data, prefix=prefix)


class ApprovalForm(forms.Form):
    """The approved amount of each line (starting from what counts after the caps), and a reason
    for each line lowered."""

    reason = forms.CharField(
        label=gettext_lazy("Note to the employer (optional)"),
        required=False,
        max_length=REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(
        self, data: Any, lines: list[dict[str, Any]], caps: Sequence[dict[str, Any]] = ()
    ) -> None:
        initial: dict[str, Any] = {}
        for line in lines:
            start = (
                line["counted_cents"]
                if line["counted_cents"] is not None
                else line["claimed_cents"]
            )
            initial[f"amount-{line['id']}"] = format_amount(int(start))
            # A line the agreement's limit lowered starts with the limit's sentence as its why.
            initial[f"reason-{line['id']}"] = " ".join(
                why(cap)
                for cap in caps
                if cap["rule"] == "line"
                and cap.get("trainee") == line["trainee"]
                and cap.get("category") == line["category"]
            )
        super().__init__(data, initial=initial, prefix="approve", auto_id="%s")
        self.lines = lines
        self.posted: list[dict[str, Any]] = []  # the lines sent, in the body's order
        for line in lines:
            label = _("Approved for trainee %(number)s, %(category)s") % {
                "number": line["trainee"],
                "category": category_label(line["category"]).lower(),
            }
            amount = AmountField(label=label, required=False)
            amount.error_messages.update(amount_messages(label))
            self.fields[f"amount-{line['id']}"] = amount
            self.fields[f"reason-{line['id']}"] = forms.CharField(
                label=_("Why, if lowered (trainee %(number)s, %(category)s)")
                % {"number": line["trainee"], "category": category_label(line["category"]).lower()},
                required=False,
                max_length=REASON_MAX,
            )
            line["amount_field"] = self[f"amount-{line['id']}"]
            line["reason_field"] = self[f"reason-{line['id']}"]

    def _typed(self, line: dict[str, Any]) -> bool:
        return bool(str(self.data.get(self.add_prefix(f"amount-{line['id']}"), "")).strip())

    def clean(self) -> dict[str, Any]:
        """What the approval would refuse, caught here, before the confirmation page: an amount
        above the claim, or lowered without the reason the employer reads (each naming its
        line and the amounts)."""
        cleaned = super().clean() or {}
        language = current_language()
        for line in self.lines:
            amount = cleaned.get(f"amount-{line['id']}")
            if amount is None or not self._typed(line):
                continue
            named = {
                "number": line["trainee"],
                "category": category_label(line["category"]).lower(),
                "approved": format_money(int(amount), language),
                "claimed": format_money(int(line["claimed_cents"]), language),
            }
            if amount > line["claimed_cents"]:
                message = _(
                    "Approved for trainee %(number)s, %(category)s: at most the %(claimed)s "
                    "claimed (%(approved)s was entered)."
                )
                self.add_error(f"amount-{line['id']}", message % named)
            elif amount < line["claimed_cents"] and not cleaned.get(f"reason-{line['id']}"):
                message = _(
                    "Why, if lowered (trainee %(number)s, %(category)s): write why you approve "
                    "%(approved)s, less than the %(claimed)s claimed; the employer reads it."
                )
                self.add_error(f"reason-{line['id']}", message % named)
        return cleaned

    def as_body(self) -> dict[str, Any]:
        """The approval's body; a line whose amount was left blank is approved as it counts."""
        self.posted = [line for line in self.lines if self._typed(line)]
        return {
            "reason": self.cleaned_data["reason"],
            "lines": [
                {
                    "id": line["id"],
                    "amount": format_amount(int(self.cleaned_data[f"amount-{line['id']}"] or 0)),
                    "reason": self.cleaned_data[f"reason-{line['id']}"],
                }
                for line in self.posted
            ],
        }

    def field_of(self, path: str) -> str | None:
        """The field a service problem at `lines[i].…` is about (i counts the lines sent)."""
        if path.startswith("lines["):
            index, _sep, rest = path[6:].partition("].")
            if index.isdigit() and int(index) < len(self.posted):
                kind = "reason" if rest == "reason" else "amount"
                return f"{kind}-{self.posted[int(index)]['id']}"
        return "reason" if path == "reason" else None
