"""Participants: one slot per trainee of an approved application, and the links that reach them.

A slot names its trainee by position in `Application.request["trainees"]` (the kernel's request
contract), not by the agreement: the trainee's approved status and government money are read
from the application's stored request and quote. A trainee answers the participant form
through an invitation link (no account); the link's token is never
stored, only its SHA-256, as for API tokens. The SIN is held as the registry holds it: AES-GCM
ciphertext and an HMAC blind index, shown masked.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy, pgettext_lazy

from jobgrant.service.choices import JURISDICTION_CHOICES
from jobgrant.service.registry.identifiers import decrypt_sin, mask_sin


class ParticipantState(models.TextChoices):
    """A slot's states (the transitions are in `grants.participant_workflow`). A confirmed slot
    becomes outcome_reported when the employer's completion report is submitted."""

    INVITED = "invited", pgettext_lazy("participant state", "Invited")
    FORM_SUBMITTED = "form_submitted", pgettext_lazy("participant state", "Form submitted")
    CONFIRMED = "confirmed", pgettext_lazy("participant state", "Confirmed")
    INELIGIBLE = "ineligible", pgettext_lazy("participant state", "Ineligible")
    WITHDRAWN = "withdrawn", pgettext_lazy("participant state", "Withdrawn")
    OUTCOME_REPORTED = "outcome_reported", pgettext_lazy("participant state", "Outcome reported")


PREFER_NOT = "prefer-not-to-say"


class Indigenous(models.TextChoices):
    FIRST_NATIONS = "first-nations", gettext_lazy("Yes, First Nations")
    METIS = "metis", gettext_lazy("Yes, Métis")
    INUK = "inuk", gettext_lazy("Yes, Inuk (Inuit)")
    NO = "no", pgettext_lazy("indigenous identity", "No, not an Indigenous person")
    PREFER_NOT_TO_SAY = PREFER_NOT, gettext_lazy("Prefer not to say")


class YesNoPrefer(models.TextChoices):
    YES = "yes", gettext_lazy("Yes")
    NO = "no", gettext_lazy("No")
    PREFER_NOT_TO_SAY = PREFER_NOT, gettext_lazy("Prefer not to say")


class Immigration(models.TextChoices):
    IMMIGRANT = "immigrant", gettext_lazy("Yes, an immigrant")
    REFUGEE = "refugee", gettext_lazy("Yes, a refugee")
    NO = "no", pgettext_lazy("immigration", "No, born a Canadian citizen")
    PREFER_NOT_TO_SAY = PREFER_NOT, gettext_lazy("Prefer not to say")


class Gender(models.TextChoices):
    WOMAN = "woman", gettext_lazy("Woman")
    MAN = "man", gettext_lazy("Man")
    ANOTHER = "another", gettext_lazy("Another gender (for example, non-binary)")
    PREFER_NOT_TO_SAY = PREFER_NOT, gettext_lazy("Prefer not to say")


class Education(models.TextChoices):
    BELOW_HIGH_SCHOOL = "below-high-school", gettext_lazy("Less than high school")
    HIGH_SCHOOL = "high-school", gettext_lazy("High school diploma or equivalent")
    TRADES = "trades", gettext_lazy("Apprenticeship or trades certificate")
    COLLEGE = "college", gettext_lazy("College or CEGEP diploma")
    BACHELOR = "bachelor", gettext_lazy("Bachelor's degree")
    ABOVE_BACHELOR = "above-bachelor", gettext_lazy("Above a bachelor's degree")
    PREFER_NOT_TO_SAY = PREFER_NOT, gettext_lazy("Prefer not to say")


class FirstLanguage(models.TextChoices):
    ENGLISH = "english", gettext_lazy("English")
    FRENCH = "french", gettext_lazy("French")
    OTHER = "other", gettext_lazy("Another language")
    PREFER_NOT_TO_SAY = PREFER_NOT, gettext_lazy("Prefer not to say")


class EmploymentStatus(models.TextChoices):
    """Before the training; EMPLOYED_STATUSES need an occupation, a wage and hours."""

    FULL_TIME = "employed-full-time", gettext_lazy("Employed full time (30 hours a week or more)")
    PART_TIME = "employed-part-time", gettext_lazy("Employed part time")
    SELF_EMPLOYED = "self-employed", gettext_lazy("Self-employed")
    UNEMPLOYED = "unemployed", gettext_lazy("Unemployed, looking for work")
    NOT_IN_LABOUR_FORCE = (
        "not-in-labour-force",
        gettext_lazy("Not working and not looking for work (for example, a student)"),
    )


EMPLOYED_STATUSES = frozenset(
    {EmploymentStatus.FULL_TIME, EmploymentStatus.PART_TIME, EmploymentStatus.SELF_EMPLOYED}
)


class Participant(models.Model):
    """One trainee of an approved application: invited, then their own answers."""

    application = models.ForeignKey(
        "grants.Application", on_delete=models.PROTECT, related_name="participants"
    )
    position = models.PositiveIntegerField(
        help_text="The trainee's index in the application's request[\"trainees\"]."
    )
    state = models.CharField(
        max_length=16, choices=ParticipantState.choices, default=ParticipantState.INVITED
    )
    email = models.EmailField(max_length=254, help_text="Where the invitation was sent.")
    language = models.CharField(max_length=2, help_text="The trainee's language: en or fr.")
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    invited_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    decided_reason = models.CharField(
        max_length=64, blank=True, help_text="Why the slot is ineligible (a stable code)."
    )
    # --- Identity ---
    given_name = models.CharField(max_length=100, blank=True)
    family_name = models.CharField(max_length=100, blank=True)
    date_of_birth = models.DateField(null=True, blank=True)
    sin_key_id = models.CharField(max_length=16, blank=True)
    sin_ciphertext = models.BinaryField(null=True)
    sin_index = models.CharField(max_length=64, blank=True, db_index=True)
    contact_email = models.EmailField(max_length=254, blank=True)
    phone = models.CharField(max_length=20, blank=True)
    street_address = models.CharField(max_length=200, blank=True)
    city = models.CharField(max_length=100, blank=True)
    province = models.CharField(max_length=2, choices=JURISDICTION_CHOICES, blank=True)
    postal_code = models.CharField(max_length=6, blank=True)
    # --- Equity and demographics (each may be "prefer not to say") ---
    indigenous = models.CharField(max_length=20, choices=Indigenous.choices, blank=True)
    disability = models.CharField(max_length=20, choices=YesNoPrefer.choices, blank=True)
    visible_minority = models.CharField(max_length=20, choices=YesNoPrefer.choices, blank=True)
    immigration = models.CharField(max_length=20, choices=Immigration.choices, blank=True)
    gender = models.CharField(max_length=20, choices=Gender.choices, blank=True)
    education = models.CharField(max_length=20, choices=Education.choices, blank=True)
    first_language = models.CharField(max_length=20, choices=FirstLanguage.choices, blank=True)
    # --- Employment before training ---
    employment_status = models.CharField(
        max_length=20, choices=EmploymentStatus.choices, blank=True
    )
    noc = models.CharField(max_length=5, blank=True, help_text="NOC 2021 unit group")
    hourly_wage_cents = models.BigIntegerField(null=True, blank=True)
    weekly_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    receiving_ei = models.BooleanField(null=True, blank=True)
    # --- Consent ---
    consent_name = models.CharField(max_length=201, blank=True)
    # --- Funded elsewhere: found on submission, by SIN blind index, in the same fiscal year ---
    funded_elsewhere_cents = models.BigIntegerField(
        default=0, help_text="Government money the same person got in other approved files."
    )
    funded_elsewhere = models.JSONField(
        default=list, help_text="[{application, participant, government_cents}], no SIN."
    )

    class Meta:
        ordering = ("application_id", "position", "id")
        constraints = (
            # One live slot per trainee: a withdrawn slot keeps its history, and a new slot
            # may then be opened for the same trainee.
            models.UniqueConstraint(
                fields=["application", "position"],
                condition=~Q(state="withdrawn"),
                name="one_live_slot_per_trainee",
            ),
        )

    def sin(self) -> str:
        """The SIN in full: callers check may_view_sin and audit the view."""
        if not self.sin_ciphertext:
            return ""
        return decrypt_sin(self.sin_key_id, bytes(self.sin_ciphertext))

    @property
    def masked_sin(self) -> str:
        return mask_sin(self.sin()) if self.sin_ciphertext else ""


class Invitation(models.Model):
    """One link sent to a participant: single use, expiring, revocable. A re-send makes a new
    invitation and revokes the old one. Only the token's SHA-256 is kept."""

    participant = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="invitations"
    )
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("id",)
