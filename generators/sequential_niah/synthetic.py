"""Synthetic-temporal needles (paper §3.1.1): a fake subject's dated events, asked for by period.

A question is about one fake subject, a diary named after a person (``胡慧聪记事``,
``Ann Cole's Journal``). Each needle is one diary entry: the subject's label, a date in one of
several formats (the paper mixes ``February 1, 2006``, ``2006年02月04日``, ``6 February 2006``,
``February-15-2006`` inside one question) and an event drawn from templates. The question asks
for the entries of a period, stated by day, month or year, either in chronological order
(``ordered=True``) or just what happened (``ordered=False``; Table 6 has both), or for the whole
diary by date (the paper's own question). Answers are ``canonical date: event`` in date order.

Distractors are near misses that must not be answered: entries of the same diary just outside
the period (only when the question names a period), and entries of a look-alike diary (a person
sharing the surname) inside it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from string import Formatter
from typing import Sequence

import numpy as np

from needlework.errors import SpecError
from generators.seeding import rng_for
from generators.sequential_niah.dates import (
    add_days, canonical_date, describe_period, expand_period, month_end, needle_date,
)
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import BENCHMARK, LANGS, NEEDLE_COUNT_RANGE, check_question_counts
from generators.sequential_niah.synthetic_vocab import (
    ANSWER_FORMAT, EVENTS, FRAMES, LABELS, QUESTIONS, REFERENCES, SLOTS,
)

PIPELINE = "synthetic-temporal"
SOURCE = "syn"
GRANULARITY_WEIGHTS: dict[str, float] = {"day": 0.5, "month": 0.35, "year": 0.15}
"""How often a question states its period by exact days, by months or by years."""
OUTSIDE_DAYS = 90
"""Same-subject distractors fall within this many days before or after the period."""


@dataclass(frozen=True)
class SyntheticSpec:
    """What synthetic-temporal questions to make.

    Attributes:
        lang: ``en`` or ``zh``.
        count: Number of questions.
        min_needles: Fewest needles per question (the paper: 3).
        max_needles: Most needles per question (the paper: 15); each question draws uniformly.
        distractors: Near-miss entries per question.
        unordered_share: Share of questions that ask what happened without asking for order.
        whole_diary_share: Share of questions about the whole diary, without a period.
        first_year: Earliest year of an event.
        last_year: Latest year of an event.
    """

    lang: str
    count: int
    min_needles: int = NEEDLE_COUNT_RANGE[PIPELINE][0]
    max_needles: int = NEEDLE_COUNT_RANGE[PIPELINE][1]
    distractors: int = 2
    unordered_share: float = 0.4
    whole_diary_share: float = 0.1
    first_year: int = 1980
    last_year: int = 2023

    def __post_init__(self) -> None:
        check_question_counts(self.lang, self.count, self.min_needles, self.max_needles)
        if self.distractors < 0 or self.max_needles + self.distractors > len(EVENTS[self.lang]):
            raise SpecError(f"max_needles + distractors must be at most {len(EVENTS[self.lang])} (event templates "
                            f"in {self.lang}) with distractors >= 0, got {self.max_needles} + {self.distractors}")
        for name in ("unordered_share", "whole_diary_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise SpecError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if not 1 <= self.first_year <= self.last_year <= 9998:
            raise SpecError(f"need 1 <= first_year <= last_year <= 9998, got {self.first_year} and {self.last_year}")


class NamePool:
    """Full person names of one language, indexed so a look-alike (same surname) is found quickly.

    English names are ``First Last`` (the last word is the surname); Chinese names start with a
    one-character surname, unless written ``Given·Family`` like the world's transliterations.
    """

    def __init__(self, names: Sequence[str], lang: str) -> None:
        self.lang = lang
        self.names = tuple(sorted({n.strip() for n in names if n and n.strip()}))
        if len(self.names) < 2:
            raise SpecError(f"synthetic subjects need at least 2 distinct {lang} names, got {len(self.names)}")
        self._by_surname: dict[str, list[str]] = defaultdict(list)
        for name in self.names:
            self._by_surname[self.surname(name)].append(name)

    def surname(self, name: str) -> str:
        """The family name: the last word (``Ann Cole``), the part after ``·`` (``科雷洛·达文``) or the first character (``胡慧聪``)."""
        if "·" in name:
            return name.rsplit("·", 1)[-1]
        return name.rsplit(" ", 1)[-1] if " " in name else name[0]

    def draw(self, rng: np.random.Generator) -> str:
        """A uniformly drawn name."""
        return self.names[int(rng.integers(len(self.names)))]

    def look_alike(self, name: str, rng: np.random.Generator) -> str:
        """Another name, sharing the surname when the pool has one; never a substring of ``name`` or the reverse."""
        fits = lambda other: other != name and other not in name and name not in other
        same = [n for n in self._by_surname[self.surname(name)] if fits(n)]
        if same:
            return same[int(rng.integers(len(same)))]
        for _ in range(32):
            other = self.draw(rng)
            if fits(other):
                return other
        rest = [n for n in self.names if fits(n)]
        if not rest:
            raise SpecError(f"no name in the pool can stand beside {name!r} (every other name contains it or is part of it)")
        return rest[int(rng.integers(len(rest)))]


def compose_names(family: Sequence[str], given: Sequence[str], lang: str, *, limit: int = 50_000) -> tuple[str, ...]:
    """Full names from name parts (e.g. Faker's lists), at most ``limit``, spread evenly over all combinations.

    English names are ``Given Family``; Chinese names are a surname and two different given-name
    characters (``胡慧聪``). Which combinations are kept depends only on the sorted parts, so the
    pool is the same for the same lists.

    Raises:
        SpecError: A list is empty or ``lang`` is unknown.
    """
    family_parts, given_parts = sorted(set(family)), sorted(set(given))
    if not family_parts or not given_parts or lang not in LANGS or limit < 1:
        raise SpecError(f"names need family and given parts, a language in {', '.join(LANGS)} and limit >= 1")
    sizes = (len(given_parts), len(family_parts)) if lang == "en" else (len(family_parts), len(given_parts), len(given_parts))
    total = int(np.prod(sizes))
    names = []
    for index in np.unique(np.linspace(0, total - 1, num=min(limit, total)).astype(np.int64)).tolist():
        digits = np.unravel_index(index, sizes)
        if lang == "en":
            names.append(f"{given_parts[digits[0]]} {family_parts[digits[1]]}")
        elif digits[1] != digits[2]:
            names.append(family_parts[digits[0]] + given_parts[digits[1]] + given_parts[digits[2]])
    return tuple(names)


def _fill(template: str, slots: dict[str, tuple[str, ...]], rng: np.random.Generator) -> str:
    fields = [f for _, f, _, _ in Formatter().parse(template) if f]
    return template.format(**{f: slots[f][int(rng.integers(len(slots[f])))] for f in dict.fromkeys(fields)})


def _events(lang: str, n: int, rng: np.random.Generator) -> list[str]:
    """``n`` events from distinct templates, so they never repeat within a question."""
    templates = EVENTS[lang]
    picks = rng.choice(len(templates), size=n, replace=False)
    return [_fill(templates[int(i)], SLOTS[lang], rng) for i in picks]


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def _entry(label: str, day: date, event: str, lang: str, rng: np.random.Generator) -> str:
    frames = FRAMES[lang]
    frame = frames[int(rng.integers(len(frames)))]
    return _capitalize(frame.format(label=label, date=needle_date(day, lang, rng), event=event))


def _choice(options: Sequence[str], rng: np.random.Generator) -> str:
    return options[int(rng.integers(len(options)))]


def _period(spec: SyntheticSpec, k: int, rng: np.random.Generator) -> tuple[date, date, str]:
    """A period of at least ``k`` days (first day, last day, granularity), within the spec's years."""
    names = list(GRANULARITY_WEIGHTS)
    weights = np.array(list(GRANULARITY_WEIGHTS.values()))
    granularity = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    year = int(rng.integers(spec.first_year, spec.last_year + 1))
    if granularity == "year":
        years = min(int(rng.integers(1, 3)), spec.last_year - year + 1)
        return date(year, 1, 1), date(year + years - 1, 12, 31), granularity
    if granularity == "month":
        months = int(rng.integers(1, 7))
        start_month = int(rng.integers(1, 14 - months))
        lo = date(year, start_month, 1)
        return lo, month_end(date(year, start_month + months - 1, 1)), granularity
    span = int(rng.integers(max(2 * k, 21), 181))
    lo = add_days(date(year, 1, 1), int(rng.integers(0, 365 - span))) if span < 365 else date(year, 1, 1)
    return lo, add_days(lo, span), granularity


def synthetic_qa(spec: SyntheticSpec, pool: NamePool, *, seed: int, index: int) -> SequentialQA:
    """Synthetic-temporal question ``index`` of ``spec`` (its own random stream; see the module docstring)."""
    lang = spec.lang
    rng = rng_for(seed, BENCHMARK, PIPELINE, f"{lang}/{index:06d}")
    k = int(rng.integers(spec.min_needles, spec.max_needles + 1))
    name = pool.draw(rng)
    label_template = _choice(LABELS[lang], rng)
    label = label_template.format(name=name)
    whole = bool(rng.random() < spec.whole_diary_share)
    ordered = not bool(rng.random() < spec.unordered_share)
    lo, hi, granularity = _period(spec, k, rng)
    first, last = expand_period(lo, hi, granularity)
    span = (last - first).days + 1
    days = sorted(add_days(first, int(d)) for d in rng.choice(span, size=k, replace=False))
    events = _events(lang, k + spec.distractors, rng)
    answers = tuple(ANSWER_FORMAT[lang].format(date=canonical_date(d, lang), event=e) for d, e in zip(days, events))
    needles = tuple(_entry(label, d, e, lang, rng) for d, e in zip(days, events))
    period = describe_period(first, last, granularity, lang)
    kind = ("ordered" if ordered else "unordered") + ("_all" if whole else "")
    question = _choice(QUESTIONS[lang][kind], rng).format(label=label, name=name, period=period)
    head = REFERENCES[lang]["all" if whole else "period"].format(label=label, period=period)
    reference = "\n".join([head, *(f"- {a}" for a in answers)])
    distractors = _distractors(spec, pool, name, label_template, first, last, whole, events[k:], set(days), rng)
    return SequentialQA(f"{PIPELINE}/{lang}/{index:06d}", lang, PIPELINE, _capitalize(question), answers, needles,
                        ordered, reference, distractors, SOURCE, subject=name)


def _distractors(spec: SyntheticSpec, pool: NamePool, name: str, label_template: str, first: date, last: date,
                 whole: bool, events: list[str], used: set[date], rng: np.random.Generator) -> tuple[str, ...]:
    """Entries of the same diary outside the period (not for whole-diary questions) and of a look-alike diary inside it."""
    lang = spec.lang
    look_alike_label = label_template.format(name=pool.look_alike(name, rng))
    own_label = label_template.format(name=name)
    kinds = ["look-alike"] if whole else ["outside", "look-alike"]
    start = int(rng.integers(len(kinds)))
    out = []
    for i, event in enumerate(events):
        if kinds[(start + i) % len(kinds)] == "outside":
            offset = int(rng.integers(1, OUTSIDE_DAYS + 1))
            day = add_days(first, -offset) if rng.random() < 0.5 else add_days(last, offset)
            while day in used:
                day = add_days(day, -1 if day < first else 1)
            used.add(day)
            out.append(_entry(own_label, day, event, lang, rng))
        else:
            day = add_days(first, int(rng.integers((last - first).days + 1)))
            out.append(_entry(look_alike_label, day, event, lang, rng))
    return tuple(out)


def synthetic_qas(spec: SyntheticSpec, *, seed: int, names: Sequence[str]) -> list[SequentialQA]:
    """``spec.count`` synthetic-temporal questions whose subjects are drawn from ``names``.

    Args:
        spec: What to make.
        seed: Build seed; question ``i`` depends only on (seed, language, ``i``) and the names.
        names: Full person names in ``spec.lang`` (Faker's lists, the world's people, any list).

    Returns:
        The questions, ``qid`` ``synthetic-temporal/<lang>/<index>``.
    """
    pool = NamePool(names, spec.lang)
    return [synthetic_qa(spec, pool, seed=seed, index=i) for i in range(spec.count)]
