"""HaystackCraft static NIAH eval: answer extraction, MuSiQue's F1 and EM, the task mapping, the
``haystackcraft`` results block on hand-made samples, and a loopback run of ``python -m eval`` over a
small release folder written to the contract's row schema, re-scored and reported."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from click.testing import CliRunner

from eval.benchmarks import TASKS, get_task, task_name_for_row
from eval.benchmarks.haystackcraft.report import (
    NO_DISTRACTORS,
    SIZE_AXIS,
    plot_f1_against_size,
    plot_ordering_difference,
)
from eval.benchmarks.haystackcraft.summary import haystackcraft_summary
from eval.benchmarks.haystackcraft.tasks import (
    HAYSTACKCRAFT_LENIENT_METRIC,
    extract_answer,
)
from eval.cli import main
from eval.report_runs import load_runs
from eval.results import aggregate_scores, score_samples
from eval.scored import ScoredSample
from eval.scoring import exact_match, max_f1, normalize_answer, token_f1
from eval.task import TaskOptions
from needlework.errors import SpecError
from tests.support.openai_stub import Script, prompt_digest
from tests.support.releases import stub_server, write_test_release

STATIC = "haystackcraft/static"


def task(thinking_end: str | None = "</think>", scoring: str = "lenient"):
    """The task under needlework's lenient reading (these tests pin it; the official reading is pinned in
    tests/eval/test_haystackcraft_official.py)."""
    return get_task(STATIC, TaskOptions(thinking_end=thinking_end, scoring=scoring))  # type: ignore[arg-type]


# --- answer extraction ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        # the format as asked, with the punctuation models add
        ("The correct answer is Gustave Eiffel.", "Gustave Eiffel"),
        ("The correct answer is (Gustave Eiffel).", "Gustave Eiffel"),  # kept the prompt's parentheses
        ('The correct answer is "Gustave Eiffel".', "Gustave Eiffel"),
        ("The correct answer is \u201cGustave Eiffel\u201d.", "Gustave Eiffel"),
        ("The correct answer is: Gustave Eiffel", "Gustave Eiffel"),
        ("The correct answer is **Gustave Eiffel**.", "Gustave Eiffel"),
        ("**The correct answer is Gustave Eiffel.**", "Gustave Eiffel"),
        ("The **correct answer** is *Gustave Eiffel*.", "Gustave Eiffel"),
        ("The correct answer is [Gustave Eiffel]", "Gustave Eiffel"),
        ("The correct answer is \\boxed{Gustave Eiffel}.", "Gustave Eiffel"),
        ("THE CORRECT ANSWER IS GUSTAVE EIFFEL", "GUSTAVE EIFFEL"),
        # cut at the line break and at the first sentence end, keeping initials, abbreviations and decimals
        ("The correct answer is Gustave Eiffel\nHe designed the tower for the 1889 fair.", "Gustave Eiffel"),
        ("The correct answer is Gustave Eiffel. The second article names him as the designer.", "Gustave Eiffel"),
        ("The correct answer is J. R. R. Tolkien.", "J. R. R. Tolkien"),
        ("The correct answer is St. Louis. It is in Missouri.", "St. Louis"),
        ("The correct answer is 3.5 million people.", "3.5 million people"),
        ("The correct answer is Paris (France).", "Paris (France)"),
        ("The correct answer is (a) Paris and (b) Lyon.", "(a) Paris and (b) Lyon"),
        # the answer on the next line, and a response cut off inside the parentheses
        ("The correct answer is:\n\n**Gustave Eiffel**", "Gustave Eiffel"),
        ("The correct answer is (Gustave Eif", "Gustave Eif"),
        ('The correct answer is "Gustave Eiffel', "Gustave Eiffel"),
        # the last statement wins; a restated format instruction is not an answer
        ("First I thought the correct answer is Lyon. Checking article 3 again, the correct answer is Paris.", "Paris"),
        ('The correct answer is Paris.\n\n(I used the format "The correct answer is (insert answer here)".)', "Paris"),
        ("The correct answer is (insert answer here)", "The correct answer is (insert answer here)"),  # the last line
        # fall-backs: "answer is", "Answer:", then the last non-empty line
        ("Based on the articles, the answer is Lake Victoria.", "Lake Victoria"),
        ("The final answer is 1889.", "1889"),
        ("Reasoning: the tower is in Paris.\n\n**Answer:** Gustave Eiffel", "Gustave Eiffel"),
        ("Final answer: Gustave Eiffel", "Gustave Eiffel"),
        ("The tower was designed by his firm.\n\nGustave Eiffel.\n\n", "Gustave Eiffel"),
        ("", ""),
        ("   \n  ", ""),
    ],
)
def test_extract_answer(response: str, expected: str):
    assert extract_answer(response) == expected


def test_reasoning_is_removed_before_the_marker_is_looked_for():
    response = "<think>Maybe the correct answer is Lyon.</think>The correct answer is Paris."
    assert task().extract(response) == "Paris"
    only_in_reasoning = "<think>so the correct answer is Paris.\n</think>I cannot tell from the articles."
    assert task().extract(only_in_reasoning) == "I cannot tell from the articles"
    assert task(thinking_end=None).extract(only_in_reasoning) == "Paris"


# --- F1 and EM ------------------------------------------------------------------------------------------


def test_normalize_answer_is_squad_v1_1():
    assert normalize_answer("The Eiffel Tower!") == "eiffel tower"
    assert normalize_answer("  A  tale of\tTwo Cities. ") == "tale of two cities"
    assert normalize_answer("Theatre an Athena") == "theatre athena"  # articles only as whole words
    assert normalize_answer("U.S.-born") == "usborn"  # punctuation removed, not replaced
    assert normalize_answer("\u201cParis\u201d") == "\u201cparis\u201d"  # ASCII punctuation only, as SQuAD


def test_token_f1_by_hand():
    # P = {eiffel, tower}, G = {eiffel, tower, in, paris}: precision 2/2, recall 2/4
    assert token_f1("the Eiffel Tower", "Eiffel Tower in Paris") == pytest.approx(2 * (1 * 0.5) / (1 + 0.5))
    assert round(token_f1("the Eiffel Tower", "Eiffel Tower in Paris"), 4) == 0.6667
    # repeated tokens count as a multiset: P = {paris, paris}, G = {paris}: precision 1/2, recall 1
    assert token_f1("Paris Paris", "Paris") == pytest.approx(2 / 3)
    assert token_f1("Lyon", "Paris") == 0.0
    assert token_f1("The", "a") == 1.0  # both normalize to nothing
    assert token_f1("", "Paris") == 0.0 and token_f1("Paris", "") == 0.0


def test_max_f1_and_em_take_the_best_alias():
    answers = ["Gustave Eiffel", "Alexandre Gustave Eiffel"]
    assert max_f1("Eiffel", answers) == pytest.approx(2 / 3)  # vs "gustave eiffel": P 1, R 1/2
    assert max_f1("Alexandre Eiffel", answers) == pytest.approx(0.8)  # vs the alias: P 1, R 2/3
    assert exact_match("alexandre gustave eiffel.", answers) == 1.0
    assert exact_match("Eiffel", answers) == 0.0
    assert max_f1("the Gustave Eiffel", answers) == 1.0 and exact_match("the Gustave Eiffel", answers) == 1.0
    with pytest.raises(ValueError, match="reference"):
        max_f1("x", [])
    with pytest.raises(ValueError, match="reference"):
        exact_match("x", [])


def reference_f1(prediction: str, reference: str) -> float:
    """An independent SQuAD v1.1 F1: regex normalization, tokens matched by removing them from a list."""
    def tokens(text: str) -> list[str]:
        text = re.sub(r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]", "", text.lower())
        return [t for t in re.split(r"\s+", text) if t and t not in ("a", "an", "the")]

    predicted, gold = tokens(prediction), tokens(reference)
    if not predicted or not gold:
        return float(predicted == gold)
    remaining, common = list(gold), 0
    for token in predicted:
        if token in remaining:
            remaining.remove(token)
            common += 1
    return 0.0 if common == 0 else 2 * common / (len(predicted) + len(gold))


@pytest.mark.parametrize("prediction", ["the Eiffel Tower", "Eiffel, Eiffel tower!", "Tower of the Eiffel family",
                                        "an answer", "Paris, France", "", "eiffel-tower"])
@pytest.mark.parametrize("reference", ["Eiffel Tower in Paris", "The Eiffel Tower", "tower", "Paris"])
def test_token_f1_matches_an_independent_implementation(prediction: str, reference: str):
    assert token_f1(prediction, reference) == pytest.approx(reference_f1(prediction, reference))


def test_task_scores_f1_and_reports_em_beside_it():
    scorer = task()
    assert scorer.metric == HAYSTACKCRAFT_LENIENT_METRIC and "SQuAD v1.1" in scorer.metric
    prediction = scorer.extract("The correct answer is (the Eiffel Tower).")
    assert prediction == "the Eiffel Tower"
    assert scorer.score(prediction, ["Eiffel Tower in Paris"]) == pytest.approx(2 / 3)
    assert scorer.secondary_scores(prediction, ["Eiffel Tower in Paris"]) == {"em": 0.0}
    assert scorer.secondary_scores(prediction, ["Eiffel Tower in Paris", "Eiffel Tower"]) == {"em": 1.0}


# --- the task and the row mapping -------------------------------------------------------------------------

QUESTIONS = [
    {"qid": "2hop__1_2", "question": "Which tower was designed by the engineer of the Garabit viaduct?",
     "answers": ["Eiffel Tower", "Tour Eiffel"], "hops": 2},
    {"qid": "3hop1__3_4_5", "question": "Who designed the tower built for the fair held in Paris in 1889?",
     "answers": ["Gustave Eiffel", "Alexandre Gustave Eiffel"], "hops": 3},
]
STRATEGIES = ("bm25", "bm25+ppr")
SIZES = (0, 8000)
ORDERINGS = ("descending", "random-0", "random-1", "random-2", "middle", "ascending")
RANDOM = ("random-0", "random-1", "random-2")


def row_id(qid: str, strategy: str, ordering: str, size: int) -> str:
    return f"haystackcraft/{qid}/{strategy}/{ordering}/size={size}"


def prompt(question: str, documents: list[tuple[str, str]]) -> str:
    """The Appendix B prompt around documents rendered as ``Article Title: {title}\\n{text}``."""
    haystack = "\n\n".join(f"Article Title: {title}\n{text}" for title, text in documents)
    return (f"Read the following articles and answer the question below.\n\n{haystack}\n\n"
            f"What is the correct answer to this question: {question}\n\n"
            "Format your response as follows: \"The correct answer is (insert answer here)\".")


def make_row(q: dict[str, Any], strategy: str, ordering: str, size: int) -> dict[str, Any]:
    """One row of a ``static-<ordering>`` config with every column of the contract's schema."""
    needles = [(f"Needle {q['qid']} {k}", f"Supporting fact {k} for {q['qid']}.") for k in range(q["hops"])]
    distractors = [(f"Distractor {k}", f"Text retrieved by {strategy} for {q['qid']}, {ordering} order, {size} tokens.")
                   for k in range(2 if size else 0)]
    documents = needles + distractors if ordering == "descending" else distractors + needles
    doc_ids = [100 + k for k in range(len(documents))]
    retriever = strategy.split("+")[0]
    text = prompt(q["question"], documents)
    return {
        "id": row_id(q["qid"], strategy, ordering, size), "input": text, "answers": q["answers"],
        "question": q["question"], "qid": q["qid"], "strategy": strategy, "retriever": retriever,
        "ppr": strategy.endswith("+ppr"), "ordering": ordering, "size": size, "hops": q["hops"], "source": "musique",
        "n_tokens": len(text.split()), "haystack_tokens": len(text.split()) - 30, "doc_ids": doc_ids,
        "needle_positions": [i for i, d in enumerate(documents) if d[0].startswith("Needle")],
        "truncated_tokens": 7 if size else -1, "tokenizer": "qwen2.5",
    }


SCHEMA = pa.schema([
    ("id", pa.string()), ("input", pa.string()), ("answers", pa.list_(pa.string())), ("question", pa.string()),
    ("qid", pa.string()), ("strategy", pa.string()), ("retriever", pa.string()), ("ppr", pa.bool_()),
    ("ordering", pa.string()), ("size", pa.int32()), ("hops", pa.int8()), ("source", pa.string()),
    ("n_tokens", pa.int32()), ("haystack_tokens", pa.int32()), ("doc_ids", pa.list_(pa.int64())),
    ("needle_positions", pa.list_(pa.int32())), ("truncated_tokens", pa.int32()), ("tokenizer", pa.string()),
])


def static_rows() -> dict[str, list[dict[str, Any]]]:
    """Config ``static-<ordering>`` -> its rows: 2 questions x 2 strategies x 2 sizes."""
    return {f"static-{o}": [make_row(q, s, o, n) for q in QUESTIONS for s in STRATEGIES for n in SIZES] for o in ORDERINGS}


def write_release(folder: Path, configs: dict[str, list[dict[str, Any]]]) -> Path:
    """A haystackcraft release folder as eval reads it (benchmark ``haystackcraft``, ``test`` split)."""
    return write_test_release(folder, {"benchmark": "haystackcraft", "tokenizer": {"name": "qwen2.5"}}, SCHEMA, configs)


def test_static_rows_map_to_the_registered_task():
    assert STATIC in TASKS
    row = make_row(QUESTIONS[0], "bm25+ppr", "middle", 8000)
    assert task_name_for_row("haystackcraft", row) == STATIC
    assert task_name_for_row("haystackcraft", {**row, "task": "static"}) == STATIC
    haystack_only = {k: v for k, v in row.items() if k != "input"}  # a doc-id haystack config, not materialized
    with pytest.raises(SpecError, match="input.*static-<ordering>"):
        task_name_for_row("haystackcraft", haystack_only)
    with pytest.raises(SpecError, match="strategy, ordering, size"):
        task_name_for_row("haystackcraft", {"id": "corpus-row", "input": "x"})
    with pytest.raises(SpecError, match="no 'task' column"):  # other benchmarks still need a task column
        task_name_for_row("rulerv2", row)
    with pytest.raises(SpecError, match="haystackcraft/static"):
        get_task("haystackcraft/nope", TaskOptions())


def test_render_references_and_metadata():
    row = make_row(QUESTIONS[1], "bm25+ppr", "random-1", 8000)
    scorer = task()
    assert scorer.render(row) == ({"role": "user", "content": row["input"]},)
    assert scorer.references(row) == ["Gustave Eiffel", "Alexandre Gustave Eiffel"]
    assert scorer.metadata(row) == {"strategy": "bm25+ppr", "retriever": "bm25", "ppr": True, "ordering": "random-1",
                                    "size": 8000, "hops": 3, "qid": "3hop1__3_4_5", "source": "musique"}


# --- results on hand-made samples -------------------------------------------------------------------------


def scored(strategy: str, ordering: str, size: int, f1: float, em: float, *, hops: int = 2, index: int = 0,
           error: str | None = None) -> ScoredSample:
    retriever = strategy.split("+")[0]
    metadata = {"strategy": strategy, "retriever": retriever, "ppr": strategy.endswith("+ppr"), "ordering": ordering,
                "size": size, "hops": hops, "qid": f"q{index}", "source": "musique"}
    return ScoredSample(f"{strategy}-{ordering}-{size}-{index}", f"static-{ordering}", STATIC, metadata,
                        0.0 if error else f1, error, {} if error else {"em": em})


def test_score_samples_computes_em_from_the_saved_response():
    expected = [{"key": k, "config": "static-descending", "task": STATIC, "metadata": {}} for k in ("a", "b", "c")]
    records = {
        "a": {"task": STATIC, "text": "The correct answer is (Tour Eiffel).", "references": ["Eiffel Tower", "Tour Eiffel"],
              "error": None},
        "b": {"task": STATIC, "text": "The correct answer is the Eiffel Tower in Paris.",
              "references": ["Eiffel Tower", "Tour Eiffel"], "error": None},
        "c": {"task": STATIC, "text": "", "references": ["Eiffel Tower"], "error": {"kind": "context_length", "final": True}},
    }
    result = {s.key: (s.score, s.extra, s.error_kind) for s in score_samples(expected, records, TaskOptions())}
    assert result["a"] == (1.0, {"em": 1.0}, None)
    assert result["b"][0] == pytest.approx(2 / 3) and result["b"][1] == {"em": 0.0}
    assert result["c"] == (0.0, {}, "context_length")


def test_summary_random_mean_difference_and_ablation_by_hand():
    samples = [
        scored("bm25", "descending", 8000, 1.0, 1.0, index=0), scored("bm25", "descending", 8000, 0.5, 0.0, index=1),
        scored("bm25", "random-0", 8000, 0.5, 0.0), scored("bm25", "random-1", 8000, 1.0, 1.0),
        scored("bm25", "random-2", 8000, 0.0, 0.0, error="timeout"),
        scored("bm25", "ascending", 8000, 0.25, 0.0), scored("bm25", "middle", 8000, 0.0, 0.0, hops=3),
        scored("bm25", "descending", 0, 1.0, 1.0),
        scored("dense+ppr", "descending", 8000, 0.2, 0.0, hops=4),
    ]
    block = aggregate_scores(samples, "m")["haystackcraft"]
    assert block["strategies"] == [{"strategy": "bm25", "retriever": "bm25", "ppr": False},
                                   {"strategy": "dense+ppr", "retriever": "dense", "ppr": True}]
    assert block["orderings"] == ["descending", "ascending", "random-0", "random-1", "random-2", "middle"]
    assert block["sizes"] == [0, 8000]
    assert block["cells"]["bm25"]["descending"]["8000"] == {"f1": 0.75, "em": 0.5, "n": 2, "n_errors": 0,
                                                             "f1_stderr": round(statistics.stdev([1, 0.5]) / 2 ** 0.5, 6)}
    assert block["cells"]["bm25"]["random-2"]["8000"]["n_errors"] == 1
    random = block["random"]["bm25"]["8000"]
    assert random["orderings"] == ["random-0", "random-1", "random-2"]
    assert random["f1"] == 0.5 and random["f1_std"] == round(statistics.pstdev([0.5, 1.0, 0.0]), 6)
    assert random["em"] == round(1 / 3, 6) and random["em_std"] == round(statistics.pstdev([0, 1, 0]), 6)
    assert "0" not in block["random"]["bm25"] and block["random"]["dense+ppr"] == {}
    assert block["descending_minus_random"]["bm25"]["8000"] == {"f1": 0.25, "em": round(0.5 - 1 / 3, 6)}
    assert block["descending_minus_random"]["bm25"]["0"] == {"f1": None, "em": None}
    assert block["ordering_ablation"] == {"size": 8000, "strategies": {
        "bm25": {"descending": {"f1": 0.75, "em": 0.5}, "ascending": {"f1": 0.25, "em": 0.0},
                 "random": {"f1": 0.5, "em": round(1 / 3, 6)}, "middle": {"f1": 0.0, "em": 0.0}},
        "dense+ppr": {"descending": {"f1": 0.2, "em": 0.0}, "ascending": {"f1": None, "em": None},
                      "random": {"f1": None, "em": None}, "middle": {"f1": None, "em": None}}}}
    assert {h: (s["f1"], s["n"]) for h, s in block["by_hops"].items()} == {
        "2": (round((1 + 0.5 + 0.5 + 1 + 0 + 0.25 + 1) / 7, 6), 7), "3": (0.0, 1), "4": (0.2, 1)}
    assert block["hop_cells"]["bm25"]["middle"]["8000"] == {"3": {"f1": 0.0, "em": 0.0, "n": 1, "n_errors": 0,
                                                                 "f1_stderr": None}}


def test_question_ids_get_no_breakdown_and_other_benchmarks_no_block():
    scores = aggregate_scores([scored("bm25", "descending", 0, 1.0, 1.0, index=i) for i in range(3)], "m")
    assert "qid" not in scores["by"] and "qid" not in scores["by_config"]["static-descending"]
    assert set(scores["by"]) >= {"strategy", "retriever", "ppr", "ordering", "size", "hops", "source"}
    ruler = ScoredSample("k", "mk_niah_basic", "rulerv2/mk_niah_basic", {"length": 1024, "depth": 0}, 1.0, None)
    assert "haystackcraft" not in aggregate_scores([ruler], "m")
    assert haystackcraft_summary([ruler]) is None


# --- loopback: python -m eval run / score / report over a written release --------------------------------

PERFECT_FORMATS = (
    "The correct answer is {answer}.",
    "<think>The articles mention several towers; the correct answer is Lyon? No.</think>The correct answer is ({answer}).",
    "Based on the articles above, the correct answer is **{answer}**.",
    "The correct answer is \"{alias}\"",
    "Article 2 names the designer.\nAnswer: {answer}",
    "{answer}",
)
WRONG = {
    # row -> (response, F1, EM), each worked out by hand
    row_id("2hop__1_2", "bm25", "descending", 8000): (
        "The correct answer is Eiffel Tower in Paris.", 2 / 3, 0.0),  # vs "eiffel tower": P 2/4, R 2/2
    row_id("3hop1__3_4_5", "bm25", "random-0", 8000): ("The correct answer is Eiffel.", 2 / 3, 0.0),  # P 1, R 1/2
    row_id("3hop1__3_4_5", "bm25+ppr", "random-1", 8000): (
        "I could not find it in the articles.\nThe correct answer is Berlin", 0.0, 0.0),
    row_id("2hop__1_2", "bm25+ppr", "middle", 8000): ("Paris", 0.0, 0.0),
}
CONTEXT_ERROR = row_id("3hop1__3_4_5", "bm25", "ascending", 8000)
"""Answered with an HTTP 400 context-length error: a final error, 0 in F1 and EM."""


def digest(row: dict[str, Any]) -> str:
    return prompt_digest([{"role": "user", "content": row["input"]}])


def perfect_responses(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Row id -> a correct response, cycling through :data:`PERFECT_FORMATS` over the distinct prompts.

    Size-0 rows of one question hold the same prompt whatever the strategy or ordering (the needles
    alone), so the stub, which answers by prompt, gives them one response.
    """
    prompts: dict[str, int] = {}
    responses = {}
    for row in rows:
        index = prompts.setdefault(digest(row), len(prompts))
        template = PERFECT_FORMATS[index % len(PERFECT_FORMATS)]
        responses[row["id"]] = template.format(answer=row["answers"][0], alias=row["answers"][-1])
    return responses


def run_cli(release: Path, run_dir: Path, responses: dict[str, str], rows: list[dict[str, Any]],
            faults: dict[str, list[str]] | None = None) -> None:
    answers: dict[str, tuple[str, list[str]]] = {}
    for row in rows:
        first = answers.setdefault(digest(row), (row["id"], [responses[row["id"]]]))
        assert first[1] == [responses[row["id"]]], f"{row['id']} shares a prompt with {first[0]} but not its response"
    with stub_server(Script(answers=answers, faults=faults or {})) as server:
        result = CliRunner().invoke(main, [
            "run", "--dataset", str(release), "--config", ",".join(f"static-{o}" for o in ORDERINGS),
            "--backend", "openai", "--base-url", server.base_url, "--model", "stub-model",
            "--output-dir", str(run_dir), "--no-progress", "--max-retries", "0", "--scoring", "lenient",
        ], env={"OPENAI_API_KEY": "test-key"})
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def loopback(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("haystackcraft-loopback")
    configs = static_rows()
    release = write_release(root / "haystackcraft", configs)
    rows = [row for config_rows in configs.values() for row in config_rows]
    perfect = perfect_responses(rows)
    wrong = {**perfect, **{k: v[0] for k, v in WRONG.items()}}
    runs = {"perfect": root / "run-perfect", "wrong": root / "run-wrong"}
    run_cli(release, runs["perfect"], perfect, rows)
    run_cli(release, runs["wrong"], wrong, rows, faults={CONTEXT_ERROR: ["context"]})
    report = CliRunner().invoke(main, ["report", str(runs["perfect"]), str(runs["wrong"]), "--out", str(root / "report")])
    assert report.exit_code == 0, report.output
    return {"runs": runs, "report": root / "report", "rows": rows}


def results_of(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "results.json").read_text(encoding="utf-8"))


def expected_scores(rows: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Row id -> (F1, EM) of the wrong run, from :data:`WRONG` and the context error; 1 elsewhere."""
    return {row["id"]: (0.0, 0.0) if row["id"] == CONTEXT_ERROR else WRONG.get(row["id"], ("", 1.0, 1.0))[1:]
            for row in rows}


def test_perfect_run_scores_100_everywhere(loopback):
    results = results_of(loopback["runs"]["perfect"])
    assert results["complete"] and results["counts"]["answered"] == len(loopback["rows"]) == 48
    assert results["scores"]["overall"]["score"] == 1.0
    block = results["scores"]["haystackcraft"]
    cells = [c for by_ordering in block["cells"].values() for by_size in by_ordering.values() for c in by_size.values()]
    assert len(cells) == 2 * 6 * 2 and all((c["f1"], c["em"], c["n"]) == (1.0, 1.0, 2) for c in cells)
    assert all(d == {"f1": 0.0, "em": 0.0} for by_size in block["descending_minus_random"].values()
               for d in by_size.values())
    assert all(r["f1_std"] == 0.0 for by_size in block["random"].values() for r in by_size.values())


def test_wrong_run_block_matches_an_independent_computation(loopback):
    rows, results = loopback["rows"], results_of(loopback["runs"]["wrong"])
    block = results["scores"]["haystackcraft"]
    truth = expected_scores(rows)
    assert results["counts"]["errors"] == {"context_length": 1}
    cells: dict[tuple[str, str, int], list[tuple[float, float]]] = {}
    for row in rows:
        cells.setdefault((row["strategy"], row["ordering"], row["size"]), []).append(truth[row["id"]])
    for (strategy, ordering, size), values in cells.items():
        got = block["cells"][strategy][ordering][str(size)]
        assert (got["f1"], got["em"], got["n"]) == (round(statistics.fmean(v[0] for v in values), 6),
                                                    round(statistics.fmean(v[1] for v in values), 6), 2)
    assert block["cells"]["bm25"]["ascending"]["8000"]["n_errors"] == 1
    assert block["cells"]["bm25"]["descending"]["8000"]["f1"] == round((2 / 3 + 1) / 2, 6)
    for strategy in STRATEGIES:
        for size in SIZES:
            f1s = [statistics.fmean(v[0] for v in cells[(strategy, o, size)]) for o in RANDOM]
            random = block["random"][strategy][str(size)]
            assert random["f1"] == round(statistics.fmean(f1s), 6)
            assert random["f1_std"] == round(statistics.pstdev(f1s), 6)
            descending = statistics.fmean(v[0] for v in cells[(strategy, "descending", size)])
            assert block["descending_minus_random"][strategy][str(size)]["f1"] == round(descending - statistics.fmean(f1s), 6)
    ablation = block["ordering_ablation"]
    assert ablation["size"] == 8000
    assert ablation["strategies"]["bm25+ppr"]["middle"]["f1"] == 0.5
    assert ablation["strategies"]["bm25"]["ascending"] == {"f1": 0.5, "em": 0.5}
    by_hops: dict[int, list[float]] = {}
    for row in rows:
        by_hops.setdefault(row["hops"], []).append(truth[row["id"]][0])
    assert {h: s["f1"] for h, s in block["by_hops"].items()} == {str(h): round(statistics.fmean(v), 6)
                                                                 for h, v in by_hops.items()}
    every = [truth[row["id"]][0] for row in rows]
    assert results["scores"]["overall"]["score"] == round(statistics.fmean(every), 6)


def test_score_cli_rescores_the_block_identically(loopback, tmp_path):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(loopback["runs"]["wrong"], copy)
    (copy / "results.json").unlink()
    assert CliRunner().invoke(main, ["score", str(copy)]).exit_code == 0
    assert results_of(copy)["scores"] == results_of(loopback["runs"]["wrong"])["scores"]


PLOTS = ["haystackcraft_f1_descending.png", "haystackcraft_f1_random-mean.png", "haystackcraft_f1_ascending.png",
         "haystackcraft_f1_middle.png", "haystackcraft_f1_random-0.png", "haystackcraft_f1_random-1.png",
         "haystackcraft_f1_random-2.png", "haystackcraft_descending_minus_random.png"]


def test_report_writes_the_plots(loopback):
    for name in PLOTS:
        assert (loopback["report"] / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), name
    text = (loopback["report"] / "report.md").read_text(encoding="utf-8")
    for name in PLOTS:
        assert f"]({name})" in text


def test_report_tables_in_the_appendix_layout(loopback):
    text = (loopback["report"] / "report.md").read_text(encoding="utf-8")
    truth = expected_scores(loopback["rows"])
    assert "## HaystackCraft static NIAH" in text
    assert text.count("| Context Size (# Tokens) | 0 | 8K |") >= 2 * 8  # 2 runs x 4 views x F1 and EM, + Figure 4
    start = text.index("### F1: Retriever-ranked descending ordering (Appendix M)")
    section = text[start:text.index("###", start + 4)]
    assert "**stub-model (run-perfect)**\n\n| Context Size (# Tokens) | 0 | 8K |\n|---|---:|---:|\n" \
           "| BM25 | 100.00 | 100.00 |\n| BM25 + PPR | 100.00 | 100.00 |" in section
    assert "| BM25 | 100.00 | 83.33 |" in section
    f1s = [statistics.fmean(truth[row_id(q["qid"], "bm25", o, 8000)][0] for q in QUESTIONS) for o in RANDOM]
    mean, std = statistics.fmean(f1s), statistics.pstdev(f1s)
    random = text[text.index("### F1: Mean ± std over the three random orderings (Appendix N)"):]
    assert f"| BM25 | 100.00 ± 0.00 | {100 * mean:.2f} ± {100 * std:.2f} |" in random
    assert "| BM25 | 100.00 ± 0.00 | 100.00 ± 0.00 |" in random
    assert f"| BM25 | +0.00 | {100 * ((2 / 3 + 1) / 2 - mean):+.2f} |" in text
    assert "### Haystack ordering ablation at 8K tokens (Appendix J)" in text
    assert "| strategy | Descending | Ascending | Random | Middle |" in text
    assert "| 2-hop |" in text and "| 3-hop |" in text


def test_size_labels_are_decimal():
    from eval.benchmarks.haystackcraft.report import size_label

    assert [size_label(n) for n in (0, 8000, 16000, 128000, 8192, 1500)] == ["0", "8K", "16K", "128K", "8K", "1500"]


def test_figure_3_lines_solid_without_ppr_dashed_with(loopback):
    runs = load_runs([loopback["runs"]["perfect"], loopback["runs"]["wrong"]])
    figure = plot_f1_against_size(runs, "descending")
    wrong_ax = figure.axes[1]
    lines = {line.get_label(): line for line in wrong_ax.get_lines()}
    assert set(lines) == {"BM25", "BM25 + PPR"}
    assert lines["BM25"].get_linestyle() == "-" and lines["BM25 + PPR"].get_linestyle() == "--"
    assert lines["BM25"].get_color() == lines["BM25 + PPR"].get_color()
    assert list(lines["BM25"].get_ydata()) == pytest.approx([100.0, 100 * (2 / 3 + 1) / 2], abs=1e-3)
    assert [t.get_text() for t in wrong_ax.get_xticklabels()] == [NO_DISTRACTORS, "8K"]
    assert "no distractors" in NO_DISTRACTORS and wrong_ax.get_xlabel() == SIZE_AXIS
    difference = plot_ordering_difference(runs)
    zero_lines = [line for line in difference.axes[0].get_lines() if line.get_linestyle() == ":"]
    assert len(zero_lines) == 1 and list(zero_lines[0].get_ydata()) == [0, 0]


def test_report_bytes_are_deterministic(loopback, tmp_path):
    again = CliRunner().invoke(main, ["report", str(loopback["runs"]["perfect"]), str(loopback["runs"]["wrong"]),
                                      "--out", str(tmp_path)])
    assert again.exit_code == 0
    for name in ["report.md", *PLOTS]:
        assert (tmp_path / name).read_bytes() == (loopback["report"] / name).read_bytes(), name

