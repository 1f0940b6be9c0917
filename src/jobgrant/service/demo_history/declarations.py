"""The declarations each file of the history makes: its provider's details (a table, one row per
provider of `plan.COURSES`), and who prepared it, chosen from the file's number (no draw is
taken, so the rest of the history stays as it was): most employers prepare their own; every
ninth file a consultant, paid a fee; every thirteenth the training provider itself."""

from __future__ import annotations

from typing import Any

from jobgrant.service.demo_history.plan import FilePlan
from jobgrant.service.demo_support import business_number

#: Provider → (public institution, business number stem or "", street, city, postal code, phone).
#: Fictitious addresses and telephone numbers (555-01xx); business numbers of the demonstration.
PROVIDERS: dict[str, tuple[bool, str, str, str, str, str]] = {
    "Mohawk College": (True, "", "135 Fennell Avenue West", "Hamilton", "L9C 1E9", "905-555-0101"),
    "SAIT": (True, "", "1301 16 Avenue NW", "Calgary", "T2M 0L4", "403-555-0102"),
    "Red River College Polytechnic": (
        True, "", "2055 Notre Dame Avenue", "Winnipeg", "R3H 0J9", "204-555-0103",
    ),
    "Canadian Safety Training Institute": (
        False, "70000001", "48 Industrial Parkway", "Mississauga", "L5T 2H4", "905-555-0104",
    ),
    "BCIT": (True, "", "3700 Willingdon Avenue", "Burnaby", "V5G 3H2", "604-555-0105"),
    "National Payroll Institute": (
        False, "70000002", "1600-250 Bloor Street East", "Toronto", "M4W 1E6", "416-555-0106",
    ),
    "Nova Scotia Community College": (
        True, "", "5685 Leeds Street", "Halifax", "B3K 2T3", "902-555-0107",
    ),
    "Lighthouse Labs": (
        False, "70000003", "46 Spadina Avenue", "Toronto", "M5V 2H8", "416-555-0108",
    ),
    "Holland College": (
        True, "", "140 Weymouth Street", "Charlottetown", "C1A 4Z1", "902-555-0109",
    ),
    "Conestoga College": (
        True, "", "299 Doon Valley Drive", "Kitchener", "N2G 4M4", "519-555-0110",
    ),
}  # fmt: skip
CONSULTANT = "Grant Ready Consulting"
CONSULTANT_FEE = "1500.00"
TRAINERS = ("Dana Whitfield", "Marc-André Gauthier", "Priya Raman", "Owen MacLeod")


def declarations(plan: FilePlan) -> dict[str, Any]:
    """The file's declarations, as the employer's form would send them."""
    public, stem, street, city, postal, phone = PROVIDERS[plan.provider]
    return {
        **_preparer(plan),
        "related_to_provider": False,
        "other_funding": False,
        "provider_public_institution": public,
        **({"provider_business_number": business_number(stem)} if stem else {}),
        "provider_street_address": street,
        "provider_city": city,
        "provider_postal_code": postal,
        "provider_phone": phone,
        "trainer_name": TRAINERS[plan.number % len(TRAINERS)],
        "trainer_attests_no_conflict": True,
        "employer_attests_no_conflict": True,
    }


def _preparer(plan: FilePlan) -> dict[str, Any]:
    if plan.number % 9 == 4:
        return {
            "prepared_by": "consultant",
            "preparer_name": CONSULTANT,
            "preparer_fee": CONSULTANT_FEE,
        }
    if plan.number % 13 == 6:
        return {"prepared_by": "provider", "preparer_name": plan.provider, "preparer_fee": "0.00"}
    return {"prepared_by": "employer"}
