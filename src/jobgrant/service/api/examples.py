"""Example bodies as plain data (no Django import), shared by the API document, the tests, the
benchmarks and the scale scene, which run before Django is set up."""

from __future__ import annotations

from typing import Any

#: What an employer that prepared its own application declares of a public college: what
#: submitting requires.
EXAMPLE_DECLARATIONS: dict[str, Any] = {
    "prepared_by": "employer",
    "related_to_provider": False,
    "other_funding": False,
    "provider_public_institution": True,
    "provider_street_address": "135 Fennell Avenue West",
    "provider_city": "Hamilton",
    "provider_postal_code": "L9C 1E9",
    "provider_phone": "905-555-0101",
    "trainer_name": "Dana Whitfield",
    "trainer_attests_no_conflict": True,
    "employer_attests_no_conflict": True,
}
