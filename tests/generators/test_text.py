"""Sentence boundaries in English and Chinese text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generators.text import ABBREVIATION_CHARS, _ABBREVIATION, sentence_ends, split_sentences

# Characters that exercise every branch of the boundary rule, mixed with ordinary letters.
_TRICKY = list("ab Z1.!?\"'”’)]。！？；…」』）\n\r\t\u3000天地")
texts = st.one_of(st.text(), st.text(st.sampled_from(_TRICKY), max_size=80))


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("The cat sat. The dog ran.", ["The cat sat. ", "The dog ran."]),
        ("Really? Yes! No.", ["Really? ", "Yes! ", "No."]),
        ('He said "Stop." Then he left.', ['He said "Stop." ', "Then he left."]),
        ("She asked, “Why?” He shrugged.", ["She asked, “Why?” ", "He shrugged."]),
        ("It's 'done.' Next one.", ["It's 'done.' ", "Next one."]),
        ("(See above.) Next", ["(See above.) ", "Next"]),
        ("[Note!]  Two spaces.", ["[Note!]  ", "Two spaces."]),
        ("Wait... what?! Fine.", ["Wait... what?! ", "Fine."]),  # a lower-case word continues the sentence
        ("End.\nNext line.", ["End.\n", "Next line."]),
        ("Trailing spaces stay.   \t Then more.", ["Trailing spaces stay.   \t ", "Then more."]),
    ],
)
def test_english_sentences(text, sentences):
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("今天天气很好。我们去公园吧！你去吗？好的", ["今天天气很好。", "我们去公园吧！", "你去吗？", "好的"]),
        ("他说：“我来了。”她笑了。", ["他说：“我来了。”", "她笑了。"]),
        ("「走吧！」他说。", ["「走吧！」", "他说。"]),
        ("先这样；再那样。", ["先这样；再那样。"]),  # "；" joins clauses (issue 41: Sequential-NIAH inserts after "。")
        ("等等……然后呢", ["等等……", "然后呢"]),
        ("第一句。 第二句。", ["第一句。 ", "第二句。"]),
        ("第一句。\u3000\u3000第二句", ["第一句。\u3000\u3000", "第二句"]),
    ],
)
def test_chinese_sentences_need_no_space(text, sentences):
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("line one\nline two\n\nline three", ["line one\n", "line two\n\n", "line three"]),
        ("第一行\r\n第二行", ["第一行\r\n", "第二行"]),
        ("no end mark\r\n\r\n    indented", ["no end mark\r\n\r\n    ", "indented"]),
        ("标题\n\n    正文。下一句", ["标题\n\n    ", "正文。", "下一句"]),
        ("\nleading newline", ["\n", "leading newline"]),
    ],
)
def test_line_breaks_end_sentences(text, sentences):
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    "text",
    ["3.14 is pi", "e.g.x and i.e.y", "no terminator at all", "Hi.", "Hi. ", "好。", "Hello!  \n ", "", "   "],
)
def test_no_boundary_inside(text):
    assert sentence_ends(text) == []
    assert split_sentences(text) == ([text] if text else [])


def test_offsets_are_where_sentences_start():
    text = "Aa. Bb? Cc! Dd。Ee"
    assert sentence_ends(text) == [4, 8, 12, 15]
    assert [text[o] for o in sentence_ends(text)] == ["B", "C", "D", "E"]


def test_an_initial_or_abbreviation_ends_no_sentence():
    assert split_sentences("J. R. R. Tolkien wrote it, e.g. in 1937. Mr. Baggins left.") == [
        "J. R. R. Tolkien wrote it, e.g. in 1937. ", "Mr. Baggins left."]


def test_real_chinese_prose_with_crlf(shared_data):
    raw = (shared_data / "zh_prose" / "红楼梦_chapters_1-30.txt").read_bytes().decode("utf-8")
    assert "\r\n" in raw  # the slice keeps its CRLF line endings
    parts = split_sentences(raw)
    assert "".join(parts) == raw
    assert len(parts) > 1000
    # A CR is never split from its LF.
    assert not any(p.endswith("\r") for p in parts)
    assert all(not p.startswith("\n") for p in parts[1:])
    # The full-width full stop (U+FF0E), this text's main terminator, ends a sentence.
    assert parts[2].endswith("此开卷第一回也．") and parts[3].startswith("作者自云")


def test_real_english_essay(shared_data):
    text = (shared_data / "paul_graham_essays" / "addiction.txt").read_text(encoding="utf-8")
    parts = split_sentences(text)
    assert "".join(parts) == text
    assert len(parts) > 30
    assert all(p[-1].isspace() for p in parts[:-1])


@settings(max_examples=400, deadline=None, derandomize=True)
@given(texts)
def test_concatenation_reproduces_text(text):
    parts = split_sentences(text)
    assert "".join(parts) == text
    assert all(parts)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(texts)
def test_offsets_strictly_inside_and_increasing(text):
    ends = sentence_ends(text)
    assert all(0 < o < len(text) for o in ends)
    assert ends == sorted(set(ends))
    # The cuts of split_sentences are exactly these offsets.
    parts = split_sentences(text)
    cuts, pos = [], 0
    for part in parts[:-1]:
        pos += len(part)
        cuts.append(pos)
    assert cuts == ends
    # Every cut follows a terminator, a closer or whitespace.
    assert all(text[o - 1].isspace() or text[o - 1] in "。！？…”’」』）)\"'" for o in ends)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(texts)
def test_each_sentence_is_one_sentence(text):
    for part in split_sentences(text):
        assert split_sentences(part) == [part]


# The plain form of the rules, without the first-character guard the module uses for speed: every
# alternative tried at every position, the run-together rule as a zero-width match after its
# terminator (where the abbreviation test can never fire, since the window ends on a capital).
_REFERENCE_LATIN = r"""(?:[.!?]+["'”’)\]]*\s+(?![a-z]))"""
_REFERENCE_CJK = r"""(?:[。．！？…]+(?:\s*[”’」』）)"'])*\s*)"""
_REFERENCE = {
    True: re.compile(rf"{_REFERENCE_LATIN} | {_REFERENCE_CJK} | (?:\n\s*)", re.VERBOSE),
    False: re.compile(rf"{_REFERENCE_LATIN} | {_REFERENCE_CJK} | (?<=[a-z][a-z][.!?])(?=[A-Z][a-z])"
                      r" | (?:\n[^\S\n]*\n\s*)", re.VERBOSE),
}


def reference_sentence_ends(text: str, line_breaks: bool) -> list[int]:
    return sorted({m.end() for m in _REFERENCE[line_breaks].finditer(text) if 0 < m.end() < len(text)
                   and not _ABBREVIATION.search(text, max(0, m.start() - ABBREVIATION_CHARS), m.start() + 1)})


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aB. !?\n。．！？；…”’)]\"'egMrJvsT", max_size=80), st.booleans())
def test_sentence_ends_agree_with_the_plain_rules(text, line_breaks):
    assert sentence_ends(text, line_breaks=line_breaks) == reference_sentence_ends(text, line_breaks)


@pytest.mark.parametrize("line_breaks", [True, False])
def test_sentence_ends_agree_with_the_plain_rules_on_real_prose(shared_data, line_breaks):
    files = sorted((shared_data / "paul_graham_essays").glob("*.txt"))[:6] + sorted((shared_data / "zh_prose").glob("*.txt"))[:2]
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert sentence_ends(text, line_breaks=line_breaks) == reference_sentence_ends(text, line_breaks), path.name
