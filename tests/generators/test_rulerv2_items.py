"""RULERv2's ten item tasks (NIAH easy to hard, multi-doc QA basic to hard) on the real MMLU and HotpotQA slices.

Every property is recomputed from the emitted text and the source files, not from the generator's
internal state: the items are parsed back out of ``input`` by their labels.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from builders.sources.hotpotqa import read_hotpotqa_json
from builders.sources.mmlu import read_mmlu_folder
from generators.budget import JOIN_SLACK
from needlework.errors import BudgetError, SpecError
from generators.rulerv2.items import ITEM_SEP, generate, item_text, prepare_materials
from generators.rulerv2.spec import ITEM_TASKS, ItemTaskSpec, RulerOptions
from generators.rulerv2.templates import ACTUAL_TASK, EXAMPLES_HEADER
from generators.rulerv2.templates import ITEM_TASKS as TEMPLATES

# The paper's wording (RULERv2 Tables 2-4), written out so that an edit of templates.py is caught.
PAPER_QUERIES = {
    "mk_niah_easy": "Please copy the Question {i} from the context.",
    "mk_niah_medium": "Please copy the Question {i} from the context and then solve it with an answer from A, B, C, D.",
    "mk_niah_hard": "Please solve the Question {i} from the context with an answer from A, B, C, D.",
    "mv_niah_easy": "Please copy the Question {i} from the context.",
    "mv_niah_medium": "Please first copy all the Question {i} from the context and then copy the {o} (1 indexed) Question {i} at the end.",
    "mv_niah_hard": "Please copy the {o} (1 indexed) Question {i} from the context.",
    "mdqa_basic": "Text: {t}\nMost relevant document index:",
    "mdqa_easy": "Question: {q}\nIndex of the most relevant document that can help answer the question:",
    "mdqa_medium": "Please first find and copy paste the documents relevant to the following question and then answer it based on the documents you find.\nQuestion: {q}",
    "mdqa_hard": "Please answer the following question based on the documents.\nQuestion: {q}\nAnswer:",
}
PAPER_INTROS = {
    "mk_niah_easy": "Below are some questions. I will ask you to copy one of them. Please copy and paste the question you find.",
    "mk_niah_medium": "Below are some questions. I will ask you to solve one of them. Please solve the question you find and make sure to put the answer (and only answer) inside \\boxed{}.",
    "mv_niah_easy": "Below are some questions. I will ask you to copy some of them. Please copy and paste the questions you find.",
    "mdqa_basic": "Below are some documents. I will give you a text at the end. Please find the document index of the text. Only give me the index without any document contents.",
    "mdqa_hard": "Below are some documents. I will ask you to answer a question based on the documents. Please answer the question.",
}
PAPER_INTROS["mk_niah_hard"] = PAPER_INTROS["mk_niah_medium"]
PAPER_INTROS["mv_niah_medium"] = PAPER_INTROS["mv_niah_hard"] = PAPER_INTROS["mk_niah_easy"]
PAPER_INTROS["mdqa_medium"] = PAPER_INTROS["mdqa_hard"]
PAPER_INTROS["mdqa_easy"] = (
    "Below are some documents. I will give you a question at the end. Please find the index of the most relevant "
    "document that can help answer the question. Only give me the index without any document contents."
)

LENGTHS = (4096, 8192, 16384)
SAMPLES = 3
LABEL = re.compile(r"(?:(?<=\A)|(?<=\n\n))(Question|Document) ([0-9]+): ")


@pytest.fixture(scope="module")
def sources(shared_data):
    mcq = read_mmlu_folder(shared_data / "mmlu")
    hotpot = read_hotpotqa_json(shared_data / "multihop_hipporag" / "hotpotqa_train.json").pool
    return mcq, hotpot


@pytest.fixture(scope="module")
def materials(sources, qwen):
    return prepare_materials(qwen, *sources)


_ROWS: dict = {}


def rows_of(name: str, materials, tokens, seed: int = 0, **options) -> list[dict]:
    options = {"lengths": LENGTHS, "samples": SAMPLES, "golden": True, **options}
    key = (name, tokens.name, seed, tuple(sorted(options.items())))
    if key not in _ROWS:
        spec = ItemTaskSpec(name, RulerOptions(**options))
        _ROWS[key] = list(generate(spec, seed=seed, tokens=tokens, materials=materials))
    return _ROWS[key]


def parse_items(context: str) -> list[tuple[int, str, str]]:
    """(char offset in context, index, text) of every item, from its label to the blank line closing it."""
    starts = [m for m in LABEL.finditer(context)]
    items = []
    for m, nxt in zip(starts, [*starts[1:], None]):
        end = nxt.start() if nxt else len(context)
        body = context[m.end() : end]
        assert body.endswith(ITEM_SEP), body[-40:]
        items.append((m.start(), m.group(2), body[: -len(ITEM_SEP)]))
    return items


def split_prompt(row: dict, name: str) -> tuple[str, str, str]:
    """intro, context (items) and the tail (demonstrations + query) of a row's input."""
    text = row["input"]
    intro = PAPER_INTROS[name] + "\n\n"
    assert text.startswith(intro)
    tail_start = text.find(EXAMPLES_HEADER) if row["shots"] else -1
    if tail_start < 0:
        tail_start = text.rindex(ITEM_SEP, 0, text.index(PAPER_QUERIES[name].split("{")[0].rstrip() or "Text:", len(intro))) + len(ITEM_SEP)
    return intro, text[len(intro) : tail_start], text[tail_start:]


def expected_query(row: dict, name: str) -> str:
    return PAPER_QUERIES[name].format(
        i=row["query"], o=_ordinal(row["order"]) if row["order"] else "", t=row["query"], q=row["query"]
    )


_LARGEST: dict = {}


def _largest_unit(tokens, pool: tuple[str, ...]) -> int:
    key = (tokens.name, len(pool), pool[0])
    if key not in _LARGEST:
        _LARGEST[key] = int(tokens.count_batch([f"Question 1234567: {item_text(t, tokens)}{ITEM_SEP}" for t in pool]).max())
    return _LARGEST[key]


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def check_row(row: dict, name: str, tokens, sources) -> list[tuple[int, str, str]]:
    """Every acceptance property of one row, recomputed from its text; returns its parsed items."""
    mcq, hotpot = sources
    spec = ItemTaskSpec(name)
    domain, level = spec.domain, spec.level
    assert (row["task"], row["level"]) == (domain, level)
    text = row["input"]
    assert row["n_tokens"] == tokens.count(text)

    intro, context, tail = split_prompt(row, name)
    assert tail.endswith(expected_query(row, name))
    items = parse_items(context)
    assert row["n_items"] == len(items)
    indices = [i for _, i, _ in items]
    k = 4 if domain == "mv_niah" else 1
    assert all(len(i) == 7 and i[0] != "0" for i in indices)

    # Indices: unique, except the multi-value key (k times) and demonstration keys (k times each).
    counts = Counter(indices)
    shared = {i for i, c in counts.items() if c > 1}
    if domain == "mv_niah":
        assert counts[row["query"]] == k
    assert all(counts[i] == k for i in shared)
    assert len(shared) == (1 if domain == "mv_niah" else 0) + (row["shots"] if domain == "mv_niah" else 0)

    # Gold items: at their recorded offsets, whole items, in text order.
    offsets = [n["char_offset"] for n in row["needles"]]
    assert offsets == sorted(offsets)
    ids, starts = tokens.encode_with_offsets(text)
    for needle in row["needles"]:
        c = needle["char_offset"]
        assert text[c : c + len(needle["text"])] == needle["text"]
        assert text[c + len(needle["text"]) : c + len(needle["text"]) + 2] == ITEM_SEP
        assert c - len(intro) in {off for off, _, _ in items}
        t = needle["token_offset"]
        assert starts[t] <= c and (t + 1 == len(starts) or starts[t + 1] > c)
        assert 0.0 <= needle["depth_percent"] <= 100.0
    gold = [(i, body) for off, i, body in items if off + len(intro) in set(offsets)]
    assert len(gold) == len(row["needles"])

    # Answers, checked against the sources.
    by_qid = {q.qid: q for q in mcq.questions}
    if domain == "mk_niah":
        (index, body), = gold
        assert index == row["query"]
        question = by_qid[row["needles"][0]["source_id"]]
        assert item_text(question.render(), tokens) == body
        assert row["answers"] == ([body] if level == "easy" else [question.answer])
        assert counts[index] == 1
    elif domain == "mv_niah":
        assert [i for i, _ in gold] == [row["query"]] * k
        bodies = [b for _, b in gold]
        assert len(set(bodies)) == k
        assert bodies == [b for _, i, b in items if i == row["query"]]
        assert row["answers"] == (bodies if level == "easy" else [bodies[row["order"] - 1]])
    else:
        docs = {d.title: d for d in hotpot.documents}
        question = next(q for q in hotpot.questions if q.qid == row["qid"])
        gold_titles = {hotpot.documents[g].title for g in question.gold}
        for (index, body), needle in zip(gold, row["needles"]):
            assert needle["source_id"] in gold_titles
            assert body == item_text(docs[needle["source_id"]].render(), tokens)
        in_context = {body for _, _, body in items}
        assert len(in_context) == len(items), "a document appears twice"
        if level == "basic":
            assert len(gold) == 1 and row["query"] == gold[0][1] and row["answers"] == [gold[0][0]]
        elif level == "easy":
            assert {n["source_id"] for n in row["needles"]} == gold_titles
            assert row["answers"] == [i for i, _ in gold]
        else:
            assert row["answers"] == list(question.answers)
            assert row["query"] == question.question

    # Budget: within the limit and maximal (the next item would not have fitted).
    if row["golden"]:
        assert row["target_tokens"] == 0
        assert len(items) == len(row["needles"]) + (row["shots"] * k if domain != "mdqa" else 0) + (
            len(next(q for q in hotpot.questions if q.qid == row["qid"]).gold) - 1 if name == "mdqa_basic" else 0
        ) or name == "mdqa_basic"
    else:
        limit = row["target_tokens"] - row["generation_reserve"]
        assert row["n_tokens"] <= limit
        # The next item is any of the pool's: the slack is below the largest item plus a join.
        pool = [d.render() for d in hotpot.documents] if domain == "mdqa" else [q.render() for q in mcq.questions]
        largest = _largest_unit(tokens, tuple(pool))
        assert limit - row["n_tokens"] < largest + JOIN_SLACK
    return items


@pytest.mark.parametrize("name", ITEM_TASKS)
def test_rows_meet_acceptance_properties(name, materials, qwen, sources):
    rows = rows_of(name, materials, qwen)
    assert len(rows) == (len(LENGTHS) + 1) * SAMPLES
    assert [r["target_tokens"] for r in rows] == [x for x in (*LENGTHS, 0) for _ in range(SAMPLES)]
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        check_row(row, name, qwen, sources)


@pytest.mark.parametrize("name", ["mk_niah_medium", "mk_niah_hard", "mv_niah_medium", "mv_niah_hard"])
def test_demonstrations_refer_to_items_in_the_context(name, materials, qwen, sources):
    shots = 3
    rows = rows_of(name, materials, qwen, lengths=(8192,), samples=2, shots=shots)
    mcq = sources[0]
    letter_of = {item_text(q.render(), qwen): q.answer for q in mcq.shots}
    for row in rows:
        items = check_row(row, name, qwen, sources)
        assert row["shots"] == shots
        _, _, tail = split_prompt(row, name)
        head, _, query = tail.partition(ACTUAL_TASK)
        assert head.startswith(EXAMPLES_HEADER + "\n\n") and query == expected_query(row, name)
        examples = head[len(EXAMPLES_HEADER) + 2 :].rstrip("\n").split("\n\nPlease ")
        assert len(examples) == shots
        for example in examples:
            index = re.search(r"Question ([0-9]+)", example).group(1)
            assert index != row["query"]
            group = [b for _, i, b in items if i == index]
            assert len(group) == (4 if name.startswith("mv") else 1)
            if name.startswith("mk"):
                assert example.endswith(f"Solution: \\boxed{{{letter_of[group[0]]}}}.")
                assert (f"Question {index}: {group[0]}\n" in example) == name.endswith("medium")
            else:
                nth = int(re.search(r"copy the ([0-9]+)(?:st|nd|rd|th) \(1 indexed\)", example).group(1))
                copies = example.split(" at the end.\n" if name.endswith("medium") else " from the context.\n", 1)[1]
                expected = group + [group[nth - 1]] if name.endswith("medium") else [group[nth - 1]]
                assert copies == "\n".join(f"Question {index}: {b}" for b in expected)


def test_paper_defaults_five_shots_for_multi_key_none_for_multi_value(materials, qwen):
    assert {r["shots"] for r in rows_of("mk_niah_hard", materials, qwen)} == {5}
    assert {r["shots"] for r in rows_of("mk_niah_easy", materials, qwen)} == {0}
    assert {r["shots"] for r in rows_of("mv_niah_hard", materials, qwen)} == {0}
    assert all(EXAMPLES_HEADER not in r["input"] for r in rows_of("mv_niah_hard", materials, qwen))


def test_zero_shots_has_no_demonstration_block(materials, qwen, sources):
    for row in rows_of("mk_niah_hard", materials, qwen, lengths=(4096,), samples=2, shots=0):
        assert EXAMPLES_HEADER not in row["input"] and ACTUAL_TASK not in row["input"]
        check_row(row, "mk_niah_hard", qwen, sources)


def test_more_values_per_key(materials, qwen):
    rows = rows_of("mv_niah_easy", materials, qwen, lengths=(4096,), samples=2, n_values=6)
    for row in rows:
        items = parse_items(split_prompt(row, "mv_niah_easy")[1])
        assert len(row["answers"]) == 6
        assert sum(i == row["query"] for _, i, _ in items) == 6


def test_index_digits_option(materials, qwen):
    for row in rows_of("mdqa_easy", materials, qwen, lengths=(4096,), samples=2, index_digits=12, golden=False):
        items = parse_items(split_prompt(row, "mdqa_easy")[1])
        assert len(items) > 5 and all(len(i) == 12 for _, i, _ in items)


def test_samples_pair_across_lengths_levels_and_golden(materials, qwen):
    """Row i asks about the same gold item at every length, at every level of a domain, and golden
    (at lengths where the gold and demonstrations take at most half the budget)."""
    for domain, levels in (("mk_niah", ("easy", "medium", "hard")), ("mdqa", ("basic", "easy", "medium", "hard"))):
        for i in range(SAMPLES):
            sources = {
                (r["needles"][0]["source_id"] if domain == "mk_niah" else r["qid"])
                for level in levels
                for r in rows_of(f"{domain}_{level}", materials, qwen, lengths=(8192, 16384))
                if r["id"].endswith(f"i={i:04d}")
            }
            assert len(sources) == 1, (domain, i, sources)


def test_golden_rows_hold_no_distractors(materials, qwen):
    for row in rows_of("mdqa_hard", materials, qwen):
        if row["golden"]:
            assert row["n_items"] == len(row["needles"])
            assert row["n_tokens"] < 2048


def test_same_seed_same_rows_other_seed_other_rows(materials, qwen):
    spec = ItemTaskSpec("mv_niah_medium", RulerOptions(lengths=(4096,), samples=2))
    a = list(generate(spec, seed=3, tokens=qwen, materials=materials))
    assert a == list(generate(spec, seed=3, tokens=qwen, materials=materials))
    b = list(generate(spec, seed=4, tokens=qwen, materials=materials))
    assert [r["id"] for r in a] == [r["id"] for r in b]
    assert all(x["input"] != y["input"] for x, y in zip(a, b))


def test_rows_do_not_depend_on_other_lengths(materials, qwen):
    alone = rows_of("mdqa_medium", materials, qwen, lengths=(8192,), samples=2, golden=False)
    together = rows_of("mdqa_medium", materials, qwen, lengths=(4096, 8192), samples=2, golden=False)
    assert alone == together[2:]


def test_cl100k_rows_meet_budget(materials, sources, cl100k):
    cl_materials = prepare_materials(cl100k, *sources)
    for name in ("mk_niah_medium", "mdqa_easy"):
        for row in rows_of(name, cl_materials, cl100k, lengths=(4096,), samples=2, golden=False):
            check_row(row, name, cl100k, sources)


def test_a_pool_too_small_for_the_length_is_a_clear_error(materials, qwen):
    spec = ItemTaskSpec("mk_niah_easy", RulerOptions(lengths=(112_640,), samples=1))
    with pytest.raises(BudgetError, match=r"mk_niah_easy: the mmlu pool has too few distinct items \(1,160\)"):
        list(generate(spec, seed=0, tokens=qwen, materials=materials))


def test_spec_validation():
    with pytest.raises(SpecError, match="shots must be an integer from 0 to 16"):
        RulerOptions(shots=17)
    with pytest.raises(SpecError, match="n_values applies to mv_niah only"):
        ItemTaskSpec("mk_niah_easy", RulerOptions(n_values=3))
    with pytest.raises(SpecError, match="task must be one of"):
        ItemTaskSpec("mk_niah_basic")
    assert ItemTaskSpec("mdqa_hard", RulerOptions(shots=3)).shots == 0


def test_templates_are_the_papers():
    for name in ITEM_TASKS:
        assert TEMPLATES[name].intro == PAPER_INTROS[name]
    assert np.all([t.item.endswith(": {text}") for t in TEMPLATES.values()])
