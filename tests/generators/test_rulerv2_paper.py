"""RULERv2 ``paper`` preset: the official data setup of NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2``.

Every test cites the official file it pins. The official scripts are run by ``prepare_data.py`` with
these per-task arguments: ``prepare_niah.py --num_needle_v 4`` (mv_niah_basic); ``prepare_mmlu.py
--num_order 4`` with ``--task_type niah`` (mv_niah_easy) or ``retrieve`` (medium ``2steps``, hard
``single``); ``prepare_mmlu.py --fewshot 5 --task_type solve`` (mk_niah medium/hard); ``prepare_qa.py``
for multi-doc QA; all with ``--prompt_type instruct``. The shared MMLU slice has no ``auxiliary_train``;
its ``dev/`` split stands in for it, and the HotpotQA train slice stands in for validation.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from itertools import pairwise

import pytest

from builders.rulerv2 import load_key_words
from builders.sources.hotpotqa import HotpotRead, read_hotpotqa_json
from builders.sources.mmlu import read_mcq_distractors, read_mmlu_folder
from builders.sources.rulerv2 import Resolved, with_docqa_filler
from generators.rulerv2.items import generate, paper_question_text, prepare_materials
from generators.rulerv2.niah_basic import generate as generate_basic
from generators.rulerv2.pools import DocQaPool, DocQuestion, Document, Mcq
from generators.rulerv2.spec import (
    DEFAULT_RESERVES,
    ItemTaskSpec,
    NiahBasicSpec,
    RulerOptions,
)
from generators.rulerv2.templates import ITEM_TASKS, PAPER_ACTUAL_TASK, PAPER_ITEM_TASKS
from needlework.errors import SpecError

LENGTHS = (4096, 8192)
SAMPLES = 3
LABEL = re.compile(r"(?:(?<=\A)|(?<=\n\n))(Question|Document) ([0-9]+):[ \n]")
LINE = re.compile(r"One of the special magic numbers for (?P<key>[^\s]+) is: (?P<value>[0-9]+)\.")


def paper(**options) -> RulerOptions:
    return RulerOptions(**{"lengths": LENGTHS, "samples": SAMPLES, "preset": "paper", **options})


@pytest.fixture(scope="module")
def mcq(shared_data):
    """MMLU test as gold; MMLU dev standing in for auxiliary_train (prepare_mmlu.py's haystack)."""
    pool = read_mmlu_folder(shared_data / "mmlu")
    return replace(pool, distractors=read_mcq_distractors(shared_data / "mmlu" / "dev"))


@pytest.fixture(scope="module")
def hotpot(shared_data):
    """The HotpotQA train slice as questions (standing in for validation) and as filler (train)."""
    path = shared_data / "multihop_hipporag" / "hotpotqa_train.json"
    read = read_hotpotqa_json(path)
    return with_docqa_filler(Resolved(read.pool, {}), str(path)).pool


@pytest.fixture(scope="module")
def materials(mcq, hotpot, qwen):
    return prepare_materials(qwen, mcq, hotpot, "paper")


_ROWS: dict = {}


def rows_of(name: str, materials, tokens, **options) -> list[dict]:
    key = (name, tokens.name, tuple(sorted(options.items())))
    if key not in _ROWS:
        _ROWS[key] = list(generate(ItemTaskSpec(name, paper(**options)), seed=0, tokens=tokens, materials=materials))
    return _ROWS[key]


def items_of(row: dict) -> list[tuple[str, str]]:
    """(index, body) of every item of a row's context, in text order."""
    text = row["input"]
    matches = list(LABEL.finditer(text))
    items = []
    for m, nxt in zip(matches, matches[1:] + [None]):
        end = nxt.start() if nxt else text.index("\n\n", m.end())
        items.append((m.group(2), text[m.end() : end].rstrip("\n")))
    return items


# --- Templates, word for word -------------------------------------------------------------------


def test_paper_templates_are_the_official_prompts():
    """prepare_mmlu.py and prepare_qa.py (``--prompt_type instruct``), written out here."""
    t = PAPER_ITEM_TASKS
    # prepare_mmlu.py solve CONTEXT_PROMPT "...inside \\boxed\\{{\\}}.", after str.format.
    assert t["mk_niah_medium"].intro.endswith("put the answer (and only answer) inside \\boxed\\{\\}.")
    assert t["mk_niah_medium"].query == (
        "Please copy the Question {index} from the context and then solve it with an answer from A, B, C, D.")
    # 2steps example: PROBLEM + "\nQuestion {i}: {question}\nSolution:{solution}", solution " \\boxed{X}".
    assert t["mk_niah_medium"].example.format(index="1234567", copies="Question 1234567: Q?", answer="B") == (
        "Please copy the Question 1234567 from the context and then solve it with an answer from A, B, C, D.\n"
        "Question 1234567: Q?\nSolution: \\boxed{B}")
    assert t["mk_niah_hard"].example.format(index="7654321", answer="C") == (
        "Please solve the Question 7654321 from the context with an answer from A, B, C, D.\nSolution: \\boxed{C}")
    assert PAPER_ACTUAL_TASK == "Here is the actual task you need to solve:\n\n"
    # --task_type niah: "find and copy all", not Table 3's "copy".
    assert t["mv_niah_easy"].query == "Please find and copy all the Question {index} from the context."
    assert ITEM_TASKS["mv_niah_easy"].query == "Please copy the Question {index} from the context."
    assert t["mv_niah_medium"].query.format(index="1", order="2nd") == (
        "Please first copy all the Question 1 from the context and then copy the 2nd (1 indexed) Question 1 at the end.")
    assert t["mv_niah_hard"].query.format(index="1", order="3rd") == "Please copy the 3rd (1 indexed) Question 1 from the context."
    # prepare_qa.py: NEEDLE_PROMPT "Document {i}:\n{text}"; solve problems "\n\nQuestion: {question}", no "Answer:".
    for name in ("mdqa_basic", "mdqa_easy", "mdqa_medium", "mdqa_hard"):
        assert t[name].item == "Document {index}:\n{text}"
    assert t["mdqa_hard"].query == "Please answer the following question based on the documents.\n\nQuestion: {question}"
    assert t["mdqa_hard"].answer_prefix == "" and t["mdqa_medium"].answer_prefix == ""
    assert t["mdqa_medium"].query.endswith("based on the documents you find.\n\nQuestion: {question}")


def test_official_text_keeps_edge_spaces_as_prepare_mmlu_does():
    """prepare_mmlu.py: ``d["question"] + f"\\nA. {choices[0]}..."``, then ``re.sub(r"\\s+", " ", ...)``: a stem's
    leading space and the last choice's trailing space stay as one space; inner runs become one space."""
    mcq = Mcq("q", "  What is it?\n", ("a ", " b", "c\r\n", "d  "), "A")
    assert mcq.official_text() == " What is it? A. a B. b C. c D. d "
    assert mcq.render() == "What is it?\nA. a\nB. b\nC. c\nD. d"  # needlework's own setup strips


def test_paper_question_text_collapses_whitespace():
    """prepare_mmlu.py: ``item["Question"] = re.sub(r'\\s+', ' ', item["Question"])`` after appending the choices."""
    assert paper_question_text("What?\nA. x\nB.  y\r\nC. z\nD. w") == "What? A. x B. y C. z D. w"


# --- Multi-value: every key and index 4 times, distractors included ------------------------------


def test_mv_niah_basic_paper_repeats_every_distractor_key_four_times(qwen):
    """prepare_niah.py with ``--num_needle_v 4``: ``haystack_keys = ([keys of ceil(n/4)]) * 4)[:n]``, shuffled."""
    words = load_key_words()[0]
    spec = NiahBasicSpec("mv_niah", paper())
    for row in generate_basic(spec, seed=0, tokens=qwen, words=words):
        keys = Counter(m.group("key") for m in LINE.finditer(row["input"]))
        assert keys[row["query"]] == 4
        others = [c for k, c in keys.items() if k != row["query"]]
        assert max(others) == 4
        # Only the budget's edge may cut a group (the official list is truncated too).
        assert sum(c < 4 for c in others) <= max(3, len(others) // 20)
        assert row["generation_reserve"] == 0 and row["n_tokens"] <= row["target_tokens"]
        # Lines of one key are scattered, not adjacent.
        lines = [m.group("key") for m in LINE.finditer(row["input"])]
        assert sum(a == b for a, b in pairwise(lines)) < len(lines) // 10


def test_mv_niah_basic_default_keeps_distractor_keys_unique(qwen):
    """The default preset is unchanged: one line per distractor key."""
    words = load_key_words()[0]
    spec = NiahBasicSpec("mv_niah", RulerOptions(lengths=(4096,), samples=2))
    for row in generate_basic(spec, seed=0, tokens=qwen, words=words):
        keys = Counter(m.group("key") for m in LINE.finditer(row["input"]))
        assert keys[row["query"]] == 4
        assert {c for k, c in keys.items() if k != row["query"]} == {1}


@pytest.mark.parametrize("name", ["mv_niah_easy", "mv_niah_medium", "mv_niah_hard"])
def test_mv_niah_paper_indices_repeat_four_times(name, materials, mcq, qwen):
    """prepare_mmlu.py ``--num_order 4``: ``random_numbers * num_order`` shuffled and cut to the context, so
    every index (the gold's and the distractors') is shared by 4 questions; one test question is the
    needle, its companions come from the haystack (auxiliary_train); the easy answer is every question
    under the index, medium/hard ask for the gold's rank among them (``convert.ordinal(counts[...])``)."""
    test_texts = {q.official_text() for q in mcq.questions}
    pool_texts = {q.official_text() for q in mcq.distractors}
    for row in rows_of(name, materials, qwen):
        items = items_of(row)
        counts = Counter(i for i, _ in items)
        assert counts[row["query"]] == 4
        others = [c for i, c in counts.items() if i != row["query"]]
        assert max(others) == 4 and sum(c < 4 for c in others) <= 1
        under = [b for i, b in items if i == row["query"]]
        gold = [b for b in under if b in test_texts]
        assert len(gold) == 1 and all(b in pool_texts for b in under if b != gold[0])
        assert all(b in pool_texts for i, b in items if i != row["query"])
        text = row["input"]
        if name == "mv_niah_easy":
            assert row["answers"] == under
            assert text.endswith(f"\n\nPlease find and copy all the Question {row['query']} from the context.")
        else:
            assert row["order"] == under.index(gold[0]) + 1
            assert row["answers"] == gold
            ordinal = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}[row["order"]]
            assert f"the {ordinal} (1 indexed) Question {row['query']}" in text.rsplit("\n\n", 1)[1]


# --- Sources and demonstrations ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["mk_niah_easy", "mk_niah_medium", "mk_niah_hard"])
def test_mk_niah_paper_gold_from_test_distractors_and_shots_from_haystack(name, materials, mcq, qwen):
    """prepare_mmlu.py: ``needle`` is MMLU test, ``haystack`` auxiliary_train; ``examples =
    random.sample(curr_context, fewshot)`` are context questions, shown after
    "Here are some examples to help you understand the task:\\n\\n" and before
    "\\n\\nHere is the actual task you need to solve:\\n\\n"."""
    by_text = {q.official_text(): q for q in mcq.questions}
    pool = {q.official_text(): q for q in mcq.distractors}
    for row in rows_of(name, materials, qwen):
        items = items_of(row)
        assert len({i for i, _ in items}) == len(items)
        gold = [b for i, b in items if i == row["query"]]
        assert len(gold) == 1 and gold[0] in by_text
        assert all(b in pool for i, b in items if i != row["query"])
        if name == "mk_niah_easy":
            assert row["shots"] == 0 and "Here are some examples" not in row["input"]
            continue
        assert row["shots"] == 5 and row["answers"] == [by_text[gold[0]].answer]
        head, task = row["input"].split("\n\nHere is the actual task you need to solve:\n\n")
        examples = head.split("Here are some examples to help you understand the task:\n\n")[1].split("\n\n")
        assert len(examples) == 5
        context = dict(items)
        for example in examples:
            index = re.search(r"Question ([0-9]{7}) from the context", example).group(1)
            assert example.endswith(f"Solution: \\boxed{{{pool[context[index]].answer}}}")
            if name == "mk_niah_medium":
                assert f"\nQuestion {index}: {context[index]}\n" in example
        assert task == PAPER_ITEM_TASKS[name].query.format(index=row["query"])


def test_mdqa_paper_fills_from_train_paragraphs_and_asks_questions_in_file_order(materials, hotpot, qwen):
    """prepare_qa.py: questions are the first ``--num_samples`` of validation, in order; the context is
    the gold and own distractor paragraphs plus paragraphs sampled from train; ``--query_type doc``
    quotes ``curr_needle["context"][0]``, the first supporting paragraph in context order."""
    filler = {hotpot.documents[i].title for i in hotpot.filler}
    for name in ("mdqa_basic", "mdqa_easy", "mdqa_medium", "mdqa_hard"):
        rows = rows_of(name, materials, qwen)
        for i, row in enumerate(rows):
            question = hotpot.questions[i % SAMPLES]
            assert row["qid"] == question.qid
            own = {hotpot.documents[d].title for d in (*question.gold, *question.distractors)}
            titles = [body.split("\n", 1)[0] for _, body in items_of(row)]
            assert all(t in own or t in filler for t in titles)
            assert "\nDocument " in row["input"] and re.search(r"Document [0-9]{7}:\n", row["input"])
            if name == "mdqa_basic":
                first = hotpot.documents[question.first_gold()]
                assert row["query"].split("\n", 1)[0] == first.title
            if name == "mdqa_hard":
                assert row["input"].endswith(f"based on the documents.\n\nQuestion: {question.question}")
                assert row["answer_prefix"] == ""


def test_paper_prompts_keep_the_edge_spaces_the_official_scripts_keep(materials, mcq, hotpot, qwen):
    """prepare_mmlu.py collapses a question's whitespace runs to one space without stripping, and prepare_qa.py
    puts a HotpotQA question in the prompt as the dataset gives it: 88 of the slice's 1,160 MMLU questions and 5
    of its 50 HotpotQA questions have a space at an edge, and it stays."""
    edged = [q for q in mcq.questions if q.official_text() != q.official_text().strip()]
    assert len(edged) == 88
    texts = set(materials.questions.texts)
    assert all(q.official_text() in texts for q in edged)
    first = next(i for i, q in enumerate(hotpot.questions) if q.question != q.question.strip())
    row = rows_of("mdqa_hard", materials, qwen, samples=first + 1)[first]
    assert row["input"].endswith(f"\n\nQuestion: {hotpot.questions[first].question}")
    assert hotpot.questions[first].question.endswith(" ")


def test_docqa_filler_keeps_the_pool_and_marks_train_paragraphs(monkeypatch, tmp_path):
    """with_docqa_filler appends the train paragraphs (unique by title) and only they fill at random
    (prepare_qa.py's ``haystack`` is every train paragraph, de-duplicated)."""
    import builders.sources.rulerv2 as sources

    pool = DocQaPool("h", (Document("A", "a"), Document("B", "b")), (DocQuestion("q", "?", ("x",), (0,), (1,)),))
    train = DocQaPool("t", (Document("B", "b"), Document("C", "c")), (DocQuestion("r", "?", ("y",), (0,)),))
    monkeypatch.setattr(sources, "read_hotpotqa_json", lambda path: HotpotRead(train, ()))
    (tmp_path / "train.json").write_text("[]", encoding="utf-8")
    out = with_docqa_filler(Resolved(pool, {}), str(tmp_path / "train.json"))
    assert [d.title for d in out.pool.documents] == ["A", "B", "C"]
    assert out.pool.filler == (1, 2)
    assert str(tmp_path / "train.json") in out.fingerprints


# --- Budget ------------------------------------------------------------------------------------


def test_paper_prompts_fill_the_whole_length(materials, qwen):
    """prepare_{niah,mmlu,qa}.py keep the largest haystack with ``length <= max_seq_length``: no answer
    reserve, where the default preset keeps up to 2048 of 8192 tokens (25 %) for mv_niah_easy."""
    assert DEFAULT_RESERVES["mv_niah_easy"] == 2048
    assert ItemTaskSpec("mv_niah_easy", paper()).options.generation_reserve == 0
    assert ItemTaskSpec("mv_niah_easy", paper(generation_reserve=64)).options.generation_reserve == 64
    for name in ("mv_niah_easy", "mk_niah_hard", "mdqa_medium"):
        for row in rows_of(name, materials, qwen):
            assert row["generation_reserve"] == 0
            assert row["n_tokens"] <= row["target_tokens"]
            assert row["n_tokens"] > row["target_tokens"] * 0.9


def test_preset_is_validated():
    with pytest.raises(SpecError, match="preset"):
        RulerOptions(preset="official")
