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

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from generators.errors import SpecError

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
            names = [f"{self.en_first[f]} {self.en_last[s]}" for f, s in zip(firsts.tolist(), lasts.tolist())]
            for i, name in enumerate(names):
                while name in self.avoid:
                    name = f"{self.en_first[int(rng.integers(len(self.en_first)))]} {self.en_last[int(lasts[i])]}"
                names[i] = name
            return names
        width = len(self.zh_given)
        codes = rng.choice(len(self.zh_surnames) * width, size=n + len(self.avoid), replace=False).tolist()
        drawn = (self.zh_surnames[c // width] + self.zh_given[c % width] for c in codes)
        return [name for name in drawn if name not in self.avoid][:n]


@dataclass(frozen=True)
class KinshipChain:
    """People from the eldest to the youngest and one sentence per link.

    Attributes:
        names: The people, eldest first.
        gaps: Generations between ``names[k]`` and ``names[k + 1]`` (1 to 3).
        sentences: The sentence stating link ``k``, in link order.
    """

    names: tuple[str, ...]
    gaps: tuple[int, ...]
    sentences: tuple[str, ...]

    @property
    def generations(self) -> tuple[int, ...]:
        """Generations of each person below the eldest (0 for the eldest)."""
        return tuple(np.concatenate(([0], np.cumsum(self.gaps))).tolist())


def _link_forms(roles: tuple[tuple[str, int], ...], sentences: tuple[str, ...]) -> list[list[str]]:
    """``forms[role][sentence]``: each sentence with its role filled in, the elder as ``{0}`` and the younger as ``{1}``."""
    return [[s.replace("{role}", role).replace("{elder}", "{0}").replace("{younger}", "{1}") for s in sentences] for role, _ in roles]


_FORMS: dict[str, tuple[list[list[str]], list[list[str]]]] = {
    lang: (_link_forms(ANCESTOR_ROLES[lang], ANCESTOR_SENTENCES[lang]), _link_forms(DESCENDANT_ROLES[lang], DESCENDANT_SENTENCES[lang]))
    for lang in ANCESTOR_ROLES
}
_GAPS: dict[str, tuple[np.ndarray, np.ndarray]] = {
    lang: (np.array([g for _, g in ANCESTOR_ROLES[lang]]), np.array([g for _, g in DESCENDANT_ROLES[lang]])) for lang in ANCESTOR_ROLES
}


def kinship_chain(rng: np.random.Generator, n_needles: int, lang: str, names: PersonNames) -> KinshipChain:
    """A chain of ``n_needles + 1`` distinct people linked by ``n_needles`` relation sentences.

    Each link is stated from the younger's side with probability :data:`DESCENDANT_SHARE`, with a
    uniformly drawn role of that side and a uniformly drawn sentence form.
    """
    people = names.draw(rng, n_needles + 1, lang)
    from_younger = rng.random(n_needles) < DESCENDANT_SHARE
    role_pick = rng.random(n_needles)
    form_pick = rng.random(n_needles)
    (up_forms, down_forms), (up_gaps, down_gaps) = _FORMS[lang], _GAPS[lang]
    n_up_forms, n_down_forms = len(ANCESTOR_SENTENCES[lang]), len(DESCENDANT_SENTENCES[lang])
    role = np.where(from_younger, (role_pick * len(down_gaps)).astype(np.int64), (role_pick * len(up_gaps)).astype(np.int64))
    form = np.where(from_younger, (form_pick * n_down_forms).astype(np.int64), (form_pick * n_up_forms).astype(np.int64))
    gaps = np.where(from_younger, down_gaps[np.minimum(role, len(down_gaps) - 1)], up_gaps[np.minimum(role, len(up_gaps) - 1)])
    sentences = [
        (down_forms if down else up_forms)[r][f].format(people[k], people[k + 1])
        for k, (down, r, f) in enumerate(zip(from_younger.tolist(), role.tolist(), form.tolist()))
    ]
    return KinshipChain(tuple(people), tuple(gaps.tolist()), tuple(sentences))


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
