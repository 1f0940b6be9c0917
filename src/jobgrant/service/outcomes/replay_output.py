"""A replay's words, summary, CSV and plot, in English or French (the command and the page)."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

from jobgrant.rules.money import format_amount, format_money
from jobgrant.service.language import long_date, of_language
from jobgrant.service.outcomes.replay import FUNDERS, FileReplay, Replay

#: Each phrase in English and in French.
WORDS: dict[str, tuple[str, str]] = {
    "title": (
        "Intake {intake} replayed under {policy}",
        "Appel de demandes {intake} rejoué sous {policy}",
    ),
    "files": ("Files replayed", "Dossiers rejoués"),
    "funded": ("Files funded", "Dossiers financés"),
    "gains": ("Funded only under {policy}", "Financés seulement sous {policy}"),
    "loses": ("No longer funded under {policy}", "Plus financés sous {policy}"),
    "refused": (
        "Files the other policy cannot quote",
        "Dossiers que l'autre politique ne peut chiffrer",
    ),
    "federal": ("Federal", "Fédéral"),
    "provincial": ("Provincial or territorial", "Provincial ou territorial"),
    "budget": ("Budget", "Budget"),
    "then": ("As decided (the quotes of the time)", "Tel que décidé (chiffrage de l'époque)"),
    "now": ("Under {policy}", "Sous {policy}"),
    "exhausted": ("Budget ran out on", "Budget épuisé le"),
    "never": ("never", "jamais"),
    "firm_size": ("Firm size", "Taille de l'entreprise"),
    "stream": ("Stream", "Volet"),
    "region": ("Economic region", "Région économique"),
    "axis_files": ("Files in the intake's order", "Dossiers dans l'ordre de l'appel de demandes"),
    "axis_money": (
        "Government money funded (thousands of dollars)",
        "Financement public accordé (milliers de dollars)",
    ),
    "ranked": ("Files ranked", "Dossiers classés"),
    "moved": ("Files whose rank moves", "Dossiers dont le rang change"),
    "ranks": (
        "Rank as decided → under {policy} (score)",
        "Rang tel que décidé → sous {policy} (points)",
    ),
    "unranked": ("not ranked", "non classé"),
    "yes": ("yes", "oui"),
    "no": ("no", "non"),
}

CSV_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("application", "application", "demande"),
    ("received_on", "received_on", "recue_le"),
    ("state", "state", "etat"),
    ("region", "region", "region"),
    ("firm_size", "firm_size", "taille_entreprise"),
    ("stream", "stream", "volet"),
    ("eligible_then", "eligible_then", "admissible_alors"),
    ("federal_then", "federal_then", "federal_alors"),
    ("provincial_then", "provincial_then", "provincial_alors"),
    ("funded_then", "funded_then", "finance_alors"),
    ("rank_then", "rank_then", "rang_alors"),
    ("score_then", "score_then", "points_alors"),
    ("eligible_now", "eligible_now", "admissible_maintenant"),
    ("federal_now", "federal_now", "federal_maintenant"),
    ("provincial_now", "provincial_now", "provincial_maintenant"),
    ("funded_now", "funded_now", "finance_maintenant"),
    ("rank_now", "rank_now", "rang_maintenant"),
    ("score_now", "score_now", "points_maintenant"),
    ("change", "change", "changement"),
    ("problem", "problem", "probleme"),
)
CHANGES = {"same": ("same", "inchangé"), "gains": ("gains", "gagne"), "loses": ("loses", "perd")}


def said(lang: str, key: str, **values: object) -> str:
    english, french = WORDS[key]
    return of_language(lang, en=english, fr=french).format(**values)


def _when(lang: str, date: dt.date | None) -> str:
    return long_date(date, lang) if date else said(lang, "never")


def summary(result: Replay, lang: str) -> list[tuple[str, str, str]]:
    """The comparison as rows of (what, then, now), in `lang`."""
    then, now = result.money("then"), result.money("now")
    rows = [
        (said(lang, "files"), str(len(result.files)), str(len(result.files))),
        (said(lang, "funded"), str(len(result.funded("then"))), str(len(result.funded("now")))),
    ]
    if result.ranked:
        ranked = [sum(1 for f in result.files if getattr(f, f"rank_{w}")) for w in ("then", "now")]
        rows.append((said(lang, "ranked"), str(ranked[0]), str(ranked[1])))
    for funder in FUNDERS:
        rows.append(
            (said(lang, funder), format_money(then[funder], lang), format_money(now[funder], lang))
        )
    rows.append(
        (
            said(lang, "exhausted"),
            _when(lang, result.exhausted_then),
            _when(lang, result.exhausted_now),
        )
    )
    return rows


def changes(result: Replay) -> dict[str, list[FileReplay]]:
    """The files whose funding the other policy changes, and those it cannot quote."""
    return {
        "gains": [f for f in result.files if f.change == "gains"],
        "loses": [f for f in result.files if f.change == "loses"],
        "refused": [f for f in result.files if f.now.problem],
    }


def text(result: Replay, lang: str) -> str:
    """What `jobgrant replay` prints."""
    lines = [said(lang, "title", intake=result.intake.pk, policy=result.policy), ""]
    lines.append(
        f"{'':<44}{said(lang, 'then')[:30]:>32}  {said(lang, 'now', policy=result.policy)[:30]:>30}"
    )
    for what, then, now in summary(result, lang):
        lines.append(f"{what:<44}{then:>32}  {now:>30}")
    for key, files in changes(result).items():
        numbers = ", ".join(_numbered(f, result.ranked, lang) for f in files) or "-"
        lines.append(f"{said(lang, key, policy=result.policy)}: {len(files)} ({numbers})")
    if result.ranked:
        lines.append(f"{said(lang, 'moved')}: {len(result.moved())}")
        lines.append("")
        lines.append(said(lang, "ranks", policy=result.policy))
        for file in result.in_order("now"):
            lines.append(f"  {file.application:>8}  {rank_change(file, lang)}")
    for attribute in ("firm_size", "stream", "region"):
        lines.append("")
        lines.append(said(lang, attribute))
        for value, row in result.mix(attribute).items():
            then, now = (format_money(row[f"cents_{w}"], lang) for w in ("then", "now"))
            counts = f"{row['files_then']:>6} → {row['files_now']:<6}"
            lines.append(f"  {value or '-':<20} {counts} {then:>18} → {now}")
    return "\n".join(lines) + "\n"


def _rank(rank: int | None, points: int | None, lang: str) -> str:
    return said(lang, "unranked") if rank is None else f"{rank} ({points})"


def rank_change(file: FileReplay, lang: str) -> str:
    """ "3 (72) → 1 (85)": the file's rank and score as decided, then under the other policy."""
    then = _rank(file.rank_then, file.score_then, lang)
    return f"{then} → {_rank(file.rank_now, file.score_now, lang)}"


def _numbered(file: FileReplay, ranked: bool, lang: str) -> str:
    if not ranked:
        return str(file.application)
    return f"{file.application}: {rank_change(file, lang)}"


def csv_text(result: Replay, lang: str) -> str:
    """One row a file; money as exact dollars with two decimals, whatever the language."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([of_language(lang, en=en, fr=fr) for _, en, fr in CSV_COLUMNS])
    for file in result.files:
        row = _row(file, lang)
        writer.writerow([row[key] for key, _, _ in CSV_COLUMNS])
    return buffer.getvalue()


def _row(file: FileReplay, lang: str) -> dict[str, Any]:
    yes, no = said(lang, "yes"), said(lang, "no")
    english, french = CHANGES[file.change]
    return {
        "application": file.application,
        "received_on": file.received_on.isoformat(),
        "state": file.state,
        "region": file.region,
        "firm_size": file.firm_size,
        "stream": file.stream,
        "eligible_then": yes if file.then.eligible else no,
        "federal_then": format_amount(file.then.federal),
        "provincial_then": format_amount(file.then.provincial),
        "funded_then": yes if file.funded_then else no,
        "rank_then": _blank(file.rank_then),
        "score_then": _blank(file.score_then),
        "eligible_now": yes if file.now.eligible else no,
        "federal_now": format_amount(file.now.federal),
        "provincial_now": format_amount(file.now.provincial),
        "funded_now": yes if file.funded_now else no,
        "rank_now": _blank(file.rank_now),
        "score_now": _blank(file.score_now),
        "change": of_language(lang, en=english, fr=french),
        "problem": file.now.problem,
    }


def _blank(value: int | None) -> str:
    return "" if value is None else str(value)


def cumulative(result: Replay, when: str) -> list[int]:
    """The government money funded after each file, in the order of that walk, in cents."""
    total, points = 0, []
    for file in result.in_order(when):
        if getattr(file, f"funded_{when}"):
            figures = getattr(file, when)
            total += figures.federal + figures.provincial
        points.append(total)
    return points


def svg(result: Replay, lang: str) -> bytes:
    """The money funded through the intake, then and now, against the budget, as SVG."""
    # matplotlib takes a second to import: only the plot pays for it.
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot, rc_context

    budget = sum(result.budget.values()) / 100_000
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "jobgrant"}):
        figure, axes = pyplot.subplots(figsize=(8, 4.5))
        positions = list(range(1, len(result.files) + 1))
        for when, style in (("then", "-"), ("now", "--")):
            label = said(lang, when, policy=result.policy)
            values = [cents / 100_000 for cents in cumulative(result, when)]
            axes.step(positions, values, style, where="post", label=label)
        axes.axhline(budget, color="grey", linewidth=1, label=said(lang, "budget"))
        axes.set_xlabel(said(lang, "axis_files"))
        axes.set_ylabel(said(lang, "axis_money"))
        axes.set_title(said(lang, "title", intake=result.intake.pk, policy=result.policy))
        axes.legend(loc="lower right")
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
        pyplot.close(figure)
    return buffer.getvalue()
