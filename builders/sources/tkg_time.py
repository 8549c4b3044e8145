"""What a temporal knowledge graph's integer time stamps mean: unit and origin.

TKG-completion code ships its graphs with integer time stamps whose unit and origin are written
nowhere in the files; they are part of each distribution's description. The common ones, as
distributed:

- **ICEWS14, days from t = 1** (2014-01-01 .. 2014-12-31, t = 1 .. 365; ``stat.txt`` 7128 entities,
  230 relations): ``JaySaligia/PPT`` ``data/ICEWS14`` (the shared slice) and
  ``nec-research/TKG-Forecasting-Evaluation`` ``data/ICEWS14/train.txt``.
- **ICEWS14, hours from t = 0** (t = 0, 24, ..., 8736; same counts): the same repository's
  ``data/ICEWS14/icews14s`` made by ``reformat_icews14.py`` as ``t = (day - 1) * 24``, and RE-Net's
  ICEWS14 (``INK-USC/RE-Net`` ``data/ICEWS14/stat.txt``: 12498 entities, 260 relations), which
  CyGNet (``CunchaoZ/CyGNet`` README) trains with ``--time-stamp 24``.
- **ICEWS18, hours from t = 0** (2018-01-01 .. 2018-10-31; 23033 entities, 256 relations):
  ``INK-USC/RE-Net`` ``data/ICEWS18`` (``valid.txt`` starts at t = 5760, day 240; five
  space-padded columns); CyGNet trains it with ``--time-stamp 24``.
- **GDELT, minutes from t = 0 in 15-minute steps** (2018-01-01 .. 2018-01-31; 7691 entities, 240
  relations): ``INK-USC/RE-Net`` ``data/GDELT``; CyGNet trains it with ``--time-stamp 15`` and
  writes one file per stamp (``copy_seq/train_h_r_copy_seq_{0,15,30,...}.npz``).
- **ICEWS05-15, days** (2005-01-01 .. 2015-12-31, Garcia-Duran et al. 2018, described in
  ``BorealisAI/de-simple`` ``datasets/README.md``). Whether day 2005-01-01 is t = 0 or t = 1 is
  told by the stamps themselves (t = 0 or t = 4017 present); when they cannot tell, the reader
  refuses rather than guess a day.

A distribution is recognized by the entity and relation counts of its ``stat.txt`` or, failing
that, by its folder's name; it is then accepted only if every time stamp fits it (on its step, in
its span). Otherwise the user states the unit and the date of t = 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from needlework.checks import one_of_message
from needlework.errors import InputError

TIME_UNITS: dict[str, timedelta] = {
    "day": timedelta(days=1), "hour": timedelta(hours=1), "minute": timedelta(minutes=1),
    "15min": timedelta(minutes=15),
}
"""The units a time stamp may count, by the name ``--tkg-time-unit`` takes."""
UNIT_ALIASES: dict[str, str] = {
    "d": "day", "days": "day", "daily": "day", "h": "hour", "hours": "hour", "hourly": "hour",
    "m": "minute", "min": "minute", "mins": "minute", "minutes": "minute", "15m": "15min",
    "15-min": "15min", "15-minute": "15min", "15minutes": "15min", "quarter-hour": "15min",
}


@dataclass(frozen=True)
class TimeAxis:
    """How integer time stamps map to instants: ``origin + (t - first_t) * unit``.

    Attributes:
        unit: A key of :data:`TIME_UNITS`.
        origin: The instant of time stamp ``first_t``.
        first_t: The time stamp of ``origin``.
        distribution: The recognized distribution, or ``"given"`` when the user stated the axis.
    """

    unit: str
    origin: datetime
    first_t: int = 0
    distribution: str = "given"

    def day(self, t: int) -> date:
        """The calendar day of time stamp ``t``."""
        return (self.origin + (t - self.first_t) * TIME_UNITS[self.unit]).date()

    def describe(self) -> dict[str, object]:
        """The axis as the manifest records it."""
        origin = self.origin.date().isoformat() if self.origin.time() == datetime.min.time() else self.origin.isoformat()
        return {"distribution": self.distribution, "unit": self.unit, "origin": origin, "origin_t": self.first_t}


@dataclass(frozen=True)
class Distribution:
    """A TKG as TKG-completion code ships it (see the module docstring).

    Attributes:
        name: How the manifest names it.
        counts: ``stat.txt``'s (entities, relations), or ``None`` when not pinned.
        aliases: Folder names (lower-case, alphanumerics only) that name it.
        unit: What ``t`` counts.
        step: The distance between consecutive stamps, in ``unit``.
        first: The first day of the span; ``last``: the last.
        first_ts: The candidate time stamps of ``first`` (two when the stamps must tell).
    """

    name: str
    counts: tuple[int, int] | None
    aliases: tuple[str, ...]
    unit: str
    step: int
    first: date
    last: date
    first_ts: tuple[int, ...]

    def axes(self) -> list[TimeAxis]:
        """One axis per candidate origin stamp."""
        origin = datetime(self.first.year, self.first.month, self.first.day)
        return [TimeAxis(self.unit, origin, t, self.name) for t in self.first_ts]

    def fits(self, axis: TimeAxis, stamps: set[int]) -> int | None:
        """The first stamp that does not fit ``axis`` (off the step or outside the span), else ``None``."""
        for t in sorted(stamps):
            if t < axis.first_t or (t - axis.first_t) % self.step or axis.day(t) > self.last:
                return t
        return None


DISTRIBUTIONS: tuple[Distribution, ...] = (
    Distribution("ICEWS14 (days from t=1)", (7128, 230), ("icews14",), "day", 1, date(2014, 1, 1), date(2014, 12, 31), (1,)),
    Distribution("ICEWS14 (hours from t=0)", (7128, 230), ("icews14s", "icews14"), "hour", 24, date(2014, 1, 1),
                 date(2014, 12, 31), (0,)),
    Distribution("ICEWS14 (RE-Net, hours from t=0)", (12498, 260), (), "hour", 24, date(2014, 1, 1), date(2014, 12, 31), (0,)),
    Distribution("ICEWS18 (RE-Net, hours from t=0)", (23033, 256), ("icews18",), "hour", 24, date(2018, 1, 1),
                 date(2018, 10, 31), (0,)),
    Distribution("ICEWS05-15 (days)", None, ("icews0515",), "day", 1, date(2005, 1, 1), date(2015, 12, 31), (0, 1)),
    Distribution("GDELT (RE-Net, minutes from t=0 in 15-minute steps)", (7691, 240), ("gdelt",), "minute", 15,
                 date(2018, 1, 1), date(2018, 1, 31), (0,)),
)

MISSING = ("give --tkg-time-unit ({units}) and --tkg-start (the date of time stamp 0, ISO: 2018-01-01 or "
           "2018-01-01T00:00)").format(units="|".join(TIME_UNITS))


def parse_unit(text: str) -> str:
    """A ``--tkg-time-unit`` value as a key of :data:`TIME_UNITS` (``hours`` -> ``hour``).

    Raises:
        InputError: The unit is not one of them.
    """
    unit = UNIT_ALIASES.get(text.strip().lower(), text.strip().lower())
    if unit not in TIME_UNITS:
        raise InputError("--tkg-time-unit", None, None, one_of_message("time unit", text, TIME_UNITS))
    return unit


def parse_start(text: str) -> datetime:
    """A ``--tkg-start`` value (an ISO date or date-time) as the instant of time stamp 0.

    Raises:
        InputError: It is not an ISO date or date-time.
    """
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise InputError("--tkg-start", None, None, f"{text!r} is not an ISO date (e.g. 2018-01-01)") from None


def _folder_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def candidates(folder_name: str, counts: tuple[int, int] | None) -> list[Distribution]:
    """The known distributions a folder may be: by ``stat.txt`` counts, else by folder name."""
    if counts is not None:
        by_counts = [d for d in DISTRIBUTIONS if d.counts == counts]
        if by_counts:
            return by_counts
    key = _folder_key(folder_name)
    named = [d for d in DISTRIBUTIONS if any(a == key for a in d.aliases)]
    return named or [d for d in DISTRIBUTIONS if any(a in key for a in d.aliases)]


def resolve_axis(folder: str, folder_name: str, counts: tuple[int, int] | None, stamps: set[int], *,
                 unit: str | None = None, start: datetime | None = None) -> TimeAxis | None:
    """The time axis of a folder's integer time stamps, recognized or given.

    Both ``unit`` and ``start`` given: that axis, ``start`` at t = 0. One of them given: the
    recognized axes that agree with it. Neither: the one recognized axis every stamp fits.
    No stamps: ``None`` (every time is an ISO date, nothing to resolve).

    Raises:
        InputError: No axis, or more than one, fits; the message names what is missing.
    """
    if not stamps:
        return None
    if unit is not None and start is not None:
        return TimeAxis(unit, start, 0)
    known = candidates(folder_name, counts)
    fitting: list[TimeAxis] = []
    misfits: list[str] = []
    for dist in known:
        for axis in dist.axes():
            bad = dist.fits(axis, stamps)
            if bad is None:
                fitting.append(axis)
            else:
                misfits.append(f"{dist.name} (t={bad} does not fit)")
    if unit is not None:
        fitting = [a for a in fitting if a.unit == unit]
    if start is not None:
        fitting = [a for a in fitting if a.day(0) == start.date()]
    if len(fitting) == 1:
        return fitting[0]
    given = unit is not None or start is not None
    need = "--tkg-start" if unit is not None else "--tkg-time-unit" if start is not None else ""
    if not known:
        why = "not a recognized distribution (ICEWS14, ICEWS18, ICEWS05-15 or GDELT by stat.txt counts or folder name)"
    elif len(fitting) > 1:
        why = f"its time stamps fit more than one reading ({', '.join(a.describe()['origin'] + ' at t=' + str(a.first_t) for a in fitting)})"
    else:
        why = "its time stamps fit no known reading: " + "; ".join(misfits) if misfits else "no reading agrees with the option given"
    what = f"give {need} too" if given else MISSING
    raise InputError(folder, None, "t", f"cannot tell the unit and origin of the time stamps: {why}; {what}")
