"""Token-exact budgets: unit fitting, depth boundaries, cuts, memoized counts and haystack filling."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from generators.budget import (
    JOIN_SLACK,
    DigitCounts,
    PieceCounts,
    TokenBudget,
    boundary_at_depth,
    cut_at_tokens,
    units_that_fit,
)
from needlework.errors import BudgetError, SpecError
from generators.haystack import needle_renderer, Frame, fill_haystack
from generators.text import split_sentences
from needlework.tokenizers import load_tokenizer

# Four English sentences whose Qwen2.5 counts are known (each ends with its separating space).
SENTENCES = [
    "The cat sat. ",  # The | cat | sat | . | ' '
    "It was warm outside today. ",  # 7 tokens
    "Birds sang. ",  # Bird | s | sang | . | ' '
    "Then night fell over the quiet little town. ",  # 10 tokens
]
SENTENCE_TOKENS = [5, 7, 5, 10]


class CallCounter:
    """A TokenCounter that forwards to a real one and records every ``count_batch`` call."""

    def __init__(self, inner):
        self.inner = inner
        self.name, self.fingerprint = inner.name, inner.fingerprint
        self.batches: list[list[str]] = []

    def normalize(self, text):
        return self.inner.normalize(text)

    def encode(self, text):
        return self.inner.encode(text)

    def encode_with_offsets(self, text):
        return self.inner.encode_with_offsets(text)

    def encode_native(self, text):
        return self.inner.encode_native(text)

    def with_offsets(self, native):
        return self.inner.with_offsets(native)

    def decode(self, ids):
        return self.inner.decode(ids)

    def count(self, text):
        return self.inner.count(text)

    def count_batch(self, texts):
        self.batches.append(list(texts))
        return self.inner.count_batch(texts)


# --- TokenBudget -------------------------------------------------------------------------------


def test_budget_limit():
    assert TokenBudget(8192, 128).limit == 8064
    assert TokenBudget(8192).limit == 8192
    assert TokenBudget(100, 99).limit == 1


@pytest.mark.parametrize(("target", "reserve"), [(100, 100), (100, 101), (100, -1), (0, 0), (-5, 0)])
def test_budget_rejects_bad_reserve_or_target(target, reserve):
    with pytest.raises(SpecError):
        TokenBudget(target, reserve)


# --- units_that_fit and boundary_at_depth: exact answers ---------------------------------------


def test_sentence_counts_are_as_stated(qwen):
    assert qwen.count_batch(SENTENCES).tolist() == SENTENCE_TOKENS
    # A trailing space merges into the next sentence's first word (" It", " Birds"), so joined
    # text takes fewer tokens than the sum of its units' counts (the predictions fit_prompt corrects).
    joined = [qwen.count("".join(SENTENCES[:n])) for n in range(1, len(SENTENCES) + 1)]
    assert joined[0] == 5
    assert all(j < sum(SENTENCE_TOKENS[:n]) for n, j in enumerate(joined[1:], start=2))


@pytest.mark.parametrize(
    ("available", "expected"),
    [(-1, 0), (0, 0), (4, 0), (5, 1), (11, 1), (12, 2), (16, 2), (17, 3), (26, 3), (27, 4), (10_000, 4)],
)
def test_units_that_fit_exact(qwen, available, expected):
    counts = qwen.count_batch(SENTENCES)
    n = units_that_fit(counts, available)
    assert n == expected
    if n:
        assert qwen.count("".join(SENTENCES[:n])) <= available


def test_units_that_fit_edge_cases():
    assert units_that_fit(np.array([], dtype=np.int64), 10) == 0
    assert units_that_fit(np.array([0, 0, 5]), 0) == 2
    assert units_that_fit(np.array([0, 0, 5]), 5) == 3


@pytest.mark.parametrize(
    ("depth", "expected"),
    # bounds are 0, 5, 12, 17, 27 tokens; the goal is depth% of 27
    [(0, 0), (10, 1), (25, 1), (40, 2), (50, 2), (60, 3), (75, 3), (90, 4), (100, 4)],
)
def test_boundary_at_depth_exact(qwen, depth, expected):
    assert boundary_at_depth(qwen.count_batch(SENTENCES), depth) == expected


def test_boundary_at_depth_edge_cases():
    assert boundary_at_depth(np.array([], dtype=np.int64), 50.0) == 0
    assert boundary_at_depth(np.array([1, 98, 1]), 10.0) == 1
    assert boundary_at_depth(np.array([1, 98, 1]), 95.0) == 2
    for bad in (-0.001, 100.001, float("nan")):
        with pytest.raises(SpecError):
            boundary_at_depth(np.array([1, 2, 3]), bad)


counts_strategy = st.lists(st.integers(0, 60), max_size=40).map(lambda v: np.array(v, dtype=np.int64))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(counts_strategy, st.integers(-10, 2000))
def test_units_that_fit_is_the_largest_prefix(counts, available):
    n = units_that_fit(counts, available)
    assert 0 <= n <= len(counts)
    if available < 0:
        assert n == 0
        return
    assert counts[:n].sum() <= available
    if n < len(counts):
        assert counts[: n + 1].sum() > available


@settings(max_examples=300, deadline=None, derandomize=True)
@given(counts_strategy, st.floats(0, 100), st.floats(0, 100))
def test_boundary_at_depth_is_nearest_and_monotone(counts, d1, d2):
    bounds = np.concatenate(([0], np.cumsum(counts)))
    i = boundary_at_depth(counts, d1)
    assert 0 <= i <= len(counts)
    goal = bounds[-1] * d1 / 100.0
    assert abs(bounds[i] - goal) == np.abs(bounds - goal).min()
    lo, hi = sorted((d1, d2))
    assert bounds[boundary_at_depth(counts, lo)] <= bounds[boundary_at_depth(counts, hi)]


# --- cut_at_tokens -----------------------------------------------------------------------------


def _check_cut(tokens, text: str, max_tokens: int) -> None:
    cut = cut_at_tokens(text, max_tokens, tokens)
    text = tokens.normalize(text)  # the cut is a prefix of the text the tokenizer sees
    assert text.startswith(cut)
    assert tokens.count(cut) <= max(max_tokens, 0)
    if cut != text:
        # The next token boundary after the cut would exceed the limit.
        _, starts = tokens.encode_with_offsets(text)
        later = [s for s in starts.tolist() if s > len(cut)]
        nxt = later[0] if later else len(text)
        assert tokens.count(text[:nxt]) > max_tokens


@pytest.fixture(scope="module")
def essay(shared_data) -> str:
    return (shared_data / "paul_graham_essays" / "addiction.txt").read_text(encoding="utf-8")[:4000]


def test_cut_at_tokens_exact(qwen):
    text = "".join(SENTENCES)
    assert cut_at_tokens(text, 0, qwen) == ""
    assert cut_at_tokens(text, -3, qwen) == ""
    # The | cat | sat | . | It | was ...: the space before "It" belongs to the " It" token.
    assert cut_at_tokens(text, 1, qwen) == "The"
    assert cut_at_tokens(text, 4, qwen) == "The cat sat."
    assert cut_at_tokens(text, 5, qwen) == "The cat sat. It"
    assert cut_at_tokens(text, 6, qwen) == "The cat sat. It was"
    assert cut_at_tokens(text, qwen.count(text) - 1, qwen) == text[:-1]
    assert cut_at_tokens(text, qwen.count(text), qwen) == text
    assert cut_at_tokens(text, 1000, qwen) == text


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("name", ["qwen2.5", "cl100k_base"])
def test_cut_at_tokens_on_real_text(name, essay, data):
    tokens = load_tokenizer(name)
    start = data.draw(st.integers(0, len(essay) - 1))
    end = data.draw(st.integers(start, len(essay)))
    _check_cut(tokens, essay[start:end], data.draw(st.integers(0, 400)))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text().map(lambda s: unicodedata.normalize("NFC", s)), st.integers(0, 40))
@pytest.mark.parametrize("name", ["qwen2.5", "cl100k_base"])
def test_cut_at_tokens_on_arbitrary_nfc_text(name, text, max_tokens):
    _check_cut(load_tokenizer(name), text, max_tokens)


def test_cut_at_tokens_on_decomposed_text(qwen):
    """Decomposed accents are cut in their NFC form, at token boundaries of that form."""
    text = "Cafe\u0301 de\u0301ja\u0300 vu. " * 4  # NFD accents: 'e' + combining acute/grave
    assert cut_at_tokens(text, qwen.count(text), qwen) == unicodedata.normalize("NFC", text)
    n = qwen.count(text)
    for max_tokens in range(1, n):
        _check_cut(qwen, text, max_tokens)


# --- PieceCounts and DigitCounts ---------------------------------------------------------------


def test_piece_counts_memoize(qwen):
    spy = CallCounter(qwen)
    pieces = PieceCounts(spy)
    words = [" alpha", "-beta", " alpha", "gamma delta", "-beta", " alpha"]
    got = pieces.counts(words)
    assert got.dtype == np.int64
    assert got.tolist() == [qwen.count(w) for w in words]
    assert len(spy.batches) == 1
    assert sorted(spy.batches[0]) == sorted(set(words))  # each distinct piece counted once

    assert pieces.counts(words[::-1]).tolist() == got[::-1].tolist()
    assert pieces.count("gamma delta") == qwen.count("gamma delta")
    assert len(spy.batches) == 1  # nothing new: no further tokenizer call

    assert pieces.counts([" alpha", " epsilon", " epsilon"]).tolist() == [
        qwen.count(" alpha"),
        qwen.count(" epsilon"),
        qwen.count(" epsilon"),
    ]
    assert spy.batches[1] == [" epsilon"]  # only the unseen piece, once
    assert pieces.counts([]).tolist() == []
    assert len(spy.batches) == 2


@pytest.mark.parametrize("name", ["qwen2.5", "cl100k_base"])
def test_digit_counts_predict_real_counts(name):
    tokens = load_tokenizer(name)
    spy = CallCounter(tokens)
    predictor = DigitCounts(PieceCounts(spy))
    assert sum(len(b) for b in spy.batches) == 1110  # all 1-, 2- and 3-digit strings, counted once
    rng = np.random.default_rng(20240601)
    for width in range(1, 41):
        digits = rng.integers(0, 10, (40, width))
        digits[0] = 0  # all zeros
        digits[1] = 9
        texts = ["".join(map(str, row)) for row in digits.tolist()]
        assert predictor.predict(digits).tolist() == tokens.count_batch(texts).tolist(), width


# --- fill_haystack property --------------------------------------------------------------------


@pytest.fixture(scope="module")
def english_sentences(shared_data) -> list[str]:
    sentences: list[str] = []
    for path in sorted((shared_data / "paul_graham_essays").glob("*.txt")):
        sentences += split_sentences(path.read_text(encoding="utf-8"))
    return sentences


@pytest.fixture(scope="module")
def chinese_sentences(shared_data) -> list[str]:
    path: Path = shared_data / "zh_prose" / "红楼梦_chapters_1-30.txt"
    return split_sentences(path.read_bytes().decode("utf-8"))  # CRLF line endings kept


LANGUAGES = {
    "en": (
        Frame("Read the text and remember the magic numbers.\n", "\nWhat are the magic numbers?"),
        "The magic number of item {i} is {v}. ",
    ),
    "zh": (Frame("阅读下文，记住神奇数字。\n", "\n神奇数字是什么？"), "第{i}个神奇数字是{v}。"),
}


def check_fitted(tokens, fitted, units, unit_tokens, needles, needle_tokens, depths, frame, budget) -> None:
    """Every property fill_haystack promises, checked against an independent encode."""
    prompt = fitted.rendered.text
    limit = budget.limit
    assert fitted.n_tokens == tokens.count(prompt)
    assert fitted.n_tokens <= limit
    n = fitted.n_units
    if n < len(units):
        assert limit - fitted.n_tokens < unit_tokens[n] + JOIN_SLACK, (limit, fitted.n_tokens, unit_tokens[n])

    # Frame around the context; the context is the first n units with the needles inserted.
    cs, ce = fitted.rendered.context_span
    assert prompt[:cs] == frame.prefix and prompt[ce:] == frame.suffix
    order = sorted(range(len(needles)), key=lambda i: fitted.placements[i].char_offset)
    boundaries = set(np.concatenate(([0], np.cumsum([len(u) for u in units[:n]]))).tolist())
    filler, pos, removed = [], cs, 0
    for i in order:
        p = fitted.placements[i]
        assert p.char_offset == fitted.rendered.needle_starts[i]
        assert prompt[p.char_offset : p.char_offset + len(needles[i])] == needles[i]
        # Each needle starts at a unit boundary of the filler (a sentence start or the context start).
        assert p.char_offset - cs - removed in boundaries
        filler.append(prompt[pos : p.char_offset])
        pos = p.char_offset + len(needles[i])
        removed += len(needles[i])
    filler.append(prompt[pos:ce])
    assert "".join(filler) == "".join(units[:n])

    # Token offsets: the token containing the needle's first character.
    ids, starts = tokens.encode_with_offsets(prompt)
    assert len(ids) == fitted.n_tokens
    for p in fitted.placements:
        t = p.token_offset
        assert starts[t] <= p.char_offset
        assert t + 1 == len(starts) or starts[t + 1] > p.char_offset

    # Realized depth: within one unit of the requested depth, plus the needles' own share. Depth is
    # measured in context tokens, which include the needles, while the boundary is chosen over the
    # filler alone; a needle requested at 100% therefore starts its own length before the end.
    def token_at(char: int) -> int:
        return int(np.searchsorted(starts, char, side="right")) - 1

    t0 = token_at(cs)
    t1 = token_at(ce) if ce < len(prompt) else len(starts)
    context_tokens = max(t1 - t0, 1)
    needles_total = int(np.sum(needle_tokens))
    filler_tokens = max(context_tokens - needles_total, 1)
    max_unit = int(unit_tokens[:n].max()) if n else 0
    tolerance = 100.0 * needles_total / context_tokens + 100.0 * max_unit / filler_tokens + 1.0
    for p, requested in zip(fitted.placements, depths):
        assert 0.0 <= p.depth_percent <= 100.0
        assert p.depth_percent == pytest.approx(100.0 * (p.token_offset - t0) / context_tokens, abs=1e-3)
        assert abs(p.depth_percent - requested) <= tolerance, (p.depth_percent, requested, tolerance)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@pytest.mark.parametrize("language", ["en", "zh"])
def test_fill_haystack_properties(language, english_sentences, chinese_sentences, qwen, data):
    sentences = english_sentences if language == "en" else chinese_sentences
    frame, needle_format = LANGUAGES[language]
    target = data.draw(st.integers(200, 6000), label="target")
    reserve = data.draw(st.integers(0, min(target - 1, 512)), label="reserve")
    budget = TokenBudget(target, reserve)
    per_unit = data.draw(st.integers(1, 3), label="sentences per unit")
    start = data.draw(st.integers(0, len(sentences) - 600 * per_unit), label="start")
    units = ["".join(sentences[start + i * per_unit : start + (i + 1) * per_unit]) for i in range(600)]
    unit_tokens = qwen.count_batch(units)
    k = data.draw(st.integers(1, 5), label="needles")
    values = data.draw(st.lists(st.integers(0, 10**9), min_size=k, max_size=k), label="values")
    needles = [needle_format.format(i=i, v=v) for i, v in enumerate(values)]
    needle_tokens = qwen.count_batch(needles)
    depths = data.draw(
        st.lists(st.one_of(st.floats(0, 100), st.integers(0, 100).map(float)), min_size=k, max_size=k),
        label="depths",
    )
    frame_tokens = qwen.count(frame.prefix + frame.suffix)
    assume(frame_tokens + needle_tokens.sum() + JOIN_SLACK < budget.limit)
    fitted = fill_haystack(units, unit_tokens, needles, needle_tokens, depths, frame, frame_tokens, budget, qwen)
    assert fitted.n_units < len(units)  # the corpus slice always outlasts the budget
    check_fitted(qwen, fitted, units, unit_tokens, needles, needle_tokens, depths, frame, budget)


def test_fill_haystack_is_deterministic(english_sentences, qwen):
    units = english_sentences[:400]
    frame, fmt = LANGUAGES["en"]
    needles = [fmt.format(i=0, v=42), fmt.format(i=1, v=7)]
    args = (units, qwen.count_batch(units), needles, qwen.count_batch(needles), [30.0, 70.0], frame,
            qwen.count(frame.prefix + frame.suffix), TokenBudget(2048, 100), qwen)
    assert fill_haystack(*args) == fill_haystack(*args)


def test_fill_haystack_uses_every_unit_when_all_fit(qwen):
    frame = Frame("Text:\n", "\nQ?")
    needles = ["The key is 7. "]
    fitted = fill_haystack(SENTENCES, qwen.count_batch(SENTENCES), needles, qwen.count_batch(needles), [50.0],
                           frame, qwen.count(frame.prefix + frame.suffix), TokenBudget(4096), qwen)
    assert fitted.n_units == len(SENTENCES)
    # Boundary at 50% of 27 tokens is after the second sentence (12 tokens).
    assert fitted.rendered.text == "Text:\n" + "".join(SENTENCES[:2]) + needles[0] + "".join(SENTENCES[2:]) + "\nQ?"


def test_budget_error_when_needles_alone_exceed_the_limit(qwen):
    frame = Frame("Find the numbers.\n", "\nWhich numbers?")
    needles = [f"The magic number of item {i} is {10**9 + i}. " for i in range(5)]
    needle_tokens = qwen.count_batch(needles)
    # With no filler the prompt is the frame around the needles, all at the same boundary.
    limit = qwen.count(frame.prefix + "".join(needles) + frame.suffix) - 1
    with pytest.raises(BudgetError):
        fill_haystack(SENTENCES, qwen.count_batch(SENTENCES), needles, needle_tokens, [10.0] * 5, frame,
                      qwen.count(frame.prefix + frame.suffix), TokenBudget(limit), qwen)
    # One token more and the needles fit with no filler.
    fitted = fill_haystack(SENTENCES, qwen.count_batch(SENTENCES), needles, needle_tokens, [10.0] * 5, frame,
                           qwen.count(frame.prefix + frame.suffix), TokenBudget(limit + 1), qwen)
    assert fitted.n_units == 0 and fitted.n_tokens == limit + 1


@pytest.mark.parametrize("line_endings", ["crlf", "lf"])
def test_fit_is_maximal_on_indented_chinese_prose(chinese_sentences, qwen, line_endings):
    """On real prose a join can cost more than the unit's own count (indentation runs, a needle
    moving to the next boundary), so the guarantee is maximality: one more unit does not fit."""
    sentences = chinese_sentences
    if line_endings == "lf":
        sentences = split_sentences("".join(chinese_sentences).replace("\r\n", "\n"))
    units = sentences[426:726]
    unit_tokens = qwen.count_batch(units)
    frame = Frame("阅读下文。\n", "\n神奇数字是什么？")
    needles = ["神奇数字是928688。"]
    needle_tokens = qwen.count_batch(needles)
    frame_tokens = qwen.count(frame.prefix + frame.suffix)
    not_maximal = []
    for depth in (90.0, 95.0):
        render = needle_renderer(units, unit_tokens, needles, [depth], frame)
        for target in range(1290, 1330):
            fitted = fill_haystack(units, unit_tokens, needles, needle_tokens, [depth], frame, frame_tokens,
                                   TokenBudget(target), qwen)
            assert fitted.n_tokens <= target
            if qwen.count(render(fitted.n_units + 1).text) <= target:
                not_maximal.append((depth, target))
    assert not_maximal == []
