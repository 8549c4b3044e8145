"""Kinship needles (paper §3.2): a chain of people, one relation sentence per link, scrambled.

A chain lists people from the eldest to the youngest; link ``k`` says how many generations
(1 parent/child, 2 grandparent/grandchild, 3 great-) person ``k`` stands above person ``k + 1``.
Each link is written as one sentence in one of the paper's forms ("X's father is Y", "Y is not only
X's father but also X's role model", "Y, as X's paternal grandfather, has a significant impact on
X's upbringing", "For X, Y is more than just a mom; Y is a lifelong mentor of X", "X is the child
of Y", ...), from the elder's side (an ancestor role) or the younger's (a descendant role).
Because the chain is linear and every link goes up at least one generation, every question about
it has exactly one answer, which :func:`answer_question` reads off the chain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from operator import add, itemgetter
from typing import Sequence

import numpy as np

from needlework.errors import SpecError

ANCESTOR_ROLES: dict[str, tuple[tuple[str, int], ...]] = {
    "en": (
        ("father", 1), ("mother", 1), ("dad", 1), ("mom", 1), ("parent", 1),
        ("grandfather", 2), ("grandmother", 2), ("paternal grandfather", 2), ("paternal grandmother", 2),
        ("maternal grandfather", 2), ("maternal grandmother", 2),
        ("great-grandfather", 3), ("great-grandmother", 3),
    ),
    "zh": (
        ("父亲", 1), ("母亲", 1), ("爸爸", 1), ("妈妈", 1),
        ("祖父", 2), ("祖母", 2), ("爷爷", 2), ("奶奶", 2), ("外公", 2), ("外婆", 2),
        ("曾祖父", 3), ("曾祖母", 3),
    ),
}
"""Roles the elder holds for the younger, with the generations between them."""

DESCENDANT_ROLES: dict[str, tuple[tuple[str, int], ...]] = {
    "en": (
        ("child", 1), ("son", 1), ("daughter", 1),
        ("grandchild", 2), ("grandson", 2), ("granddaughter", 2),
        ("great-grandson", 3), ("great-granddaughter", 3),
    ),
    "zh": (
        ("孩子", 1), ("儿子", 1), ("女儿", 1),
        ("孙子", 2), ("孙女", 2), ("外孙", 2), ("外孙女", 2),
        ("曾孙", 3), ("曾孙女", 3),
    ),
}
"""Roles the younger holds for the elder, with the generations between them."""

ANCESTOR_SENTENCES: dict[str, tuple[str, ...]] = {
    "en": (
        "{younger}'s {role} is {elder}.",
        "{elder} is {younger}'s {role}.",
        "{elder} is not only {younger}'s {role} but also {younger}'s role model.",
        "{elder}, as {younger}'s {role}, has a significant impact on {younger}'s upbringing.",
        "For {younger}, {elder} is not just a {role}, but also a friend.",
        "For {younger}, {elder} is more than just a {role}; {elder} is a lifelong mentor of {younger}.",
    ),
    "zh": (
        "{younger}的{role}是{elder}。",
        "{elder}是{younger}的{role}。",
        "{elder}不仅是{younger}的{role}，还是{younger}的榜样。",
        "{elder}作为{younger}的{role}，对{younger}的成长有重要影响。",
        "对{younger}来说，{elder}不只是{role}，还是朋友。",
        "对{younger}来说，{elder}不仅仅是{role}，{elder}还是{younger}的终身导师。",
    ),
}
"""Sentences stating an ancestor role (the paper's Figure 11-13 forms)."""

DESCENDANT_SENTENCES: dict[str, tuple[str, ...]] = {
    "en": (
        "{younger} is the {role} of {elder}.",
        "{younger} is {elder}'s {role}.",
        "{elder}'s {role} is {younger}.",
    ),
    "zh": (
        "{younger}是{elder}的{role}。",
        "{elder}的{role}是{younger}。",
    ),
}
"""Sentences stating a descendant role ("Taylor Collins is the child of Douglas Harris")."""

DESCENDANT_SHARE = 0.25
"""Share of links written from the younger's side."""
SENTENCE_JOINER: dict[str, str] = {"en": " ", "zh": ""}


@dataclass(frozen=True)
class PersonNames:
    """The name parts people are drawn from, cleaned so no full name can contain another.

    English names are "First Last" with a different last name for everyone in a question, and no
    last name is a prefix of another, so one full name never occurs inside another. Chinese names
    are one surname character and one given-name character, so two distinct names never overlap.
    Parts containing a character of the kinship sentences (是, 的, ...) are dropped, so a sentence
    splits into its names one way only.

    Attributes:
        en_first: English first names.
        en_last: English last names (prefix-free).
        zh_surnames: Chinese one-character surnames.
        zh_given: Chinese one-character given names.
        avoid: Full names never drawn (the prompts' example names).
    """

    en_first: tuple[str, ...]
    en_last: tuple[str, ...]
    zh_surnames: tuple[str, ...]
    zh_given: tuple[str, ...]
    avoid: frozenset[str] = frozenset()

    @classmethod
    def from_lists(cls, en_first: Sequence[str], en_last: Sequence[str], zh_surnames: Sequence[str],
                   zh_given: Sequence[str], avoid: frozenset[str] = frozenset()) -> "PersonNames":
        """Clean, de-duplicate and sort name lists (see the class docstring for the rules)."""
        first = sorted({n.strip() for n in en_first if n.strip().isascii() and n.strip().isalpha()})
        last_all = sorted({n.strip() for n in en_last if n.strip().isascii() and n.strip().isalpha()})
        last = [n for i, n in enumerate(last_all) if not (i + 1 < len(last_all) and last_all[i + 1].startswith(n))]
        template_chars = {c for s in (*ANCESTOR_SENTENCES["zh"], *DESCENDANT_SENTENCES["zh"]) for c in s}
        template_chars |= {c for role, _ in (*ANCESTOR_ROLES["zh"], *DESCENDANT_ROLES["zh"]) for c in role}

        def hanzi(items: Sequence[str]) -> list[str]:
            return sorted({c.strip() for c in items if len(c.strip()) == 1 and c.strip() not in template_chars
                           and "\u4e00" <= c.strip() <= "\u9fff"})

        names = cls(tuple(first), tuple(last), tuple(hanzi(zh_surnames)), tuple(hanzi(zh_given)), frozenset(avoid))
        if not (names.en_first and names.en_last and names.zh_surnames and names.zh_given):
            raise SpecError("person names need English first and last names and Chinese one-character surnames and given names")
        return names

    def capacity(self, lang: str) -> int:
        """The most distinct people one question can have in ``lang``."""
        return len(self.en_last) if lang == "en" else len(self.zh_surnames) * len(self.zh_given)

    def draw(self, rng: np.random.Generator, n: int, lang: str) -> list[str]:
        """``n`` distinct full names in ``lang``, none in :attr:`avoid`."""
        if n > self.capacity(lang):
            raise SpecError(f"a question with {n} people needs more distinct {lang} names than the {self.capacity(lang)} available")
        if lang == "en":
            lasts = rng.choice(len(self.en_last), size=n, replace=False)
            firsts = rng.integers(len(self.en_first), size=n)
            names = list(map(add, _pick(self._en_first_spaced, firsts), _pick(self.en_last, lasts)))
            if self.avoid.isdisjoint(names):
                return names
            for i, name in enumerate(names):
                while name in self.avoid:
                    name = f"{self.en_first[int(rng.integers(len(self.en_first)))]} {self.en_last[int(lasts[i])]}"
                names[i] = name
            return names
        codes = rng.choice(len(self._zh_names), size=n + len(self.avoid), replace=False)
        return [name for name in _pick(self._zh_names, codes) if name not in self.avoid][:n]

    @cached_property
    def _en_first_spaced(self) -> tuple[str, ...]:
        """Every English first name followed by the space before the last name."""
        return tuple(first + " " for first in self.en_first)

    @cached_property
    def _zh_names(self) -> tuple[str, ...]:
        """Every Chinese full name, surname-major (name ``s * len(zh_given) + g``)."""
        return tuple(s + g for s in self.zh_surnames for g in self.zh_given)


def _pick(items: Sequence[str], index: np.ndarray) -> Sequence[str]:
    """``items`` at ``index`` (a 1-D integer array), in order, in one C-level call."""
    return [items[int(index[0])]] if len(index) == 1 else itemgetter(*index.tolist())(items)


@dataclass(frozen=True, eq=False)
class LinkForms:
    """Every way one language states a link, flattened to ``side x role x sentence``.

    Forms ``0 .. up_roles * up_sentences - 1`` state an ancestor role (form
    ``role * up_sentences + sentence``); the rest state a descendant role, laid out the same way.
    Each form is a printf template with one ``%s`` per name it mentions, so the links of a whole
    context are written by one ``%`` over their joined templates.

    Attributes:
        templates: Per form, the sentence with its role filled in and ``%s`` for each name.
        slots: Who fills each ``%s``, the forms one after another: 0 the elder, 1 the younger.
        slot_start: Per form, where its slots begin in :attr:`slots`.
        slot_count: Per form, how many names it mentions.
        gaps: Per form, the generations between the elder and the younger.
        up_roles, up_sentences, down_roles, down_sentences: The sizes of the two sides.
    """

    templates: tuple[str, ...]
    slots: np.ndarray
    slot_start: np.ndarray
    slot_count: np.ndarray
    gaps: np.ndarray
    up_roles: int
    up_sentences: int
    down_roles: int
    down_sentences: int

    @classmethod
    def of(cls, lang: str) -> "LinkForms":
        """The forms of ``lang``, from the role and sentence tables above."""
        templates, slots, counts, gaps = [], [], [], []
        for roles, sentences in ((ANCESTOR_ROLES[lang], ANCESTOR_SENTENCES[lang]), (DESCENDANT_ROLES[lang], DESCENDANT_SENTENCES[lang])):
            for role, gap in roles:
                for sentence in sentences:
                    parts = re.split(r"\{(elder|younger)\}", sentence.replace("{role}", role))
                    literals, people = parts[0::2], parts[1::2]
                    templates.append("%s".join(text.replace("%", "%%") for text in literals))
                    slots.extend(int(person == "younger") for person in people)
                    counts.append(len(people))
                    gaps.append(gap)
        count = np.array(counts, dtype=np.int64)
        return cls(tuple(templates), np.array(slots, dtype=np.int64), np.cumsum(count) - count, count, np.array(gaps, dtype=np.int64),
                   len(ANCESTOR_ROLES[lang]), len(ANCESTOR_SENTENCES[lang]), len(DESCENDANT_ROLES[lang]), len(DESCENDANT_SENTENCES[lang]))

    def sentences(self, names: Sequence[str], forms: np.ndarray, links: np.ndarray) -> list[str]:
        """The sentences of ``links``, in that order. Link ``k`` joins ``names[k]`` (elder) and
        ``names[k + 1]`` in form ``forms[k]``.

        One ``%`` over the templates joined by a NUL (which no template or name contains) writes
        every sentence, and one split cuts them apart.
        """
        form = forms[links]
        count = self.slot_count[form]
        ends = np.cumsum(count)
        within = np.arange(int(ends[-1])) - np.repeat(ends - count, count)
        who = np.repeat(links, count) + self.slots[np.repeat(self.slot_start[form], count) + within]
        return ("\0".join(_pick(self.templates, form)) % tuple(_pick(names, who))).split("\0")


LINK_FORMS: dict[str, LinkForms] = {lang: LinkForms.of(lang) for lang in ANCESTOR_ROLES}
"""The link forms of each language."""


@dataclass(frozen=True, eq=False)
class KinshipChain:
    """People from the eldest to the youngest and the form stating each link.

    Attributes:
        names: The people, eldest first.
        gaps: Generations between ``names[k]`` and ``names[k + 1]`` (1 to 3).
        forms: Per link, its form in ``LINK_FORMS[lang]``.
        lang: The language the links are stated in.
    """

    names: tuple[str, ...]
    gaps: tuple[int, ...]
    forms: np.ndarray
    lang: str

    @property
    def generations(self) -> tuple[int, ...]:
        """Generations of each person below the eldest (0 for the eldest)."""
        return tuple(accumulate(self.gaps, initial=0))

    def sentences(self, order: Sequence[int] | np.ndarray | None = None) -> list[str]:
        """The sentence stating each link, in ``order`` (link order by default)."""
        links = np.arange(len(self.gaps)) if order is None else np.asarray(order, dtype=np.int64)
        return LINK_FORMS[self.lang].sentences(self.names, self.forms, links)


def kinship_chain(rng: np.random.Generator, n_needles: int, lang: str, names: PersonNames) -> KinshipChain:
    """A chain of ``n_needles + 1`` distinct people linked by ``n_needles`` relation sentences.

    Each link is stated from the younger's side with probability :data:`DESCENDANT_SHARE`, with a
    uniformly drawn role of that side and a uniformly drawn sentence form.
    """
    people = names.draw(rng, n_needles + 1, lang)
    from_younger = rng.random(n_needles) < DESCENDANT_SHARE
    role_pick = rng.random(n_needles)
    form_pick = rng.random(n_needles)
    forms = LINK_FORMS[lang]
    up = (role_pick * forms.up_roles).astype(np.int64) * forms.up_sentences + (form_pick * forms.up_sentences).astype(np.int64)
    down = (forms.up_roles * forms.up_sentences + (role_pick * forms.down_roles).astype(np.int64) * forms.down_sentences
            + (form_pick * forms.down_sentences).astype(np.int64))
    form = np.where(from_younger, down, up)
    return KinshipChain(tuple(people), tuple(forms.gaps[form].tolist()), form, lang)


@dataclass(frozen=True)
class KinshipAsk:
    """A question about a chain and its one answer.

    Attributes:
        question_type: One of the ATC question types.
        person: The person asked about.
        other: The second person (relationship distance only, else "").
        n: Generations asked for (n-th ancestor or descendant, else 0).
        answer: The answer: a name, or the number of generations as digits.
    """

    question_type: str
    person: str
    other: str
    n: int
    answer: str


def answer_question(rng: np.random.Generator, chain: KinshipChain, question_type: str) -> KinshipAsk:
    """Draw a question of ``question_type`` about ``chain`` and read its answer off the chain.

    * eldest ancestor: of the youngest person; the answer is the eldest.
    * n-th ancestor: of the youngest, ``n`` generations up to a random earlier person.
    * n-th descendant: of the eldest, ``n`` generations down to a random later person.
    * relationship distance: between two random people (in random order).
    """
    g = chain.generations
    last = len(chain.names) - 1
    if question_type == "eldest_ancestor":
        return KinshipAsk(question_type, chain.names[last], "", 0, chain.names[0])
    if question_type == "nth_ancestor":
        i = int(rng.integers(last))
        return KinshipAsk(question_type, chain.names[last], "", g[last] - g[i], chain.names[i])
    if question_type == "nth_descendant":
        j = int(rng.integers(1, last + 1))
        return KinshipAsk(question_type, chain.names[0], "", g[j], chain.names[j])
    if question_type == "relationship_distance":
        i, j = sorted(int(v) for v in rng.choice(last + 1, size=2, replace=False))
        a, b = (i, j) if rng.random() < 0.5 else (j, i)
        return KinshipAsk(question_type, chain.names[a], chain.names[b], 0, str(g[j] - g[i]))
    raise SpecError(f"unknown ATC question type {question_type!r}")
