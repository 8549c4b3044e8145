"""Generated semantic noise, the official kinds (the ``paper`` preset's ``semantic_rule="generated"``).

The official semantic-noise script (miraclefish/Sequential-NIAH-Benchmark,
``Sequential_NIAH_building_PPL_with_sem_noise.py``) asks an LLM (DeepSeek-V3) for new sentences
per test sample, by the needle pipeline (``meta_QA['ppl']``):

* ``syn`` (synthetic-temporal), ``gen_syn_semantic_noise``: sentence 1 keeps the protagonist's
  surname with another given name, a date close to but unlike the needles', a new event, in the
  needles' format (:data:`NEAR`); sentence 2 keeps the protagonist and says something irrelevant,
  "the protagonist's personality, hobbies, or work", with no time information (:data:`IRRELEVANT`).
  Variations ``syn_1``, ``syn_2``, ``syn_1+2``: ``[1]``, ``[2]``, ``[1, 2]``.
* ``tkg`` (real-temporal), ``gen_tkg_semantic_noise``: an event of entity A, then of entity B,
  with some third entity C; variations ``[1]``, ``[2]``, ``[1, 2]``.
* ``open`` (real-logical), ``gen_open_semantic_noise``: three sentences, each "related to the
  subject in the question" that does not answer it and repeats none of the earlier ones;
  variations ``open_1``, ``open_2``, ``open_3``, one sentence each (:data:`TOPIC`).

No LLM here: the sentences are composed from the sample's own needles and subject
(:attr:`SequentialQA.subject`) with seeded draws. A **near** sentence is a needle, drawn at random
among those naming the subject and a date, with the subject's given name replaced
(:func:`look_alike`; only a person's: :func:`near_sentence`), the date moved by 1 to :data:`NEAR_DAYS` days to a day no needle has,
written in the same format (:func:`find_date`), and, for a synthetic diary, the event replaced by
a new one of the diary's templates. Departures, recorded in the card: real-temporal samples get a
near sentence and then a topic sentence about the subject (:data:`TOPIC_TEMPLATES`, as the logical
ones: the subject may be a country or an organization), not the official A-C / B-C events, which
need a knowledge of real entities (and this build's world questions follow one actor, for whom
another event in the period would be an answer); a real-temporal near sentence keeps the needle's
event (only the name and date change, so it still answers nothing). A name in Latin script
(ICEWS entities in Chinese needles) takes the English look-alike rule.
"""

from __future__ import annotations

import re
from datetime import date

import numpy as np

from generators.sequential_niah.dates import (
    DATE_STYLES,
    MONTH_ABBREVIATIONS,
    MONTHS,
    add_days,
    format_date,
)
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.synthetic_vocab import EVENTS, SLOTS
from needlework.errors import BudgetError

NEAR = "near"
IRRELEVANT = "irrelevant"
TOPIC = "topic"
NEAR_DAYS = 30
"""A near sentence's date is this many days or fewer from its needle's ("relatively close")."""

GIVEN_NAMES: dict[str, tuple[str, ...]] = {
    "en": ("Alan", "Beth", "Carl", "Dana", "Eric", "Fiona", "Glen", "Hazel", "Ivan", "Julia", "Keith", "Laura",
           "Miles", "Nora", "Oscar", "Paula", "Quentin", "Rosa", "Simon", "Tessa"),
    "zh": ("志", "文", "华", "明", "丽", "强", "敏", "静", "军", "磊", "婷", "洋", "霞", "勇", "倩", "涛", "琳", "峰"),
}
"""Given names (en) and given-name characters (zh) a look-alike name is made of."""

IRRELEVANT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "en": (
        "{name} is known among friends for a calm and patient temperament.",
        "{name} enjoys gardening and keeps a small vegetable plot behind the house.",
        "{name} likes to collect old maps and picture postcards.",
        "{name} works carefully and is often praised for attention to detail.",
        "{name} prefers tea to coffee and owns a shelf full of teapots.",
        "{name} is fond of long walks and likes to watch birds along the river.",
    ),
    "zh": (
        "{name}性格沉稳，待人一向很有耐心。",
        "{name}喜欢养花种菜，在屋后打理着一小块菜地。",
        "{name}爱好收集旧地图和风景明信片。",
        "{name}工作认真细致，常受到同事称赞。",
        "{name}偏爱喝茶，家里摆满了各式茶壶。",
        "{name}喜欢散步，常在河边观鸟。",
    ),
}
"""Sentences about the protagonist with no time in them: personality, hobbies, work (official ``syn`` sentence 2)."""

TOPIC_TEMPLATES: dict[str, tuple[str, ...]] = {
    "en": (
        "People often hold quite different opinions about {subject}.",
        "There are many anecdotes told about {subject}.",
        "A local magazine once ran a short feature about {subject}.",
        "Some readers find {subject} more interesting than others do.",
        "Questions about {subject} come up often in casual conversation.",
        "Several online forums have long discussion threads about {subject}.",
    ),
    "zh": (
        "人们对{subject}往往有着不同的看法。",
        "关于{subject}，流传着不少小故事。",
        "一家地方杂志曾经刊登过一篇介绍{subject}的短文。",
        "有些读者觉得{subject}比别人想象的更有意思。",
        "在日常闲聊中，人们常常聊起{subject}。",
        "不少网络论坛上都有关于{subject}的长篇讨论。",
    ),
}
"""Sentences related to the question's subject that answer nothing (official ``open`` sentences)."""


def noise_sets(qa: SequentialQA, rng: np.random.Generator) -> list[tuple[str, ...]]:
    """The official variations of ``qa``: the noise sentences of each, in order (see the module docstring).

    Temporal pipelines: ``[near]``, ``[other]``, ``[near, other]``, where ``other`` is an irrelevant
    sentence about the protagonist (synthetic) or a topic sentence about the subject (real-temporal);
    real-logical: three different topic sentences, one per variation.

    Raises:
        BudgetError: ``qa`` has no subject, or no needle names its subject with a date (a near
            sentence cannot be made).
    """
    if not qa.subject:
        raise BudgetError(f"{qa.qid}: no subject recorded, so no semantic noise can be generated about it")
    topics = TOPIC_TEMPLATES[qa.lang]
    if qa.pipeline == "real-logical":
        picks = rng.choice(len(topics), size=3, replace=False)
        return [(topics[int(i)].format(subject=qa.subject),) for i in picks]
    near = near_sentence(qa, rng)
    if qa.pipeline == "synthetic-temporal":
        other = irrelevant_sentence(qa.subject, qa.lang, rng)
    else:
        other = topics[int(rng.integers(len(topics)))].format(subject=qa.subject)
    return [(near,), (other,), (near, other)]


def irrelevant_sentence(name: str, lang: str, rng: np.random.Generator) -> str:
    """A sentence about ``name``'s personality, hobbies or work, without time (:data:`IRRELEVANT_TEMPLATES`)."""
    templates = IRRELEVANT_TEMPLATES[lang]
    return templates[int(rng.integers(len(templates)))].format(name=name)


def near_sentence(qa: SequentialQA, rng: np.random.Generator) -> str:
    """A needle of ``qa`` with a look-alike protagonist, a near date no needle has, and (synthetic) a new event.

    Only a person is renamed (:attr:`SequentialQA.subject_is_person`): a country, a sector actor such as
    ``Military (Thailand)`` or an organization has no given name to change, and a made-up "Dana (Thailand)" is
    no near miss. Such a subject's near sentence is one of the question's stored near misses instead (a
    relation of the pair just outside the period, or of either actor with a third one inside it: the
    official ``tkg`` kinds, an event of A or B with some C).

    Raises:
        BudgetError: No needle names the subject and a readable date; or the subject is no person and the
            question has no stored near miss.
    """
    if not qa.subject_is_person:
        if not qa.distractors:
            raise BudgetError(f"{qa.qid}: {qa.subject!r} is no person's name to change, and the question has no "
                              "stored near miss to use instead")
        return qa.distractors[int(rng.integers(len(qa.distractors)))]
    dated = [(n, found) for n in qa.needles if qa.subject in n and (found := find_date(n)) is not None]
    if not dated:
        raise BudgetError(f"{qa.qid}: no needle names {qa.subject!r} with a date to move")
    taken = {found[0] for _, found in dated}
    needle, (day, style, start, end) = dated[int(rng.integers(len(dated)))]
    moves = [d for d in range(-NEAR_DAYS, NEAR_DAYS + 1) if d and add_days(day, d) not in taken]
    new_day = add_days(day, int(rng.choice(moves)))
    sentence = needle[:start] + format_date(new_day, style) + needle[end:]
    if qa.pipeline == "synthetic-temporal":
        sentence = _new_event(sentence, qa, rng)
    return sentence.replace(qa.subject, look_alike(qa.subject, qa.lang, rng))


def look_alike(name: str, lang: str, rng: np.random.Generator) -> str:
    """``name`` with the same surname and another given name (official ``syn`` requirement 1).

    English (and any name without Chinese characters): the last word is the surname (a one-word
    name is all surname and gets a given name before it); Chinese: the first character, or the part
    after ``·``, is the surname and the given name becomes one or two characters of :data:`GIVEN_NAMES`.
    """
    if not any("\u4e00" <= c <= "\u9fff" for c in name):
        lang = "en"
    pool = GIVEN_NAMES[lang]
    if lang == "en":
        words = name.split(" ")
        given = [g for g in pool if g != words[0]]
        first = given[int(rng.integers(len(given)))]
        return f"{first} {name}" if len(words) == 1 else " ".join([first, *words[1:]])
    if "·" in name:
        head, family = name.rsplit("·", 1)
        chars = [c for c in pool if c not in head]
        return chars[int(rng.integers(len(chars)))] + "·" + family
    surname, given_now = name[:1], name[1:]
    chars = [c for c in pool if c not in given_now]
    picks = rng.choice(len(chars), size=max(1, min(2, len(given_now))), replace=False)
    return surname + "".join(chars[int(i)] for i in picks)


def find_date(text: str) -> tuple[date, str, int, int] | None:
    """The first date written in one of :data:`DATE_STYLES` in ``text``: ``(day, style, start, end)``.

    Of the styles matching at the earliest place, the one that writes the date back exactly as
    found is taken (``2006年02月04日`` is ``zh_padded``, ``2006年2月4日`` is ``zh``).
    """
    best: tuple[date, str, int, int] | None = None
    for style, pattern in _PATTERNS.items():
        for match in pattern.finditer(text):
            day = _parsed(match)
            if day is None or format_date(day, style) != match.group(0):
                continue
            if best is None or (match.start(), -(match.end() - match.start())) < (best[2], -(best[3] - best[2])):
                best = (day, style, match.start(), match.end())
            break
    return best


def _new_event(sentence: str, qa: SequentialQA, rng: np.random.Generator) -> str:
    """``sentence`` with its diary event replaced by a new one of the diary templates (none of the needles')."""
    separator = ": " if qa.lang == "en" else "："
    events = [a.split(separator, 1)[1] for a in qa.answers if separator in a]
    for event in events:
        for form in (event, event[:1].upper() + event[1:]):
            if form in sentence:
                templates = EVENTS[qa.lang]
                for _ in range(16):
                    new = _filled(templates[int(rng.integers(len(templates)))], SLOTS[qa.lang], rng)
                    if new not in events:
                        new = new[:1].upper() + new[1:] if form[:1].isupper() else new
                        return sentence.replace(form, new, 1)
                return sentence
    return sentence


def _filled(template: str, slots: dict[str, tuple[str, ...]], rng: np.random.Generator) -> str:
    fields = dict.fromkeys(re.findall(r"{(\w+)}", template))
    return template.format(**{f: slots[f][int(rng.integers(len(slots[f])))] for f in fields})


def _parsed(match: re.Match) -> date | None:
    groups = match.groupdict()
    month = groups.get("month") or groups.get("mon")
    number = (MONTHS.index(month) + 1 if month in MONTHS else MONTH_ABBREVIATIONS.index(month) + 1) if month else \
        int(groups.get("month2") or groups.get("month_num"))
    day = int(groups.get("day") or groups.get("day2") or groups.get("ordinal"))
    try:
        return date(int(groups["year"]), number, day)
    except ValueError:
        return None


def _pattern(template: str) -> re.Pattern:
    fields = {
        "month": "(?P<month>" + "|".join(MONTHS) + ")",
        "mon": "(?P<mon>" + "|".join(re.escape(m) for m in MONTH_ABBREVIATIONS) + ")",
        "year": r"(?P<year>\d{4})", "month2": r"(?P<month2>\d{2})", "month_num": r"(?P<month_num>\d{1,2})",
        "day": r"(?P<day>\d{1,2})", "day2": r"(?P<day2>\d{2})", "ordinal": r"(?P<ordinal>\d{1,2})(?:st|nd|rd|th)",
    }
    parts = re.split(r"({\w+})", template)
    body = "".join(fields[p[1:-1]] if p.startswith("{") else re.escape(p) for p in parts)
    return re.compile(r"(?<!\d)" + body + r"(?!\d)")


_PATTERNS: dict[str, re.Pattern] = {style: _pattern(template) for style, template in DATE_STYLES.items()}

