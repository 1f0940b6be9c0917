"""The words of a refused action, defined once: what the API answers and what a page shows.

Each refusal has a title and a sentence, as lazy translated strings. `refused` makes the
ServiceError, its message in English and in French rendered from that one sentence (the API
answers both); `shown` turns any ServiceError back into the title and sentence a page shows, in
the page's language. `grants.access`, `grants.actions`, `registry.actions` and the officer's
pages all go through here, so a refusal reads the same wherever it is met.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from django.utils.translation import gettext_lazy

from jobgrant.rules.money import format_money
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import current_language, in_both_languages, in_language

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise as Lazy
else:
    Lazy: TypeAlias = object

Values = Callable[[], Mapping[str, object]]  # called once per language


@dataclass(frozen=True)
class Wording:
    title: Lazy
    text: Lazy  # may name %(values)s


WORDINGS: dict[str, Wording] = {
    "NO_EVALUATION_KEY": Wording(
        gettext_lazy("The evaluation export is not set up"),
        gettext_lazy(
            "The service has no key for the evaluation's pseudonyms: an administrator sets"
            " JOBGRANT_EVALUATION_KEYS first."
        ),
    ),
    "ROLE_NOT_ALLOWED": Wording(
        gettext_lazy("This is not for your role"),
        gettext_lazy("Your role does not allow this."),
    ),
    "NOT_YOUR_ORGANIZATION": Wording(
        gettext_lazy("You do not act for this employer"),
        gettext_lazy("You may only apply for an employer you are registered to act for."),
    ),
    "NOT_THE_APPLICANT": Wording(
        gettext_lazy("Only the applicant can do this"),
        gettext_lazy("Only the applicant organization can do this."),
    ),
    "NOT_YOUR_FILE": Wording(
        gettext_lazy("This application is not in your files"),
        gettext_lazy(
            "This application is handled by the officers of another government or jurisdiction."
        ),
    ),
    "CONFLICT_OF_INTEREST": Wording(
        gettext_lazy("You have a conflict of interest"),
        gettext_lazy(
            "You are affiliated with an employer in this application, so you cannot recommend, "
            "approve or deny it. Another officer must handle it."
        ),
    ),
    "SEPARATION_OF_DUTIES": Wording(
        gettext_lazy("Another officer must approve this application"),
        gettext_lazy(
            "You recommended this application. To keep duties separate, the officer who "
            "recommends an application cannot also approve it: another officer must approve it."
        ),
    ),
    "BUDGET_EXHAUSTED": Wording(
        gettext_lazy("The budget cannot cover this approval"),
        gettext_lazy(
            "This approval needs %(requested)s from the budget of the funder “%(funder)s”, "
            "and only %(available)s is still available in it. Nothing was committed."
        ),
    ),
    "INTAKE_BUDGET_EXHAUSTED": Wording(
        gettext_lazy("The intake's budget cannot cover this approval"),
        gettext_lazy(
            "This approval needs %(requested)s from the intake's budget of the funder "
            "“%(funder)s”, and only %(available)s is still available in it. Nothing was "
            "committed."
        ),
    ),
    "STREAM_IN_USE": Wording(
        gettext_lazy("This stream's selection cannot change now"),
        gettext_lazy(
            "An intake of this stream is open or closed and waiting to be ranked: its "
            "applications came in under the selection they were told of. Change it before the "
            "next intake opens."
        ),
    ),
    "POLICY_IN_USE": Wording(
        gettext_lazy("This program's policy cannot change now"),
        gettext_lazy(
            "Applications were already made under this program's policy: their amounts were "
            "worked out by it. Choose the policy before the first application."
        ),
    ),
    "NO_BUDGET": Wording(
        gettext_lazy("There is no budget for this application"),
        gettext_lazy(
            "No budget exists for %(jurisdiction)s in fiscal year %(year)s, so nothing can be "
            "committed."
        ),
    ),
    "NOT_ELIGIBLE": Wording(
        gettext_lazy("The application is not eligible"),
        gettext_lazy(
            "Checked again today, the application does not meet the eligibility rules: %(reasons)s"
        ),
    ),
    "RISK_FLAGS_OPEN": Wording(
        gettext_lazy("Risk flags are still open on this file"),
        gettext_lazy(
            "Risk flags still open on this file: %(count)s. Read each one, check what it says "
            "and clear it with what you found; then the application can be recommended."
        ),
    ),
    "RISK_FLAG_NOT_OPEN": Wording(
        gettext_lazy("This flag is not open"),
        gettext_lazy(
            "This risk flag was already cleared, or is no longer found: nothing to clear."
        ),
    ),
    "TRAINING_DATES_OUT_OF_RANGE": Wording(
        gettext_lazy("The training's dates cannot be approved"),
        gettext_lazy(
            "The training's dates on file cannot be approved: %(problems)s Deny the application, "
            "or ask the employer to apply again with the right dates."
        ),
    ),
    "ILLEGAL_TRANSITION": Wording(
        gettext_lazy("This decision is no longer possible"),
        gettext_lazy("This action is not possible for an application that is now “%(state)s”."),
    ),
    "NOT_ASSIGNABLE": Wording(
        gettext_lazy("This application cannot be assigned"),
        gettext_lazy(
            "Only an application awaiting a decision, or approved with claims to assess, can be "
            "assigned; this one is now “%(state)s”."
        ),
    ),
    "NOT_THEIR_FILE": Wording(
        gettext_lazy("This officer cannot handle this application"),
        gettext_lazy(
            "An application can only be assigned to an officer of the government and "
            "jurisdiction that handle it, with no tie to its employers."
        ),
    ),
    "NOT_YOUR_JURISDICTION": Wording(
        gettext_lazy("These figures are not in your jurisdiction"),
        gettext_lazy(
            "Officers see the figures of the jurisdiction they work for; Canada's figures are "
            "for analysts, finance, auditors and federal officers of no one jurisdiction."
        ),
    ),
    "FILE_COMPLETED": Wording(
        gettext_lazy("This application cannot be withdrawn"),
        gettext_lazy(
            "Its agreement is completed: the training took place and its claims were paid. "
            "Nothing was changed."
        ),
    ),
    "NOT_ASSIGNED_TO_YOU": Wording(
        gettext_lazy("This application is not assigned to you"),
        gettext_lazy("Only the officer an application is assigned to can release it."),
    ),
    "AGREEMENT_NOT_OPEN": Wording(
        gettext_lazy("This agreement can no longer be changed this way"),
        gettext_lazy(
            "Only an agreement offered and awaiting acceptance can be accepted, declined or "
            "withdrawn; this one is now “%(state)s”."
        ),
    ),
    "AGREEMENT_CHANGED": Wording(
        gettext_lazy("The agreement has changed since you read it"),
        gettext_lazy(
            "The agreement offered now is version %(version)s, whose text is not the one you "
            "read. Nothing was accepted: read it again, then accept it."
        ),
    ),
    "OFFER_EXPIRED": Wording(
        gettext_lazy("This offer has expired"),
        gettext_lazy(
            "The offer had to be accepted by %(date)s. It can no longer be accepted, and the "
            "money set aside for it is released."
        ),
    ),
    "ORGANIZATION_NOT_VERIFIED": Wording(
        gettext_lazy("An organization in this application is not verified yet"),
        gettext_lazy(
            "An officer must verify %(organizations)s before an application naming it can be "
            "submitted. An administrator of the organization uploads its business registration "
            "document from the organization's page (Your organizations); an officer checks it "
            "and the administrators are told by email. Your draft is kept: submit it once the "
            "organization is verified."
        ),
    ),
    "ORGANIZATION_DISPUTED": Wording(
        gettext_lazy("The registration of an organization in this application is disputed"),
        gettext_lazy(
            "Someone who says they are the business disputes the registration of "
            "%(organizations)s. No application naming it can be submitted until an officer "
            "resolves the dispute; its administrators are told the outcome by email. Your "
            "draft is kept."
        ),
    ),
    "NOT_YOUR_ORGANIZATION_TO_VERIFY": Wording(
        gettext_lazy("This organization is not in your jurisdiction"),
        gettext_lazy("An organization is verified by the program officers of its jurisdiction."),
    ),
    "CONFLICT_OF_INTEREST_ORGANIZATION": Wording(
        gettext_lazy("You have a conflict of interest"),
        gettext_lazy(
            "You are affiliated with this organization, so you cannot verify it, refuse it or "
            "resolve a dispute about it. Another officer must."
        ),
    ),
    "ORGANIZATION_ALREADY_VERIFIED": Wording(
        gettext_lazy("This organization is verified already"),
        gettext_lazy("An officer verified this organization: no other document is needed."),
    ),
    "VERIFICATION_NOT_POSSIBLE": Wording(
        gettext_lazy("This decision is no longer possible"),
        gettext_lazy(
            "This decision is not possible for an organization that is now “%(state)s”. A "
            "disputed organization is decided by resolving its dispute."
        ),
    ),
    "DISPUTE_NOT_OPEN": Wording(
        gettext_lazy("This dispute is resolved already"),
        gettext_lazy("Another officer resolved this dispute."),
    ),
}
#: An illegal transition says what the action needed, by action (`grants.workflow` names them).
ILLEGAL_TRANSITIONS: dict[str, Lazy] = {
    "submit": gettext_lazy(
        "Only a draft application can be submitted; this one is now “%(state)s”."
    ),
    "recommend": gettext_lazy(
        "Only a submitted application can be recommended; this one is now “%(state)s”."
    ),
    "approve": gettext_lazy(
        "Only a recommended application can be approved; this one is now “%(state)s”."
    ),
    "deny": gettext_lazy(
        "Only a submitted or recommended application can be denied; this one is now “%(state)s”."
    ),
    "withdraw": gettext_lazy(
        "A denied or withdrawn application cannot be withdrawn; this one is now “%(state)s”."
    ),
}
REFUSED = gettext_lazy("The service refused this decision")
NOTHING_CHANGED = gettext_lazy("Nothing was changed.")


def refused(
    status: int,
    code: str,
    values: Values | None = None,
    *,
    text: Lazy | None = None,
    extra: dict[str, object] | None = None,
) -> ServiceError:
    """The ServiceError for a refusal, its message in both languages from the one wording (or
    `text`, a more precise lazy sentence); `values` fills it in, called in each language."""
    sentence = WORDINGS[code].text if text is None else text

    def render() -> str:
        return str(sentence) % values() if values else str(sentence)

    english, french = in_both_languages(render)
    return ServiceError(status, code, english, french, extra=extra or {})


def forbidden_for(code: str) -> ServiceError:
    """A 403 whose sentence names nothing particular (roles, scope, separation of duties)."""
    return refused(403, code)


def illegal_transition(action: str, state: str, state_label: Lazy) -> ServiceError:
    """A 409: `action` cannot be taken from `state`, named by its (lazy) label in each language."""
    return refused(
        409,
        "ILLEGAL_TRANSITION",
        lambda: {"state": state_label},
        text=ILLEGAL_TRANSITIONS.get(action),
        extra={"state": state},
    )


def amount(cents: int) -> str:
    """An amount as people read it in the current language (for `values`)."""
    return format_money(cents, current_language())


def shown(error: ServiceError) -> dict[str, str]:
    """A refusal as a page shows it: its title, its sentence and "Nothing was changed.", in the
    page's language."""
    wording = WORDINGS.get(error.code)
    return {
        "title": str(wording.title if wording else REFUSED),
        "text": message(error),
        "nothing": str(NOTHING_CHANGED),
    }


def message(error: ServiceError) -> str:
    """The service's sentence for a refusal, in the page's language."""
    return in_language(en=error.message_en, fr=error.message_fr)
