"""HaystackCraft official scoring, the Appendix G baseline and the paper's published numbers.

Sources of truth: Graph-COM/HaystackCraft ``utils/llm.py`` ``extract_answer`` (the answer reading: its
patterns in order, each at its first occurrence; ``None`` without "The correct answer is") and ``eval.py``
``eval_f1`` (a ``None`` prediction adds 0 to the F1 sum; MuSiQue's normalization and token F1 against the
answer and aliases); paper Appendix G (no-context condition), Appendices M and N (Tables 6-17) and
Appendix J (Table 3), read back from ``../shared/papers/haystackcraft.md``.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from eval.benchmarks import get_task
from eval.benchmarks.haystackcraft import paper
from eval.benchmarks.haystackcraft.report import NO_CONTEXT_LABEL
from eval.benchmarks.haystackcraft.tasks import (
    HAYSTACKCRAFT_LENIENT_METRIC,
    HAYSTACKCRAFT_METRIC,
    extract_answer,
    official_extract_answer,
)
from eval.cli import main
from eval.results import aggregate_scores
from eval.scored import ScoredSample
from eval.task import TaskOptions
from tests.eval.test_haystackcraft import SCHEMA, digest, make_row, write_release
from tests.support.openai_stub import Script
from tests.support.releases import stub_server

STATIC = "haystackcraft/static"


# --- the authors' reading ------------------------------------------------------------------------------


@pytest.mark.parametrize(("response", "official", "lenient"), [
    # the first statement wins; needlework's lenient reading takes the last
    ("The correct answer is Paris. Checking again, the correct answer is Lyon.", "Paris", "Lyon"),
    # no "The correct answer is": no answer (scored 0); the lenient reading falls back
    ("Answer: Paris", "", "Paris"),
    ("Based on the articles, the answer is Paris.", "", "Paris"),
    ("Paris", "", "Paris"),
    ("", "", ""),
    # pattern 1 (parentheses) and 2 (quotes) are searched over the whole response before pattern 3
    ("The correct answer is Lyon. Or maybe the correct answer is (Paris).", "Paris", "Paris"),
    ('The correct answer is "Paris" not (Lyon)', "Paris", '"Paris" not (Lyon)'),
    # pattern 3 stops at the first period: initials are cut (the lenient reading keeps them)
    ("The correct answer is J. R. R. Tolkien.", "J", "J. R. R. Tolkien"),
    ("The correct answer is 3.5 million.", "3", "3.5 million"),
    # asterisks are removed first, case is ignored, a colon and a line break may follow the phrase
    ("**The correct answer is** **Paris**", "Paris", "Paris"),
    ("THE CORRECT ANSWER IS: Paris", "Paris", "Paris"),
    ("The correct answer is:\n\nParis\nbecause ...", "Paris", "Paris"),
    # patterns 4 and 5: an unclosed parenthesis or quote runs to the end, trailing periods stripped
    ("The correct answer is (Paris, France.", "Paris, France", "Paris, France"),
    ('The correct answer is "Paris.', "Paris", "Paris"),
    # the placeholder restated is read as written (official) and skipped (lenient)
    ("The correct answer is (insert answer here)", "insert answer here", "The correct answer is (insert answer here)"),
    # the phrase with no space after it does not match pattern M (official); lenient reads it
    ("The correct answer is:Paris", "", "Paris"),
])
def test_official_reading_on_crafted_responses(response: str, official: str, lenient: str) -> None:
    assert official_extract_answer(response) == official
    assert extract_answer(response) == lenient


def test_official_scoring_is_the_default_and_no_match_scores_zero() -> None:
    """eval.py eval_f1: a missing prediction adds 0; the lenient reading gives the last line full credit."""
    official = get_task(STATIC, TaskOptions())
    lenient = get_task(STATIC, TaskOptions(scoring="lenient"))
    assert official.metric == HAYSTACKCRAFT_METRIC and "first" in official.metric
    assert lenient.metric == HAYSTACKCRAFT_LENIENT_METRIC
    response = "<think>the correct answer is Lyon</think>I believe it is Paris.\nParis"
    assert official.score(official.extract(response), ["Paris"]) == 0.0
    assert lenient.score(lenient.extract(response), ["Paris"]) == 1.0
    both = "The correct answer is Lyon. Sorry, the correct answer is Paris."
    assert official.score(official.extract(both), ["Paris"]) == 0.0
    assert lenient.score(lenient.extract(both), ["Paris"]) == 1.0


# --- the Appendix G baseline in the results block ------------------------------------------------------


def sample(strategy: str, size: int, f1: float, hops: int, index: int) -> ScoredSample:
    ordering = "no-context" if strategy == "no-context" else "descending"
    metadata = {"strategy": strategy, "retriever": strategy.split("+")[0], "ppr": False, "ordering": ordering,
                "size": size, "hops": hops, "qid": f"q{index}", "source": "musique"}
    return ScoredSample(f"{strategy}-{size}-{index}", f"static-{ordering}", STATIC, metadata, f1, None, {"em": float(f1 == 1)})


def test_no_context_samples_form_the_baseline_block() -> None:
    samples = [sample("no-context", 0, 0.5, 2, 0), sample("no-context", 0, 0.0, 3, 1),
               sample("bm25", 0, 1.0, 2, 0), sample("bm25", 0, 0.5, 3, 1), sample("bm25", 8000, 0.25, 2, 0)]
    block = aggregate_scores(samples, "m")["haystackcraft"]
    assert [e["strategy"] for e in block["strategies"]] == ["bm25"]
    assert block["by_hops"]["2"]["n"] == 2  # no-context rows are not haystack rows
    none = block["no_context"]
    assert (none["f1"], none["n"]) == (0.25, 2) and none["by_hops"]["2"]["f1"] == 0.5 and none["by_hops"]["3"]["f1"] == 0.0
    gold = block["gold_context"]
    assert (gold["f1"], gold["n"]) == (0.75, 2) and gold["by_hops"]["3"]["f1"] == 0.5
    alone = aggregate_scores(samples[:2], "m")["haystackcraft"]
    assert alone["strategies"] == [] and alone["no_context"]["f1"] == 0.25 and alone["gold_context"] is None


# --- a run through python -m eval: official scoring, the baseline row and the paper's numbers ------------

QUESTIONS = [
    {"qid": "2hop__1_2", "question": "Which tower was designed by the engineer of the Garabit viaduct?",
     "answers": ["Eiffel Tower", "Tour Eiffel"], "hops": 2},
    {"qid": "3hop1__3_4_5", "question": "Who designed the tower built for the fair held in Paris in 1889?",
     "answers": ["Gustave Eiffel", "Alexandre Gustave Eiffel"], "hops": 3},
]
ORDERINGS = ("descending", "random-0", "random-1", "random-2")


def no_context_row(q: dict[str, Any]) -> dict[str, Any]:
    text = ("Answer the question below.\n\nWhat is the correct answer to this question: " + q["question"]
            + '\n\nFormat your response as follows: "The correct answer is (insert answer here)".')
    return {"id": f"haystackcraft/{q['qid']}/no-context", "input": text, "answers": q["answers"], "question": q["question"],
            "qid": q["qid"], "strategy": "no-context", "retriever": "no-context", "ppr": False, "ordering": "no-context",
            "size": 0, "hops": q["hops"], "source": "musique", "n_tokens": 40, "haystack_tokens": 0, "doc_ids": [],
            "needle_positions": [], "truncated_tokens": -1, "tokenizer": "qwen2.5"}


def response_for(row: dict[str, Any]) -> str:
    """Correct at its first statement, wrong at its last, for the descending 8K rows; a bare guess without the
    phrase for the no-context row of the first question; correct elsewhere."""
    answer = row["answers"][0]
    if row["strategy"] == "no-context":
        return answer if row["qid"] == "2hop__1_2" else f"The correct answer is {answer}."
    if row["ordering"] == "descending" and row["size"] == 8000:
        return f"The correct answer is {answer}. On reflection, the correct answer is Lyon."
    return f"The correct answer is ({answer})."


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hc-official")
    configs = {f"static-{o}": [make_row(q, s, o, n) for q in QUESTIONS for s in ("bm25", "hybrid+ppr") for n in (0, 8000)]
               for o in ORDERINGS}
    configs["static-no-context"] = [no_context_row(q) for q in QUESTIONS]
    release = write_release(root / "release", configs)
    rows = [row for config_rows in configs.values() for row in config_rows]
    answers: dict[str, tuple[str, list[str]]] = {}
    for row in rows:
        first = answers.setdefault(digest(row), (row["id"], [response_for(row)]))
        assert first[1] == [response_for(row)]
    out = {}
    for scoring in ("official", "lenient"):
        out[scoring] = root / f"run-{scoring}"
        extra = [] if scoring == "official" else ["--scoring", "lenient"]
        with stub_server(Script(answers=answers, faults={})) as server:
            result = CliRunner().invoke(main, [
                "run", "--dataset", str(release), "--config", ",".join(configs), "--backend", "openai",
                "--base-url", server.base_url, "--model", f"stub-{scoring}", "--output-dir", str(out[scoring]),
                "--no-progress", "--max-retries", "0", *extra], env={"OPENAI_API_KEY": "test-key"})
        assert result.exit_code == 0, result.output
    report = CliRunner().invoke(main, ["report", str(out["official"]), str(out["lenient"]), "--out", str(root / "report")])
    assert report.exit_code == 0, report.output
    out["report"] = root / "report" / "report.md"
    return out


def block(run: Path) -> dict[str, Any]:
    return json.loads((run / "results.json").read_text(encoding="utf-8"))["scores"]["haystackcraft"]


def test_a_default_run_reads_the_first_statement_and_scores_a_missing_phrase_zero(runs) -> None:
    official, lenient = block(runs["official"]), block(runs["lenient"])
    assert official["cells"]["bm25"]["descending"]["8000"]["f1"] == 1.0  # the first statement, correct
    assert lenient["cells"]["bm25"]["descending"]["8000"]["f1"] == 0.0  # the last one, Lyon
    assert official["no_context"]["f1"] == 0.5 and official["no_context"]["by_hops"]["2"]["f1"] == 0.0
    assert lenient["no_context"]["f1"] == 1.0
    assert official["gold_context"]["f1"] == 1.0


def test_report_shows_the_baseline_row_and_appendix_g(runs) -> None:
    text = runs["report"].read_text(encoding="utf-8")
    assert f"| {NO_CONTEXT_LABEL} | 50.00 | 50.00 |" in text and f"| {NO_CONTEXT_LABEL} | 100.00 | 100.00 |" in text
    section = text[text.index("### Without context vs the needles alone, by hop count (Appendix G)"):]
    assert "| hops | No context | Needles only (size 0) | n |" in section
    assert "| 2-hop | 0.00 | 100.00 | 1 |" in section and "| all | 50.00 | 100.00 | 2 |" in section
    assert "stub-official: official (the authors' reading" in text and "stub-lenient: lenient (needlework's" in text


def test_report_puts_the_papers_tables_in_italics_beside_the_official_run(runs) -> None:
    text = runs["report"].read_text(encoding="utf-8")
    descending = text[text.index("### F1: Retriever-ranked descending ordering (Appendix M)"):]
    descending = descending[:descending.index("\n### ")]
    assert "*Paper, BM25 (BM25, Table 6)*" in descending and "*Paper, Hybrid + PPR (hybrid + PPR retriever, Table 11)*" in descending
    assert "| *Llama-3.1-8B-Instruct (paper, Table 6)* | *59.80* | *58.41* |" in descending
    assert "| *GPT-5 (paper, Table 11)* | *77.28* | *77.15* |" in descending
    assert "Table 7" not in descending  # no dense run, no dense table
    random = text[text.index("### F1: Mean ± std over the three random orderings (Appendix N)"):]
    random = random[:random.index("\n### ")]
    assert "| *Llama-3.1-8B-Instruct (paper, Table 12)* | *59.80* | *56.18 ± 0.85* |" in random
    assert "| *Gemma-3-12B-IT (paper, Table 17)* | *67.49* | *62.20 ± 0.98* |" in random
    exact = text[text.index("### Exact match: Retriever-ranked descending ordering"):]
    assert "(paper, Table" not in exact[:exact.index("\n### ")]  # the paper reports F1 only


def test_a_lenient_run_gets_no_paper_rows(tmp_path, runs) -> None:
    result = CliRunner().invoke(main, ["report", str(runs["lenient"]), "--out", str(tmp_path)])
    assert result.exit_code == 0
    assert "(paper, Table" not in (tmp_path / "report.md").read_text(encoding="utf-8")


# --- the paper's numbers, read back from the paper --------------------------------------------------------

PAPER = Path(__file__).resolve().parents[3] / "shared" / "papers" / "haystackcraft.md"
TABLE_STRATEGY = {6: "bm25", 7: "dense", 8: "hybrid", 9: "bm25+ppr", 10: "dense+ppr", 11: "hybrid+ppr"}


def paper_table(text: str, number: int) -> dict[str, list[tuple[float, float | None]]]:
    """Table ``number`` of the paper as {model: [(value, std or None) per column]}."""
    start = text.index(f"Table {number}: Static NIAH performance")
    block_text = text[start:].split("\n\n")[1]
    header, *lines = block_text.strip().split("\n")
    assert header.split("\t") == ["Context Size (# Tokens)", "0", "8K", "16K", "32K", "64K", "128K"]
    rows = {}
    for line in lines:
        model, *cells = line.split("\t")
        parsed = [re.fullmatch(r"\s*([\d.]+)(?:\s*\$\\pm\$\s*([\d.]+))?\s*", c) for c in cells]
        rows[model] = [(float(m.group(1)), None if m.group(2) is None else float(m.group(2))) for m in parsed]
    return rows


@pytest.fixture(scope="module")
def paper_text() -> str:
    if not PAPER.is_file():
        pytest.skip(f"the paper is not at {PAPER}")
    return PAPER.read_text(encoding="utf-8")


@pytest.mark.parametrize("number", range(6, 18))
def test_every_appendix_m_and_n_number_matches_the_paper(paper_text: str, number: int) -> None:
    strategy = TABLE_STRATEGY[number if number <= 11 else number - 6]
    tables = paper.DESCENDING if number <= 11 else paper.RANDOM
    data = tables[strategy]
    assert data.number == number
    printed = paper_table(paper_text, number)
    assert list(data.rows) == list(printed)
    for model, values in printed.items():
        stored = [v if isinstance(v, tuple) else (v, None) for v in data.rows[model]]
        assert stored == values, (number, model)
    caption = paper_text[paper_text.index(f"Table {number}: Static NIAH"):].split("\n", 1)[0]
    assert f"using {paper.STRATEGY_NAMES[strategy]} for haystack" in caption
    assert ("retriever-ranked haystack ordering" in caption) == (number <= 11)


def test_table_3_matches_the_paper(paper_text: str) -> None:
    start = paper_text.index("Table 3: Ablation study for haystack ordering.")
    rows = paper_text[start:].split("\n\n")[1].strip().split("\n")[1:]
    for line, (model, values) in zip(rows, paper.ORDERING_ABLATION.items()):
        numbers = [float(x) for x in re.findall(r"\d+\.\d+", re.sub(r"<b>|</b>", "", line))]  # "2.5" of the name first
        assert model in line and numbers[-4:] == [values[o] for o in ("descending", "ascending", "random", "middle")]
    assert "128K-token contexts constructed with the hybrid retriever" in paper_text
    assert (paper.ABLATION_SIZE, paper.ABLATION_STRATEGY) == (128_000, "hybrid")


def test_paper_cell_lookup() -> None:
    assert paper.paper_cell("descending", "bm25", "o4-mini", 128_000) == (67.58, None)
    assert paper.paper_cell("random-mean", "dense", "Qwen3-8B", 64_000) == (54.24, 0.41)
    assert paper.paper_cell("random-mean", "dense", "Qwen3-8B", 0) == (71.66, None)
    assert paper.paper_cell("middle", "bm25", "o4-mini", 0) is None
    assert paper.paper_cell("descending", "bm25", "GPT-5", 0) is None  # GPT-5 is in the hybrid tables only
    assert statistics.fmean(len(t.rows) for t in paper.DESCENDING.values()) == pytest.approx((12 * 4 + 13 * 2) / 6)


def test_the_release_schema_is_the_builders() -> None:
    from builders.haystackcraft import PROMPT_FEATURES

    assert SCHEMA.names == list(PROMPT_FEATURES)


@pytest.mark.parametrize("number", [18, 19, 20, 21, 22, 23])
def test_every_appendix_o_number_matches_the_paper(paper_text: str, number: int) -> None:
    """Tables 18-23 (dynamic NIAH) as stored in :mod:`eval.benchmarks.haystackcraft.paper_dynamic`, read back."""
    from eval.benchmarks.haystackcraft import paper_dynamic

    start = paper_text.index(f"Table {number}: ")
    header, *lines = paper_text[start:].split("\n\n")[1].strip().split("\n")
    printed: dict[str, Any] = {}
    if number in (20, 21):
        for line in lines:
            model, *cells = line.split("\t")
            printed[model] = tuple(float(c.removesuffix("%")) for c in cells)
        assert printed == paper_dynamic.EARLY_STOP[number]
        assert paper_dynamic.EARLY_STOP_INFO[number] == ("bm25+ppr" if number == 20 else "dense")
        return
    model = ""
    for line in lines:
        first, rounds, *cells = line.split("\t")
        model = first or model
        printed.setdefault(model, {})[rounds] = tuple(float(c) for c in cells)
    assert printed == paper_dynamic.ROUND_TABLES[number]
    info = next(i for i in paper_dynamic.ROUND_TABLE_INFO if i.number == number)
    caption = paper_text[start:].split("\n", 1)[0]
    assert ("BM25 + PPR" in caption) == (info.strategy == "bm25+ppr") and ("single-hop" in caption) == (number == 22)
    assert ("ablation" in caption) == (info.labels is paper_dynamic.ABLATION_LABELS)


# (response, what the authors' extract_answer returns): Graph-COM/HaystackCraft utils/llm.py at c68a848, run outside
# the repository (issue 40). An empty match is not None: infer_variable.py stops a variable round early on it.
EXTRACT_OR_NONE = [
    ("The correct answer is ( ).", ""), ("The correct answer is (.", ""), ('The correct answer is " "', ""),
    ('The correct answer is ".', ""), ("The correct answer is Paris.", "Paris"), ("I do not know.", None),
    ("The correct answer is", None), ("The correct answer is: ", None), ("The correct answer is  \n", None),
    ("Summary: s\n\nRefined Question: r", None), ("The correct answer is (Paris", "Paris"),
]


@pytest.mark.parametrize(("response", "official"), EXTRACT_OR_NONE)
def test_official_reader_tells_an_empty_match_from_none(response: str, official: str | None) -> None:
    from eval.benchmarks.haystackcraft.tasks import (
        official_answer_or_none,
        official_extract_answer,
    )

    assert official_answer_or_none(response) == official
    assert official_extract_answer(response) == (official or "")
