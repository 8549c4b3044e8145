"""The name material of the synthetic world: syllables, name patterns and title words."""

from __future__ import annotations

import re
import string
import unicodedata
from collections import deque

import pytest

from generators.world import name_data as nd
from generators.world import title_data as td
from generators.world.schema import KINDS

WORK_TYPES = {"song", "book", "film"}
NAMED_KINDS = [k.id for k in KINDS if k.type != "person" and k.type not in WORK_TYPES]
WORK_KINDS = [k.id for k in KINDS if k.type in WORK_TYPES]

LATIN = [lat for lat, _ in nd.SYLLABLES]
HANZI = [han for _, han in nd.SYLLABLES]
TO_HANZI = dict(nd.SYLLABLES)

VOWELS = "aeiou"
CODAS = "nlrs"
CLUSTERS = {"br", "bl", "dr", "gr", "gl", "kr", "kl", "tr", "pr", "pl", "fr", "fl", "st", "sh", "ll"}


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def is_cjk(ch: str) -> bool:
    return len(ch) == 1 and unicodedata.name(ch, "").startswith("CJK UNIFIED IDEOGRAPH")


def parse(name: str) -> list[list[str]]:
    """Every way of spelling ``name`` (lowercase latin) as a sequence of syllables."""
    if not name:
        return [[]]
    return [[syl, *rest] for syl in LATIN if name.startswith(syl) for rest in parse(name[len(syl):])]


def reachable(sylls: list[str]) -> bool:
    """Whether the engine may build this syllable sequence as a proper name."""
    return (
        2 <= len(sylls) <= 4
        and sylls[0] in nd.INITIAL_SYLLABLES
        and not any(s in nd.FINAL_ONLY for s in sylls[:-1])
    )


def uniquely_decodable(code: set[str]) -> bool:
    """Sardinas-Patterson: no string is the concatenation of two different codeword sequences."""

    def quotient(left: set[str], right: set[str]) -> set[str]:
        return {b[len(a):] for a in left for b in right if b.startswith(a) and b != a}

    dangling = quotient(code, code)
    seen: set[frozenset[str]] = set()
    while dangling:
        if dangling & code:
            return False
        key = frozenset(dangling)
        if key in seen:
            return True
        seen.add(key)
        dangling = quotient(code, dangling) | quotient(dangling, code)
    return True


# ---------------------------------------------------------------------------- syllables


def test_syllable_count():
    assert len(nd.SYLLABLES) >= 140


def test_latin_syllables_unique():
    assert len(set(LATIN)) == len(LATIN)


def test_hanzi_unique_single_cjk_ideographs():
    assert len(set(HANZI)) == len(HANZI)
    for han in HANZI:
        assert len(han) == 1 and is_cjk(han), han


@pytest.mark.parametrize("lat", LATIN)
def test_latin_syllable_shape(lat):
    assert re.fullmatch(r"[a-z]{2,4}", lat)
    vowels = [i for i, c in enumerate(lat) if c in VOWELS]
    assert len(vowels) == 1, "one vowel letter per syllable"
    onset, coda = lat[: vowels[0]], lat[vowels[0] + 1:]
    assert len(onset) == 1 or onset in CLUSTERS, f"bad onset {onset!r}"
    assert coda == "" or (coda in CODAS and len(onset) == 1), f"bad coda {coda!r}"


def test_latin_syllables_uniquely_decodable():
    assert uniquely_decodable(set(LATIN))
    assert not uniquely_decodable({"ka", "kas", "ta", "sta"})  # kas+ta == ka+sta


def test_positions():
    latin = set(LATIN)
    assert nd.INITIAL_SYLLABLES <= latin
    assert nd.FINAL_ONLY <= latin
    assert not nd.INITIAL_SYLLABLES & nd.FINAL_ONLY
    assert not any(s.startswith("ll") for s in nd.INITIAL_SYLLABLES)
    middle = latin - nd.FINAL_ONLY
    # room for far more than the ~250,000 entities of the world
    assert len(nd.INITIAL_SYLLABLES) * len(middle) * len(latin) > 1_000_000


def test_brief_example():
    assert "".join(TO_HANZI[s] for s in ("ko", "re", "llo")) == "科雷洛"
    assert "".join(TO_HANZI[s] for s in ("ta", "vi")) == "塔维"
    assert parse("korello") == [["ko", "re", "llo"]]


@pytest.mark.parametrize("name", sorted(nd.AVOID_NAMES))
def test_avoided_names_are_reachable(name):
    spellings = parse(name)
    assert len(spellings) == 1, f"{name!r} should spell exactly one syllable sequence"
    assert reachable(spellings[0]), f"{name!r} cannot be produced, so listing it is pointless"


def test_avoided_substrings_are_lowercase_latin():
    for s in nd.AVOID_SUBSTRINGS:
        assert re.fullmatch(r"[a-z]{3,}", s), s
    assert len(set(nd.AVOID_SUBSTRINGS)) == len(nd.AVOID_SUBSTRINGS)


# ---------------------------------------------------------------------------- name patterns


def test_every_named_kind_has_patterns():
    assert set(nd.NAME_PATTERNS) == set(NAMED_KINDS)


@pytest.mark.parametrize("kind", NAMED_KINDS)
def test_name_patterns(kind):
    patterns = nd.NAME_PATTERNS[kind]
    assert len(patterns) >= (1 if kind == "continent" else 3)
    for en, zh in patterns:
        assert fields(en) == {"N"}, en
        assert fields(zh) == {"N"}, zh
        assert "《" not in zh and "》" not in zh
    assert len({en for en, _ in patterns}) == len(patterns), "English patterns must be distinct"
    assert len({zh for _, zh in patterns}) == len(patterns), "Chinese patterns must be distinct"


def _en_tokens(template: str) -> list[str]:
    return template.split(" ")


def _could_be_name(token: str) -> bool:
    return token[:1].isupper() and any(reachable(p) for p in parse(token.lower()))


def _en_collide(a: str, b: str) -> bool:
    """Whether two different templates can give the same English string for some names."""
    ta, tb = _en_tokens(a), _en_tokens(b)
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x == y:
            continue
        if x == "{N}" and _could_be_name(y) or y == "{N}" and _could_be_name(x):
            continue
        return False
    return True


def _zh_collide(a: str, b: str) -> bool:
    """Whether two different templates can give the same Chinese string for some names.

    ``p{N}s`` and ``p'{N}s'`` meet exactly when one fixed prefix extends the other, and one fixed
    suffix the other, by syllable characters only (which a longer name can supply).
    """
    syllable_chars = set(HANZI)
    (pa, sa), (pb, sb) = a.split("{N}"), b.split("{N}")
    short, long_ = sorted((pa, pb), key=len)
    if not long_.startswith(short) or not set(long_[len(short):]) <= syllable_chars:
        return False
    short, long_ = sorted((sa, sb), key=len)
    return long_.endswith(short) and set(long_[: len(long_) - len(short)]) <= syllable_chars


@pytest.mark.parametrize("kind", NAMED_KINDS)
def test_name_patterns_cannot_collide(kind):
    patterns = nd.NAME_PATTERNS[kind]
    for en, _ in patterns:
        assert "{N}" in _en_tokens(en), f"{{N}} must be a word of its own in {en!r}"
    for i, (en_a, zh_a) in enumerate(patterns):
        for en_b, zh_b in patterns[i + 1:]:
            assert not _en_collide(en_a, en_b), (en_a, en_b)
            assert not _zh_collide(zh_a, zh_b), (zh_a, zh_b)


def test_chinese_name_collisions_across_kinds_are_english_collisions():
    """Keeping English names unique must be enough to keep the Chinese ones unique."""
    items = [(kind, en, zh) for kind, patterns in nd.NAME_PATTERNS.items() for en, zh in patterns]
    for i, (kind_a, en_a, zh_a) in enumerate(items):
        for kind_b, en_b, zh_b in items[i + 1:]:
            if zh_a == zh_b or _zh_collide(zh_a, zh_b):
                assert en_a == en_b and zh_a == zh_b, (kind_a, en_a, zh_a, kind_b, en_b, zh_b)


def test_collision_checks_catch_collisions():
    assert _zh_collide("{N}法学院", "{N}学院")  # 法 is the syllable "fa"
    assert _zh_collide("{N}", "{N}科")
    assert not _zh_collide("{N}", "新{N}")
    assert not _zh_collide("{N}大学", "{N}学院")
    assert _en_collide("Lake {N}", "{N} Lake")  # "Lake" = la + ke
    assert not _en_collide("Port {N}", "{N} Port")


# ---------------------------------------------------------------------------- titles


def test_title_word_counts():
    assert len(td.TITLE_ADJECTIVES) >= 120
    assert len(td.TITLE_NOUNS) >= 200


@pytest.mark.parametrize("words", [td.TITLE_ADJECTIVES, td.TITLE_NOUNS], ids=["adjectives", "nouns"])
def test_title_words(words):
    english = [en for en, _ in words]
    chinese = [zh for _, zh in words]
    assert len(set(english)) == len(english)
    assert len(set(chinese)) == len(chinese)
    for en, zh in words:
        assert re.fullmatch(r"[a-z]+", en), en
        assert zh and all(is_cjk(c) for c in zh), zh


def test_adjective_noun_split_is_unambiguous():
    assert all(zh.endswith("的") for _, zh in td.TITLE_ADJECTIVES)
    assert not any("的" in zh for _, zh in td.TITLE_NOUNS)


Automaton = tuple[list[tuple[dict[str, list[int]], list[tuple[frozenset[str], int]]]], int]


def title_automaton(template: str) -> Automaton:
    """An automaton for the Chinese strings a title template can give.

    ``{N}`` reads two or more syllable characters; ``{A}``, ``{T}`` and ``{T2}`` read one word of
    their list. Returns (edges, final node); each node has edges on single characters and on
    character sets.
    """
    syllable_chars = frozenset(HANZI)
    edges: list[tuple[dict[str, list[int]], list[tuple[frozenset[str], int]]]] = [({}, [])]

    def new() -> int:
        edges.append(({}, []))
        return len(edges) - 1

    def add(u: int, label: str | frozenset[str], v: int) -> None:
        if isinstance(label, str):
            edges[u][0].setdefault(label, []).append(v)
        else:
            edges[u][1].append((label, v))

    cur = 0
    for literal, field, _, _ in string.Formatter().parse(template):
        for ch in literal:
            nxt = new()
            add(cur, ch, nxt)
            cur = nxt
        if field is None:
            continue
        end = new()
        if field == "N":
            mid = new()
            add(cur, syllable_chars, mid)
            add(mid, syllable_chars, end)
            add(end, syllable_chars, end)
        else:
            words = td.TITLE_ADJECTIVES if field == "A" else td.TITLE_NOUNS
            trie: dict[tuple[int, str], int] = {}
            for _, word in words:
                u = cur
                for ch in word[:-1]:
                    if (u, ch) not in trie:
                        trie[u, ch] = new()
                        add(u, ch, trie[u, ch])
                    u = trie[u, ch]
                add(u, word[-1], end)
        cur = end
    return edges, cur


def automata_meet(a: Automaton, b: Automaton) -> bool:
    """Whether two automata accept a common string (search of their product)."""
    (ea, fa), (eb, fb) = a, b
    seen = {(0, 0)}
    queue = deque(seen)
    while queue:
        u, v = queue.popleft()
        if (u, v) == (fa, fb):
            return True
        (chars_u, sets_u), (chars_v, sets_v) = ea[u], eb[v]
        pairs = []
        for ch, us in chars_u.items():
            vs = chars_v.get(ch, []) + [v2 for cs, v2 in sets_v if ch in cs]
            pairs += [(u2, v2) for u2 in us for v2 in vs]
        for cs, u2 in sets_u:
            pairs += [(u2, v2) for ch, vs in chars_v.items() if ch in cs for v2 in vs]
            pairs += [(u2, v2) for cs2, v2 in sets_v if cs & cs2]
        for pair in pairs:
            if pair not in seen:
                seen.add(pair)
                queue.append(pair)
    return False


def test_automata_find_collisions():
    assert automata_meet(title_automaton("{N}史"), title_automaton("{N}"))  # 史 is the syllable "ste"
    assert automata_meet(title_automaton("{A}{T}"), title_automaton("金色的花园"))
    assert not automata_meet(title_automaton("{N}历史"), title_automaton("{N}"))
    assert not automata_meet(title_automaton("{A}{T}"), title_automaton("{N}的{T}"))


def test_chinese_title_collisions_are_english_collisions():
    """Across all work kinds, templates that can give one Chinese title share their English."""
    items = [(kind, en, zh) for kind in WORK_KINDS for en, zh in td.TITLE_PATTERNS[kind]]
    automata = [title_automaton(zh) for _, _, zh in items]
    for i, (kind_a, en_a, zh_a) in enumerate(items):
        for j in range(i + 1, len(items)):
            kind_b, en_b, zh_b = items[j]
            if (en_a, zh_a) != (en_b, zh_b) and automata_meet(automata[i], automata[j]):
                pytest.fail(f"{kind_a} {en_a!r}/{zh_a!r} and {kind_b} {en_b!r}/{zh_b!r} can give one Chinese title")


def test_adjectives_and_nouns_disjoint():
    assert not {en for en, _ in td.TITLE_ADJECTIVES} & {en for en, _ in td.TITLE_NOUNS}


def test_avoided_title_pairs_use_listed_words():
    adjectives = {en for en, _ in td.TITLE_ADJECTIVES}
    nouns = {en for en, _ in td.TITLE_NOUNS}
    for adj, noun in td.AVOID_TITLE_PAIRS:
        assert adj in adjectives and noun in nouns, (adj, noun)


def test_every_work_kind_has_title_patterns():
    assert set(td.TITLE_PATTERNS) == set(WORK_KINDS)


@pytest.mark.parametrize("kind", WORK_KINDS)
def test_title_patterns(kind):
    patterns = td.TITLE_PATTERNS[kind]
    assert len(patterns) >= 4
    for en, zh in patterns:
        f = fields(en)
        assert f <= {"A", "T", "T2", "N"}, en
        assert fields(zh) == f, (en, zh)
        assert "N" in f or {"A", "T"} <= f, f"{en!r} cannot be made unique"
        assert "T2" not in f or "T" in f, en
        assert "《" not in zh and "》" not in zh
        # an indefinite article would have to agree with the word drawn after it
        assert not re.search(r"\b(a|an|A|An) \{", en), en
    assert len({en for en, _ in patterns}) == len(patterns), "English patterns must be distinct"
    assert len({zh for _, zh in patterns}) == len(patterns), "Chinese patterns must be distinct"
