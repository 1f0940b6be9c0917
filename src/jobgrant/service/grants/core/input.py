"""What people type that every stage checks alike: a reason (why an offer is declined or
withdrawn, a change or an application denied, a claim returned, a payment held, a receivable
raised or written off).

A reason is read by the employer or kept in the audit trail, so each one is checked the same way:
text, trimmed, required unless the decision may go without one, at most so many characters, and
never holding what looks like a social insurance number. Only the sentences that say what is
wrong differ from one field to another; each field keeps its own in its `ReasonRule`.
"""

from __future__ import annotations

from dataclasses import dataclass

from jobgrant.service.errors import bad_input, problem
from jobgrant.service.registry.identifiers import looks_like_sin

Words = tuple[str, str]  # (English, French)

NOT_TEXT: Words = ("must be text", "doit être du texte")
MISSING: Words = ("is required", "est obligatoire")
HOLDS_SIN: Words = (
    "must not contain a social insurance number",
    "ne doit pas contenir de numéro d'assurance sociale",
)


def at_most(most: int) -> Words:
    """The usual sentence for a reason longer than `most` characters."""
    return (f"must have at most {most} characters", f"doit compter au plus {most} caractères")


@dataclass(frozen=True)
class ReasonRule:
    """How long one kind of reason may be, and the sentences that say what is wrong with it."""

    most: int | None  # characters; None: no maximum
    missing: Words = MISSING
    too_long: Words | None = None  # None: `at_most(most)`
    holds_sin: Words = HOLDS_SIN


def checked_reason(
    raw: object, rule: ReasonRule, *, required: bool = True, path: str = "reason"
) -> str:
    """`raw` trimmed, or a 422 naming `path` with every problem it has (nothing is written)."""
    if raw is not None and not isinstance(raw, str):
        raise bad_input([problem(path, *NOT_TEXT)])
    why = (raw or "").strip()
    problems = [problem(path, *words) for words in _wrong_with(why, rule, required=required)]
    if problems:
        raise bad_input(problems)
    return why


def _wrong_with(why: str, rule: ReasonRule, *, required: bool) -> list[Words]:
    wrong = []
    if required and not why:
        wrong.append(rule.missing)
    if looks_like_sin(why):
        wrong.append(rule.holds_sin)
    if rule.most is not None and len(why) > rule.most:
        wrong.append(rule.too_long or at_most(rule.most))
    return wrong
