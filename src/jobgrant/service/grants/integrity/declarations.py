"""What the applicant declared about who prepared the application and the training provider,
read in one place for the flags.

The declaration (`grants.ApplicationDeclaration`, one per application, related name
`declaration`) is read through `declared`, which answers "not declared" (None) when the
application has none, so that the flags that rest on it are simply not raised for files made
before declarations were asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ObjectDoesNotExist

from jobgrant.service.grants.models.applications import Application


@dataclass(frozen=True)
class Declared:
    prepared_by: str  # employer, consultant or provider
    preparer_name: str
    preparer_fee_cents: int
    related_to_provider: bool
    relations: tuple[str, ...]
    provider_business_number: str
    provider_street_address: str
    provider_postal_code: str
    provider_phone: str


def declared(application: Application) -> Declared | None:
    """The application's declaration, or None when it has none (made before they were asked)."""
    try:
        row: Any = application.declaration
    except ObjectDoesNotExist:
        return None
    return Declared(
        prepared_by=str(row.prepared_by or ""),
        preparer_name=str(row.preparer_name or ""),
        preparer_fee_cents=int(row.preparer_fee_cents or 0),
        related_to_provider=bool(row.related_to_provider),
        relations=tuple(str(r) for r in (row.relations or ())),
        provider_business_number=str(row.provider_business_number or ""),
        provider_street_address=str(row.provider_street_address or ""),
        provider_postal_code=str(row.provider_postal_code or ""),
        provider_phone=str(row.provider_phone or ""),
    )
