"""The one entity the benchmark needs: a trainee (one trainee per application)."""

from __future__ import annotations

from openfisca_core.entities import build_entity

Trainee = build_entity(
    key="trainee",
    plural="trainees",
    label="A trainee of a Canada Job Grant application",
    is_person=True,
)

entities = [Trainee]
