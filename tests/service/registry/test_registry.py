"""The registry: Business Numbers, SINs, registering employers and trainees, viewing a SIN."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import luhn
from stdnum.ca import bn
from tests.personas import APPLICANT, AUDITOR, EMPLOYER, OFFICER

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.registry import actions
from jobgrant.service.registry.identifiers import (
    decrypt_sin,
    encrypt_sin,
    looks_like_sin,
    mask_sin,
    normalize_business_number,
    normalize_sin,
    sin_blind_index,
)
from jobgrant.service.registry.models import Employer, Trainee

pytestmark = pytest.mark.django_db
VALID_SIN = "123456782"  # passes Luhn; the classic example
NINE_DIGITS = st.from_regex(r"\A[0-9]{9}\Z")


def with_check_digit(stem: str) -> str:
    return stem + luhn.calc_check_digit(stem)


def user(name: str) -> User:
    return User.objects.get(username=name)


def new_user(name: str, role: str, **fields: Any) -> User:
    return User.objects.create_user(username=name, password="not-used-here", role=role, **fields)


def employer_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "business_number": with_check_digit("30000000"),
        "name": "Northern Tool and Die",
        "employees": 25,
        "naics": "332710",
        "jurisdiction": "ON",
        "region": "3550",
    }
    return {**data, **changes}


def trainee_data(**changes: Any) -> dict[str, Any]:
    data = {
        "given_name": "Marie",
        "family_name": "Tremblay",
        "employer": APPLICANT.get().pk,
        "sin": "123 456 782",
    }
    return {**data, **changes}


def counts() -> tuple[int, int, int]:
    """Employers, trainees and the audit entries of changes (a refusal, whatever its status, is
    recorded too, as `refused.<action>`: it changes nothing)."""
    changes = AuditEntry.objects.exclude(action__startswith="refused.").count()
    return Employer.objects.count(), Trainee.objects.count(), changes


def refusals_recorded() -> int:
    return AuditEntry.objects.filter(action__startswith="refused.").count()


@pytest.fixture
def nothing_written(demo: None) -> Iterator[None]:
    """Bad input writes nothing: its refusal, and only it, is in the trail."""
    before, refused = counts(), refusals_recorded()
    yield
    assert counts() == before
    assert refusals_recorded() == refused + 1


def refusal(error: pytest.ExceptionInfo[ServiceError]) -> dict[str, Any]:
    return {p["field"]: p for p in error.value.problems}


# --- Business Number ---------------------------------------------------------------------


def test_a_business_number_with_a_valid_check_digit_is_accepted() -> None:
    assert normalize_business_number(with_check_digit("12345678")) == "123456782"


def test_spaces_and_hyphens_in_a_business_number_are_dropped() -> None:
    assert normalize_business_number("123 456-782") == "123456782"


def test_a_business_number_with_a_wrong_check_digit_is_refused() -> None:
    assert normalize_business_number("123456789") is None


def test_a_business_number_with_letters_among_its_digits_is_refused() -> None:
    assert normalize_business_number("12345678a2") is None


def test_a_program_account_bn15_is_not_taken_for_a_bn9() -> None:
    assert normalize_business_number("123456782RT0001") is None


@settings(max_examples=1000)
@given(NINE_DIGITS)
def test_business_number_validation_agrees_with_stdnum_on_any_nine_digits(digits: str) -> None:
    assert (normalize_business_number(digits) is not None) == bn.is_valid(digits)


@settings(max_examples=1000)
@given(st.text(alphabet="0123456789 -aRT", max_size=16))
def test_a_business_number_is_accepted_only_when_stdnum_sees_a_bn9(text: str) -> None:
    accepted = bn.is_valid(text) and len(bn.compact(text)) == 9
    assert (normalize_business_number(text) is not None) == accepted


# --- Social Insurance Number -------------------------------------------------------------


def test_a_sin_with_a_valid_check_digit_is_accepted_with_its_separators() -> None:
    assert normalize_sin("123-456-782") == VALID_SIN


def test_a_sin_with_a_wrong_check_digit_is_refused() -> None:
    assert normalize_sin("123456789") is None


@pytest.mark.parametrize("first", ["0", "8"])
def test_a_sin_starting_with_0_or_8_is_refused_even_with_a_valid_check_digit(first: str) -> None:
    number = with_check_digit(first + "4645428")
    assert luhn.is_valid(number)
    assert normalize_sin(number) is None


def test_a_temporary_residents_sin_starting_with_9_is_accepted() -> None:
    number = with_check_digit("94645428")
    assert normalize_sin(number) == number


@settings(max_examples=1000)
@given(NINE_DIGITS)
def test_sin_validation_is_exactly_luhn_and_a_first_digit_other_than_0_or_8(digits: str) -> None:
    expected = digits[0] not in "08" and luhn.is_valid(digits)
    assert (normalize_sin(digits) is not None) == expected


def test_a_sin_is_shown_masked_but_for_its_last_three_digits() -> None:
    assert mask_sin(VALID_SIN) == "***-***-782"


@pytest.mark.parametrize("text", ["046454286", "046 454 286", "046-454-286", "SIN: 046-454-286."])
def test_free_text_holding_nine_digits_that_pass_luhn_looks_like_a_sin(text: str) -> None:
    assert looks_like_sin(text)


@pytest.mark.parametrize("value", ["046454287", "1046454286", "0464542861", "A046454286", 12])
def test_numbers_that_are_not_a_sin_pass(value: object) -> None:
    assert not looks_like_sin(value)


# --- Registering an employer -------------------------------------------------------------


def test_an_officer_registers_an_employer_in_their_jurisdiction(demo: None) -> None:
    number = with_check_digit("30000000")
    typed = f"{number[:3]} {number[3:6]}-{number[6:]}"
    employer = actions.register_employer(
        user(OFFICER.username), employer_data(business_number=typed, jurisdiction="on")
    )
    assert Employer.objects.get(pk=employer.pk).business_number == number
    assert (employer.jurisdiction, employer.region, employer.naics) == ("ON", "3550", "332710")


def test_registering_an_employer_writes_one_audit_entry(demo: None) -> None:
    before = AuditEntry.objects.count()
    employer = actions.register_employer(user(OFFICER.username), employer_data())
    entry = AuditEntry.objects.get(sequence=before + 1)
    assert (entry.action, entry.object_id, entry.actor) == (
        "employer.register",
        str(employer.pk),
        OFFICER.username,
    )
    assert AuditEntry.objects.count() == before + 1


def test_a_wrong_business_number_check_digit_is_refused_naming_the_field(
    nothing_written: None,
) -> None:
    with pytest.raises(ServiceError) as error:
        actions.register_employer(
            user(OFFICER.username), employer_data(business_number="300000001")
        )
    assert error.value.status == 422
    found = refusal(error)["business_number"]
    assert "check digit" in found["message_en"]
    assert "chiffre de contrôle" in found["message_fr"]


@pytest.mark.parametrize("code", ["999999", "33271", "332", "31-33", 332710, ""])
def test_a_naics_code_outside_the_canadian_industries_of_2022_is_refused(
    nothing_written: None, code: Any
) -> None:
    with pytest.raises(ServiceError) as error:
        actions.register_employer(user(OFFICER.username), employer_data(naics=code))
    assert list(refusal(error)) == ["naics"]


def test_an_economic_region_of_another_jurisdiction_is_refused(nothing_written: None) -> None:
    with pytest.raises(ServiceError) as error:
        actions.register_employer(user(OFFICER.username), employer_data(region="2410"))
    region = refusal(error)["region"]  # named in words, not by the code ON
    assert region["message_en"] == "is not an economic region of Ontario"
    assert region["message_fr"] == "n'est pas une région économique de l'Ontario"


def test_every_bad_field_of_an_employer_is_named_at_once(nothing_written: None) -> None:
    bad = {
        "business_number": "12",
        "name": " ",
        "employees": True,
        "naics": "1",
        "jurisdiction": "XX",
        "region": "0000",
        "colour": "red",
    }
    with pytest.raises(ServiceError) as error:
        actions.register_employer(user(OFFICER.username), bad)
    assert set(refusal(error)) == set(bad)
    assert all(p["message_en"] and p["message_fr"] for p in error.value.problems)


@pytest.mark.parametrize("employees", [0, -3, 2.5, "40", None])
def test_a_number_of_employees_that_is_not_a_positive_whole_number_is_refused(
    nothing_written: None, employees: Any
) -> None:
    with pytest.raises(ServiceError) as error:
        actions.register_employer(user(OFFICER.username), employer_data(employees=employees))
    assert list(refusal(error)) == ["employees"]


def test_a_business_number_already_registered_is_refused_with_409(nothing_written: None) -> None:
    with pytest.raises(ServiceError) as error:
        actions.register_employer(
            user(OFFICER.username), employer_data(business_number=APPLICANT.get().business_number)
        )
    assert (error.value.status, error.value.code) == (409, "DUPLICATE_BUSINESS_NUMBER")
    assert list(refusal(error)) == ["business_number"]


def test_an_officer_of_another_jurisdiction_may_not_register_the_employer(demo: None) -> None:
    quebec = new_user("officer-qc", Role.OFFICER, jurisdiction="QC")
    before = counts()
    with pytest.raises(ServiceError) as error:
        actions.register_employer(quebec, employer_data())
    assert (error.value.status, error.value.code) == (403, "NOT_YOUR_JURISDICTION")
    assert counts() == before  # only the refusal, audited
    assert AuditEntry.objects.last().action == "refused.employer.register"  # type: ignore[union-attr]


def test_an_employer_user_may_not_register_employers(demo: None) -> None:
    with pytest.raises(ServiceError) as error:
        actions.register_employer(user(EMPLOYER.username), employer_data())
    assert (error.value.status, error.value.code) == (403, "ROLE_NOT_ALLOWED")
    assert not Employer.objects.filter(name="Northern Tool and Die").exists()


# --- Registering a trainee ---------------------------------------------------------------


def registered(**changes: Any) -> Trainee:
    return actions.register_trainee(user(EMPLOYER.username), trainee_data(**changes))


def test_an_employer_registers_a_trainee_with_a_sin_shown_masked(demo: None) -> None:
    trainee = Trainee.objects.get(pk=registered().pk)
    assert trainee.masked_sin == "***-***-782"
    assert trainee.sin_key_id


def test_the_sin_is_stored_as_ciphertext_only(demo: None) -> None:
    trainee = registered()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM registry_trainee WHERE id = %s", [trainee.pk])
        row = cursor.fetchone()
    stored = b"".join(
        bytes(value) if isinstance(value, bytes | memoryview) else str(value).encode()
        for value in row
    )
    assert VALID_SIN.encode() not in stored
    assert b"123-456-782" not in stored
    assert b"456" + b"782" not in stored


def test_a_trainees_blind_index_is_the_hmac_of_the_sin(demo: None) -> None:
    assert registered().sin_index == sin_blind_index(VALID_SIN)


def test_encrypting_the_same_sin_twice_gives_different_ciphertexts() -> None:
    (key_1, first), (key_2, second) = encrypt_sin(VALID_SIN), encrypt_sin(VALID_SIN)
    assert first != second
    assert decrypt_sin(key_1, first) == decrypt_sin(key_2, second) == VALID_SIN


def test_a_sin_already_registered_is_refused_with_409_naming_the_sin(demo: None) -> None:
    registered()
    before = counts()
    with pytest.raises(ServiceError) as error:
        registered(given_name="Other", sin="123-456-782")
    assert (error.value.status, error.value.code) == (409, "DUPLICATE_SIN")
    assert list(refusal(error)) == ["sin"]
    assert counts() == before


@pytest.mark.parametrize(
    "sin", ["123456789", "046454286", with_check_digit("84645428"), "12345678"]
)
def test_an_invalid_sin_is_refused_without_echoing_it(nothing_written: None, sin: str) -> None:
    with pytest.raises(ServiceError) as error:
        registered(sin=sin)
    assert list(refusal(error)) == ["sin"]
    message = json.dumps(error.value.problems)
    assert sin not in message and "0 or 8" in message


def test_a_trainee_may_be_registered_without_a_sin(demo: None) -> None:
    trainee = registered(sin=None)
    assert (trainee.masked_sin, trainee.sin_index) == ("", "")
    assert registered(given_name="Paul", sin="").sin_index == ""  # blank SINs never collide


def test_every_bad_field_of_a_trainee_is_named_at_once(nothing_written: None) -> None:
    bad = {"given_name": "", "family_name": 7, "employer": 10**9, "sin": "1", "age": 30}
    with pytest.raises(ServiceError) as error:
        actions.register_trainee(user(EMPLOYER.username), bad)
    assert set(refusal(error)) == set(bad)


def test_an_employer_user_may_not_register_a_trainee_for_another_employer(demo: None) -> None:
    other = actions.register_employer(user(OFFICER.username), employer_data())
    before = counts()
    with pytest.raises(ServiceError) as error:
        registered(employer=other.pk)
    assert (error.value.status, error.value.code) == (403, "NOT_YOUR_ORGANIZATION")
    assert counts() == before
    entry = AuditEntry.objects.last()
    assert entry is not None  # the refusal, once, naming the employer asked for
    assert (entry.action, entry.object_type, entry.object_id) == (
        "refused.trainee.register",
        "employer",
        str(other.pk),
    )


def test_an_officer_affiliated_with_the_employer_may_not_register_its_trainees(demo: None) -> None:
    affiliated = new_user("officer-tied", Role.OFFICER, jurisdiction="ON")
    affiliated.employers.add(APPLICANT.get())
    with pytest.raises(ServiceError) as error:
        actions.register_trainee(affiliated, trainee_data())
    assert error.value.status == 403


def test_registering_a_trainee_audits_it_without_the_sin(demo: None) -> None:
    trainee = registered()
    entry = AuditEntry.objects.last()
    assert entry is not None and (entry.action, entry.object_id) == (
        "trainee.register",
        str(trainee.pk),
    )
    assert_no_sin_in_the_audit_trail()


# --- Viewing a SIN in full ---------------------------------------------------------------


def assert_no_sin_in_the_audit_trail() -> None:
    for entry in AuditEntry.objects.all():
        text = json.dumps([entry.actor, entry.object_id, entry.summary])
        assert VALID_SIN not in text and "123-456-782" not in text and "456-782" not in text


def test_viewing_a_sin_needs_the_view_sin_permission(demo: None) -> None:
    trainee = registered()
    with pytest.raises(ServiceError) as error:
        actions.view_sin(user(OFFICER.username), trainee)
    assert (error.value.status, error.value.code) == (403, "SIN_VIEW_NOT_ALLOWED")


def test_a_refused_sin_view_is_audited(demo: None) -> None:
    trainee = registered()
    with pytest.raises(ServiceError):
        actions.view_sin(user(AUDITOR.username), trainee)
    entry = AuditEntry.objects.last()
    assert entry is not None
    assert (entry.action, entry.actor, entry.object_id) == (
        "refused.trainee.view_sin",
        AUDITOR.username,
        str(trainee.pk),
    )
    assert_no_sin_in_the_audit_trail()


def test_a_holder_of_the_permission_sees_the_sin_in_full(demo: None) -> None:
    viewer = new_user("privacy-officer", Role.OFFICER, jurisdiction="ON", may_view_sin=True)
    assert actions.view_sin(viewer, registered()) == "123-456-782"


def test_each_full_view_writes_exactly_one_audit_entry_without_the_sin(demo: None) -> None:
    viewer = new_user("privacy-officer", Role.OFFICER, jurisdiction="ON", may_view_sin=True)
    trainee = registered()
    before = AuditEntry.objects.count()
    actions.view_sin(viewer, trainee)
    actions.view_sin(viewer, trainee)
    views = AuditEntry.objects.filter(sequence__gt=before)
    assert [(e.action, e.actor, e.object_id) for e in views] == [
        ("trainee.view_sin", "privacy-officer", str(trainee.pk))
    ] * 2
    assert_no_sin_in_the_audit_trail()


def test_a_deactivated_holder_of_the_permission_is_refused(demo: None) -> None:
    viewer = new_user("gone", Role.OFFICER, jurisdiction="ON", may_view_sin=True, is_active=False)
    with pytest.raises(ServiceError) as error:
        actions.view_sin(viewer, registered())
    assert error.value.status == 403


def test_viewing_a_sin_that_was_never_recorded_answers_404(demo: None) -> None:
    viewer = new_user("privacy-officer", Role.OFFICER, jurisdiction="ON", may_view_sin=True)
    with pytest.raises(ServiceError) as error:
        actions.view_sin(viewer, registered(sin=None))
    assert error.value.status == 404
