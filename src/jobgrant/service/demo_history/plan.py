"""What the demonstration history will be, drawn from a seed: every file, trainee and answer.

Pure Python (no Django, no database): the same seed and rates give the same plan, byte for byte,
which `walk` then carries out through the service's own actions. The rates and their sources are
in `jobgrant/data/demo-history.yaml`.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml
from stdnum import luhn

from jobgrant.rules.money import format_amount

RATES_FILE = "demo-history.yaml"

GIVEN = (
    "Amélie", "Jonah", "Priya", "Marc-André", "Leila", "Tyler", "Nadia", "Owen", "Mei", "Kwame",
    "Sophie", "Diego", "Aisha", "Liam", "Chloé", "Raj", "Émilie", "Noah", "Fatima", "Lucas",
    "Grace", "Mateo", "Hannah", "Étienne", "Zara", "Ethan", "Isabelle", "Samuel", "Ana", "Jin",
)  # fmt: skip
FAMILY = (
    "Tremblay", "Clarke", "Singh", "Gagnon", "Nguyen", "MacDonald", "Roy", "Chen", "Wilson",
    "Côté", "Ahmed", "Martin", "Bouchard", "Patel", "Campbell", "Lavoie", "Li", "Morin",
    "Thompson", "Okafor", "Pelletier", "Kaur", "Fortin", "Fraser", "Ouellet", "Bélanger",
)  # fmt: skip
#: Courses and their providers (third-party trainers), NOC 2021 unit group trained for.
COURSES = (
    ("CNC machining certificate", "Mohawk College", "72100"),
    ("Welding inspection (CWB level 1)", "SAIT", "72106"),
    ("Project management professional preparation", "Red River College Polytechnic", "10019"),
    ("Forklift and warehouse safety", "Canadian Safety Training Institute", "75101"),
    ("Industrial electrical controls", "BCIT", "72200"),
    ("Payroll compliance practitioner", "National Payroll Institute", "13102"),
    ("Food safety supervisor", "Nova Scotia Community College", "62020"),
    ("Cloud administration (AWS)", "Lighthouse Labs", "22220"),
    ("Bookkeeping with QuickBooks", "Holland College", "14200"),
    ("Lean manufacturing green belt", "Conestoga College", "92100"),
)
SETTINGS = ("off-site", "on-site", "online")
NOT_COMPLETED_REASONS = (
    ("left-employer", 0.35),
    ("illness-or-family", 0.2),
    ("dropped-out", 0.25),
    ("did-not-pass", 0.15),
    ("other", 0.05),
)
#: Employers per jurisdiction, and the economic regions (2016 SGC) they are in.
REGIONS = {
    "ON": ("3530", "3550", "3560", "3510"),
    "BC": ("5910", "5920", "5930"),
    "MB": ("4650", "4610", "4660"),
    "NS": ("1210", "1230"),
    "PE": ("1110",),
}
NAICS = ("332710", "493110", "541330", "238210", "311990", "484121", "561320", "811111")
EMPLOYER_NAMES = (
    "Northern Tooling", "Bayview Foods", "Ridgeline Construction", "Prairie Fabrication",
    "Harbourfront Logistics", "Maple Leaf Millwork", "Cedar Coast Marine", "Summit Electrical",
    "Riverbend Dairy", "Atlantic Composites", "Granite Systems", "Lakehead Transport",
)  # fmt: skip


@dataclass(frozen=True)
class Rate:
    value: Any
    basis: str
    source: str


def load_rates() -> tuple[dict[str, Any], dict[str, Rate]]:
    """The file's settings (seed, history) and its rates, each with its basis and source."""
    text = resources.files("jobgrant.data").joinpath(RATES_FILE).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    rates = {name: Rate(**entry) for name, entry in data["rates"].items()}
    return data, rates


@dataclass(frozen=True)
class Answer:
    """One follow-up answer, or its absence (`answered` False: it lapses); the job is what the
    respondent would say, the same for the trainee and the employer."""

    answered: bool
    after_reminder: bool = False
    employed: bool = False
    same_employer: bool | None = None
    weekly_hours: int | None = None
    hourly_wage_cents: int | None = None

    def posted(self) -> dict[str, Any]:
        """The answer as the follow-up's questions take it (`completion.follow_ups`)."""
        answers: dict[str, Any] = {"employed": self.employed}
        if self.employed:
            answers["same_employer"] = bool(self.same_employer)
            answers["weekly_hours"] = self.weekly_hours
            if self.hourly_wage_cents:
                answers["hourly_wage"] = format_amount(self.hourly_wage_cents)
        return answers


@dataclass(frozen=True)
class TraineePlan:
    position: int
    status: str  # existing-employee | unemployed
    given_name: str
    family_name: str
    sin: str
    language: str
    gender: str
    indigenous: str
    disability: str
    visible_minority: str
    immigration: str
    education: str
    birth: dt.date
    tuition_cents: int
    materials_cents: int
    wage_before_cents: int | None
    completed: bool
    not_completed_reason: str
    employed_at_end: bool
    with_this_employer: bool | None
    full_time: bool
    wage_after_cents: int | None
    follow_ups: dict[tuple[int, str], Answer] = field(default_factory=dict)


@dataclass(frozen=True)
class EmployerPlan:
    number: int
    jurisdiction: str
    name: str
    region: str
    naics: str
    employees: int
    language: str


@dataclass(frozen=True)
class FilePlan:
    number: int
    jurisdiction: str
    fiscal_year: int
    employer: EmployerPlan
    received_on: dt.date
    start: dt.date
    end: dt.date
    course: str
    provider: str
    noc: str
    setting: str
    hours: int
    trainees: tuple[TraineePlan, ...]
    ratings: dict[str, int]
    receivable: bool = False  # a receivable is raised for a trainee who did not complete


@dataclass(frozen=True)
class Plan:
    seed: int
    employers: tuple[EmployerPlan, ...]
    files: tuple[FilePlan, ...]
    #: The applications refused for lack of budget, the comparison group: `refused_plan`'s
    #: RefusedPlan, added by `refused_plan.with_refused` (not imported here: it builds on this).
    refused: tuple[Any, ...] = ()

    @property
    def trainees(self) -> int:
        return sum(len(f.trainees) for f in self.files)


class _Draw:
    """The seeded draws, one `random.Random` for the whole plan (its sequence is the plan)."""

    def __init__(self, seed: int, rates: dict[str, Rate]) -> None:
        self.random = random.Random(seed)
        self.rates = rates

    def chance(self, name: str) -> bool:
        return self.random.random() < float(self.rates[name].value)

    def pick(self, weighted: dict[Any, float] | tuple[tuple[Any, float], ...]) -> Any:
        items = list(weighted.items()) if isinstance(weighted, dict) else list(weighted)
        return self.random.choices([k for k, _ in items], [w for _, w in items])[0]

    def around(self, cents: int, spread: float) -> int:
        """A positive amount near `cents` (log-normal), rounded to the dollar."""
        drawn = cents * self.random.lognormvariate(0.0, spread)
        return max(100, round(drawn / 100.0) * 100)


def make_plan(
    seed: int | None = None,
    *,
    files_per_year: dict[str, int] | None = None,
    years: tuple[int, int] | None = None,
) -> Plan:
    """The plan of the file's seed and rates; `files_per_year` (by jurisdiction) and `years`
    (the first and last fiscal year, as 2022 for 2022-23) make a smaller history, for trying
    things out and for the tests."""
    settings, rates = load_rates()
    seed = settings["seed"] if seed is None else seed
    draw = _Draw(seed, rates)
    history = settings["history"]
    per_year = files_per_year or history["files_per_year"]
    first, last = years or (history["first_fiscal_year"], history["last_fiscal_year"])
    employers = _employers(draw, per_year)
    files: list[FilePlan] = []
    sins = iter(range(1, 10**6))
    for year in range(first, last + 1):
        for jurisdiction, count in per_year.items():
            mine = [e for e in employers if e.jurisdiction == jurisdiction]
            for _ in range(count):
                employer = draw.random.choice(mine)
                files.append(_file(draw, len(files) + 1, year, employer, history, sins))
    files.sort(key=lambda f: (f.received_on, f.number))
    _mark_one_receivable(files)
    return Plan(seed, tuple(employers), tuple(files))


def _employers(draw: _Draw, per_year: dict[str, int]) -> list[EmployerPlan]:
    """About one employer for every two files a year (some apply more than once)."""
    made: list[EmployerPlan] = []
    for jurisdiction, count in per_year.items():
        for _ in range(max(1, (count + 1) // 2 + 1)):
            small = draw.chance("small_employer_share")
            employees = draw.random.randint(4, 99) if small else draw.random.randint(100, 900)
            name = f"{EMPLOYER_NAMES[len(made) % len(EMPLOYER_NAMES)]} ({jurisdiction})"
            made.append(
                EmployerPlan(
                    number=len(made) + 1,
                    jurisdiction=jurisdiction,
                    name=name,
                    region=draw.random.choice(REGIONS[jurisdiction]),
                    naics=draw.random.choice(NAICS),
                    employees=employees,
                    language=("en", "fr")[draw.random.random() < 0.15],
                )
            )
    return made


def _file(
    draw: _Draw, number: int, year: int, employer: EmployerPlan, history: dict[str, Any], sins: Any
) -> FilePlan:
    first, last = dt.date(year, 4, 20), dt.date(year + 1, 1, 20)
    received = first + dt.timedelta(days=draw.random.randrange((last - first).days))
    received = _weekday(received)
    start = received + dt.timedelta(days=draw.random.randint(35, 55))
    start = min(start, dt.date(year + 1, 3, 31))
    end = start + dt.timedelta(days=draw.random.choice((12, 26, 40, 61, 75, 90, 120)))
    course, provider, noc = draw.random.choice(COURSES)
    size = int(draw.pick({int(k): float(v) for k, v in history["trainees_per_file"].items()}))
    trainees = tuple(_trainee(draw, position, next(sins)) for position in range(size))
    ratings = {item: int(draw.pick(draw.rates["likert"].value)) for item in LIKERT_ITEMS}
    return FilePlan(
        number=number,
        jurisdiction=employer.jurisdiction,
        fiscal_year=year,
        employer=employer,
        received_on=received,
        start=start,
        end=end,
        course=course,
        provider=provider,
        noc=noc,
        setting=draw.random.choice(SETTINGS),
        hours=draw.random.choice((24, 40, 60, 120, 180)),
        trainees=trainees,
        ratings=ratings,
    )


LIKERT_ITEMS = ("relevant", "good-investment", "easy-to-access", "timely", "met-needs")


def _weekday(day: dt.date) -> dt.date:
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def _trainee(draw: _Draw, position: int, serial: int) -> TraineePlan:
    r = draw.random
    new_hire = draw.chance("new_hire_share")
    median_wage = int(draw.rates["hourly_wage_median_cents"].value)
    wage_before = None if new_hire else draw.around(median_wage, 0.25)
    completed = draw.chance("completion")
    employed = draw.chance(
        "employed_at_end_if_completed" if completed else "employed_at_end_if_not_completed"
    )
    with_employer = draw.chance("with_this_employer_if_employed") if employed else None
    full_time = draw.chance("full_time_if_employed") if employed else False
    raise_by = 1 + float(draw.rates["wage_change_at_end"].value) * r.uniform(0.0, 2.0)
    base = wage_before or draw.around(median_wage, 0.2)
    wage_after = round(base * raise_by) if employed else None
    reason = "" if completed else draw.pick(NOT_COMPLETED_REASONS)
    plan = TraineePlan(
        position=position,
        status="unemployed" if new_hire else "existing-employee",
        given_name=r.choice(GIVEN),
        family_name=r.choice(FAMILY),
        sin=_sin(serial),
        language=("en", "fr")[r.random() < 0.2],
        gender=draw.pick({"woman": 0.44, "man": 0.52, "another": 0.01, "prefer-not-to-say": 0.03}),
        indigenous=draw.pick(
            {
                "no": 0.9,
                "first-nations": 0.03,
                "metis": 0.03,
                "inuk": 0.005,
                "prefer-not-to-say": 0.035,
            }
        ),
        disability=draw.pick({"no": 0.88, "yes": 0.07, "prefer-not-to-say": 0.05}),
        visible_minority=draw.pick({"no": 0.66, "yes": 0.3, "prefer-not-to-say": 0.04}),
        immigration=draw.pick(
            {"no": 0.72, "immigrant": 0.24, "refugee": 0.02, "prefer-not-to-say": 0.02}
        ),
        education=draw.pick(
            {
                "high-school": 0.3,
                "trades": 0.18,
                "college": 0.3,
                "bachelor": 0.17,
                "above-bachelor": 0.05,
            }
        ),
        birth=dt.date(r.randint(1962, 2002), r.randint(1, 12), r.randint(1, 28)),
        tuition_cents=min(
            draw.around(int(draw.rates["tuition_median_cents"].value), 0.5), 1_200_000
        ),
        materials_cents=r.choice((0, 0, 15000, 25000, 60000)),
        wage_before_cents=wage_before,
        completed=completed,
        not_completed_reason=reason,
        employed_at_end=employed,
        with_this_employer=with_employer,
        full_time=full_time,
        wage_after_cents=wage_after,
    )
    return _with_follow_ups(draw, plan, base)


def _with_follow_ups(draw: _Draw, trainee: TraineePlan, wage: int) -> TraineePlan:
    answers: dict[tuple[int, str], Answer] = {}
    for months in (3, 12):
        employed = draw.chance(f"employed_at_{months}_months")
        same = draw.chance(f"same_employer_if_employed_{months}_months") if employed else None
        raise_by = 1 + float(draw.rates["wage_change_at_12_months"].value) * months / 12
        hours = draw.random.choice((37, 40, 40, 40, 44)) if draw.random.random() < 0.86 else 24
        wage_then = round(wage * raise_by) if employed else None
        for respondent in ("trainee", "employer"):
            answered = draw.chance(f"{respondent}_response_{months}_months")
            late = draw.chance("answered_after_reminder")
            # The job is the same whoever answers; an unanswered follow-up keeps it unsaid.
            answers[(months, respondent)] = Answer(
                answered, answered and late, employed, same, hours if employed else None, wage_then
            )
    return TraineePlan(**{**trainee.__dict__, "follow_ups": answers})


def _sin(serial: int) -> str:
    """A valid SIN (Luhn) of its own for each demonstration trainee (stems from 6, which the
    ready-to-claim files' SINs never use)."""
    stem = f"6{serial:07d}"
    return stem + luhn.calc_check_digit(stem)


def _mark_one_receivable(files: list[FilePlan]) -> None:
    """The earliest file with a trainee who did not complete gets a receivable raised."""
    for index, plan in enumerate(files):
        if any(not t.completed for t in plan.trainees):
            files[index] = FilePlan(**{**plan.__dict__, "receivable": True})
            return
