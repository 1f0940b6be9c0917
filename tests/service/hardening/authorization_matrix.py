"""T8, the authorization matrix: who may do what, declared once, as the policy says it.

A case is (persona, action, object). The persona's *relationship* to the object is worked out
from who they are and which object it is (own organization, partner, other organization; the
officer in scope, assigned, affiliated, who recommended it, of another jurisdiction, federal on a
provincial file or provincial on a federal-direct one; finance, analyst, auditor; nobody signed
in). The table says, per action, which relationships are allowed; the rest is refused the way
the policy refuses: 401 (API) or the sign-in page (pages) for nobody signed in, 404 for whoever
may not know the object exists, 403 for whoever may see it but not do this.

To extend it (claims, payments, organization roles), add a relationship in RELATIONSHIPS and
`relationship()`, an object in the test's fixtures, and one `Action` per operation or page:
every persona meets every new action, and the generated cases grow with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# --- Relationships ----------------------------------------------------------------------------

OWN = "own organization"  # acts for the applicant (the lead employer)
PARTNER = "partner"  # acts for a consortium partner named in the application, not the lead
OTHER = "other organization"
IN_SCOPE = "officer in scope"  # the government and jurisdiction that handle the file
ASSIGNED = "assigned officer"
AFFILIATED = "affiliated officer"  # a tie to an employer in the file: conflict of interest
RECOMMENDER = "recommending officer"  # recommended this file (separation of duties)
OTHER_JURISDICTION = "officer of another jurisdiction"
FEDERAL_ON_PROVINCIAL = "federal officer, provincial file"
PROVINCIAL_ON_FEDERAL = "provincial officer, federal-direct file"
FINANCE = "finance"
ANALYST = "analyst"
AUDITOR = "auditor"
PROGRAM_MANAGER = (
    "program manager"  # of the jurisdiction: its programs, streams and intakes; signs off overrides
)
ANONYMOUS = "nobody signed in"
RELATIONSHIPS = (
    OWN,
    PARTNER,
    OTHER,
    IN_SCOPE,
    ASSIGNED,
    AFFILIATED,
    RECOMMENDER,
    OTHER_JURISDICTION,
    FEDERAL_ON_PROVINCIAL,
    PROVINCIAL_ON_FEDERAL,
    FINANCE,
    ANALYST,
    AUDITOR,
    PROGRAM_MANAGER,
    ANONYMOUS,
)

#: Who may know that a file exists (the others get 404, as if it did not). Not the policy
#: analyst: aggregates only.
SEES_THE_FILE = frozenset(
    {OWN, PARTNER, IN_SCOPE, ASSIGNED, AFFILIATED, RECOMMENDER, FINANCE, AUDITOR}
)
#: Who may decide on a file: an officer who covers it with no tie to its employers.
DECIDES = frozenset({IN_SCOPE, ASSIGNED, RECOMMENDER})
APPLICANT = frozenset({OWN})
#: Who reads a ranked intake (its ranks, its overrides, its report): the officers of its
#: government and jurisdiction, the auditors and its program manager.
READS_RANKING = frozenset({IN_SCOPE, ASSIGNED, AFFILIATED, RECOMMENDER, AUDITOR, PROGRAM_MANAGER})
#: Who signs an override off: the program manager (an administrator too, not a persona here).
SIGNS_OFF = frozenset({PROGRAM_MANAGER})
EVERY_OFFICER = frozenset(
    {
        IN_SCOPE,
        ASSIGNED,
        AFFILIATED,
        RECOMMENDER,
        OTHER_JURISDICTION,
        FEDERAL_ON_PROVINCIAL,
        PROVINCIAL_ON_FEDERAL,
    }
)
OFFICERS_WHO_SEE = frozenset({IN_SCOPE, ASSIGNED, AFFILIATED, RECOMMENDER})
EMPLOYERS_WHO_SEE = frozenset({OWN, PARTNER})
#: An organization (the applicant's): its people, and those who review its verification: the
#: officers of its jurisdiction (federal officers of no jurisdiction too), finance, auditors.
SEES_THE_ORGANIZATION = frozenset(
    {OWN, IN_SCOPE, ASSIGNED, AFFILIATED, RECOMMENDER, FEDERAL_ON_PROVINCIAL, FINANCE, AUDITOR}
)
#: Who verifies or refuses it: a program officer who covers it, with no tie to it.
VERIFIES = frozenset({IN_SCOPE, ASSIGNED, RECOMMENDER, FEDERAL_ON_PROVINCIAL})
OFFICERS_WHO_SEE_THE_ORGANIZATION = SEES_THE_ORGANIZATION & OFFICERS_WHO_SEE | {
    FEDERAL_ON_PROVINCIAL
}
#: Nobody submits an application of an organization no officer verified, not even its own.
NOBODY: frozenset[str] = frozenset()

# --- Roles, for pages and role-wide operations ------------------------------------------------

EMPLOYER_ROLE, OFFICER_ROLE = "employer", "officer"
ROLE_OF = {
    OWN: EMPLOYER_ROLE,
    PARTNER: EMPLOYER_ROLE,
    OTHER: EMPLOYER_ROLE,
    IN_SCOPE: OFFICER_ROLE,
    ASSIGNED: OFFICER_ROLE,
    AFFILIATED: OFFICER_ROLE,
    RECOMMENDER: OFFICER_ROLE,
    OTHER_JURISDICTION: OFFICER_ROLE,
    FEDERAL_ON_PROVINCIAL: OFFICER_ROLE,
    PROVINCIAL_ON_FEDERAL: OFFICER_ROLE,
    FINANCE: "finance",
    ANALYST: "analyst",
    AUDITOR: "auditor",
    PROGRAM_MANAGER: "program_manager",
    ANONYMOUS: "",
}

ALLOWED = "allowed"
#: Every staff relationship: they all read the programs and intakes; only the program manager
#: of the jurisdiction manages them.
STAFF = frozenset(r for r, role in ROLE_OF.items() if role not in (EMPLOYER_ROLE, ""))
MANAGES_INTAKES = frozenset({PROGRAM_MANAGER})


@dataclass(frozen=True)
class Action:
    """One operation or page. `allowed`: the relationships that may; `roles`: for a page, the
    roles it is for (any other role gets the 403 page before the object is looked at);
    `objects`: the fixtures it is tried on (each in the state the action needs)."""

    name: str
    channel: str  # "api" or "page"
    method: str
    path: str  # {application}, {change} filled from the object
    allowed: frozenset[str]
    objects: tuple[str, ...]
    roles: frozenset[str] = field(default_factory=frozenset)
    body: dict[str, object] | None = None
    listing: bool = False  # a list: "allowed" means the object is in it, refused that it is not
    role_wide: bool = False  # about no one file: a refusal is 403, never 404
    sees: frozenset[str] = frozenset()  # who may know the object exists (default: the file's)

    def expected(self, relationship: str) -> str | int:
        """ALLOWED, or the status the refusal has."""
        if relationship == ANONYMOUS:
            return 401 if self.channel == "api" else 302
        if self.roles and ROLE_OF[relationship] not in self.roles:
            return 403  # the page's role gate, before any object is looked at
        if relationship in self.allowed:
            return ALLOWED
        if self.listing:
            return 404  # not in the list
        if self.role_wide:
            return 403
        return 403 if relationship in (self.sees or SEES_THE_FILE) else 404


#: An intake of the fixture's stream that does not overlap the fixture's own (tests.seeded's
#: clock: November 29, 2026; fiscal year 2026-27).
INTAKE_BODY = {
    "name_en": "Winter intake",
    "name_fr": "Appel d'hiver",
    "opens_on": "2027-02-01",
    "closes_on": "2027-02-28",
    "federal_budget": "1000.00",
    "provincial_budget": "0",
}


def _every_state(*names: str) -> tuple[str, ...]:
    return names


READABLE = _every_state(
    "draft",
    "submitted",
    "recommended",
    "approved",
    "accepted",
    "federal draft",
    "federal submitted",
)
ACTIONS: tuple[Action, ...] = (
    # --- Applications ---
    Action(
        "read application", "api", "get", "/applications/{application}", SEES_THE_FILE, READABLE
    ),
    Action(
        "list applications",
        "api",
        "get",
        "/applications",
        SEES_THE_FILE,
        READABLE,
        listing=True,
    ),
    Action(
        "submit",
        "api",
        "post",
        "/applications/{application}/submit",
        APPLICANT,
        ("draft", "federal draft"),
    ),
    Action(
        "withdraw",
        "api",
        "post",
        "/applications/{application}/withdraw",
        APPLICANT,
        ("submitted", "federal submitted"),
    ),
    Action(
        "recommend",
        "api",
        "post",
        "/applications/{application}/recommend",
        DECIDES,
        ("submitted", "federal submitted"),
    ),
    Action(
        "deny",
        "api",
        "post",
        "/applications/{application}/deny",
        DECIDES,
        ("submitted", "federal submitted", "recommended"),
        body={"reason": "The training is not eligible."},
    ),
    Action(
        "approve",
        "api",
        "post",
        "/applications/{application}/approve",
        DECIDES - {RECOMMENDER},  # separation of duties
        ("recommended",),
    ),
    Action(
        "assign",  # to the caller, as the officer's "Assign to me"
        "api",
        "post",
        "/applications/{application}/assign",
        DECIDES,
        ("submitted", "federal submitted", "recommended"),
    ),
    Action(
        # an employer reads no flag: its own file answers an empty list
        "read a file's risk flags",
        "api",
        "get",
        "/applications/{application}/risk-flags",
        SEES_THE_FILE,
        READABLE,
    ),
    # --- Agreements ---
    Action(
        "read agreement",
        "api",
        "get",
        "/applications/{application}/agreement",
        SEES_THE_FILE,
        ("approved", "accepted"),
    ),
    Action(
        "decline agreement",
        "api",
        "post",
        "/applications/{application}/agreement/decline",
        APPLICANT,
        ("approved",),
        body={"reason": "We found other funding."},
    ),
    Action(
        "withdraw offer",
        "api",
        "post",
        "/applications/{application}/agreement/withdraw",
        DECIDES,
        ("approved",),
        body={"reason": "The course was cancelled."},
    ),
    # --- Participants ---
    Action(
        "list participants",
        "api",
        "get",
        "/applications/{application}/participants",
        SEES_THE_FILE,
        ("accepted",),
    ),
    Action(
        "invite participant",
        "api",
        "post",
        "/applications/{application}/participants",
        APPLICANT,
        ("accepted",),
        body={"trainee": 0, "email": "trainee@example.com", "language": "en"},
    ),
    # --- Change requests ---
    Action(
        "request a change",
        "api",
        "post",
        "/applications/{application}/change-requests",
        APPLICANT,
        ("accepted",),
        body={"kind": "provider", "provider": {"name": "Niagara College", "third_party": True}},
    ),
    Action(
        "read change request", "api", "get", "/change-requests/{change}", SEES_THE_FILE, ("change",)
    ),
    Action(
        "approve change",
        "api",
        "post",
        "/change-requests/{change}/approve",
        DECIDES,
        ("change",),
    ),
    Action(
        "deny change",
        "api",
        "post",
        "/change-requests/{change}/deny",
        DECIDES,
        ("change",),
        body={"reason": "Too late in the year."},
    ),
    # --- Budgets (role-wide) ---
    Action(
        "read budgets",
        "api",
        "get",
        "/budgets",
        frozenset(
            {
                IN_SCOPE,
                ASSIGNED,
                AFFILIATED,
                RECOMMENDER,
                OTHER_JURISDICTION,
                FEDERAL_ON_PROVINCIAL,
                PROVINCIAL_ON_FEDERAL,
                FINANCE,
                ANALYST,
                AUDITOR,
                PROGRAM_MANAGER,
            }
        ),
        ("submitted",),
        role_wide=True,
    ),
    # --- Programs and intakes (role-wide reads; a program manager's changes) ---
    Action("list programs", "api", "get", "/programs", STAFF, ("intake",), role_wide=True),
    Action("list intakes", "api", "get", "/intakes", STAFF, ("intake",), role_wide=True),
    Action("read intake", "api", "get", "/intakes/{intake}", STAFF, ("intake",), role_wide=True),
    Action(
        "create intake",
        "api",
        "post",
        "/streams/{stream}/intakes",
        MANAGES_INTAKES,
        ("intake",),
        body=INTAKE_BODY,
        sees=STAFF,
    ),
    Action(
        "change intake",
        "api",
        "put",
        "/intakes/{intake}",
        MANAGES_INTAKES,
        ("intake",),
        body={**INTAKE_BODY, "name_en": "Winter intake, changed"},
        sees=STAFF,
    ),
    Action(
        "close intake",
        "api",
        "post",
        "/intakes/{intake}/close",
        MANAGES_INTAKES,
        ("intake",),
        body={"reason": "A backlog: suspended for three weeks."},
        sees=STAFF,
    ),
    Action(
        "rank intake by hand",
        "api",
        "post",
        "/intakes/{intake}/rank",
        MANAGES_INTAKES,
        ("waiting intake",),
        body={"confirm": True},
        sees=STAFF,
    ),
    Action(
        "rank intake page",
        "page",
        "get",
        "/programs/intakes/{intake}/rank/",
        MANAGES_INTAKES,
        ("waiting intake",),
        roles=frozenset({"program_manager"}),
    ),
    Action(
        "programs page",
        "page",
        "get",
        "/programs/",
        MANAGES_INTAKES,
        ("intake",),
        roles=frozenset({"program_manager"}),
    ),
    Action(
        "intake page",
        "page",
        "get",
        "/programs/intakes/{intake}/",
        MANAGES_INTAKES,
        ("intake",),
        roles=frozenset({"program_manager"}),
    ),
    # --- Organizations and their verification ---
    Action(
        "submit (organization not verified)",
        "api",
        "post",
        "/applications/{application}/submit",
        NOBODY,
        ("unverified draft",),
    ),
    Action(
        "read organization",
        "api",
        "get",
        "/employers/{organization}",
        SEES_THE_ORGANIZATION,
        ("unverified organization",),
        sees=SEES_THE_ORGANIZATION,
    ),
    Action(
        "verify organization",
        "api",
        "post",
        "/employers/{organization}/verify",
        VERIFIES,
        ("unverified organization",),
        body={"method": "registry", "note": "Ontario Business Registry: name and number match."},
        sees=SEES_THE_ORGANIZATION,
    ),
    Action(
        "refuse organization",
        "api",
        "post",
        "/employers/{organization}/refuse",
        VERIFIES,
        ("unverified organization",),
        body={"reason": "The name on the document differs."},
        sees=SEES_THE_ORGANIZATION,
    ),
    Action(
        "officer's organization page",
        "page",
        "get",
        "/officer/organizations/{organization}/",
        OFFICERS_WHO_SEE_THE_ORGANIZATION,
        ("unverified organization",),
        roles=frozenset({OFFICER_ROLE}),
        sees=SEES_THE_ORGANIZATION,
    ),
    # --- Pages ---
    Action(
        "employer's application page",
        "page",
        "get",
        "/employer/applications/{application}/",
        EMPLOYERS_WHO_SEE,
        READABLE,
        roles=frozenset({EMPLOYER_ROLE}),
    ),
    Action(
        "officer's review page",
        "page",
        "get",
        "/officer/applications/{application}/",
        OFFICERS_WHO_SEE,
        READABLE,
        roles=frozenset({OFFICER_ROLE}),
    ),
    Action(
        "employer's agreement page",
        "page",
        "get",
        "/employer/applications/{application}/agreement/",
        EMPLOYERS_WHO_SEE,
        ("approved", "accepted"),
        roles=frozenset({EMPLOYER_ROLE}),
    ),
    Action(
        "officer's agreement page",
        "page",
        "get",
        "/officer/applications/{application}/agreement/",
        OFFICERS_WHO_SEE,
        ("approved", "accepted"),
        roles=frozenset({OFFICER_ROLE}),
    ),
    Action(
        "employer's change page",
        "page",
        "get",
        "/employer/changes/{change}/",
        EMPLOYERS_WHO_SEE,
        ("change",),
        roles=frozenset({EMPLOYER_ROLE}),
    ),
    Action(
        "officer's change page",
        "page",
        "get",
        "/officer/changes/{change}/",
        OFFICERS_WHO_SEE,
        ("change",),
        roles=frozenset({OFFICER_ROLE}),
    ),
    Action(
        "budgets page",
        "page",
        "get",
        "/finance/budgets/",
        frozenset({FINANCE}),
        ("submitted",),
        roles=frozenset({"finance"}),
    ),
    Action(
        "audit trail page",
        "page",
        "get",
        "/auditor/trail/",
        frozenset({AUDITOR}),
        ("submitted",),
        roles=frozenset({"auditor"}),
    ),
    Action(
        "scenarios page",
        "page",
        "get",
        "/analyst/scenarios/",
        frozenset({ANALYST}),
        ("submitted",),
        roles=frozenset({"analyst"}),
    ),
)

# --- Ranked intakes and decisions against the ranking ---
ACTIONS += (
    Action(
        "read an intake's ranking",
        "api",
        "get",
        "/intakes/{intake}/ranking",
        READS_RANKING,
        ("ranked",),
        sees=READS_RANKING,
    ),
    Action(
        "read an intake's decisions out of rank",
        "api",
        "get",
        "/intakes/{intake}/out-of-rank",
        READS_RANKING,
        ("ranked",),
        sees=READS_RANKING,
    ),
    Action(
        "ask for an override",
        "api",
        "post",
        "/applications/{application}/override",
        DECIDES,
        ("ranked",),
        body={"reason": "The plant closes in March."},
    ),
    Action(
        "read an override",
        "api",
        "get",
        "/overrides/{override}",
        READS_RANKING,
        ("override",),
        sees=READS_RANKING,
    ),
    Action(
        "sign an override off",
        "api",
        "post",
        "/overrides/{override}/sign-off",
        SIGNS_OFF,
        ("override",),
        sees=READS_RANKING,
    ),
    Action(
        "refuse an override",
        "api",
        "post",
        "/overrides/{override}/refuse",
        SIGNS_OFF,
        ("override",),
        body={"reason": "The ranking stands."},
        sees=READS_RANKING,
    ),
    Action(
        "overrides awaiting a sign-off (page)",
        "page",
        "get",
        "/manager/overrides/",
        SIGNS_OFF,
        ("override",),
        roles=frozenset({"program_manager", "admin"}),
        role_wide=True,
    ),
    Action(
        "an override (page)",
        "page",
        "get",
        "/manager/overrides/{override}/",
        SIGNS_OFF,
        ("override",),
        roles=frozenset({"program_manager", "admin"}),
    ),
    Action(
        "decisions out of rank (page)",
        "page",
        "get",
        "/manager/out-of-rank/",
        EVERY_OFFICER | {AUDITOR, PROGRAM_MANAGER},
        ("ranked",),
        roles=frozenset({"program_manager", "admin", "auditor", "officer"}),
        role_wide=True,
    ),
)
