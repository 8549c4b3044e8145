"""RULERv2 multi-key and multi-value NIAH (basic): acceptance properties of every generated row."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from builders.rulerv2 import load_key_words
from generators.budget import JOIN_SLACK
from needlework.errors import SpecError
from generators.rulerv2.niah_basic import KeyWords, generate
from generators.rulerv2.spec import NiahBasicSpec, RulerOptions

# The paper's templates (RULERv2, Table 2 multi-key and Table 3 multi-value, basic level), written
# out here so that an edit of generators/rulerv2/templates.py is caught.
PAPER = {
    "mk_niah": {
        "intro": (
            "A special magic number is hidden within the following text. Make sure to memorize it. "
            "I will quiz you about the number afterwards."
        ),
        "question": "What is the special magic number for {key} mentioned in the provided text?",
        "answer_prefix": " The special magic number for {key} mentioned in the provided text is",
    },
    "mv_niah": {
        "intro": (
            "Some special magic numbers are hidden within the following text. Make sure to memorize them. "
            "I will quiz you about the numbers afterwards."
        ),
        "question": "What are all the special magic numbers for {key} mentioned in the provided text?",
        "answer_prefix": " The special magic numbers for {key} mentioned in the provided text are",
    },
}
LINE = re.compile(r"One of the special magic numbers for (?P<key>[^\s]+) is: (?P<value>[0-9]+)\.")

LENGTHS = (1024, 2048, 4096)
SAMPLES = 3


@pytest.fixture(scope="module")
def words() -> KeyWords:
    return load_key_words()[0]


_CACHE: dict = {}


def rows_for(spec: NiahBasicSpec, tokens, words, seed: int = 0) -> list[dict]:
    key = (spec, tokens.name, seed)
    if key not in _CACHE:
        _CACHE[key] = list(generate(spec, seed=seed, tokens=tokens, words=words))
    return _CACHE[key]


def check_row(row: dict, spec: NiahBasicSpec, tokens) -> None:
    """Every acceptance property of one row, recomputed from the row's text."""
    text = row["input"]
    paper = PAPER[spec.task]
    query = row["query"]
    k = spec.values_per_key

    # Metadata.
    assert row["task"] == spec.task and row["level"] == "basic"
    assert row["target_tokens"] in spec.options.lengths
    assert row["generation_reserve"] == spec.options.generation_reserve
    assert row["tokenizer"] == tokens.name
    assert re.fullmatch(rf"rulerv2/{spec.task}_basic/len={row['target_tokens']}/i=\d{{4}}", row["id"])

    # Budget: exact count, within the limit, slack below one more line plus JOIN_SLACK.
    limit = row["target_tokens"] - row["generation_reserve"]
    assert row["n_tokens"] == tokens.count(text)
    assert row["n_tokens"] <= limit

    # Prompt = intro + newline + needle lines + question + answer prefix (the paper's text).
    head = paper["intro"] + "\n"
    tail = paper["question"].format(key=query) + paper["answer_prefix"].format(key=query)
    assert text.startswith(head)
    assert text.endswith(tail)
    assert row["answer_prefix"] == paper["answer_prefix"].format(key=query)
    context = text[len(head) : len(text) - len(tail)]
    assert context.endswith("\n")
    lines = context[:-1].split("\n")
    parsed = [LINE.fullmatch(line) for line in lines]
    assert all(parsed), [line for line, m in zip(lines, parsed) if not m][:3]
    assert row["n_items"] == len(lines)

    line_tokens = tokens.count_batch([line + "\n" for line in lines])
    assert limit - row["n_tokens"] < int(line_tokens.max()) + JOIN_SLACK

    # Keys and values: the queried key owns exactly k lines, every other key exactly one.
    if spec.options.key_kind == "words":
        key_pattern = rf"[a-z]+(?:-[a-z]+){{{spec.options.key_length - 1}}}"
    else:
        key_pattern = rf"[1-9][0-9]{{{spec.options.key_length - 1}}}"
    value_pattern = rf"[1-9][0-9]{{{spec.options.value_digits - 1}}}"
    keys = [m["key"] for m in parsed]
    values = [m["value"] for m in parsed]
    assert all(re.fullmatch(key_pattern, key) for key in keys)
    assert all(re.fullmatch(value_pattern, v) for v in values)
    per_key = Counter(keys)
    assert per_key[query] == k
    assert all(count == 1 for key, count in per_key.items() if key != query)
    assert len(set(values)) == len(values)
    assert row["answers"] == [m["value"] for m in parsed if m["key"] == query]

    # Needles: whole lines at their recorded offsets, in text order, carrying the answers.
    needles = row["needles"]
    assert len(needles) == k
    assert [n["char_offset"] for n in needles] == sorted(n["char_offset"] for n in needles)
    ids, starts = tokens.encode_with_offsets(text)
    assert len(ids) == row["n_tokens"]

    def token_at(char: int) -> int:
        return int(np.searchsorted(starts, char, side="right")) - 1

    t0, t1 = token_at(len(head)), token_at(len(text) - len(tail))
    for needle, answer in zip(needles, row["answers"]):
        c = needle["char_offset"]
        assert needle["text"] == f"One of the special magic numbers for {query} is: {answer}."
        assert text[c : c + len(needle["text"])] == needle["text"]
        assert text[c - 1] == "\n" and text[c + len(needle["text"])] == "\n"
        t = needle["token_offset"]
        assert starts[t] <= c and (t + 1 == len(starts) or starts[t + 1] > c)
        assert 0.0 <= needle["depth_percent"] <= 100.0
        assert needle["depth_percent"] == pytest.approx(100.0 * (t - t0) / (t1 - t0), abs=1e-3)


SPECS = {
    "mk": NiahBasicSpec("mk_niah", RulerOptions(lengths=LENGTHS, samples=SAMPLES)),
    "mv": NiahBasicSpec("mv_niah", RulerOptions(lengths=LENGTHS, samples=SAMPLES)),
    "mk-digit-keys": NiahBasicSpec("mk_niah", RulerOptions(lengths=(1024, 2048), samples=2, key_kind="digits", key_length=12)),
    "mv-digit-keys": NiahBasicSpec("mv_niah", RulerOptions(lengths=(2048,), samples=2, key_kind="digits", key_length=12)),
    "mv-6-values": NiahBasicSpec("mv_niah", RulerOptions(lengths=(1024, 4096), samples=2, n_values=6)),
    "mk-3-word-keys": NiahBasicSpec("mk_niah", RulerOptions(lengths=(2048,), samples=2, key_length=3, value_digits=7)),
    "mv-1-word-keys-reserve": NiahBasicSpec("mv_niah", RulerOptions(lengths=(2048,), samples=2, key_length=1, generation_reserve=1000)),
}


@pytest.mark.parametrize("name", list(SPECS))
def test_rows_meet_acceptance_properties(name, qwen, words):
    spec = SPECS[name]
    rows = rows_for(spec, qwen, words)
    assert len(rows) == len(spec.options.lengths) * spec.options.samples
    assert [r["target_tokens"] for r in rows] == [x for x in spec.options.lengths for _ in range(spec.options.samples)]
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        check_row(row, spec, qwen)


def test_mv_niah_with_six_values(qwen, words):
    rows = rows_for(SPECS["mv-6-values"], qwen, words)
    assert all(len(r["answers"]) == 6 and len(r["needles"]) == 6 for r in rows)


def test_default_mv_niah_has_four_values(qwen, words):
    assert all(len(r["answers"]) == 4 for r in rows_for(SPECS["mv"], qwen, words))
    assert all(len(r["answers"]) == 1 for r in rows_for(SPECS["mk"], qwen, words))


def test_digit_keys(qwen, words):
    rows = rows_for(SPECS["mk-digit-keys"], qwen, words)
    assert all(re.fullmatch(r"[1-9][0-9]{11}", r["query"]) for r in rows)


def test_rows_fill_most_of_the_budget(qwen, words):
    # Lines are ~25 tokens: a row that used far less of its budget would still pass check_row only
    # if the slack bound were broken, but assert the order of magnitude directly as well.
    for row in rows_for(SPECS["mk"], qwen, words):
        limit = row["target_tokens"] - row["generation_reserve"]
        assert row["n_tokens"] > limit - 40
        assert row["n_items"] > (limit - 60) // 30


@pytest.mark.parametrize("task", ["mk_niah", "mv_niah"])
def test_cl100k_rows_meet_budget_properties(task, cl100k, words):
    spec = NiahBasicSpec(task, RulerOptions(lengths=(2048,), samples=3))
    rows = rows_for(spec, cl100k, words)
    assert len(rows) == 3
    for row in rows:
        check_row(row, spec, cl100k)


# --- Determinism -------------------------------------------------------------------------------


def test_same_seed_gives_identical_rows(qwen, words):
    spec = NiahBasicSpec("mv_niah", RulerOptions(lengths=(1024, 2048), samples=2))
    assert list(generate(spec, seed=5, tokens=qwen, words=words)) == list(generate(spec, seed=5, tokens=qwen, words=words))


def test_different_seed_gives_different_rows(qwen, words):
    spec = NiahBasicSpec("mk_niah", RulerOptions(lengths=(1024, 2048), samples=3))
    a = list(generate(spec, seed=1, tokens=qwen, words=words))
    b = list(generate(spec, seed=2, tokens=qwen, words=words))
    assert [r["id"] for r in a] == [r["id"] for r in b]
    for x, y in zip(a, b):
        assert x["input"] != y["input"]
        assert x["query"] != y["query"] or x["answers"] != y["answers"]


def test_rows_do_not_depend_on_other_lengths_or_sample_counts(qwen, words):
    alone = list(generate(NiahBasicSpec("mk_niah", RulerOptions(lengths=(2048,), samples=2)), seed=0, tokens=qwen, words=words))
    together = list(generate(NiahBasicSpec("mk_niah", RulerOptions(lengths=(1024, 2048), samples=3)), seed=0, tokens=qwen, words=words))
    assert alone == [r for r in together if r["target_tokens"] == 2048][:2]
    reordered = list(generate(NiahBasicSpec("mk_niah", RulerOptions(lengths=(2048, 1024), samples=3)), seed=0, tokens=qwen, words=words))
    assert sorted(reordered, key=lambda r: r["id"]) == sorted(together, key=lambda r: r["id"])


def test_tasks_draw_independently(qwen, words):
    mk = rows_for(SPECS["mk"], qwen, words)
    mv = rows_for(SPECS["mv"], qwen, words)
    assert {r["query"] for r in mk}.isdisjoint({r["query"] for r in mv})


# --- Spec errors -------------------------------------------------------------------------------


def test_key_space_too_small_raises_spec_error(qwen, words):
    spec = NiahBasicSpec("mk_niah", RulerOptions(lengths=(1024,), samples=1, key_kind="digits", key_length=1))
    with pytest.raises(SpecError):
        list(generate(spec, seed=0, tokens=qwen, words=words))
    tiny = KeyWords.from_lists(["red", "blue"], ["cat", "dog", "owl"])
    with pytest.raises(SpecError):
        list(generate(NiahBasicSpec("mk_niah", RulerOptions(lengths=(1024,), samples=1)), seed=0, tokens=qwen, words=tiny))


def test_a_length_too_long_for_distinct_keys_names_the_row_and_the_options_to_change(qwen, words):
    """Issue 41: ``--lengths 99999999999`` said only "cannot draw 4347826083 distinct items from a space of 6012373"."""
    spec = NiahBasicSpec("mk_niah", RulerOptions(lengths=(99_999_999_999,), samples=1))
    with pytest.raises(SpecError, match=r"^mk_niah_basic/len=99999999999/i=0000: cannot draw [\d,]+ distinct keys from a "
                                        r"space of [\d,]+; ask for shorter lengths, or longer keys and values "
                                        r"\(--key-length, --value-digits\)$"):
        list(generate(spec, seed=0, tokens=qwen, words=words))


def test_key_words_are_cleaned():
    vocab = KeyWords.from_lists(["Red", " blue ", "blue", "x-y", "naïve", "green"], ["cat", "Dog", "owl2", "cat"])
    assert vocab.adjectives == ("blue", "green")
    assert vocab.nouns == ("cat",)
    with pytest.raises(SpecError):
        KeyWords.from_lists(["Red"], ["cat"])


def niah_spec(task: str = "mk_niah", **options) -> NiahBasicSpec:
    return NiahBasicSpec(task, RulerOptions(**options))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(task="nope"),
        dict(task="mk_niah", key_kind="letters"),
        dict(task="mk_niah", lengths=()),
        dict(task="mk_niah", lengths=(1024, 1024)),
        dict(task="mk_niah", lengths=(128,)),
        dict(task="mk_niah", lengths=(1024,), generation_reserve=1024),
        dict(task="mk_niah", samples=0),
        dict(task="mk_niah", key_length=0),
        dict(task="mk_niah", value_digits=0),
        dict(task="mk_niah", n_values=4),
        dict(task="mv_niah", n_values=0),
        dict(task="mk_niah", samples=True),
    ],
)
def test_invalid_specs_are_rejected(kwargs):
    with pytest.raises(SpecError):
        niah_spec(**kwargs)


def test_spec_defaults():
    spec = NiahBasicSpec("mv_niah")
    assert spec.options.lengths == (8192, 16384, 32768, 65536, 112640)
    assert spec.values_per_key == 4 and spec.options.value_digits == 10 and spec.config_name == "mv_niah_basic"
    assert NiahBasicSpec("mk_niah", RulerOptions(n_values=1)).values_per_key == 1
