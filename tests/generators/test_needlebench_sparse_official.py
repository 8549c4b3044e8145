"""S-RT, M-RT and M-RS in OpenCompass NeedleBench v2's official words (``SparseSpec(style="official")``).

Source of truth (open-compass/opencompass, read, not copied): the ``_generate_prompt`` texts of
``opencompass/datasets/needlebench_v2/origin.py`` (S-RT), ``parallel.py`` (M-RT: questions joined by ``、``,
``Please answer in the format of '...'`` / ``请按照'...'的格式回答。``) and ``multi.py`` (M-RS: the examples and
notes after the question; ``diff = 10``: each needle 10 % of the filler, plus the previous needle's tokens,
after the previous one); every needle inserted as ``'\\n' + needle + '\\n'``; ``quesiton_position`` ``End`` and
``Start``; M-RS link sentences from atc.py's ``relationship_templates_*``.
"""

from __future__ import annotations

import re
from itertools import pairwise

import numpy as np
import pytest

from builders.sources.filler import read_filler
from builders.sources.person_names import faker_person_names
from generators.needlebench.filler import Filler
from generators.needlebench.official_sparse import MRS_LINKS, OFFICIAL_SPARSE_PROMPTS
from generators.needlebench.sparse import generate_sparse
from generators.needlebench.spec import SparseSpec
from needlework.errors import SpecError

DEPTHS = tuple(float(d) for d in range(0, 101, 10))
EN_END_HEAD = ("This is a test of long-text capability. You need to first read the long document below, and then answer the "
               "final question based on the information in the document.\nThe content of the long document is as follows\n\n"
               "<Document>\n")


@pytest.fixture(scope="module")
def names():
    return faker_person_names()[0]


@pytest.fixture(scope="module")
def fillers(shared_data, cl100k):
    out = {}
    for lang, folder in (("en", "paul_graham_essays"), ("zh", "zh_prose")):
        read = read_filler(str(shared_data / folder), lang)
        out[lang] = Filler.from_documents(read.documents, source=read.label, lang=lang, tokens=cl100k)
    return out


def rows_of(spec, fillers, names, cl100k, seed=0):
    return list(generate_sparse(spec, seed=seed, tokens=cl100k, filler=fillers[spec.lang], names=names))


def test_official_prompt_texts():
    """Spot the official wording: origin.py End (en), parallel.py End (zh), multi.py End (en) note 3, Start (en)."""
    assert OFFICIAL_SPARSE_PROMPTS["s-rt"]["en"]["end"] == (
        EN_END_HEAD + "{context}\n</Document>\n\nBased on the information in the document, now please answer: {retrieval_question}\n")
    assert OFFICIAL_SPARSE_PROMPTS["m-rt"]["zh"]["end"] == (
        "这是一个长文本能力的测试，你需要首先阅读下面的长文档，然后根据文档中的信息，依次回答最后的问题。\n长文档的内容如下\n\n<文档>\n"
        "{context}\n</文档>\n\n根据文档中的信息，现在请问：{retrieval_question}\n")
    assert OFFICIAL_SPARSE_PROMPTS["m-rs"]["en"]["end"].endswith(
        "3. At the end of your response, remember to put your final answer within \\boxed{{}}. For example: \"So the oldest "
        "relative '{last_person}' can trace back to in the provided text is \\boxed{{(your answer here)}}.\"\n\n")
    assert OFFICIAL_SPARSE_PROMPTS["s-rt"]["en"]["start"].startswith(
        "This is a test of long-text capability. You need to first read the question below, and then answer it based on the "
        "information in the long document that follows.\nNow please answer: {retrieval_question}\n\n")
    assert "{younger}'s upbringing, {elder} was not only {younger}'s {role}, but also {younger}'s guardian." in MRS_LINKS["en"][4]


def test_s_rt_official_row(fillers, names, cl100k):
    """origin.py: the End prompt around the document, the needle on its own line, the question with its quoted format."""
    spec = SparseSpec("s-rt", "en", lengths=(4000,), depths=(50.0,), repeats=1, buffer=3000, budget_rule="context",
                      style="official")
    (row,) = rows_of(spec, fillers, names, cl100k)
    assert row["input"].startswith(EN_END_HEAD)
    needle = row["needles"][0]["text"]
    assert f"\n{needle}\n" in row["input"]
    question = row["input"].rsplit("Based on the information in the document, now please answer: ", 1)[1]
    assert question == row["query"] + "\n"
    assert re.fullmatch(r"[^?]+\? Please answer in the format '[^']+______\.'", row["query"])


def test_m_rt_official_row_zh(fillers, names, cl100k):
    """parallel.py: one needle per depth, questions joined by 、, formats quoted and joined by 、."""
    spec = SparseSpec("m-rt", "zh", lengths=(8000,), depths=DEPTHS, repeats=1, needle_counts=(11,), buffer=200,
                      budget_rule="context", layout="per-depth", style="official")
    (row,) = rows_of(spec, fillers, names, cl100k)
    query = row["query"]
    assert query.count("？、") == 10 and query.endswith("'的格式回答。") and "请按照'" in query
    assert row["input"].endswith(f"</文档>\n\n根据文档中的信息，现在请问：{query}\n")
    assert [n["requested_depth"] for n in row["needles"]] == list(DEPTHS)


def test_m_rs_official_diff_layout(fillers, names, cl100k):
    """multi.py: needles 10 % of the filler apart from the row's depth (``diff = 10``) plus the previous needle's
    tokens (multi.py counts them as filler; about half a point each at 8K), capped at the end; the answer is the
    eldest."""
    spec = SparseSpec("m-rs", "en", lengths=(8000,), depths=(30.0, 80.0), repeats=1, needle_counts=(5,), buffer=3000,
                      budget_rule="context", layout="diff", style="official")
    rows = rows_of(spec, fillers, names, cl100k)
    first, second = ([n["requested_depth"] for n in row["needles"]] for row in rows)
    assert first[0] == 30.0 and all(10.0 < b - a < 11.0 for a, b in pairwise(first)), first
    assert second[0] == 80.0 and 90.0 < second[1] < 91.0 and second[2:] == [100.0, 100.0, 100.0], second
    for row in rows:
        assert row["query"] == ("Given the context described above, who is the eldest relative that "
                                f"'{row['query'].split(chr(39))[1]}' can trace back to in the context?")
        youngest = row["query"].split("'")[1]
        assert f"For example: \"So the oldest relative '{youngest}' can trace back to in the provided text is" in row["input"]
        for needle in row["needles"]:
            assert f"\n{needle['text']}\n" in row["input"]
        assert row["answers"][0] not in (youngest,)


def test_question_first_position(fillers, names, cl100k):
    """origin.py ``quesiton_position='Start'``: the question before the document, nothing after it."""
    spec = SparseSpec("s-rt", "zh", lengths=(2000,), depths=(50.0,), repeats=1, buffer=200, budget_rule="context",
                      style="official", question_position="start")
    (row,) = rows_of(spec, fillers, names, cl100k)
    assert row["input"].startswith("这是一个长文本能力的测试，你需要首先阅读下面的问题，然后根据最后长文档中的信息回答下面的问题。\n现在请问："
                                   + row["query"] + "\n\n长文档内容的如下\n\n<文档>\n")
    assert row["input"].endswith("\n</文档>\n\n")
    with pytest.raises(SpecError, match="official"):
        SparseSpec("s-rt", "zh", question_position="start")


def test_official_style_is_deterministic(fillers, names, cl100k):
    spec = SparseSpec("m-rs", "zh", lengths=(2000,), depths=(0.0,), repeats=2, needle_counts=(3,), style="official",
                      layout="diff")
    a = rows_of(spec, fillers, names, cl100k, seed=3)
    assert a == rows_of(spec, fillers, names, cl100k, seed=3)
    assert [r["input"] for r in a] != [r["input"] for r in rows_of(spec, fillers, names, cl100k, seed=4)]


def test_official_haystacks_begin_at_a_record_start(fillers, names, cl100k):
    """origin.py concatenates its shuffled records from the first one's start: the official style's document
    begins with an essay's first sentence; needlework's own style may begin anywhere in one."""
    essays = fillers["en"]
    firsts = {essays.sentences[i] for i in essays.document_starts}
    assert len(essays.document_starts) > 1 and essays.document_starts[0] == 0
    spec = SparseSpec("s-rt", "en", lengths=(4000,), depths=(100.0,), repeats=12, buffer=3000, budget_rule="context",
                      style="official")
    documents = [row["input"].split("<Document>\n", 1)[1] for row in rows_of(spec, fillers, names, cl100k)]
    assert all(any(text.startswith(first) for first in firsts) for text in documents)
    rng = np.random.default_rng(0)
    assert {essays.random_start(rng, at_document=True) for _ in range(200)} <= set(essays.document_starts)
    assert not {essays.random_start(rng, at_document=False) for _ in range(200)} <= set(essays.document_starts)
