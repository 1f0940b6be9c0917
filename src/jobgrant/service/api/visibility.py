"""What an employer's API answers say of the staff: a role, never a person; no internal note.

The pages never showed an employer the officers' usernames or the notes they keep with their
decisions; the API did. An employer reads who acted as a role (`officer`) when the
actor is staff, and a note only when it was written for them: their own organization's, or the
reason an application was denied (which the officer writes for the applicant).
"""

from __future__ import annotations

from jobgrant.service.accounts.models import Role, User

#: The notes staff write for the applicant to read, by the state they lead to.
WRITTEN_FOR_THE_APPLICANT = frozenset({"denied"})


def sees_staff(viewer: User) -> bool:
    return bool(viewer.role != Role.EMPLOYER)


def actor_name(viewer: User, actor: User | None) -> str | None:
    """The actor's username for staff viewers and for employers' own people; else the role."""
    if actor is None:
        return None
    if sees_staff(viewer) or actor.role == Role.EMPLOYER:
        return str(actor.username)
    return str(actor.role)


def note_shown(viewer: User, actor: User, to_state: str, note: str) -> str:
    if sees_staff(viewer) or actor.role == Role.EMPLOYER or to_state in WRITTEN_FOR_THE_APPLICANT:
        return note
    return ""
