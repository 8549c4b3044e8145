"""An independent solver for NeedleBench kinship prompts (ATC and M-RS), written from the paper.

It reads only the prompt text: it finds the relationship sentences, parses each one with its own
sentence forms and role table (the paper's Figures 11-17 and the Chinese prompts' wording), builds
the family graph, checks that the graph is one chain (so every question has exactly one answer),
and answers the question it parses out of the prompt. Nothing here imports ``generators``: a
template or role-table mistake there cannot hide behind the same mistake here.

Every sentence is parsed by enumerating *all* ways it splits into a form, names and a role; a
sentence with no parse raises :class:`UnparsedSentence`, one with two different readings raises
:class:`AmbiguousSentence`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

# --- Roles: what the holder of the role is to the other person, in generations ----------------
# Positive: the holder is that many generations above (an ancestor); negative: below (a descendant).

EN_ROLES: dict[str, int] = {
    "father": 1, "mother": 1, "dad": 1, "mom": 1, "parent": 1,
    "grandfather": 2, "grandmother": 2, "grandparent": 2,
    "paternal grandfather": 2, "paternal grandmother": 2, "maternal grandfather": 2, "maternal grandmother": 2,
    "great-grandfather": 3, "great-grandmother": 3, "great-grandparent": 3,
    "child": -1, "son": -1, "daughter": -1,
    "grandchild": -2, "grandson": -2, "granddaughter": -2,
    "great-grandchild": -3, "great-grandson": -3, "great-granddaughter": -3,
}
ZH_ROLES: dict[str, int] = {
    "父亲": 1, "母亲": 1, "爸爸": 1, "妈妈": 1,
    "祖父": 2, "祖母": 2, "爷爷": 2, "奶奶": 2, "外公": 2, "外婆": 2, "外祖父": 2, "外祖母": 2,
    "曾祖父": 3, "曾祖母": 3,
    "孩子": -1, "儿子": -1, "女儿": -1,
    "孙子": -2, "孙女": -2, "外孙": -2, "外孙女": -2,
    "曾孙": -3, "曾孙女": -3,
}

# --- Sentence forms: H holds role R towards O ------------------------------------------------

EN_FORMS: tuple[str, ...] = (
    "{O}'s {R} is {H}.",
    "{H} is {O}'s {R}.",
    "{H} is not only {O}'s {R} but also {O}'s role model.",
    "{H}, as {O}'s {R}, has a significant impact on {O}'s upbringing.",
    "For {O}, {H} is not just a {R}, but also a friend.",
    "For {O}, {H} is more than just a {R}; {H} is a lifelong mentor of {O}.",
    "{H} is the {R} of {O}.",
)
ZH_FORMS: tuple[str, ...] = (
    "{O}的{R}是{H}。",
    "{H}是{O}的{R}。",
    "{H}不仅是{O}的{R}，还是{O}的榜样。",
    "{H}作为{O}的{R}，对{O}的成长有重要影响。",
    "对{O}来说，{H}不只是{R}，还是朋友。",
    "对{O}来说，{H}不仅仅是{R}，{H}还是{O}的终身导师。",
)

NAME = {
    "en": re.compile(r"[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*"),  # capitalized words ("John Cole MD")
    "zh": re.compile(r"[\u4e00-\u9fff]{2,4}"),  # two to four Han characters
}
ROLES = {"en": EN_ROLES, "zh": ZH_ROLES}
FORMS = {"en": EN_FORMS, "zh": ZH_FORMS}

# --- Prompt landmarks ------------------------------------------------------------------------

ATC_CONTEXT = {"en": "Now, the scrambled family relationships are provided below:\n\n", "zh": "现在，打乱顺序的亲属关系如下：\n\n"}
SPARSE_DOCUMENT = {"en": "The content of the long document is as follows\n\n", "zh": "长文档的内容如下\n\n"}
SPARSE_ASK = {"en": "\n\nBased on the information in the document, now please answer: ", "zh": "\n\n根据文档中的信息，现在请回答："}

_Q = r"'(?P<person>[^']+)'"
_Q2 = r"'(?P<other>[^']+)'"
QUESTIONS: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    "en": (
        ("eldest_ancestor", re.compile(rf"who is the eldest relative that {_Q} can trace back to in the context\?")),
        ("nth_ancestor", re.compile(rf"who is the ancestor exactly (?P<n>[0-9]+) generations? above {_Q} in the context\?")),
        ("nth_descendant", re.compile(rf"who is the descendant exactly (?P<n>[0-9]+) generations? below {_Q} in the context\?")),
        ("relationship_distance", re.compile(rf"how many generations apart are {_Q} and {_Q2} in the context\?")),
    ),
    "zh": (
        ("eldest_ancestor", re.compile(rf"{_Q}在上文中能够向上追溯到的最年长的亲人是谁？")),
        ("nth_ancestor", re.compile(rf"在上文中，比{_Q}恰好高(?P<n>[0-9]+)代的祖先是谁？")),
        ("nth_descendant", re.compile(rf"在上文中，比{_Q}恰好低(?P<n>[0-9]+)代的后代是谁？")),
        ("relationship_distance", re.compile(rf"在上文中，{_Q}和{_Q2}相隔多少代？")),
    ),
}


class UnparsedSentence(ValueError):
    """A sentence that no kinship form reads."""


class AmbiguousSentence(ValueError):
    """A sentence that two forms, name splits or roles read differently."""


class NotAChain(ValueError):
    """The relations do not form one chain, so an answer would not be unique."""


@dataclass(frozen=True)
class Relation:
    """``elder`` stands ``generations`` (1-3) above ``younger``; ``mentions`` counts each name's occurrences."""

    elder: str
    younger: str
    generations: int
    sentence: str
    mentions: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Question:
    """A parsed kinship question."""

    kind: str
    person: str
    other: str = ""
    n: int = 0


# --- Parsing sentences --------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _compiled(lang: str) -> tuple[tuple[tuple[str, ...], re.Pattern[str]], ...]:
    """Per form: its pieces (literals and slot names, alternating) and a regex that prefilters it."""
    name = NAME[lang].pattern
    roles = "|".join(sorted(map(re.escape, ROLES[lang]), key=len, reverse=True))
    out = []
    for form in FORMS[lang]:
        pieces = tuple(re.split(r"\{([A-Z])\}", form))  # literal, slot, literal, slot, ..., literal
        seen: set[str] = set()
        pattern = ""
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                pattern += re.escape(piece)
            elif piece in seen:
                pattern += f"(?P={piece})"
            else:
                seen.add(piece)
                pattern += f"(?P<{piece}>{roles if piece == 'R' else name})"
        out.append((pieces, re.compile(pattern)))
    return tuple(out)


def _parses(sentence: str, pieces: tuple[str, ...], lang: str) -> list[dict[str, str]]:
    """Every binding of the slots that spells ``sentence`` exactly (names must be whole NAME matches)."""
    roles = ROLES[lang]
    name_re = NAME[lang]
    results: list[dict[str, str]] = []

    def walk(i: int, pos: int, bound: dict[str, str]) -> None:
        if i == len(pieces):
            if pos == len(sentence):
                results.append(dict(bound))
            return
        piece = pieces[i]
        if i % 2 == 0:
            if sentence.startswith(piece, pos):
                walk(i + 1, pos + len(piece), bound)
            return
        if piece in bound:
            if sentence.startswith(bound[piece], pos):
                walk(i + 1, pos + len(bound[piece]), bound)
            return
        follow = pieces[i + 1]
        candidates: list[str]
        if piece == "R":
            candidates = [r for r in roles if sentence.startswith(r, pos)]
        else:
            candidates = []
            end = sentence.find(follow, pos + 1) if follow else len(sentence)
            while end != -1:
                value = sentence[pos:end]
                if name_re.fullmatch(value):
                    candidates.append(value)
                end = sentence.find(follow, end + 1) if follow else -1
        for value in candidates:
            bound[piece] = value
            walk(i + 1, pos + len(value), bound)
            del bound[piece]

    walk(0, 0, {})
    return results


def try_parse(sentence: str, lang: str) -> Relation | None:
    """The relation a sentence states, or None if no kinship form reads it.

    Raises:
        AmbiguousSentence: The sentence has two different readings.
    """
    readings: dict[tuple[str, str, int], Relation] = {}
    for pieces, prefilter in _compiled(lang):
        if not prefilter.fullmatch(sentence):
            continue
        for bound in _parses(sentence, pieces, lang):
            holder, other, role = bound["H"], bound["O"], bound["R"]
            if holder == other:
                raise AmbiguousSentence(f"{sentence!r}: one person on both sides")
            g = ROLES[lang][role]
            elder, younger = (holder, other) if g > 0 else (other, holder)
            slots = [p for i, p in enumerate(pieces) if i % 2 == 1]
            mentions = ((holder, slots.count("H")), (other, slots.count("O")))
            readings[(elder, younger, abs(g))] = Relation(elder, younger, abs(g), sentence, mentions)
    if len(readings) > 1:
        raise AmbiguousSentence(f"{sentence!r} reads as {sorted(readings)}")
    return next(iter(readings.values()), None)


def parse(sentence: str, lang: str) -> Relation:
    """The relation a sentence states.

    Raises:
        UnparsedSentence: No kinship form reads the sentence.
        AmbiguousSentence: The sentence has two different readings.
    """
    relation = try_parse(sentence, lang)
    if relation is None:
        raise UnparsedSentence(f"no kinship form reads {sentence!r} ({lang})")
    return relation


def split_relationships(block: str, lang: str) -> list[str]:
    """The sentences of a block of relationship sentences (every one ends with '.' or '。')."""
    if lang == "en":
        parts = re.split(r"(?<=\.) (?=\S)", block)
    else:
        parts = re.split(r"(?<=。)", block)
    parts = [p for p in parts if p]
    if (" " if lang == "en" else "").join(parts) != block:
        raise UnparsedSentence(f"the relationship block does not split into sentences: {block[:200]!r}")
    return parts


# --- The family graph ------------------------------------------------------------------------


class Chain:
    """Relations that form one chain: everyone has at most one elder and at most one younger link."""

    def __init__(self, relations: list[Relation]) -> None:
        self.up: dict[str, tuple[str, int]] = {}
        self.down: dict[str, tuple[str, int]] = {}
        for r in relations:
            if r.younger in self.up:
                raise NotAChain(f"{r.younger} has two elder links: {self.up[r.younger][0]} and {r.elder}")
            if r.elder in self.down:
                raise NotAChain(f"{r.elder} has two younger links: {self.down[r.elder][0]} and {r.younger}")
            self.up[r.younger] = (r.elder, r.generations)
            self.down[r.elder] = (r.younger, r.generations)
        self.people = set(self.up) | set(self.down)
        roots = [p for p in self.people if p not in self.up]
        if len(roots) != 1:
            raise NotAChain(f"expected one eldest person, found {len(roots)}: {sorted(roots)[:5]}")
        self.generation: dict[str, int] = {roots[0]: 0}
        self.order = [roots[0]]
        person = roots[0]
        while person in self.down:
            child, gap = self.down[person]
            if child in self.generation:
                raise NotAChain(f"a cycle through {child}")
            self.generation[child] = self.generation[person] + gap
            self.order.append(child)
            person = child
        if len(self.order) != len(self.people) or len(relations) != len(self.people) - 1:
            raise NotAChain(f"{len(relations)} relations over {len(self.people)} people are not one connected chain")

    def _known(self, person: str) -> None:
        if person not in self.generation:
            raise NotAChain(f"{person!r} is not in the family")

    def eldest_ancestor(self, person: str) -> str:
        self._known(person)
        if self.order[0] == person:
            raise NotAChain(f"{person!r} has no ancestor")
        return self.order[0]

    def nth_ancestor(self, person: str, n: int) -> str:
        self._known(person)
        if n < 1:
            raise NotAChain(f"an ancestor is at least one generation up, asked for {n}")
        return self._at_generation(self.generation[person] - n)

    def nth_descendant(self, person: str, n: int) -> str:
        self._known(person)
        if n < 1:
            raise NotAChain(f"a descendant is at least one generation down, asked for {n}")
        return self._at_generation(self.generation[person] + n)

    def _at_generation(self, goal: int) -> str:
        # Generations strictly increase down the chain, so at most one person has each.
        found = [p for p, g in self.generation.items() if g == goal]
        if len(found) != 1:
            raise NotAChain(f"nobody is exactly at generation {goal} of the chain")
        return found[0]

    def distance(self, a: str, b: str) -> int:
        self._known(a)
        self._known(b)
        return abs(self.generation[a] - self.generation[b])

    def answer(self, q: Question) -> str:
        if q.kind == "eldest_ancestor":
            return self.eldest_ancestor(q.person)
        if q.kind == "nth_ancestor":
            return self.nth_ancestor(q.person, q.n)
        if q.kind == "nth_descendant":
            return self.nth_descendant(q.person, q.n)
        if q.kind == "relationship_distance":
            return str(self.distance(q.person, q.other))
        raise ValueError(f"unknown question kind {q.kind!r}")


def component(relations: list[Relation], person: str) -> list[Relation]:
    """The relations connected to ``person``."""
    by_person: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(relations):
        by_person[r.elder].append(i)
        by_person[r.younger].append(i)
    seen_people, seen, todo = {person}, set(), [person]
    while todo:
        p = todo.pop()
        for i in by_person[p]:
            if i in seen:
                continue
            seen.add(i)
            for q in (relations[i].elder, relations[i].younger):
                if q not in seen_people:
                    seen_people.add(q)
                    todo.append(q)
    return [relations[i] for i in sorted(seen)]


# --- Prompts -----------------------------------------------------------------------------------


def prompt_lang(text: str) -> str:
    """``zh`` if the prompt has the Chinese landmarks, else ``en``."""
    return "zh" if ATC_CONTEXT["zh"] in text or SPARSE_DOCUMENT["zh"] in text else "en"


def parse_question(text: str, lang: str) -> Question:
    """The one kinship question of a prompt's question paragraph."""
    found = []
    for kind, pattern in QUESTIONS[lang]:
        for m in pattern.finditer(text):
            groups = m.groupdict()
            found.append(Question(kind, groups["person"], groups.get("other") or "", int(groups.get("n") or 0)))
    if len(found) != 1:
        raise UnparsedSentence(f"expected one kinship question, found {len(found)} in {text[:300]!r}")
    return found[0]


@dataclass(frozen=True)
class AtcReading:
    """What the solver read from an ATC prompt."""

    lang: str
    sentences: tuple[str, ...]
    relations: tuple[Relation, ...]
    question: Question
    chain: Chain
    answer: str


def read_atc(text: str) -> AtcReading:
    """Parse an ATC prompt, check that its relations form one chain, and answer its question.

    Raises:
        UnparsedSentence, AmbiguousSentence, NotAChain: The prompt cannot be solved uniquely.
    """
    lang = prompt_lang(text)
    marker = ATC_CONTEXT[lang]
    if text.count(marker) != 1:
        raise UnparsedSentence("no relationship block in the prompt")
    start = text.index(marker) + len(marker)
    end = text.index("\n\n", start)
    sentences = split_relationships(text[start:end], lang)
    relations = [parse(s, lang) for s in sentences]
    paragraph_end = text.find("\n\n", end + 2)
    question = parse_question(text[end + 2 : paragraph_end if paragraph_end != -1 else len(text)], lang)
    chain = Chain(relations)
    for name in (question.person, question.other):
        if name and name not in chain.generation:
            raise NotAChain(f"the question asks about {name!r}, who is not in the relationships")
    return AtcReading(lang, tuple(sentences), tuple(relations), question, chain, chain.answer(question))


def solve_atc(text: str) -> str:
    """The answer to an ATC prompt, from its text alone."""
    return read_atc(text).answer


_EN_PIECES = re.compile(r"[^\n.!?]*[.!?]+|[^\n.!?]+")
_ZH_PIECES = re.compile(r"[^\n。．！？；….!?]*[。．！？；….!?]+|[^\n。．！？；….!?]+")
_LEADING = "\"'“”‘’()[]（）「」『』 \t\u3000\xa0"


def kinship_sentences_in(document: str, lang: str) -> list[Relation]:
    """Every sentence of a filler document that reads as a kinship statement, in text order.

    The document is cut at line breaks and after every sentence terminator (a needle placed
    between two filler sentences is then one piece whatever the filler around it), and each piece
    that a kinship form reads (after stripping stray quotes and spaces) is kept.
    """
    relations = []
    for piece in (_EN_PIECES if lang == "en" else _ZH_PIECES).findall(document):
        candidate = piece.strip(_LEADING)
        if candidate and (relation := try_parse(candidate, lang)) is not None:
            relations.append(relation)
    return relations


@dataclass(frozen=True)
class MrsReading:
    """What the solver read from an M-RS prompt."""

    lang: str
    found: tuple[Relation, ...]
    family: tuple[Relation, ...]
    question: Question
    answer: str


def read_mrs(text: str) -> MrsReading:
    """Find the kinship statements in an M-RS prompt's document, and answer its eldest-ancestor question.

    Only the family of the person asked about counts; it must be one chain.
    """
    lang = prompt_lang(text)
    start = text.index(SPARSE_DOCUMENT[lang]) + len(SPARSE_DOCUMENT[lang])
    end = text.rindex(SPARSE_ASK[lang])
    found = kinship_sentences_in(text[start:end], lang)
    tail = text[end + len(SPARSE_ASK[lang]) :]
    question = parse_question(tail.split("\n\n", 1)[0], lang)
    if question.kind != "eldest_ancestor":
        raise UnparsedSentence(f"M-RS asks for the eldest ancestor, got {question.kind}")
    family = component(found, question.person)
    if not family:
        raise NotAChain(f"no kinship statement mentions {question.person!r}")
    chain = Chain(family)
    return MrsReading(lang, tuple(found), tuple(family), question, chain.eldest_ancestor(question.person))


def solve_mrs(text: str) -> str:
    """The answer to an M-RS prompt, from its text alone."""
    return read_mrs(text).answer


# --- The paper's English kinship prompt (Figures 11 and 12), for tests that compare prompts ------

PAPER_KINSHIP_TAIL_EN = (  # examples and notes, up to the final note's quoted sentence
    "\n\nFor example:\n\n"
    "Example 1: If James Hill's father is Jasmine Lane, and no further information about familial relationships is "
    "provided in the text, then the oldest relative James Hill can trace back to in the provided text is \\boxed{Jasmine Lane}.\n\n"
    "Example 2: If Andrew Williams's grandmother is Dan Newton, and Dan Newton's father is James Hill, and no further "
    "information about familial relationships is provided in the text, then the oldest relative Andrew Williams can "
    "trace back to in the provided text is \\boxed{James Hill}.\n\n"
    "Example 3: If Jeff White's father is Kevin Le, Dan Newton's grandmother is Jeff White, and Jeff White's father is "
    "Kevin Le, and Shelley Mills is Dan Newton's great-granddaughter, and no further information about familial "
    "relationships is provided in the text, then the oldest relative Shelley Mills can trace back to in the provided "
    "text is \\boxed{Kevin Le}.\n\n"
    "Notes:\n\n"
    "1. You do not need to worry about the gender consistency of names in this test. For example, a name that is "
    "typically considered feminine can still be the father of another person. Our primary focus is on who is older.\n\n"
    "2. Ignore surname inheritance issues. For instance, Andrew Williams could still be the biological father of "
    "Christopher Baker. We only care about who is older and do not need to consider whether a child should inherit the "
    "father's or mother's surname.\n\n"
    "3. At the end of your response, remember to put your final answer within \\boxed{}. For example: "
)
