"""Real-temporal needles (paper §3.1.2): the dated relations between two entities of a temporal KG.

From ICEWS-style quadruples ``(subject, relation, object, date)``, a question takes a pair of
entities with several dated relations between them (either direction) and asks for their
interactions over a period ("What were the key interactions between Barack Obama and Iran from
2007 to 2015?", the authors' ``QA_en.jsonl``), in chronological order or not. The needles are
the relations of a run of consecutive interaction days of the pair, one relation per day, each
rendered as a natural sentence from per-relation predicates (:mod:`cameo`) in varied sentence
frames and date formats; the answers are the same facts in one canonical sentence each. Because
the run is consecutive, every interaction of the pair inside the stated period is an answer, and
a period is stated by month or year only when that wider range holds no other interaction of the
pair. Entity names stay as in the KG, also in Chinese sentences.

Distractors are relations of the pair outside the period and relations of either entity with a
third entity inside it. The KG lists no entity types, so whether the question's subject is a person
(whom a semantic-noise near sentence may rename) is read from its name (:func:`looks_like_person`). An optional rewrite (the paper uses GPT-4o) rephrases the template
sentences through an injected ``rewrite(prompt) -> str``; a rewrite that drops a name or the year,
or repeats another needle, is discarded.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from typing import Callable, NamedTuple, Sequence

import numpy as np

from needlework.errors import SpecError
from generators.seeding import rng_for
from generators.sequential_niah.cameo import predicates
from generators.sequential_niah.dates import (
    MONTHS, canonical_date, clean_granularities, describe_period, expand_period, format_date, ordinal, parse_iso,
)
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import BENCHMARK, NEEDLE_COUNT_RANGE, check_question_counts

PIPELINE = "real-temporal"


class Quad(NamedTuple):
    """One dated relation of a temporal KG, with names (the ``events`` table: subject, relation, object, time)."""

    subject: str
    relation: str
    object: str
    time: str
    """ISO date ``YYYY-MM-DD``."""


FRAMES: dict[str, tuple[str, ...]] = {
    "en": (
        "On {date}, {s} {p}.",
        "{s} {p} on {date}.",
        "{date}: {s} {p}.",
        "It was on {date} that {s} {p}.",
        "In {month_year}, on the {nth}, {s} {p}.",
    ),
    "zh": (
        "{date}，{s}{p}。",
        "{s}于{date}{p}。",
        "据报道，{s}在{date}{p}。",
        "{date}：{s}{p}。",
        "{date}这一天，{s}{p}。",
    ),
}
"""Needle sentence frames: ``{s}`` subject, ``{p}`` predicate (with the object filled), a date."""

CANONICAL_FRAME: dict[str, str] = {"en": "On {date}, {s} {p}.", "zh": "{date}，{s}{p}。"}
"""The answer-item sentence: canonical date, subject, canonical predicate."""

DATE_STYLES: dict[str, tuple[str, ...]] = {
    "en": ("month_day_year", "day_month_year", "iso", "abbreviated", "ordinal", "the_ordinal"),
    "zh": ("zh_padded", "zh", "iso", "slash", "dotted"),
}
"""Date formats of real-temporal needles (Chinese sentences keep Chinese and numeric dates)."""

QUESTIONS: dict[str, dict[bool, tuple[str, ...]]] = {
    "en": {
        True: (
            "What were the key interactions between {a} and {b} {period}? List them in chronological order.",
            "In chronological order, list the interactions between {a} and {b} {period}.",
            "How did relations between {a} and {b} unfold {period}? Give the events in the order they happened.",
        ),
        False: (
            "What were the key interactions between {a} and {b} {period}?",
            "Which events involving both {a} and {b} took place {period}?",
        ),
    },
    "zh": {
        True: (
            "{period}期间，{a}与{b}之间有哪些重要互动？请按时间顺序列出。",
            "请按时间先后顺序列出{a}和{b}在{period}期间的主要互动。",
            "按时间顺序罗列{a}与{b}在{period}期间的交往事件",
        ),
        False: (
            "{a}与{b}在{period}期间有哪些重要互动？",
            "{period}期间，{a}和{b}之间发生了哪些事件？",
        ),
    },
}
"""Questions by language and whether they ask for chronological order."""

REFERENCES: dict[str, str] = {
    "en": "The key interactions between {a} and {b} {period}, in chronological order:",
    "zh": "{a}与{b}在{period}期间的重要互动按时间顺序如下：",
}

REWRITE_PROMPTS: dict[str, str] = {
    "en": ("Rewrite the following sentence so that it reads naturally, like a sentence from a news report. Keep "
           "exactly the same meaning: the same date, the same participants and the same action. Keep every name "
           "exactly as written; you may write the date in another format, but do not change it. Reply with the "
           "rewritten sentence only.\n\nSentence: {sentence}"),
    "zh": ("请改写下面这句话，使其像新闻报道中的句子一样自然通顺。意思必须完全不变：日期、参与方和行为都相同。"
           "所有名称必须原样保留；日期可以换一种写法，但不能改变。只输出改写后的句子。\n\n句子：{sentence}"),
}
"""The instruction for the optional LLM rewrite of a needle (the paper rewrites with GPT-4o)."""


@dataclass(frozen=True)
class TkgSpec:
    """What real-temporal questions to make from a temporal KG.

    Attributes:
        lang: ``en`` or ``zh``.
        count: Number of questions (pairs are visited in a seeded order; past the number of
            eligible pairs they are revisited with other windows).
        min_needles: Fewest needles (the paper: 3).
        max_needles: Most needles (the paper: 10).
        distractors: Near-miss relations per question.
        unordered_share: Share of questions that do not ask for chronological order.
        source: The ``source`` label of the questions (e.g. ``icews14``).
    """

    lang: str
    count: int
    min_needles: int = NEEDLE_COUNT_RANGE[PIPELINE][0]
    max_needles: int = NEEDLE_COUNT_RANGE[PIPELINE][1]
    distractors: int = 2
    unordered_share: float = 0.4
    source: str = "icews14"

    def __post_init__(self) -> None:
        check_question_counts(self.lang, self.count, self.min_needles, self.max_needles)
        if self.distractors < 0:
            raise SpecError(f"distractors must be >= 0, got {self.distractors}")
        if not 0.0 <= self.unordered_share <= 1.0:
            raise SpecError(f"unordered_share must be in [0, 1], got {self.unordered_share}")


def _pick(items: Sequence, rng: np.random.Generator):
    return items[int(rng.integers(len(items)))]


def render_sentence(subject: str, phrasings: Sequence[str], day: date, lang: str, rng: np.random.Generator) -> str:
    """A needle sentence: ``subject``, one of the ``phrasings`` (predicates, object filled in) and ``day``,
    in a drawn frame and date format."""
    text = _pick(FRAMES[lang], rng).format(
        date=format_date(day, _pick(DATE_STYLES[lang], rng)), s=subject, p=_pick(phrasings, rng),
        month_year=f"{MONTHS[day.month - 1]} {day.year}", nth=ordinal(day.day),
    )
    return text[:1].upper() + text[1:]


def canonical_event(subject: str, predicate: str, day: date, lang: str) -> str:
    """An answer item: canonical date, subject, predicate (object filled in)."""
    return CANONICAL_FRAME[lang].format(date=canonical_date(day, lang), s=subject, p=predicate)


def render_quad(quad: Quad, lang: str, rng: np.random.Generator) -> str:
    """A needle sentence for ``quad`` (see :func:`render_sentence`)."""
    phrasings = [p.format(o=quad.object) for p in predicates(quad.relation, lang)]
    return render_sentence(quad.subject, phrasings, parse_iso(quad.time), lang, rng)


def canonical_sentence(quad: Quad, lang: str) -> str:
    """The answer item for ``quad``: canonical date, subject and the first predicate phrasing."""
    return canonical_event(quad.subject, predicates(quad.relation, lang)[0].format(o=quad.object), parse_iso(quad.time), lang)


def pick_window(n_days: int, min_needles: int, max_needles: int, rng: np.random.Generator) -> tuple[int, int]:
    """A run of consecutive days ``(start, k)`` of ``n_days`` with ``min_needles <= k <= max_needles``."""
    k = int(rng.integers(min_needles, min(max_needles, n_days) + 1))
    return int(rng.integers(n_days - k + 1)), k


def pick_period(lo: date, hi: date, others: Sequence[date], rng: np.random.Generator) -> tuple[date, date, str]:
    """The stated period around ``lo``..``hi``: a granularity whose range holds none of ``others``, drawn."""
    granularity = _pick(clean_granularities(lo, hi, list(others)), rng)
    first, last = expand_period(lo, hi, granularity)
    return first, last, granularity


ORGANIZATION_WORDS = frozenset((
    "academy agency airline airlines alliance army assembly association authority bank board broadcasting bureau cabinet "
    "center centre chamber church coalition college command commission committee communist community company congress "
    "corporation council court daily democratic department directorate federal federation force forces foundation front "
    "fund gas government group guard holdings independent industries institute international islamic league liberation "
    "media military ministry monitor movement national nations navy network news office oil organisation organization "
    "parliament party people police press program programme radio republic revolutionary school senate service services "
    "society state states students television times trust tv union united university watch").split())
"""Words of organizations' and groups' names (lower case): a name holding one is no person's."""
NAME_PARTICLES = frozenset("abu al bin binti da das de del della den der di dos du el ibn la le van von y".split())
"""Lower-case words inside people's names (``Cristina Fernández de Kirchner``, ``Abu Bakr al-Baghdadi``); a
particle may also be joined to a capitalized name by a hyphen (``al-Baghdadi``)."""


def looks_like_person(name: str, places: Collection[str]) -> bool:
    """Whether a temporal KG's entity name reads as a person's (ICEWS lists no entity types).

    A person's name here is two to five words, each capitalized or a name particle (:data:`NAME_PARTICLES`),
    with no digit, bracket, slash or ampersand, no word of :data:`ORGANIZATION_WORDS`, and not a place
    (``places``: the KG's country qualifiers, e.g. ``Nigeria`` of ``Citizen (Nigeria)``). Sector actors
    (``Military (Thailand)``), countries and one-word names (``Hamas``) are not persons. It reads names,
    not facts: a company named like a person (``Aero Vodochody``) passes.
    """
    if name in places or re.search(r"[()\[\]\d/&]", name):
        return False
    words = name.split()
    if not 2 <= len(words) <= 5:
        return False
    lowered = [word.casefold().strip(".,'’") for word in words]
    if any(word in ORGANIZATION_WORDS for word in lowered):
        return False
    return all(word[:1].isupper() or low in NAME_PARTICLES or (low.partition("-")[0] in NAME_PARTICLES and
                                                              word.partition("-")[2][:1].isupper())
               for word, low in zip(words, lowered))


class TemporalIndex:
    """Quadruples grouped by entity pair (either direction) and by entity, in time order, deduplicated; and the
    KG's places (:attr:`places`: the country qualifiers of names such as ``Citizen (Nigeria)``)."""

    def __init__(self, quads: Sequence[Quad]) -> None:
        unique = sorted({q for q in quads if q.subject != q.object}, key=lambda q: (q.time, q.subject, q.relation, q.object))
        self.pairs: dict[tuple[str, str], list[Quad]] = defaultdict(list)
        self.by_entity: dict[str, list[Quad]] = defaultdict(list)
        for q in unique:
            self.pairs[tuple(sorted((q.subject, q.object)))].append(q)
            self.by_entity[q.subject].append(q)
            self.by_entity[q.object].append(q)
        self._times = {e: [q.time for q in qs] for e, qs in self.by_entity.items()}
        self.places = frozenset(m[1] for e in self.by_entity if (m := re.search(r"\(([^()]+)\)\s*$", e)))

    def days(self, pair: tuple[str, str]) -> list[str]:
        """The distinct ISO days on which the pair interacted, in order."""
        return sorted({q.time for q in self.pairs[pair]})

    def eligible_pairs(self, min_days: int) -> list[tuple[str, str]]:
        """Pairs with at least ``min_days`` distinct interaction days, sorted."""
        return sorted(p for p, qs in self.pairs.items() if len({q.time for q in qs}) >= min_days)

    def between(self, entity: str, first: str, last: str) -> list[Quad]:
        """``entity``'s relations dated ``first``..``last`` (ISO, inclusive)."""
        times = self._times.get(entity, [])
        return self.by_entity[entity][bisect_left(times, first):bisect_right(times, last)]


def rewrite_needles(texts: Sequence[str], lang: str, rewrite: Callable[[str], str],
                    keep: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """Rephrase each text through ``rewrite(prompt)``, keeping the template text when a rewrite is unusable.

    A rewrite is kept when it is non-empty, one paragraph, contains every string of ``keep[i]``
    (names, the year) and differs from the texts already kept.

    Args:
        texts: Template sentences.
        lang: Their language (chooses the instruction of :data:`REWRITE_PROMPTS`).
        rewrite: Any text-to-text callable, e.g. a wrapper around an eval backend.
        keep: Per text, the strings its rewrite must contain.
    """
    out: list[str] = []
    for text, required in zip(texts, keep, strict=True):
        candidate = rewrite(REWRITE_PROMPTS[lang].format(sentence=text)).strip().strip("\"“”")
        usable = (candidate and "\n\n" not in candidate and all(r in candidate for r in required)
                  and candidate not in out and candidate not in texts)
        out.append(candidate if usable else text)
    return tuple(out)


def _keep(quad: Quad) -> tuple[str, ...]:
    return quad.subject, quad.object, quad.time[:4]


def tkg_qa(index: TemporalIndex, pair: tuple[str, str], spec: TkgSpec, *, seed: int, number: int,
           rewrite: Callable[[str], str] | None = None) -> SequentialQA:
    """Real-temporal question ``number`` about ``pair`` (see the module docstring)."""
    lang = spec.lang
    rng = rng_for(seed, BENCHMARK, PIPELINE, f"{lang}/{spec.source}/{number:06d}")
    days = index.days(pair)
    start, k = pick_window(len(days), spec.min_needles, spec.max_needles, rng)
    by_day: dict[str, list[Quad]] = defaultdict(list)
    for q in index.pairs[pair]:
        by_day[q.time].append(q)
    window = [_pick(by_day[d], rng) for d in days[start:start + k]]
    subjects = Counter(q.subject for q in window)
    a = max(pair, key=lambda e: (subjects[e], e == pair[0]))
    b = pair[1] if a == pair[0] else pair[0]
    others = [parse_iso(d) for d in days[:start] + days[start + k:]]
    first, last, granularity = pick_period(parse_iso(days[start]), parse_iso(days[start + k - 1]), others, rng)
    period = describe_period(first, last, granularity, lang, between=bool(rng.random() < 0.3))
    ordered = not bool(rng.random() < spec.unordered_share)
    answers = tuple(canonical_sentence(q, lang) for q in window)
    needles = tuple(render_quad(q, lang, rng) for q in window)
    rendered: dict[str, Quad] = {}
    for q in _distractor_quads(index, pair, by_day, days, first.isoformat(), last.isoformat(), spec.distractors, rng):
        rendered.setdefault(render_quad(q, lang, rng), q)
    distractors = tuple(rendered)
    if rewrite is not None:
        needles = rewrite_needles(needles, lang, rewrite, [_keep(q) for q in window])
        rewritten = rewrite_needles(distractors, lang, rewrite, [_keep(q) for q in rendered.values()])
        distractors = tuple(dict.fromkeys(d for d in rewritten if d not in needles))
    question = _pick(QUESTIONS[lang][ordered], rng).format(a=a, b=b, period=period)
    reference = "\n".join([REFERENCES[lang].format(a=a, b=b, period=period), *(f"- {x}" for x in answers)])
    return SequentialQA(f"{PIPELINE}/{lang}/{spec.source}/{number:06d}", lang, PIPELINE, question[:1].upper() + question[1:],
                        answers, needles, ordered, reference, distractors, spec.source, subject=a,
                        subject_is_person=looks_like_person(a, index.places))


def _distractor_quads(index: TemporalIndex, pair: tuple[str, str], by_day: dict[str, list[Quad]], days: list[str],
                      first: str, last: str, n: int, rng: np.random.Generator) -> list[Quad]:
    """Up to ``n`` relations: of the pair on days nearest outside the period, and of either entity with a third one inside it."""
    before = [d for d in days if d < first][-5:]
    after = [d for d in days if d > last][:5]
    outside = [q for d in before + after for q in by_day[d]]
    third = [q for e in pair for q in index.between(e, first, last) if {q.subject, q.object} != set(pair)]
    kinds = [pool for pool in (outside, third) if pool]
    picked: list[Quad] = []
    if not kinds:
        return picked
    turn = int(rng.integers(len(kinds)))
    for _ in range(4 * n):
        if len(picked) == n:
            break
        q = _pick(kinds[turn % len(kinds)], rng)
        turn += 1
        if q not in picked:
            picked.append(q)
    return picked


def tkg_qas(quads: Sequence[Quad], spec: TkgSpec, *, seed: int,
            rewrite: Callable[[str], str] | None = None) -> list[SequentialQA]:
    """``spec.count`` real-temporal questions from a temporal KG's quadruples.

    Args:
        quads: The KG's dated relations (e.g. from :func:`builders.sources.icews.read_icews`).
        spec: What to make.
        seed: Build seed; question ``i`` depends on (seed, language, source, ``i``) and the KG.
        rewrite: Optional text-to-text callable that rephrases needles (see :func:`rewrite_needles`).

    Raises:
        SpecError: No entity pair has ``spec.min_needles`` interaction days.
    """
    index = TemporalIndex(quads)
    pairs = index.eligible_pairs(spec.min_needles)
    if not pairs and spec.count:
        raise SpecError(f"no entity pair has {spec.min_needles} or more interaction days; lower min_needles or use a larger graph")
    order = rng_for(seed, BENCHMARK, PIPELINE, f"{spec.lang}/{spec.source}/pairs").permutation(len(pairs)) if pairs else []
    return [tkg_qa(index, pairs[int(order[i % len(pairs)])], spec, seed=seed, number=i, rewrite=rewrite)
            for i in range(spec.count)]
