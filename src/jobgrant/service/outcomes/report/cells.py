"""A figure as people read it, in the active language, and as CSV fields.

A suppressed figure is shown as "x", Statistics Canada's symbol for "suppressed to meet the
confidentiality requirements"; a rate or an average over nothing (a zero denominator) as "...",
its symbol for "not applicable"; a net figure withheld because its groups are too small for it to
mean anything as "F", its symbol for "too unreliable to be published". None of them ever reads
the figure's value: a suppressed cell's numbers never leave the KpiReport.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache

from babel import Locale
from babel.numbers import format_decimal, format_percent

from jobgrant.rules.money import format_amount, format_money
from jobgrant.service.language import current_language, current_locale
from jobgrant.service.outcomes.tables import Figure, Unit

SUPPRESSED = "x"  # Statistics Canada: suppressed to meet the confidentiality requirements
NOT_APPLICABLE = "..."  # Statistics Canada: not applicable (here, a rate over nobody)
UNRELIABLE = "F"  # Statistics Canada: too unreliable to be published (a net figure withheld)
PER_UNITS = (Unit.RATE, Unit.CENTS_PER, Unit.DAYS_PER)


def applicable(figure: Figure) -> bool:
    """A shown figure that has a value (a rate or average needs a denominator above zero)."""
    if not figure.shown:
        return False
    if figure.unit in PER_UNITS:
        return bool(figure.denominator) and figure.numerator is not None
    return figure.value is not None


def unreliable(figure: Figure) -> bool:
    """A shown net figure without a value: its groups were too small for it to mean anything."""
    return figure.shown and figure.unit is Unit.POINTS and figure.value is None


def percent(numerator: int, denominator: int) -> Decimal:
    """The percentage to one decimal, exact until the one rounding (half to even)."""
    ratio = Decimal(numerator) * 100 / Decimal(denominator)
    return ratio.quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN)


def fraction(numerator: int, denominator: int) -> Decimal:
    """A rate as a decimal to four places (0.7774), exact until the one rounding (half to even):
    the percentage people read, to two decimals more."""
    ratio = Decimal(numerator) / Decimal(denominator)
    return ratio.quantize(Decimal("0.0001"), rounding=ROUND_HALF_EVEN)


def per_cents(numerator: int, denominator: int) -> int:
    """Cents per person, rounded to the cent (half to even)."""
    ratio = Decimal(numerator) / Decimal(denominator)
    return int(ratio.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def per_days(numerator: int, denominator: int) -> Decimal:
    return (Decimal(numerator) / Decimal(denominator)).quantize(
        Decimal("0.1"), rounding=ROUND_HALF_EVEN
    )


def whole(value: int) -> str:
    return format_decimal(value, locale=current_locale())


def rate_text(numerator: int, denominator: int) -> str:
    """ "77.7% (412 / 530)" / "77,7 % (412 / 530)"."""
    share = format_percent(
        percent(numerator, denominator) / 100,
        format=_percent_pattern(current_locale()),
        locale=current_locale(),
    )
    return f"{share} ({whole(numerator)} / {whole(denominator)})"


@lru_cache(maxsize=4)
def _percent_pattern(locale: str) -> str:
    """The locale's percent pattern with one decimal: "#,##0.0%" / "#,##0,0 %" (French keeps
    its space before the sign)."""
    pattern = str(Locale.parse(locale).percent_formats[None].pattern)
    return pattern.replace("#0", "#0.0", 1) if "#0." not in pattern else pattern


def text(figure: Figure) -> str:
    """The figure in the active language: "x" when suppressed, "F" when too unreliable to be
    published, "..." when over nobody."""
    if not figure.shown:
        return SUPPRESSED
    if unreliable(figure):
        return UNRELIABLE
    if not applicable(figure):
        return NOT_APPLICABLE
    if figure.unit is Unit.RATE:
        return rate_text(_int(figure.numerator), _int(figure.denominator))
    if figure.unit is Unit.CENTS_PER:
        return format_money(per_cents(_int(figure.numerator), _int(figure.denominator)), _lang())
    if figure.unit is Unit.DAYS_PER:
        days = per_days(_int(figure.numerator), _int(figure.denominator))
        return format_decimal(days, format="#,##0.0", locale=current_locale())
    if figure.unit is Unit.CENTS:
        return format_money(_int(figure.value), _lang())
    if figure.unit is Unit.POINTS:
        return points_text(_int(figure.value))
    return whole(_int(figure.value))


def points(hundredths: int) -> Decimal:
    """Percentage points to one decimal (half to even) from hundredths of a point."""
    return (Decimal(hundredths) / 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN)


def points_text(hundredths: int) -> str:
    """ "+12.5 points" / "+12,5 points", "−3.0 points": a signed difference of percentages."""
    value = points(hundredths)
    shown = format_decimal(abs(value), format="#,##0.0", locale=current_locale())
    sign = "+" if value > 0 else "\u2212" if value < 0 else ""
    return f"{sign}{shown}\u00a0points"


def response_text(figure: Figure) -> str:
    """The response rate beside a survey figure ("" when the figure is not from a survey)."""
    if figure.response is None:
        return ""
    return text(figure.response)


def csv_fields(column_id: str, unit: Unit) -> list[str]:
    """The CSV columns one figure takes: its value, or a rate's numerator, denominator and
    percentage (an average's numerator, denominator and amount)."""
    if unit in PER_UNITS:
        last = "percent" if unit is Unit.RATE else "average"
        return [f"{column_id}_numerator", f"{column_id}_denominator", f"{column_id}_{last}"]
    return [column_id]


def csv_values(figure: Figure, *, blank: str = SUPPRESSED) -> list[str]:
    """The figure's CSV values, matching csv_fields: money as decimal strings ("1234.56").
    A suppressed figure gives `blank` in every field; a rate over nobody "..." in its last; a net
    figure withheld "F"."""
    width = 3 if figure.unit in PER_UNITS else 1
    if not figure.shown:
        return [blank] * width
    if figure.unit in PER_UNITS:
        numerator, denominator = _str(figure.numerator), _str(figure.denominator)
        return [numerator, denominator, _per_value(figure) if applicable(figure) else "..."]
    if figure.value is None:
        return [UNRELIABLE if unreliable(figure) else NOT_APPLICABLE]
    if figure.unit is Unit.POINTS:
        return [str(points(figure.value))]
    return [format_amount(figure.value) if figure.unit is Unit.CENTS else str(figure.value)]


def _per_value(figure: Figure) -> str:
    numerator, denominator = _int(figure.numerator), _int(figure.denominator)
    if figure.unit is Unit.RATE:
        return str(percent(numerator, denominator))
    if figure.unit is Unit.CENTS_PER:
        return format_amount(per_cents(numerator, denominator))
    return str(per_days(numerator, denominator))


def _str(value: int | None) -> str:
    return "" if value is None else str(value)


def _int(value: int | None) -> int:
    assert value is not None, "an applicable figure has its numbers"
    return value


def _lang() -> str:
    return current_language()
