"""RULERv2 scoring and the eval tasks: exact values for known pairs, rendering on real built rows."""

from __future__ import annotations

import math
from typing import Any

import jiwer
import pytest

from eval.benchmarks import TASKS, get_task, task_name_for_row
from eval.benchmarks.rulerv2.tasks import depth_bin
from eval.scoring import (
    WER_TRANSFORM,
    official_ruler_score,
    official_wer,
    one_minus_wer,
    recall,
    ruler_reference_score,
    ruler_score,
    string_match,
)
from eval.task import TaskOptions, after_reasoning, strip_reasoning
from needlework.errors import SpecError
from tests.support.releases import eval_release, release_rows  # noqa: F401 - fixtures

MK, MV = "rulerv2/mk_niah_basic", "rulerv2/mv_niah_basic"


# --- scorers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "prediction", "expected"),
    [
        ("3463197629", "The number is 3463197629.", 1.0),
        ("Purring-Protest", "the key is purring-protest", 1.0),
        ("purring-protest", "PURRING-PROTEST!", 1.0),
        ("3463197629", "346319762", 0.0),
        ("abc", "", 0.0),
    ],
)
def test_string_match_is_a_case_insensitive_substring_test(reference: str, prediction: str, expected: float):
    assert string_match(reference, prediction) == expected


def test_wer_transform_lowercases_drops_punctuation_and_splits():
    assert WER_TRANSFORM("  Hello,   World! ") == [["hello", "world"]]
    assert WER_TRANSFORM("!!!") == [[]]


def test_wer_transform_splits_on_every_whitespace_character():
    # jiwer's own split is on " " only and would keep "red\na" as one word.
    assert WER_TRANSFORM("Why is Mars red?\nA. Rust\tB.\u2003Dust") == [["why", "is", "mars", "red", "a", "rust",
                                                                          "b", "dust"]]
    assert one_minus_wer("Why is Mars red?\nA. Rust\nB. Dust", "why is mars red A rust B dust") == 1.0


def test_wer_transform_removes_the_same_punctuation_as_jiwer():
    every_punctuation = "".join(sorted(jiwer.RemovePunctuation().tokens_to_remove))
    text = f"Key «purring-protest» — ¿value? 3106721681… {every_punctuation} end"
    reference = jiwer.Compose([jiwer.ToLowerCase(), jiwer.RemovePunctuation(), jiwer.RemoveMultipleSpaces(),
                               jiwer.Strip(), jiwer.ReduceToListOfListOfWords()])
    assert WER_TRANSFORM(text) == reference(text) == [["key", "purringprotest", "value", "3106721681", "end"]]


@pytest.mark.parametrize(
    ("reference", "prediction", "expected"),
    [
        ("a b c d", "a b x d", 0.75),  # one substitution in four words
        ("a b c d", "a b d", 0.75),  # one deletion
        ("a b c d", "a b c d e", 0.75),  # one insertion
        ("a b c d", "a b c d e f g", 0.25),  # three insertions
        ("a b", "x y z w v", 0.0),  # WER 2.5 (2 substitutions, 3 insertions): 1 - WER clipped to 0
        ("a b c d", "a b c d e f g h i", 0.0),  # WER 1.25 from insertions alone, clipped
        ("Hello, World!", "hello world", 1.0),  # punctuation and case removed by the transform
        ("one two", "One... TWO", 1.0),
        ("a b c d", "", 0.0),  # empty prediction
        ("!!!", "", 1.0),  # empty reference after the transform matches only an empty prediction
        ("!!!", "x", 0.0),
    ],
)
def test_one_minus_wer_known_pairs(reference: str, prediction: str, expected: float):
    assert one_minus_wer(reference, prediction) == pytest.approx(expected, abs=1e-12)


def test_one_minus_wer_is_per_pair_not_pooled():
    # Pooled over a corpus these would mix; per pair each is independent of the other.
    assert one_minus_wer("a b c d", "a b x d") == pytest.approx(0.75)
    assert one_minus_wer("e f", "e f") == 1.0


@pytest.mark.parametrize(
    ("reference", "prediction", "expected"),
    [
        ("3463197629", "3463197629", 1.0),
        ("a b c d", "A B X D", 0.75),  # no substring match, so 1 - WER decides
        ("b c", "a b c d", 1.0),  # substring match wins over WER 1.0
        ("3463197629", "0000000000", 0.0),
    ],
)
def test_ruler_reference_score_is_max_of_match_and_one_minus_wer(reference: str, prediction: str, expected: float):
    assert ruler_reference_score(reference, prediction) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("references", "prediction", "expected"),
    [
        # Recall 0 (neither reference is contained); WER of "a b c d zzz" vs "a b x d": 1 substitution
        # and 1 deletion over 5 words -> 1 - 2/5.
        (["a b c d", "zzz"], "a b x d", 0.6),
        # Recall 2/4; WER: 2 deletions over 4 words -> 0.5 too.
        (["1111111111", "2222222222", "3333333333", "4444444444"], "1111111111, 2222222222", 0.5),
        # Recall 1/4; WER: 3 deletions over 4 words -> 0.25.
        (["1111111111", "2222222222", "3333333333", "4444444444"], "4444444444", 0.25),
        (["1111111111", "2222222222", "3333333333", "4444444444"], "1111111111 2222222222 3333333333 4444444444", 1.0),
        # Recall 3/4; WER: 1 substitution over 4 words -> 0.75 as well.
        (["1111111111", "2222222222", "3333333333", "4444444444"], "1111111111 2222222222 3333333333 5555555555", 0.75),
        # Recall 1/2, but the whole answer is nearly right: WER 1 substitution over 6 words -> 5/6.
        (["the cat sat", "on the mat"], "The cat sat on a mat.", 5 / 6),
        # Every reference is contained, in any order: recall 1.
        (["x y", "z w"], "z w and then x y", 1.0),
        # Recall 1/2; WER of "x y z w" vs "x y z": 1 deletion over 4 words -> 0.75.
        (["x y", "z w"], "x y z", 0.75),
    ],
)
def test_ruler_score_all_is_max_of_recall_and_one_minus_wer_of_the_joined_answer(
        references: list[str], prediction: str, expected: float):
    assert ruler_score(references, prediction, "all") == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("references", "prediction", "expected"),
    [
        (["a b c d", "zzz"], "a b x d", 0.75),  # best reference: "a b c d", 1 - 1/4
        (["1111111111", "2222222222"], "2222222222", 1.0),  # any one alternative is a full answer
        (["Barack Obama", "Obama"], "President Obama", 1.0),  # the alias is contained
        (["Barack Obama", "Barack H. Obama"], "Barak Obama", 0.5),  # no containment; "Barack Obama": 1 - 1/2
        (["1234567", "7654321"], "1111111", 0.0),
    ],
)
def test_ruler_score_part_is_the_best_reference(references: list[str], prediction: str, expected: float):
    assert ruler_score(references, prediction, "part") == pytest.approx(expected, abs=1e-12)


def test_ruler_score_all_and_part_agree_on_one_reference():
    for prediction in ("a b x d", "a b c d", "", "zzz a b c d"):
        assert ruler_score(["a b c d"], prediction, "all") == ruler_score(["a b c d"], prediction, "part")


def test_recall_is_the_share_of_contained_references():
    assert recall(["1", "2", "3", "4"], "1 and 3") == 0.5
    assert recall(["Obama"], "obama") == 1.0


@pytest.mark.parametrize("aggregate", ["all", "part"])
def test_ruler_score_of_empty_prediction_is_zero(aggregate: str):
    assert ruler_score(["3463197629"], "", aggregate) == 0.0  # type: ignore[arg-type]
    assert ruler_score(["1", "2", "3", "4"], "   ", aggregate) == 0.0  # type: ignore[arg-type]


def test_ruler_score_needs_a_reference():
    with pytest.raises(ValueError, match="at least one reference"):
        ruler_score([], "anything", "all")


# --- tasks -----------------------------------------------------------------------------------


def first(rows: dict[str, list[dict[str, Any]]], config: str) -> dict[str, Any]:
    return rows[config][0]


@pytest.mark.parametrize("config", ["mk_niah_basic", "mv_niah_basic"])
def test_task_name_for_built_rows(release_rows, config: str):
    for row in release_rows[config]:
        assert task_name_for_row("rulerv2", row) == f"rulerv2/{config}"


def test_task_name_needs_a_task_column():
    with pytest.raises(SpecError, match="no 'task' column"):
        task_name_for_row("rulerv2", {"id": "x"})
    assert task_name_for_row("rulerv2", {"id": "x", "task": "mk_niah", "level": None}) == "rulerv2/mk_niah"


@pytest.mark.parametrize("config", ["mk_niah_basic", "mv_niah_basic"])
def test_render_answer_prefix_user_is_the_built_prompt_verbatim(release_rows, config: str):
    row = first(release_rows, config)
    task = get_task(f"rulerv2/{config}", TaskOptions(answer_prefix="user"))
    assert task.render(row) == ({"role": "user", "content": row["input"]},)


@pytest.mark.parametrize("config", ["mk_niah_basic", "mv_niah_basic"])
def test_render_answer_prefix_assistant_prefills_the_stripped_prefix(release_rows, config: str):
    row = first(release_rows, config)
    prefix = row["answer_prefix"]
    assert prefix.startswith(" ") and row["input"].endswith(prefix)  # what the builder promises
    messages = get_task(f"rulerv2/{config}", TaskOptions(answer_prefix="assistant")).render(row)
    assert len(messages) == 2
    assert messages[0] == {"role": "user", "content": row["input"][: -len(prefix)]}
    assert messages[-1] == {"role": "assistant", "content": prefix.strip()}
    assert messages[0]["content"] + " " + messages[1]["content"] == row["input"]


@pytest.mark.parametrize("config", ["mk_niah_basic", "mv_niah_basic"])
def test_render_answer_prefix_omit_drops_it(release_rows, config: str):
    row = first(release_rows, config)
    messages = get_task(f"rulerv2/{config}", TaskOptions(answer_prefix="omit")).render(row)
    assert messages == ({"role": "user", "content": row["input"][: -len(row["answer_prefix"])]},)
    assert messages[0]["content"].endswith("?")


@pytest.mark.parametrize("placement", ["assistant", "omit"])
def test_render_without_a_prefix_is_one_user_turn(release_rows, placement: str):
    row = {**first(release_rows, "mk_niah_basic"), "answer_prefix": ""}
    assert get_task(MK, TaskOptions(answer_prefix=placement)).render(row) == (  # type: ignore[arg-type]
        {"role": "user", "content": row["input"]},)


def test_render_rejects_an_input_that_does_not_end_with_its_prefix(release_rows):
    row = {**first(release_rows, "mk_niah_basic"), "answer_prefix": " Something else entirely"}
    with pytest.raises(ValueError, match="does not end with its answer_prefix"):
        get_task(MK, TaskOptions(answer_prefix="assistant")).render(row)


def test_references_are_the_row_answers(release_rows):
    mk, mv = first(release_rows, "mk_niah_basic"), first(release_rows, "mv_niah_basic")
    assert get_task(MK, TaskOptions()).references(mk) == list(mk["answers"])
    assert len(mk["answers"]) == 1
    assert get_task(MV, TaskOptions()).references(mv) == list(mv["answers"])
    assert len(mv["answers"]) == 4


@pytest.mark.parametrize(
    ("response", "marker", "expected"),
    [
        ("<think>the key is 1234</think> 5678 ", "</think>", "5678"),
        ("first</think>second</think>  third\n", "</think>", "third"),  # the last marker counts
        ("no reasoning here ", "</think>", "no reasoning here"),
        ("a</think>b", None, "a</think>b"),
        ("x[END]y", "[END]", "y"),
        ("</think>", "</think>", ""),
    ],
)
def test_extract_strips_reasoning_up_to_the_last_marker(response: str, marker: str | None, expected: str):
    assert strip_reasoning(response, marker) == expected
    assert get_task(MK, TaskOptions(thinking_end=marker, scoring="lenient")).extract(response) == expected
    # Officially the text after the marker is kept as written: eval_ruler2 scores the generation untrimmed.
    untrimmed = after_reasoning(response, marker)
    assert untrimmed.strip() == expected
    assert get_task(MK, TaskOptions(thinking_end=marker)).extract(response) == untrimmed


def test_score_after_extract_ignores_answers_inside_reasoning():
    task = get_task(MK, TaskOptions())
    response = "Maybe 3463197629? No, that was another key.</think>1111111111"
    assert task.score(task.extract(response), ["3463197629"]) == 0.0
    keep_all = get_task(MK, TaskOptions(thinking_end=None))
    assert keep_all.score(keep_all.extract(response), ["3463197629"]) == 1.0


@pytest.mark.parametrize(
    ("depth", "expected"),
    [(0.0, 0), (9.999, 0), (10.0, 10), (51.7115, 50), (89.99, 80), (90.0, 90), (99.9, 90), (100.0, 90)],
)
def test_depth_bin_is_floor_to_ten_capped_at_ninety(depth: float, expected: int):
    assert depth_bin(depth) == expected


def test_metadata_on_built_rows(release_rows):
    task_mk, task_mv = get_task(MK, TaskOptions()), get_task(MV, TaskOptions())
    for row in release_rows["mk_niah_basic"]:
        [needle] = row["needles"]
        expected_depth = min(90, int(needle["depth_percent"] // 10) * 10)
        assert task_mk.metadata(row) == {"length": row["target_tokens"], "depth": expected_depth,
                                         "domain": "mk_niah", "level": "basic"}
    for row in release_rows["mv_niah_basic"]:
        assert len(row["needles"]) == 4
        assert task_mv.metadata(row) == {"length": row["target_tokens"], "depth": None,
                                         "domain": "mv_niah", "level": "basic"}
    lengths = {task_mk.metadata(row)["length"] for row in release_rows["mk_niah_basic"]}
    assert lengths == {1024, 2048}


def test_metadata_depth_is_none_without_needles(release_rows):
    row = {**first(release_rows, "mk_niah_basic"), "needles": []}
    assert get_task(MK, TaskOptions()).metadata(row)["depth"] is None


def test_unknown_task_name_lists_known_tasks():
    with pytest.raises(SpecError) as caught:
        get_task("rulerv2/qa_basic", TaskOptions())
    message = str(caught.value)
    assert "'rulerv2/qa_basic'" in message
    for name in TASKS:
        assert name in message
    assert message.endswith("known tasks: " + ", ".join(sorted(TASKS)))


def test_every_built_task_renders_extracts_and_scores(release_rows):
    """The tasks of the built release on its real rows (every task, on hand-built rows: test_eval_rulerv2)."""
    by_task = {f"rulerv2/{config}": rows[0] for config, rows in release_rows.items()}
    assert set(by_task) <= set(TASKS)
    for name in by_task:
        task = get_task(name, TaskOptions())
        row = by_task[name]
        assert task.name == name
        assert task.render(row)[-1]["role"] == "user"
        references = task.references(row)
        assert task.score(task.extract("<think>hmm</think>" + ", ".join(references)), references) == 1.0
        assert task.score(task.extract(""), references) == 0.0


@pytest.mark.parametrize(("field", "value"), [("answer_prefix", "system"), ("thinking_end", "")])
def test_task_options_reject_bad_values(field: str, value: str):
    with pytest.raises(ValueError, match=field):
        TaskOptions(**{field: value})  # type: ignore[arg-type]


# --- RULERv2's official score (NeMo-Skills nemo_skills/evaluation/evaluator/ruler.py, eval_ruler2) ----------


def test_official_wer_is_word_edit_distance_over_reference_words_unclipped():
    assert official_wer("a b c", "a x c") == pytest.approx(1 / 3)  # one substitution in three words
    assert official_wer("a b", "a b c d e f") == 2.0  # four insertions over two words: not clipped to 1
    assert official_wer("a b.", "a b") == 0.5  # punctuation is part of the word
    assert official_wer("", "anything") == math.inf


def test_official_ruler_score_worked_examples():
    # all: mean over references of max(r in pred, 1 - WER), lower-cased
    assert official_ruler_score(["Paris", "Rome"], "It is PARIS.", "all") == 0.5
    assert official_ruler_score(["red apple pie"], "red apple cake", "all") == pytest.approx(2 / 3)
    assert official_ruler_score(["red apple pie"], "a long answer that never says it at all", "all") == 0.0
    # 2steps: only the last paragraph
    assert official_ruler_score(["x y"], "x y\n\nz", "2steps") == 0.0
    assert official_ruler_score(["x y"], "z\n\nX Y", "2steps") == 1.0
    # part: the best reference, copied "Document N:" blocks removed first
    copied = "Document 3: Arthur's Magazine was first.\nMore text.\n\nAnswer: First for Women"
    assert official_ruler_score(["Arthur's Magazine", "arthurs magazine"], copied, "part") == 0.0
    assert official_ruler_score(["3"], "The documents are 13 and 7", "part") == 1.0  # any substring counts
    with pytest.raises(ValueError, match="at least one reference"):
        official_ruler_score([], "x", "all")
