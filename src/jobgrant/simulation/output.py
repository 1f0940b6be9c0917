"""The simulator's tables (Polars): the band of every figure, every draw, and a text summary.

Money is exact cents in the simulation (`year.MONEY_MEASURES`); a CSV writes it as a decimal
string with two decimals ("1874313.92"): a draw's amount as it was computed, a mean or a
percentile of the draws rounded to the cent (half to even). Parquet keeps float64 dollars."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import polars as pl

from jobgrant.rules.money import format_amount
from jobgrant.simulation.montecarlo import Results
from jobgrant.simulation.scenario import first_day
from jobgrant.simulation.year import MONEY_MEASURES, NATIONAL, PLACES, measures

FORMATS = ("csv", "parquet")


def summary_table(results: Results) -> pl.DataFrame:
    """One row per (fiscal year, jurisdiction, measure): mean, 5th and 95th percentile."""
    mean, low, high = results.band()
    years, places, names = results.spec.years, PLACES, measures()
    shape = mean.shape
    index = np.indices(shape).reshape(3, -1)
    return pl.DataFrame(
        {
            "scenario": [results.scenario] * mean.size,
            "fiscal_year": np.array(years)[index[0]],
            "jurisdiction": np.array(places)[index[1]],
            "measure": np.array(names)[index[2]],
            "mean": mean.ravel(),
            "p05": low.ravel(),
            "p95": high.ravel(),
            "draws": [results.spec.draws] * mean.size,
        }
    )


def draws_table(results: Results) -> pl.DataFrame:
    """One row per (draw, fiscal year, jurisdiction), one column per measure."""
    figures = results.figures
    n_draws, n_years, n_places, _ = figures.shape
    index = np.indices((n_draws, n_years, n_places)).reshape(3, -1)
    columns: dict[str, object] = {
        "scenario": [results.scenario] * index.shape[1],
        "draw": index[0],
        "fiscal_year": np.array(results.spec.years)[index[1]],
        "jurisdiction": np.array(PLACES)[index[2]],
    }
    flat = figures.reshape(-1, figures.shape[-1])
    for i, name in enumerate(measures()):
        columns[name] = flat[:, i]
    return pl.DataFrame(columns)


def write_tables(results: list[Results], directory: Path, format: str) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    summary = pl.concat([summary_table(r) for r in results])
    draws = pl.concat([draws_table(r) for r in results])
    written = []
    for name, frame in (("summary", summary), ("draws", draws)):
        path = directory / f"{name}.{format}"
        if format == "csv":
            money_as_text(frame, summary=name == "summary").write_csv(path)
        else:
            frame.write_parquet(path)
        written.append(path)
    return written


def cents_text(dollars: np.ndarray) -> list[str]:
    """Dollars (float64, each the nearest double to an amount in cents, or a statistic of such
    amounts) as decimal strings of their nearest cent: "1874313.92"."""
    cents = np.rint(np.asarray(dollars, np.float64) * 100).astype(np.int64)
    return [format_amount(int(c)) for c in cents]


def money_as_text(frame: pl.DataFrame, *, summary: bool) -> pl.DataFrame:
    """The table as its CSV writes it: money columns (a draw's table) or the money rows' mean
    and percentiles (the summary, whose other rows keep their float values) as exact cents."""
    if not summary:
        return frame.with_columns(
            pl.Series(name, cents_text(frame[name].to_numpy())) for name in MONEY_MEASURES
        )
    money = frame["measure"].is_in(list(MONEY_MEASURES)).to_numpy()
    columns = []
    for name in ("mean", "p05", "p95"):
        values = frame[name].to_numpy()
        texts = [str(v) for v in frame[name].cast(pl.String).to_list()]
        amounts = cents_text(np.where(money, values, 0.0))
        columns.append(
            pl.Series(name, [a if m else t for a, m, t in zip(amounts, money, texts, strict=True)])
        )
    return frame.with_columns(columns)


def exhaustion_date(year: str, day: float) -> str:
    if np.isnan(day):
        return "open"
    return (first_day(year) + dt.timedelta(days=round(day))).isoformat()


def summary_text(results: Results) -> str:
    """Per year and jurisdiction: trainees, money by party, turned away, exhaustion, money left."""
    mean, low, high = results.band()
    names = measures()

    def m(y: int, p: int, name: str) -> float:
        return float(mean[y, p, names.index(name)])

    def band(y: int, p: int, name: str, scale: float = 1.0, digits: int = 0) -> str:
        i = names.index(name)
        lo, hi = low[y, p, i] / scale, high[y, p, i] / scale
        return f"{mean[y, p, i] / scale:,.{digits}f} [{lo:,.{digits}f}–{hi:,.{digits}f}]"

    spec = results.spec
    header = (
        f"{'Code':<4} {'Trainees funded':>26} {'Federal $M':>20} {'Prov. $M':>18} "
        f"{'Employer $M':>20} {'Turned away':>12} {'Intake closed':>18} {'Left $M':>8}"
    )
    blocks = []
    for y, year in enumerate(spec.years):
        lines = [
            f"Simulation {year}, scenario {results.scenario}, {spec.draws} draws, seed "
            f"{spec.seed}: mean [5%–95%]",
            header,
            "-" * len(header),
        ]
        for p, code in enumerate(PLACES):
            closed = _closed(year, code, m(y, p, "exhausted"), m(y, p, "exhaustion_day"))
            left = (m(y, p, "left_federal") + m(y, p, "left_provincial")) / 1e6
            lines.append(
                f"{code:<4} {band(y, p, 'trainees_approved'):>26} "
                f"{band(y, p, 'federal', 1e6, 1):>20} {band(y, p, 'provincial', 1e6, 1):>18} "
                f"{band(y, p, 'employer', 1e6, 1):>20} {m(y, p, 'trainees_turned_away'):>12,.0f} "
                f"{closed:>18} {left:>8,.1f}"
            )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _closed(year: str, code: str, share: float, day: float) -> str:
    """When the intake closed (mean over the draws in which it did, with their share when not
    all did); nationally, the share of jurisdictions whose intake closed."""
    if code == NATIONAL:
        return f"{share:.0%} of P/T"
    if share == 0:
        return "open"
    date = exhaustion_date(year, day)
    return date if share == 1 else f"{date} ({share:.0%})"


def compare_text(first: Results, second: Results) -> str:
    """National figures of two scenarios side by side, year by year."""
    names = measures()
    a, b = first.band()[0], second.band()[0]
    p = PLACES.index(NATIONAL)
    rows = [
        ("trainees_approved", 1.0, "Trainees funded"),
        ("trainees_turned_away", 1.0, "Trainees turned away"),
        ("federal", 1e6, "Federal $M"),
        ("provincial", 1e6, "Provincial $M"),
        ("employer", 1e6, "Employer $M"),
        ("employers_approved", 1.0, "Employers funded"),
    ]
    lines = [
        f"{'National, mean of draws':<24} {'Year':<8} {first.scenario:>22} {second.scenario:>22}"
    ]
    for y, year in enumerate(first.spec.years):
        for name, scale, label in rows:
            i = names.index(name)
            lines.append(
                f"{label:<24} {year:<8} {a[y, p, i] / scale:>22,.1f} {b[y, p, i] / scale:>22,.1f}"
            )
    return "\n".join(lines)
