"""The grants' text bound to the audit trail (audit.anchors): each check names what was edited.

- an application's history: the note of each transition against its entry's `note_sha256`
  (in order: the n-th transition after the draft with the n-th transition entry);
- an application's decision reason against the reason of its last denial entry;
- a change request's note (its submission entry's `note_sha256`) and its decision's reason;
- an agreement's end reason (declined or withdrawn) against its entry's reason.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from jobgrant.service.audit.anchors import digest
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application, State, StateChange
from jobgrant.service.grants.models.changes import ChangeRequest

TRANSITIONS = tuple(
    f"application.{action}" for action in ("submit", "recommend", "approve", "deny", "withdraw")
)
NO_NOTE = digest("")


def _entries(actions: tuple[str, ...], object_type: str) -> dict[str, list[dict[str, object]]]:
    found: dict[str, list[dict[str, object]]] = defaultdict(list)
    rows = AuditEntry.objects.filter(action__in=actions, object_type=object_type)
    for object_id, summary in rows.order_by("sequence").values_list("object_id", "summary"):
        found[object_id].append(summary)
    return found


def history_notes() -> Iterator[str]:
    entries = _entries(TRANSITIONS, "application")
    changes: dict[str, list[str]] = defaultdict(list)
    rows = StateChange.objects.exclude(from_state="", to_state=State.DRAFT).order_by("id")
    for application_id, note in rows.values_list("application_id", "note"):
        changes[str(application_id)].append(note)
    # An entry names an application by id; one whose row is gone has no history to compare.
    existing = {str(pk) for pk in Application.objects.values_list("pk", flat=True)}
    for key in sorted(set(changes) | (set(entries) & existing), key=int):
        recorded = [str(s.get("note_sha256", NO_NOTE)) for s in entries.get(key, [])]
        stored = [digest(note) for note in changes.get(key, [])]
        if recorded != stored:
            yield (
                f"application {key}: the notes of its history do not match the "
                "audit trail (edited, added or removed)"
            )


def decision_reasons() -> Iterator[str]:
    denials = _entries(("application.deny",), "application")
    for pk, reason in Application.objects.exclude(decision_reason="").values_list(
        "pk", "decision_reason"
    ):
        last = denials.get(str(pk), [{}])[-1]
        if last.get("reason") != reason:
            yield f"application {pk}: its decision reason does not match the audit trail"


def change_texts() -> Iterator[str]:
    submitted = _entries(("change_request.submit",), "changerequest")
    decided = _entries(("change_request.approve", "change_request.deny"), "changerequest")
    for pk, note, reason in ChangeRequest.objects.values_list("pk", "note", "reason"):
        first = (submitted.get(str(pk)) or [{}])[0]
        if first.get("note_sha256", NO_NOTE) != digest(note):
            yield f"change request {pk}: its note does not match the audit trail"
        last = (decided.get(str(pk)) or [{}])[-1]
        if reason and last.get("reason", "") != reason:
            yield f"change request {pk}: its decision's reason does not match the audit trail"


def agreement_reasons() -> Iterator[str]:
    ended = _entries(("agreement.decline", "agreement.withdraw"), "agreement")
    for pk, reason in Agreement.objects.exclude(end_reason="").values_list("pk", "end_reason"):
        last = (ended.get(str(pk)) or [{}])[-1]
        if last.get("reason") != reason:
            yield f"agreement {pk}: its end reason does not match the audit trail"


CHECKS = (history_notes, decision_reasons, change_texts, agreement_reasons)


def anchored_text(object_type: str, object_id: str, sha256: str) -> str | None:
    """The note an entry binds by its SHA-256 (`note_sha256`), for the auditor to read: an
    application's history note, or a change request's note; None if none matches (edited, or
    kept nowhere the trail can name)."""
    if not object_id.isdigit():
        return None
    notes: list[str] = []
    if object_type == "application":
        notes = list(
            StateChange.objects.filter(application_id=int(object_id)).values_list("note", flat=True)
        )
    elif object_type == "changerequest":
        notes = list(ChangeRequest.objects.filter(pk=int(object_id)).values_list("note", flat=True))
    return next((note for note in notes if note and digest(note) == sha256), None)
