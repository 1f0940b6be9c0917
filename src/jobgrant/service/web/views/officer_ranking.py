"""An application's rank on the officer's review, and the form of the officer's request to decide
against it (the request itself: web/views/officer_override.py).

The review shows the rank, the score and each point's reason (web/ranking_words.py), where the
file stands against the intake's cut-off, and the overrides asked for. Approving below the
cut-off or denying above it needs an override: the officer asks for one here, with a written
reason; a program manager signs it off on their own pages (web/views/manager.py).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.ranking import (
    IntakeRank,
    OverrideDecision,
    OverrideState,
    RankOverride,
)
from jobgrant.service.grants.ranking.asked import (
    application_scores_under_represented,
    under_represented_count,
)
from jobgrant.service.language import in_language
from jobgrant.service.web.forms.officer import MAX_TEXT
from jobgrant.service.web.ranking_words import cut_off_sentence, point_rows


class OverrideForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Why the decision goes against the ranking"),
        help_text=gettext_lazy(
            "A program manager reads it before signing off; it is kept in the audit trail and "
            "listed in the report of decisions out of rank."
        ),
        max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": gettext_lazy("Enter the reason for the override.")},
    )


def ranking_context(
    application: Application, override_form: OverrideForm | None = None
) -> dict[str, Any]:
    """What the review shows of the file's rank (nothing for a file of no ranked intake), and
    how many trainees it declared from an under-represented group where that is scored."""
    declared = under_represented_context(application)
    rank = IntakeRank.objects.select_related("intake").filter(application=application).first()
    if rank is None:
        return {"rank": None, **declared}
    overrides = list(
        RankOverride.objects.filter(application=application).select_related(
            "requested_by", "signed_off_by"
        )
    )
    deciding = application.state in (State.SUBMITTED, State.RECOMMENDED)
    open_one = any(
        o.state in (OverrideState.REQUESTED, OverrideState.SIGNED_OFF) for o in overrides
    )
    return {
        "rank": rank,
        "ranked_count": IntakeRank.objects.filter(intake_id=rank.intake_id).count(),
        "intake_name": in_language(en=rank.intake.name_en, fr=rank.intake.name_fr),
        "point_rows": point_rows(rank),
        "cut_off": cut_off_sentence(rank),
        "overrides": overrides,
        "override_decision": OverrideDecision.DENY
        if rank.within_budget
        else OverrideDecision.APPROVE,
        "may_ask_override": deciding and not open_one,
        "override_form": override_form or OverrideForm(),
        **declared,
    }


def under_represented_context(application: Application) -> dict[str, Any]:
    """The count of trainees declared from an under-represented group, of how many: shown
    where the file's stream scores it, or where some were declared."""
    count = under_represented_count(application)
    trainees = application.request.get("trainees") if isinstance(application.request, dict) else []
    shown = count > 0 or application_scores_under_represented(application)
    return {
        "under_represented": {
            "count": count,
            "trainees": len(trainees) if isinstance(trainees, list) else 0,
        }
        if shown
        else None
    }
