"""Helpers over the labels of the service's codes, for the forms and views.

The labels themselves are defined once, as translated `TextChoices` where the codes live:
states and delivery in `grants.models`, funders in `ledger.models`, roles in `accounts.models`,
jurisdictions, streams, settings, trainee statuses and costs in `service.choices`. Here they are
only read, in the page's language.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from django.db import models

from jobgrant.service import refusals
from jobgrant.service.accounts.models import Role
from jobgrant.service.choices import CostCategory, Jurisdiction, Setting, StreamCode, TraineeStatus
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import Delivery, IntakeState, Selection, State
from jobgrant.service.ledger.models import Funder


class Labels(Mapping[str, str]):
    """The labels of a `TextChoices`, as a read-only mapping from code to label; each label is
    read in the page's language when it is looked up."""

    def __init__(self, choices: type[models.TextChoices]) -> None:
        self.choices = choices

    def __getitem__(self, code: str) -> str:
        try:
            return str(self.choices(code).label)
        except ValueError:
            raise KeyError(code) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.choices.values)

    def __len__(self) -> int:
        return len(self.choices.values)


ROLE_LABELS = Labels(Role)
STATE_LABELS = Labels(State)
FUNDER_LABELS = Labels(Funder)
DELIVERY_LABELS = Labels(Delivery)
JURISDICTION_LABELS = Labels(Jurisdiction)
STREAM_LABELS = Labels(StreamCode)
INTAKE_STATE_LABELS = Labels(IntakeState)
SELECTION_LABELS = Labels(Selection)


def label(labels: Mapping[str, object], key: str) -> str:
    """The label of a code in the page's language; the code itself when it has none."""
    found = labels.get(key)
    return key if found is None else str(found)


def jurisdiction_name(code: str) -> str:
    return label(JURISDICTION_LABELS, code)


def jurisdiction_choices() -> list[tuple[str, str]]:
    return list(JURISDICTION_LABELS.items())


def stream_label(code: str) -> str:
    """ "CJG" in English, "SCE" in French."""
    return label(STREAM_LABELS, code)


def service_message(error: ServiceError) -> str:
    """A refusal's sentence in the page's language (worded once, in `service.refusals`)."""
    return refusals.message(error)


def state_labels() -> dict[str, str]:
    return dict(Labels(State))


def delivery_labels() -> dict[str, str]:
    return dict(Labels(Delivery))


def setting_labels() -> dict[str, str]:
    return dict(Labels(Setting))


def status_labels() -> dict[str, str]:
    return dict(Labels(TraineeStatus))


def cost_labels() -> dict[str, str]:
    return dict(Labels(CostCategory))
