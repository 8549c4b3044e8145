"""Unique bilingual names: syllable-built proper names, per-kind patterns and work titles.

A name is a pattern (English, Chinese) and the tokens of its fields: syllables for proper-name
fields (``N``, ``G`` given, ``F`` family), word indices for title fields (``A`` adjective, ``T``
and ``T2`` nouns). Each syllable has one latin spelling and one transliteration character, so a
name reads ``Korello`` in English and ``科雷洛`` in Chinese. Keeping the tokens lets a twin get a
*similar* name: the same name with one token changed.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass

from needlework.errors import SpecError
from generators.world.columns import PackedIntSet
from generators.world.draws import Draws
from generators.world.name_data import AVOID_NAMES, AVOID_SUBSTRINGS, FINAL_ONLY, INITIAL_SYLLABLES, NAME_PATTERNS, SYLLABLES
from generators.world.title_data import AVOID_TITLE_PAIRS, TITLE_ADJECTIVES, TITLE_NOUNS, TITLE_PATTERNS
from generators.world.schema import Kind

PERSON_PATTERN: tuple[str, str] = ("{G} {F}", "{G}·{F}")
PROPER_PATTERN: tuple[str, str] = ("{N}", "{N}")
SYLLABLE_FIELDS = frozenset({"N", "G", "F"})
_LATIN = [s[0] for s in SYLLABLES]
_HANZI = [s[1] for s in SYLLABLES]
_INITIAL = [i for i, s in enumerate(_LATIN) if s in INITIAL_SYLLABLES and s not in FINAL_ONLY]
_MIDDLE = [i for i, s in enumerate(_LATIN) if s not in FINAL_ONLY]
_FINAL = list(range(len(_LATIN)))
MAX_ATTEMPTS = 200


@dataclass(frozen=True, slots=True)
class Name:
    """A rendered name and what it was built from.

    Attributes:
        en: English form.
        zh: Chinese form (work titles in 《》).
        pattern: The (English, Chinese) pattern.
        tokens: ``(field, token ids)`` pairs, in pattern order.
    """

    en: str
    zh: str
    pattern: tuple[str, str]
    tokens: tuple[tuple[str, tuple[int, ...]], ...]


def _fields(pattern: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(pattern) if f]


def _syllables(d: Draws, n: int) -> tuple[int, ...]:
    return (d.choice(_INITIAL), *(d.choice(_MIDDLE) for _ in range(n - 2)), d.choice(_FINAL))


def _acceptable(tokens: tuple[tuple[str, tuple[int, ...]], ...]) -> bool:
    """False for names that spell a real name or something offensive, or reproduce a famous title."""
    words = {}
    for field, ids in tokens:
        if field in SYLLABLE_FIELDS:
            latin = "".join(_LATIN[i] for i in ids)
            if latin in AVOID_NAMES or any(bad in latin for bad in AVOID_SUBSTRINGS):
                return False
        else:
            words[field] = (TITLE_ADJECTIVES if field == "A" else TITLE_NOUNS)[ids[0]][0]
    return "A" not in words or "T" not in words or (words["A"], words["T"]) not in AVOID_TITLE_PAIRS


def _render(pattern: tuple[str, str], tokens: tuple[tuple[str, tuple[int, ...]], ...], is_work: bool) -> tuple[str, str]:
    en, zh = {}, {}
    for field, ids in tokens:
        if field in SYLLABLE_FIELDS:
            en[field] = "".join(_LATIN[i] for i in ids).capitalize()
            zh[field] = "".join(_HANZI[i] for i in ids)
        else:
            words = TITLE_ADJECTIVES if field == "A" else TITLE_NOUNS
            en[field] = string.capwords(words[ids[0]][0])
            zh[field] = words[ids[0]][1]
    en_text, zh_text = pattern[0].format(**en), pattern[1].format(**zh)
    return en_text, f"《{zh_text}》" if is_work else zh_text


def _fingerprint(lang: str, text: str) -> int:
    """A stable 64-bit fingerprint of a name in a language (the same in every process, unlike ``hash``)."""
    return int.from_bytes(hashlib.blake2b(f"{lang}\0{text}".encode(), digest_size=8).digest(), "little")


class NameForge:
    """Draws names that no earlier name of the same world shares, in either language.

    It remembers names by 64-bit fingerprint in a :class:`PackedIntSet` rather than as text: a
    160K-entity world's names as two sets of strings were about 350 B an entity while it grew. Two different names with
    one fingerprint (odds about n^2 / 2^65) would only make the second be drawn again, so names
    stay unique and the draw stays deterministic.
    """

    def __init__(self) -> None:
        self._used = PackedIntSet()

    def _claim(self, pattern: tuple[str, str], tokens: tuple, is_work: bool) -> Name | None:
        if not _acceptable(tokens):
            return None
        en, zh = _render(pattern, tokens, is_work)
        keys = (_fingerprint("en", en), _fingerprint("zh", zh))
        if keys[0] in self._used or keys[1] in self._used:
            return None
        self._used.add(keys[0])
        self._used.add(keys[1])
        return Name(en, zh, pattern, tokens)

    def draw(self, kind: Kind, d: Draws) -> Name:
        """A fresh unique name for an entity of ``kind``."""
        is_work = kind.type in ("song", "book", "film")
        if kind.type == "person":
            patterns: tuple[tuple[str, str], ...] = (PERSON_PATTERN,)
        elif is_work:
            patterns = TITLE_PATTERNS[kind.id]
        else:
            patterns = NAME_PATTERNS[kind.id]
        return self._draw_from(patterns, is_work, d, f"a {kind.id}")

    def proper(self, d: Draws) -> Name:
        """A fresh unique bare proper name (``Korello`` / ``科雷洛``), for fictional needles outside a world."""
        return self._draw_from((PROPER_PATTERN,), False, d, "a proper name")

    def _draw_from(self, patterns: tuple[tuple[str, str], ...], is_work: bool, d: Draws, what: str) -> Name:
        for attempt in range(MAX_ATTEMPTS):
            pattern = d.choice(patterns)
            extra = attempt // 20  # longer names once short ones keep colliding
            tokens = tuple((f, self._tokens(f, d, extra)) for f in _fields(pattern[0]))
            name = self._claim(pattern, tokens, is_work)
            if name is not None:
                return name
        raise SpecError(f"could not find a unique name for {what} after {MAX_ATTEMPTS} attempts")

    def _tokens(self, field: str, d: Draws, extra: int) -> tuple[int, ...]:
        if field == "A":
            return (d.below(len(TITLE_ADJECTIVES)),)
        if field in ("T", "T2"):
            return (d.below(len(TITLE_NOUNS)),)
        if field == "G":
            return _syllables(d, 2 + min(extra, 1))
        n = 2 + (d.u() < 0.45) + (d.u() < 0.05) + extra
        return _syllables(d, min(n, 6))

    def similar(self, name: Name, is_work: bool, d: Draws) -> Name:
        """A unique name that differs from ``name`` in exactly one token (a syllable or a word)."""
        for _ in range(MAX_ATTEMPTS):
            fi = d.below(len(name.tokens))
            field, ids = name.tokens[fi]
            pos = d.below(len(ids))
            if field in SYLLABLE_FIELDS:
                pool = _INITIAL if pos == 0 else (_FINAL if pos == len(ids) - 1 else _MIDDLE)
            else:
                pool = range(len(TITLE_ADJECTIVES if field == "A" else TITLE_NOUNS))
            new = d.choice(pool)
            if new == ids[pos]:
                continue
            changed = (*ids[:pos], new, *ids[pos + 1:])
            tokens = (*name.tokens[:fi], (field, changed), *name.tokens[fi + 1:])
            twin = self._claim(name.pattern, tokens, is_work)
            if twin is not None:
                return twin
        raise SpecError(f"could not find a unique name similar to {name.en!r} after {MAX_ATTEMPTS} attempts")
