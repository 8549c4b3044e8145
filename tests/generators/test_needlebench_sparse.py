"""NeedleBench's information-sparse tasks (paper §3.1): S-RT, M-RT and M-RS on the real filler slices.

English rows use the Paul Graham essays, Chinese rows THUCNews and 红楼梦 (``$NEEDLEWORK_SHARED_DATA``),
and a smaller grid the embedded world. Every property is recomputed from the emitted text: the
needles are cut back out of ``input``, what remains must be a run of whole filler sentences, the
budget and depths are recomputed from the filler's counts and one encode, retrieval questions are
re-derived from the needle sentences with this file's own patterns, and the M-RS answer comes from
the independent solver in :mod:`tests.support.atc_solver`, which finds the kinship sentences by scanning the text.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache

import numpy as np
import pytest

from tests.support.atc_solver import PAPER_KINSHIP_TAIL_EN, kinship_sentences_in, read_mrs
from builders.sources.filler import read_filler
from builders.sources.person_names import faker_person_names
from generators.budget import JOIN_SLACK
from generators.needlebench.filler import Filler
from generators.needlebench.sparse import generate_sparse, sparse_content
from generators.needlebench.spec import SparseSpec
from generators.seeding import rng_for
from generators.text import split_sentences

LENGTHS = (4000, 8000, 16000)
"""Three lengths (with 11 depths and 2 repeats, 66 S-RT and 66 M-RT rows a language). At 16,000 tokens some
English rows of every task and some Chinese M-RS rows already read past the end of the filler and wrap
around, as at 32,000; no property checked here depends on the length otherwise."""
DEPTHS = tuple(float(d) for d in range(0, 101, 10))
MRS_DEPTHS = (0.0, 20.0, 50.0, 80.0, 100.0)
REPEATS = 2
SEPARATOR = {"en": " ", "zh": ""}
DOCUMENT = {"en": "The content of the long document is as follows\n\n", "zh": "长文档的内容如下\n\n"}
ASK = {"en": "\n\nBased on the information in the document, now please answer: ", "zh": "\n\n根据文档中的信息，现在请回答："}
# The paper's Figure 7-9 and 11 instruction, word for word (its line break as in Figures 8 and 11).
PAPER_INSTRUCTION = (
    "This is a test of long-text capability. You need to first read the long document below, and then answer the "
    "final question based on the information in the document."
)
PAPER_INSTRUCTION_MULTI = (
    "This is a test of long-text capability. You need to first read the long document below, and then answer the "
    "final questions one by one based on the information in the document."
)
SOURCES = {"en": "paul_graham_essays", "zh": "zh_prose"}
ID = re.compile(r"(s-rt|m-rt|m-rs)/(en|zh)/needles=([0-9]+)/len=([0-9]+)/depth=([0-9.]+)/r=([0-9]{3})")

# Retrieval needles: sentence pattern -> (question, answer format), written from the paper's
# Figures 7-10 ("Hidden on Emerald Island is the legendary Stardust Shard", "The ruler of the Orion
# star system is Guardian of Time Lightspeed") and the capital kind read off generated rows.
RETRIEVAL = {
    "en": (
        (re.compile(r"Hidden on (?P<place>[A-Z][a-z]+) Island is the legendary (?P<kw>[A-Z][A-Za-z-]+ [A-Z][a-z]+)\."),
         "What legendary item is hidden on {place} Island?", "The legendary item hidden on the {place} Island is ______"),
        (re.compile(r"The ruler of the (?P<place>[A-Z][a-z]+) star system is (?:[A-Z][a-z]+ )+(?:of [A-Z][a-z]+ )?(?P<kw>[A-Z][a-z]+)\."),
         "Who is the ruler of the {place} star system?", "The ruler of the {place} star system is ______"),
        (re.compile(r"The capital of the (?P<place>[A-Z][a-z]+) Kingdom is the city of (?P<kw>[A-Z][a-z]+)\."),
         "What is the capital of the {place} Kingdom?", "The capital of the {place} Kingdom is ______"),
    ),
    "zh": (
        (re.compile(r"(?P<place>[\u4e00-\u9fff]+?)岛上隐藏着传说中的(?P<kw>[\u4e00-\u9fff]+)。"),
         "{place}岛上隐藏着什么传说中的物品？", "{place}岛上隐藏的传说中的物品是______"),
        (re.compile(r"(?P<place>[\u4e00-\u9fff]+?)星系的统治者是(?:宇宙统治者|时间守护者|星辰守卫|至高摄政|虚空皇帝|永恒君主)(?P<kw>[\u4e00-\u9fff]+)。"),
         "{place}星系的统治者是谁？", "{place}星系的统治者是______"),
        (re.compile(r"(?P<place>[\u4e00-\u9fff]+?)王国的首都是(?P<kw>[\u4e00-\u9fff]+)城。"),
         "{place}王国的首都是哪座城市？", "{place}王国的首都是______"),
    ),
}


def read_needle(text: str, lang: str) -> tuple[str, str, str]:
    """(keyword, question, answer format) of a retrieval needle sentence."""
    for pattern, question, answer_format in RETRIEVAL[lang]:
        m = pattern.fullmatch(text)
        if m:
            return m["kw"], question.format(place=m["place"]), answer_format.format(place=m["place"])
    raise AssertionError(f"not a retrieval needle: {text!r}")


# --- Fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def names():
    return faker_person_names()[0]


@pytest.fixture(scope="module")
def fillers(shared_data, cl100k):
    out = {}
    for lang, folder in SOURCES.items():
        path = shared_data / folder
        if not path.is_dir():
            pytest.skip(f"filler slice not found: {path}")
        read = read_filler(str(path), lang)
        out[lang] = Filler.from_documents(read.documents, source=read.label, lang=lang, tokens=cl100k)
    return out


@pytest.fixture(scope="module")
def world_fillers(cl100k):
    out = {}
    for lang in ("en", "zh"):
        read = read_filler("world", lang)
        out[lang] = Filler.from_documents(read.documents, source=read.label, lang=lang, tokens=cl100k)
    return out


_ROWS: dict = {}
_ENCODED: dict = {}


def encoded(tokens, text: str, keep: bool = True):
    """``tokens.encode_with_offsets(text)``, kept (with ``keep``) for the next reader of the same text: check_row
    encodes the S-RT and M-RT rows that the token-offset test reads again."""
    key = (tokens.name, text)
    if key in _ENCODED:
        return _ENCODED[key]
    result = tokens.encode_with_offsets(text)
    if keep:
        _ENCODED[key] = result
    return result


@lru_cache(maxsize=None)
def read_mrs_once(text: str):
    """The solver's reading of an M-RS prompt, once per text (check_row and the prompt test read the same rows)."""
    return read_mrs(text)


def spec_for(task: str, lang: str, **options) -> SparseSpec:
    defaults = {"lengths": LENGTHS, "depths": MRS_DEPTHS if task == "m-rs" else DEPTHS, "repeats": REPEATS}
    return SparseSpec(task, lang, **{**defaults, **options})  # type: ignore[arg-type]


def rows_of(spec: SparseSpec, filler: Filler, tokens, names, seed: int = 0) -> list[dict]:
    key = (spec, filler.source, tokens.name, seed)
    if key not in _ROWS:
        _ROWS[key] = list(generate_sparse(spec, seed=seed, tokens=tokens, filler=filler, names=names))
    return _ROWS[key]


# --- Checking one row ---------------------------------------------------------------------------


HEAD = 6


class FillerIndex:
    """Find where a run of filler sentences starts, by each sentence's first characters."""

    def __init__(self, filler: Filler) -> None:
        self.filler = filler
        self.by_head: dict[str, list[int]] = defaultdict(list)
        for i, s in enumerate(filler.sentences):
            self.by_head[s[:HEAD]].append(i)

    def walk(self, text: str, cuts: list[int]) -> tuple[int, int, list[int]]:
        """``text`` as sentences ``start .. start + n - 1`` (cyclic) with every cut at a sentence boundary.

        Returns ``start``, ``n`` and the boundaries (character offsets in ``text``).
        """
        sentences = self.filler.sentences
        candidates = sorted(i for n in range(1, HEAD + 1) for i in self.by_head.get(text[:n], []))
        for start in candidates:
            pos, i, bounds = 0, start, [0]
            while pos < len(text) and text.startswith(sentences[i % len(sentences)], pos):
                pos += len(sentences[i % len(sentences)])
                bounds.append(pos)
                i += 1
            if pos == len(text) and set(cuts) <= set(bounds):
                return start, i - start, bounds
        raise AssertionError("the context without its needles is not a run of whole filler sentences cut at boundaries")


def split_row(row: dict) -> tuple[str, int, int]:
    """The prompt, and the start and end (characters) of its document."""
    text, lang = row["input"], row["lang"]
    start = text.index(DOCUMENT[lang]) + len(DOCUMENT[lang])
    end = text.rindex(ASK[lang])
    return text, start, end


def first_token_covering(starts: np.ndarray, char: int) -> int:
    """The first token whose start maps to ``char``, else the last that starts before it."""
    i = int(np.searchsorted(starts, char, side="left"))
    return i if i < len(starts) and starts[i] == char else i - 1


def check_row(row: dict, spec: SparseSpec, filler: Filler, index: FillerIndex, tokens) -> None:
    """Every property of one row, recomputed from its text."""
    lang, k = row["lang"], row["needle_count"]
    text, doc_start, doc_end = split_row(row)
    m = ID.fullmatch(row["id"])
    assert m and (m[1], m[2], int(m[3]), int(m[4]), float(m[5]), int(m[6])) == (
        spec.task, lang, k, row["target_tokens"], row["depth"], row["repeat"])
    assert (row["task"], row["length_buffer"], row["filler"], row["tokenizer"]) == (spec.task, spec.buffer, filler.source, tokens.name)

    # One encode: the count, and the budget.
    ids, starts = encoded(tokens, text, keep=spec.task != "m-rs")
    assert row["n_tokens"] == len(ids)
    limit = row["target_tokens"] - row["length_buffer"]
    assert row["n_tokens"] <= limit

    # Needles: once each, at their offsets, in order, inside the document, each followed by the separator.
    needles = row["needles"]
    assert len(needles) == k
    offsets = [n["char_offset"] for n in needles]
    assert offsets == sorted(offsets)
    sep = SEPARATOR[lang]
    for n in needles:
        assert text.count(n["text"]) == 1
        c = n["char_offset"]
        assert doc_start <= c and c + len(n["text"]) + len(sep) <= doc_end
        assert text[c : c + len(n["text"]) + len(sep)] == n["text"] + sep

    # Cut the needles out: the rest is whole filler sentences, the needles at sentence boundaries.
    pieces, cuts, pos, removed = [], [], doc_start, 0
    for n in needles:
        c = n["char_offset"]
        pieces.append(text[pos:c])
        cuts.append(c - doc_start - removed)
        removed += len(n["text"]) + len(sep)
        pos = c + len(n["text"]) + len(sep)
    pieces.append(text[pos:doc_end])
    rest = "".join(pieces)
    start, n_units, bounds = index.walk(rest, cuts)
    units = (start + np.arange(n_units)) % len(filler.sentences)
    unit_tokens = filler.tokens[units]
    prefix = np.concatenate(([0], np.cumsum(unit_tokens)))

    # Independent of the splitter: before a needle is the document start, a sentence end or a line break.
    for n in needles:
        before = text[doc_start : n["char_offset"]]
        assert before == "" or re.search(r"(?:[.!?。．！？；…][\"'”’)\]」』）]*\s*|\s)\Z", before), before[-40:]

    # Depths: requested as spread from the row's depth to the end; each needle at the boundary
    # nearest its requested share of the filler tokens; realized share within one sentence.
    requested = [n["requested_depth"] for n in needles]
    d = row["depth"]
    assert requested == pytest.approx([d + i * (100.0 - d) / k for i in range(k)])
    total = int(prefix[-1])
    bound_index = {b: i for i, b in enumerate(bounds)}
    needle_tokens = tokens.count_batch([n["text"] + sep for n in needles])
    for n, cut in zip(needles, cuts):
        b = bound_index[cut]
        goal = total * n["requested_depth"] / 100.0
        here = abs(prefix[b] - goal)
        assert all(here <= abs(prefix[j] - goal) for j in (b - 1, b + 1) if 0 <= j < len(prefix)), (row["id"], n["text"])

    # Token offsets (decode check) and realized depth over the context's tokens.
    t0 = first_token_covering(starts, doc_start)
    t1 = first_token_covering(starts, doc_end)
    context_tokens = t1 - t0
    largest = int(unit_tokens.max())
    for n in needles:
        c, t = n["char_offset"], n["token_offset"]
        # Token t is the last to start at or before the needle's first character, and the needle
        # decodes from the tokens around it (that it decodes from t itself is checked separately, in
        # test_token_offset_is_the_needles_first_token).
        assert starts[t] <= c and (t + 1 == len(starts) or starts[t + 1] > c or starts[t] == c)
        assert n["text"] in tokens.decode(ids[max(t - 3, 0) : t + tokens.count(n["text"]) + 2])
        tolerance = 100.0 * (largest + int(needle_tokens.sum()) + 2) / context_tokens
        assert abs(n["depth_percent"] - n["requested_depth"]) <= tolerance, (row["id"], n)
        assert 0.0 <= n["depth_percent"] <= 100.0

    # The budget is used: the next filler sentence would not have fitted.
    next_unit = filler.tokens[(start + n_units) % len(filler.sentences)]
    assert limit - row["n_tokens"] < next_unit + JOIN_SLACK + 2 * k, (row["id"], limit - row["n_tokens"], next_unit)

    # Questions and answers.
    suffix = text[doc_end:]
    if spec.task == "m-rs":
        reading = read_mrs_once(text)
        assert row["answers"] == [reading.answer]
        assert sorted(r.sentence for r in reading.found) == sorted(n["text"] for n in needles)
        assert len(reading.family) == k and row["question_type"] == "eldest_ancestor"
        assert row["query"] in suffix and f"'{reading.question.person}'" in row["query"]
        assert all(n["keyword"] == "" for n in needles)
        return
    read = [read_needle(n["text"], lang) for n in needles]
    keywords = [kw for kw, _, _ in read]
    assert [n["keyword"] for n in needles] == keywords == row["answers"]
    assert all(kw in n["text"] for kw, n in zip(keywords, needles))
    assert row["question_type"] == "retrieval"
    joiner = " " if lang == "en" else ""
    assert row["query"] == joiner.join(q for _, q, _ in read)
    if spec.task == "s-rt":
        fmt = read[0][2]
        assert suffix == ASK[lang] + row["query"] + (
            f" Please answer in the format '{fmt}.'" if lang == "en" else f"请按照“{fmt}。”的格式回答。")
    else:
        formats = ", ".join(f for _, _, f in read) if lang == "en" else "，".join(f for _, _, f in read)
        assert suffix == ASK[lang] + row["query"] + (
            f' Please answer in the format of "{formats}."' if lang == "en" else f"请按照“{formats}。”的格式回答。")


# --- Tests on the real filler ------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("task", ["s-rt", "m-rt", "m-rs"])
def test_rows_on_real_filler(task, lang, fillers, names, cl100k):
    spec = spec_for(task, lang)
    filler = fillers[lang]
    rows = rows_of(spec, filler, cl100k, names)
    assert len(rows) == len(spec.needle_counts) * REPEATS * len(spec.lengths) * len(spec.depths)
    assert len({r["id"] for r in rows}) == len(rows)
    index = FillerIndex(filler)
    for row in rows:
        check_row(row, spec, filler, index, cl100k)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("task", ["s-rt", "m-rt", "m-rs"])
def test_a_repetition_keeps_its_needles_at_every_length_and_depth(task, lang, fillers, names, cl100k):
    rows = rows_of(spec_for(task, lang), fillers[lang], cl100k, names)
    groups: dict[tuple[int, int], set] = defaultdict(set)
    for row in rows:
        groups[(row["needle_count"], row["repeat"])].add(
            (tuple(n["text"] for n in row["needles"]), row["query"], tuple(row["answers"])))
    assert all(len(g) == 1 for g in groups.values())
    per_count: dict[int, list] = defaultdict(list)
    for (count, _), g in groups.items():
        per_count[count].append(next(iter(g)))
    for contents in per_count.values():
        assert len(set(contents)) == len(contents), "two repetitions ask the same needles"


def test_mrt_asks_every_needle(fillers, names, cl100k):
    for lang in ("en", "zh"):
        for row in rows_of(spec_for("m-rt", lang), fillers[lang], cl100k, names):
            assert row["needle_count"] == 5 and len(row["answers"]) == 5
            for needle in row["needles"]:
                _, question, answer_format = read_needle(needle["text"], lang)
                assert row["query"].count(question) == 1
                assert row["input"].count(answer_format) == 1
            assert len({n["text"] for n in row["needles"]}) == 5


def test_english_prompts_are_the_papers(fillers, names, cl100k):
    for task in ("s-rt", "m-rt", "m-rs"):
        for row in rows_of(spec_for(task, "en"), fillers["en"], cl100k, names):
            text = row["input"]
            instruction = PAPER_INSTRUCTION_MULTI if task == "m-rt" else PAPER_INSTRUCTION
            assert text.startswith(instruction + "\nThe content of the long document is as follows\n\n")
            if task == "s-rt":
                assert re.search(r" Please answer in the format '[^']* is ______\.'\Z", text)
            if task == "m-rs":
                # Figure 11, word for word after the document.
                person = read_mrs_once(text).question.person
                question = f"Given the context described above, who is the eldest relative that '{person}' can trace back to in the context?"
                assert row["query"] == question
                assert text.endswith(ASK["en"] + question + PAPER_KINSHIP_TAIL_EN + (
                    f"\"So the oldest relative '{person}' can trace back to in the provided text is \\boxed{{(your answer here)}}.\""))


def test_haystacks_longer_than_the_filler_wrap_around(fillers, names, cl100k):
    """The essays hold about 65K tokens; an 80K haystack reads them again from the first sentence."""
    filler = fillers["en"]
    assert filler.total_tokens < 80_000
    for task in ("s-rt", "m-rs"):
        spec = SparseSpec(task, "en", (80_000,), (0.0, 50.0, 100.0), 1, (3,) if task == "m-rs" else ())  # type: ignore[arg-type]
        index = FillerIndex(filler)
        for row in rows_of(spec, filler, cl100k, names):
            check_row(row, spec, filler, index, cl100k)
            assert row["n_tokens"] > filler.total_tokens


def test_mrs_filler_holds_no_kinship_sentences(fillers):
    """The solver only finds needles: the filler itself states no family relation it could misread."""
    for lang, filler in fillers.items():
        assert kinship_sentences_in("".join(filler.sentences), lang) == []


def test_same_seed_same_rows_other_seed_other_rows(fillers, names, cl100k):
    for lang in ("en", "zh"):
        for task in ("m-rt", "m-rs"):
            spec = SparseSpec(task, lang, (4000,), (0.0, 50.0), 2)  # type: ignore[arg-type]
            a = list(generate_sparse(spec, seed=3, tokens=cl100k, filler=fillers[lang], names=names))
            assert a == list(generate_sparse(spec, seed=3, tokens=cl100k, filler=fillers[lang], names=names))
            b = list(generate_sparse(spec, seed=4, tokens=cl100k, filler=fillers[lang], names=names))
            assert [r["id"] for r in a] == [r["id"] for r in b]
            assert all(x["input"] != y["input"] for x, y in zip(a, b))
            assert all(x["needles"][0]["text"] != y["needles"][0]["text"] for x, y in zip(a, b))


def test_rows_do_not_depend_on_the_rest_of_the_grid(fillers, names, cl100k):
    filler = fillers["en"]
    alone = list(generate_sparse(SparseSpec("s-rt", "en", (8000,), (30.0,), 2), seed=0, tokens=cl100k, filler=filler, names=names))
    grid = rows_of(spec_for("s-rt", "en"), filler, cl100k, names)
    assert alone == [r for r in grid if r["target_tokens"] == 8000 and r["depth"] == 30.0]


def test_qwen_rows(fillers, names, qwen, shared_data):
    for lang, folder in SOURCES.items():
        read = read_filler(str(shared_data / folder), lang)
        filler = Filler.from_documents(read.documents, source=read.label, lang=lang, tokens=qwen)
        for task in ("s-rt", "m-rs"):
            spec = SparseSpec(task, lang, (4000, 8000), (0.0, 50.0, 100.0), 1)  # type: ignore[arg-type]
            index = FillerIndex(filler)
            for row in generate_sparse(spec, seed=0, tokens=qwen, filler=filler, names=names):
                check_row(row, spec, filler, index, qwen)


# --- The embedded world filler ------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("task", ["s-rt", "m-rt", "m-rs"])
def test_rows_on_world_filler(task, lang, world_fillers, names, cl100k):
    filler = world_fillers[lang]
    assert filler.source == "world" and filler.total_tokens > 100_000
    spec = SparseSpec(task, lang, (4000, 16000), (0.0, 30.0, 70.0, 100.0), 2)  # type: ignore[arg-type]
    index = FillerIndex(filler)
    for row in rows_of(spec, filler, cl100k, names):
        check_row(row, spec, filler, index, cl100k)


def test_world_filler_boundaries_are_sentence_boundaries(world_fillers):
    for lang, filler in world_fillers.items():
        assert bad_boundaries(filler) == []


# --- Known defects, kept visible ----------------------------------------------------------------

_CLOSERS = "”’」』）)]"
_CJK_TERMINATORS = "。．！？…"


def bad_boundaries(filler: Filler) -> list[tuple[str, str]]:
    """Filler sentence boundaries that cut inside a sentence, by a test independent of the splitter:
    English sentences do not start with a lower-case letter; a closing quotation mark or bracket,
    or an ASCII quote right after a Chinese terminator, belongs to the sentence before it."""
    bad = []
    s = filler.sentences
    for i in range(1, len(s)):
        before, after = s[i - 1], s[i]
        if filler.lang == "en" and after[:1].islower() and re.search(r"[.!?]\s+\Z", before):
            bad.append((before[-30:], after[:30]))
        if filler.lang == "zh" and (after[:1] in _CLOSERS or (after[:1] in "\"'" and before.rstrip()[-1:] in _CJK_TERMINATORS)):
            bad.append((before[-20:], after[:20]))
    return bad


def test_english_filler_is_cut_only_between_sentences(fillers):
    assert bad_boundaries(fillers["en"]) == []


def test_chinese_filler_is_cut_only_between_sentences(fillers):
    assert bad_boundaries(fillers["zh"]) == []


def test_the_splitter_keeps_abbreviations_and_closing_quotes_in_their_sentence():
    """The two cases above on one-line inputs."""
    assert split_sentences("You lose that protection, e.g. at the final whistle. Next one.", line_breaks=False) == [
        "You lose that protection, e.g. at the final whistle. ", "Next one."]
    assert split_sentences("他说：“你好。\xa0”她笑了。", line_breaks=False) == ["他说：“你好。\xa0”", "她笑了。"]
    assert split_sentences('你不成？"宝钗笑道。', line_breaks=False) == ['你不成？"', "宝钗笑道。"]


def needles_inside_sentences(rows: list[dict]) -> list[str]:
    """Ids of rows where the filler right after a needle continues a sentence, by the test of
    :func:`bad_boundaries` (independent of the splitter)."""
    hits = []
    for row in rows:
        text, (_, _, doc_end) = row["input"], split_row(row)
        for n in row["needles"]:
            before = text[: n["char_offset"]]
            at = n["char_offset"] + len(n["text"]) + len(SEPARATOR[row["lang"]])
            after = text[at:doc_end]
            if not after:
                continue
            if row["lang"] == "en" and after[:1].islower() and re.search(r"[.!?]\s+\Z", before):
                hits.append(row["id"])
            if row["lang"] == "zh" and (after[:1] in _CLOSERS or (after[:1] in "\"'" and before.rstrip()[-1:] in _CJK_TERMINATORS)):
                hits.append(row["id"])
    return hits


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_needles_are_inserted_between_whole_sentences(lang, fillers, names, cl100k):
    rows = [r for task in ("s-rt", "m-rt", "m-rs") for r in rows_of(spec_for(task, lang), fillers[lang], cl100k, names)]
    assert needles_inside_sentences(rows) == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_retrieval_keywords_are_never_inside_another_needle(lang, names):
    """Keyword scoring (paper eq. 1, per needle for M-RT) credits a keyword found anywhere in the answer,
    so no keyword may occur in another needle of the same sample. Regression: seed 0, m-rt zh r=1233
    asked for '舍凯' and '舍凯梅', r=2758 for '图哈' and '图哈撒', before retrieval_needles avoided names
    that contain one another."""
    spec = SparseSpec("m-rt", lang)  # type: ignore[arg-type]
    for r in range(1000 if lang == "en" else 3000):
        rng = rng_for(0, "needlebench", f"m-rt-{lang}", f"needles=5/r={r:03d}")
        content = sparse_content(spec, rng, 5, names)
        for i, keyword in enumerate(content.keywords):
            assert keyword in content.needles[i]
            others = [n for j, n in enumerate(content.needles) if j != i]
            assert not any(keyword in n for n in others), (r, keyword, others)
            assert content.query.count(keyword) == 0, (r, keyword)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_token_offset_is_the_needles_first_token(lang, fillers, names, cl100k):
    for task in ("s-rt", "m-rt"):
        for row in rows_of(spec_for(task, lang), fillers[lang], cl100k, names):
            ids, starts = encoded(cl100k, row["input"])
            for n in row["needles"]:
                t, c = n["token_offset"], n["char_offset"]
                decoded = cl100k.decode(ids[t : t + cl100k.count(n["text"]) + 2])
                if not decoded.startswith(row["input"][starts[t] : c] + n["text"]):
                    # The BPE merged the first bytes of the needle's first character into the token
                    # before it (which starts on the previous character); token t is then the first
                    # token starting on the needle, and the rest of the needle follows.
                    assert starts[t] == c and decoded.lstrip("\ufffd").startswith(n["text"][1:]), (row["id"], decoded[:20])
