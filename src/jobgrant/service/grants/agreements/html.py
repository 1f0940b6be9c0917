# ruff: noqa: E501 (the document's markup stays line for line as the template wrote it)
"""The agreement's document as HTML, written with plain string formatting.

Every approval writes its agreement twice (English and French) inside its transaction, and the
Django template this replaces cost about 6 ms a language, a fifth of the approval's CPU time. The
text is stored and hashed, so it must stay exactly what that template wrote, byte for byte: the
same markup, the same translated sentences (the same msgids, so the French catalogue is
unchanged), and the same escaping as Django's autoescape. That is:
- a translated sentence is written as the catalogue has it (a template's literal is safe, and
  so is its translation: "Part de l'employeur" keeps its apostrophe), but the values put into
  a `{% blocktranslate %}` sentence are escaped;
- every value is written as str() and escaped (html.escape, as django.utils.html.escape does).
tests/service/grants/test_agreement_document_text.py holds this module to the template it
replaced (kept there as agreement_document_reference.html), on fixed and generated cases.

`write(context)` takes the context agreement_document._document_context builds, in the language
that is active.
"""

from __future__ import annotations

from functools import cache
from html import escape
from typing import Any

from django.utils.translation import get_language, gettext, gettext_noop


def _e(value: object) -> str:
    return escape(str(value))


@cache
def _words(language: str | None) -> dict[str, str]:
    """The document's fixed sentences, translated into `language` (the active one). Read once
    per language: the catalogue is loaded once per process."""
    return {
        key: gettext(msgid)
        for key, msgid in (
            ("parties", gettext_noop("1. The parties")),
            ("partners", gettext_noop("Consortium partners:")),
            ("training", gettext_noop("2. The training")),
            ("course", gettext_noop("Course or program")),
            ("provider", gettext_noop("Training provider")),
            ("where", gettext_noop("Where the training takes place")),
            ("dates", gettext_noop("Dates")),
            ("hours", gettext_noop("Hours of training")),
            ("costs", gettext_noop("3. Schedule of approved costs")),
            ("costs_caption", gettext_noop("Approved costs, by trainee and category")),
            ("trainee", gettext_noop("Trainee")),
            ("employer", gettext_noop("Employer")),
            ("category", gettext_noop("Category")),
            ("amount", gettext_noop("Amount")),
            ("shares_caption", gettext_noop("Who pays, by trainee")),
            ("status", gettext_noop("Status")),
            ("eligible", gettext_noop("Eligible cost")),
            ("federal", gettext_noop("Federal share")),
            ("provincial", gettext_noop("Provincial or territorial share")),
            ("employer_share", gettext_noop("Employer share")),
            ("total", gettext_noop("Total")),
            ("dates_heading", gettext_noop("4. Dates")),
            ("accept_by", gettext_noop("Accept this offer by")),
            ("participants_by", gettext_noop("Report every participant by")),
            ("first_claim_by", gettext_noop("First claim due by")),
            ("completion_report_by", gettext_noop("Completion report due by")),
            (
                "expires",
                gettext_noop(
                    "An offer that is not accepted by its date expires by itself, and the money set"
                    " aside for it is released."
                ),
            ),
            ("terms", gettext_noop("5. General terms")),
            (
                "term_1",
                gettext_noop(
                    "The employer pays the training provider in full and keeps the invoices and"
                    " proofs of payment for seven years."
                ),
            ),
            (
                "term_2",
                gettext_noop(
                    "The employer claims actual costs only, per trainee and category, up to the"
                    " approved amounts; the government shares are computed by the rules of the"
                    " policy named below."
                ),
            ),
            (
                "term_3",
                gettext_noop(
                    "Any change to the dates, the provider, the trainees or the costs is asked for"
                    " through a change request, before it takes effect."
                ),
            ),
            (
                "term_4",
                gettext_noop(
                    "Money paid that was not due is repaid within 14 days of the request."
                ),
            ),
            (
                "term_5",
                gettext_noop(
                    "Each trainee confirms their participation through the participant form;"
                    " personal information is protected as the Privacy Act requires."
                ),
            ),
        )
    }


def _sentence(msgid: str, **values: object) -> str:
    """A `{% blocktranslate %}` sentence: translated, then its escaped values put in (each msgid
    is marked with gettext_noop where it is written, for makemessages)."""
    return gettext(msgid) % {name: _e(value) for name, value in values.items()}


def write(c: dict[str, Any]) -> str:
    """The document (before agreement_document normalises its line ends)."""
    w = _words(get_language())
    heading = _sentence(
        gettext_noop("Canada Job Grant agreement for application %(number)s, version %(version)s"),
        number=c["number"],
        version=c["version"],
    )
    offered = _sentence(
        gettext_noop("Offered to %(applicant)s on %(date)s."),
        applicant=c["applicant"],
        date=c["issued_on"],
    )
    between = _sentence(
        gettext_noop(
            "This agreement is between the Government of Canada and the province or territory that"
            " deliver the grant (the funders) and %(applicant)s, business number %(bn)s (the"
            " employer)."
        ),
        applicant=c["applicant"],
        bn=c["business_number"],
    )
    partners = (
        f"<p>{w['partners']} {', '.join(_e(p) for p in c['partners'])}</p>" if c["partners"] else ""
    )
    schedule = c["schedule"]
    course = schedule.get("course")
    span = _sentence(gettext_noop("%(start)s to %(end)s"), start=c["start"], end=c["end"])
    lines = "".join(
        f"<tr><td>{_e(line['trainee'])}</td><td>{_e(line['employer'])}</td>"
        f'<td>{_e(line["category"])}</td><td class="jg-number">{_e(line["amount"])}</td></tr>'
        for line in c["lines"]
    )
    trainees = "".join(
        f"<tr><td>{_e(row['trainee'])}</td><td>{_e(row['status'])}</td>"
        f'<td class="jg-number">{_e(row["eligible"])}</td>'
        f'<td class="jg-number">{_e(row["federal"])}</td>'
        f'<td class="jg-number">{_e(row["provincial"])}</td>'
        f'<td class="jg-number">{_e(row["employer_share"])}</td></tr>'
        for row in c["trainees"]
    )
    commit = _sentence(
        gettext_noop(
            "The funders commit at most %(government)s in total to this agreement. Each funder pays"
            " only its own share, and only for costs actually incurred and claimed as this"
            " agreement says."
        ),
        government=c["government"],
    )
    policy = _sentence(
        gettext_noop("Policy: %(policy)s; rules version %(version)s."),
        policy=c["policy"],
        version=c["policy_version"],
    )
    return f"""<article class="jg-agreement" lang="{_e(c["language"])}" id="agreement-document">
<h2 id="agreement-heading">{heading}</h2>
<p>{offered}</p>
<section aria-labelledby="agreement-parties">
<h3 id="agreement-parties">{w["parties"]}</h3>
<p>{between}</p>
{partners}
</section>
<section aria-labelledby="agreement-training">
<h3 id="agreement-training">{w["training"]}</h3>
<dl>
<dt>{w["course"]}</dt><dd>{_e(course) if course else "—"}</dd>
<dt>{w["provider"]}</dt><dd>{_e(schedule.get("provider", ""))}</dd>
<dt>{w["where"]}</dt><dd>{_e(c["setting"])}</dd>
<dt>{w["dates"]}</dt><dd>{span}</dd>
<dt>{w["hours"]}</dt><dd>{_e(schedule.get("hours", ""))}</dd>
</dl>
</section>
<section aria-labelledby="agreement-costs">
<h3 id="agreement-costs">{w["costs"]}</h3>
<table id="agreement-cost-lines">
<caption>{w["costs_caption"]}</caption>
<thead><tr><th scope="col">{w["trainee"]}</th><th scope="col">{w["employer"]}</th><th scope="col">{w["category"]}</th><th scope="col">{w["amount"]}</th></tr></thead>
<tbody>{lines}</tbody>
</table>
<table id="agreement-shares">
<caption>{w["shares_caption"]}</caption>
<thead><tr><th scope="col">{w["trainee"]}</th><th scope="col">{w["status"]}</th><th scope="col">{w["eligible"]}</th><th scope="col">{w["federal"]}</th><th scope="col">{w["provincial"]}</th><th scope="col">{w["employer_share"]}</th></tr></thead>
<tbody>{trainees}</tbody>
<tfoot><tr><th scope="row" colspan="2">{w["total"]}</th><td class="jg-number" id="agreement-eligible">{_e(c["eligible"])}</td><td class="jg-number" id="agreement-federal">{_e(c["federal"])}</td><td class="jg-number" id="agreement-provincial">{_e(c["provincial"])}</td><td class="jg-number" id="agreement-employer">{_e(c["employer_share"])}</td></tr></tfoot>
</table>
<p>{commit}</p>
</section>
<section aria-labelledby="agreement-dates">
<h3 id="agreement-dates">{w["dates_heading"]}</h3>
<dl>
<dt>{w["accept_by"]}</dt><dd id="agreement-accept-by">{_e(c["accept_by"])}</dd>
<dt>{w["participants_by"]}</dt><dd id="agreement-participants-by">{_e(c["participants_by"])}</dd>
<dt>{w["first_claim_by"]}</dt><dd id="agreement-first-claim-by">{_e(c["first_claim_by"])}</dd>
<dt>{w["completion_report_by"]}</dt><dd id="agreement-completion-report-by">{_e(c["completion_report_by"])}</dd>
</dl>
<p>{w["expires"]}</p>
</section>
<section aria-labelledby="agreement-terms">
<h3 id="agreement-terms">{w["terms"]}</h3>
<ol>
<li>{w["term_1"]}</li>
<li>{w["term_2"]}</li>
<li>{w["term_3"]}</li>
<li>{w["term_4"]}</li>
<li>{w["term_5"]}</li>
</ol>
<p>{policy}</p>
</section>
</article>
"""
