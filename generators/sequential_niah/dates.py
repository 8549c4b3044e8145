"""Dates as the needle pipelines write them: varied formats in needles, one canonical form in answers.

The paper's synthetic needles mix formats inside one question ("February 1, 2006",
"2006年02月04日", "6 February 2006", "February-15-2006", "2006-02-27"), so a model has to read
every format to put the items in order. Answers and references use one canonical format per
language, so a scorer can compare them. Periods are stated at day, month or year granularity; a
period is always the closed range of days it names.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from typing import Literal, get_args

import numpy as np

from needlework.checks import one_of_message, require_one_of
from needlework.errors import SpecError

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
MONTH_ABBREVIATIONS = ("Jan.", "Feb.", "Mar.", "Apr.", "May", "Jun.", "Jul.", "Aug.", "Sept.", "Oct.", "Nov.", "Dec.")

DATE_STYLES: dict[str, str] = {
    "month_day_year": "{month} {day}, {year}",
    "day_month_year": "{day} {month} {year}",
    "month_dash": "{month}-{day2}-{year}",
    "iso": "{year}-{month2}-{day2}",
    "abbreviated": "{mon} {day}, {year}",
    "ordinal": "{month} {ordinal}, {year}",
    "the_ordinal": "the {ordinal} of {month} {year}",
    "zh_padded": "{year}年{month2}月{day2}日",
    "zh": "{year}年{month_num}月{day}日",
    "slash": "{year}/{month2}/{day2}",
    "dotted": "{year}.{month2}.{day2}",
}
"""Date formats by name, filled from a :class:`datetime.date` (``{day2}``/``{month2}`` zero-padded)."""

NEEDLE_DATE_STYLES: dict[str, tuple[str, ...]] = {
    "en": ("month_day_year", "day_month_year", "month_dash", "iso", "abbreviated", "ordinal", "the_ordinal"),
    "zh": ("zh_padded", "zh", "iso", "slash", "dotted", "month_day_year", "day_month_year", "month_dash"),
}
"""The formats a needle may use per language (Chinese needles mix in English formats, as the paper's do)."""

CANONICAL_STYLE: dict[str, str] = {"en": "month_day_year", "zh": "zh_padded"}
"""The one format of answer items and references per language."""

Granularity = Literal["day", "month", "year"]
GRANULARITIES: tuple[str, ...] = get_args(Granularity)


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st`` ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def format_date(day: date, style: str) -> str:
    """``day`` written in one of :data:`DATE_STYLES`."""
    require_one_of("date style", style, DATE_STYLES)
    return DATE_STYLES[style].format(
        year=day.year, month=MONTHS[day.month - 1], mon=MONTH_ABBREVIATIONS[day.month - 1], month_num=day.month,
        month2=f"{day.month:02d}", day=day.day, day2=f"{day.day:02d}", ordinal=ordinal(day.day),
    )


def canonical_date(day: date, lang: str) -> str:
    """The answer-item form of a date: ``February 1, 2006`` (en) or ``2006年02月01日`` (zh)."""
    return format_date(day, CANONICAL_STYLE[lang])


def needle_date(day: date, lang: str, rng: np.random.Generator) -> str:
    """A date in a format drawn from :data:`NEEDLE_DATE_STYLES` for ``lang``."""
    styles = NEEDLE_DATE_STYLES[lang]
    return format_date(day, styles[int(rng.integers(len(styles)))])


def month_end(day: date) -> date:
    """The last day of ``day``'s month."""
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def expand_period(lo: date, hi: date, granularity: str) -> tuple[date, date]:
    """The days a period names: ``lo``..``hi`` widened to whole months or years."""
    if granularity == "day":
        return lo, hi
    if granularity == "month":
        return lo.replace(day=1), month_end(hi)
    if granularity == "year":
        return date(lo.year, 1, 1), date(hi.year, 12, 31)
    raise SpecError(one_of_message("granularity", granularity, GRANULARITIES))


def _month_text(day: date, lang: str) -> str:
    return f"{MONTHS[day.month - 1]} {day.year}" if lang == "en" else f"{day.year}年{day.month}月"


def describe_period(lo: date, hi: date, granularity: str, lang: str, *, between: bool = False) -> str:
    """The words for a period, to follow a verb: ``from March 3, 2014 to May 20, 2014``, ``in May 2014``,
    ``between 2006 and 2008``; in Chinese a noun phrase: ``2014年03月03日至2014年05月20日``, ``2014年5月``.

    Args:
        lo: First day (only its month or year counts at coarser granularity).
        hi: Last day.
        granularity: ``day``, ``month`` or ``year``.
        lang: ``en`` or ``zh``.
        between: English ``between X and Y`` instead of ``from X to Y``.
    """
    if granularity == "day":
        a, b = canonical_date(lo, lang), canonical_date(hi, lang)
        single = lo == hi
    elif granularity == "month":
        a, b = _month_text(lo, lang), _month_text(hi, lang)
        single = (lo.year, lo.month) == (hi.year, hi.month)
    elif granularity == "year":
        a, b = (str(lo.year), str(hi.year)) if lang == "en" else (f"{lo.year}年", f"{hi.year}年")
        single = lo.year == hi.year
    else:
        raise SpecError(one_of_message("granularity", granularity, GRANULARITIES))
    if lang == "zh":
        return a if single else f"{a}至{b}"
    if single:
        return f"on {a}" if granularity == "day" else f"in {a}"
    return f"between {a} and {b}" if between else f"from {a} to {b}"


def clean_granularities(lo: date, hi: date, others: list[date]) -> list[str]:
    """The granularities whose expanded period around ``lo``..``hi`` holds none of ``others``.

    A question may state its period by month or year only when no event of the same subject
    that is *not* an answer falls inside the widened range; ``day`` always qualifies when
    ``others`` lie outside ``lo``..``hi``.
    """
    fits = []
    for granularity in GRANULARITIES:
        a, b = expand_period(lo, hi, granularity)
        if not any(a <= d <= b for d in others):
            fits.append(granularity)
    return fits


def add_days(day: date, n: int) -> date:
    """``day`` plus ``n`` days (negative to go back)."""
    return day + timedelta(days=n)


def parse_iso(text: str) -> date:
    """A :class:`date` from ``YYYY-MM-DD`` (raises ``ValueError`` otherwise)."""
    return date.fromisoformat(text)
