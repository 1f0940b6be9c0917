"""Every model of the grants app, one module per stage. Importing this package registers
them with Django; code imports a model from its stage's module."""

from jobgrant.service.grants.models import (  # noqa: F401
    agreements,
    applications,
    burden,
    changes,
    claims,
    comparison,
    completion,
    declarations,
    integrity,
    kpi,
    participants,
    partners,
    payments,
    ranking,
)
