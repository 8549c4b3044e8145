"""HaystackCraft under the authors' setup: the official prompt layout, the whole-prompt budget, the
Appendix G no-context rows and the ``paper`` preset's values, each against Graph-COM/HaystackCraft.

Sources of truth (Graph-COM/HaystackCraft): ``prompts/context.txt`` (the template: ``<text>`` and
``</text>`` lines around ``$DOC$``), ``infer_static.py`` ``format_context`` (``Article {idx+1}\\n: `` +
document, joined by ``\\n\\n``), ``infer_multi.py`` ``get_haystack_prompt`` (the count starts from the
encoded template with the question), ``retrievers/*.py`` (``k=2560``) and ``retrievers/qwen.py``
``get_detailed_instruct``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import datasets
import numpy as np
import pytest
from click.testing import CliRunner

from builders import haystackcraft
from builders.cli import main
from generators.haystackcraft.assemble import RankedQuestion, assemble_haystack
from generators.haystackcraft.preset import (
    PAPER_DENSE_INSTRUCTION,
    PAPER_TOP_K,
    PAPER_VALUES,
    PRESET_DEPARTURES,
)
from generators.haystackcraft.prompt import (
    NO_CONTEXT_TEMPLATE,
    OFFICIAL_PROMPT_TEMPLATE,
    render_document,
)
from generators.haystackcraft.rows import prefix_token_counts
from needlework.errors import SpecError

SIZES = (0, 2_000, 4_000)
OFFICIAL_TEMPLATE_TEXT = ('Read the following articles and answer the question below.\n\n<text>\n$DOC$\n</text>\n\n'
                          'What is the correct answer to this question: $Q$\n\n'
                          'Format your response as follows: "The correct answer is (insert answer here)".')
"""``prompts/context.txt`` byte for byte (210 bytes, no final newline)."""


def load(release: Path, config: str) -> list[dict]:
    return list(datasets.load_dataset(str(release), config, split="test"))


def spec(**changes) -> haystackcraft.HaystackCraftBuild:
    return haystackcraft.HaystackCraftBuild(world_docs=300, world_questions=10, strategies=("bm25", "bm25+ppr"),
                                            sizes=SIZES, materialize=("descending", "random-0"), **changes)


@pytest.fixture(scope="module")
def builds(tmp_path_factory, qwen) -> dict[str, Path]:
    """The same world built with needlework's defaults and under --preset paper (top_k left to the preset)."""
    root = tmp_path_factory.mktemp("hc-paper")
    cache = str(root / "cache")
    out = {"default": root / "default", "paper": root / "paper"}
    haystackcraft.build(spec(cache=cache, top_k=300), out["default"], tokens=qwen, progress=False)
    haystackcraft.build(spec(cache=cache, preset="paper"), out["paper"], tokens=qwen, progress=False)
    return out


def test_official_template_is_prompts_context_txt_word_for_word() -> None:
    """prompts/context.txt with $DOC$ and $Q$ as the placeholders."""
    assert OFFICIAL_PROMPT_TEMPLATE.replace("{haystack}", "$DOC$").replace("{question}", "$Q$") == OFFICIAL_TEMPLATE_TEXT
    assert len(OFFICIAL_TEMPLATE_TEXT.encode()) == 210


def test_paper_prompts_wrap_the_haystack_in_text_and_number_the_articles_from_1(builds) -> None:
    """infer_static.py format_context: 'Article {idx+1}\\n: ' + document, in prompt order, joined by a blank line,
    inside the <text> lines of prompts/context.txt."""
    corpus = load(builds["paper"], "corpus")
    rendered = [render_document(d["title"], d["text"]) for d in corpus]
    rows = load(builds["paper"], "static-descending") + load(builds["paper"], "static-random-0")
    assert rows
    for row in rows:
        before, rest = row["input"].split("<text>\n", 1)
        assert before == "Read the following articles and answer the question below.\n\n"
        haystack, after = rest.rsplit("\n</text>\n\n", 1)
        assert after == (f"What is the correct answer to this question: {row['question']}\n\n"
                         'Format your response as follows: "The correct answer is (insert answer here)".')
        pieces = re.split(r"(?:^|\n\n)Article (\d+)\n: ", haystack)
        assert pieces[0] == ""
        numbers, documents = [int(n) for n in pieces[1::2]], pieces[2::2]
        assert numbers == list(range(1, len(row["doc_ids"]) + 1)), row["id"]
        cut = [i for i, (shown, d) in enumerate(zip(documents, row["doc_ids"])) if shown != rendered[d]]
        assert len(cut) <= 1 and all(rendered[row["doc_ids"][i]].startswith(documents[i]) for i in cut), row["id"]


def test_paper_budget_counts_the_whole_prompt(builds, qwen) -> None:
    """infer_multi.py get_haystack_prompt counts the template with the question and documents: the encoded
    prompt fits the size. Under needlework's default only the haystack does, so its prompts exceed it."""
    paper = [r for r in load(builds["paper"], "static-descending") if r["size"]]
    assert paper
    for row in paper:
        assert row["n_tokens"] == len(qwen.encode(row["input"])) <= row["size"], row["id"]
    slack = [r["size"] - r["n_tokens"] for r in paper if r["truncated_tokens"] > 0]
    assert slack and max(slack) < 64 and min(slack) == 0  # the budget is spent: a cut distractor fills it
    default = [r for r in load(builds["default"], "static-descending") if r["size"]]
    assert any(r["n_tokens"] > r["size"] for r in default)
    assert all(r["haystack_tokens"] <= r["size"] for r in default)


def test_needlework_layout_is_unchanged_by_default(builds) -> None:
    """The default build keeps Appendix B as printed: no <text> wrapper, no article numbers, no no-context config."""
    rows = load(builds["default"], "static-descending")
    assert all("<text>" not in r["input"] and "\nArticle 1\n: " not in r["input"] for r in rows)
    assert all(r["input"].startswith("Read the following articles and answer the question below.\n\nArticle Title: ")
               for r in rows)
    assert not (builds["default"] / "static-no-context").exists()


def test_no_context_rows_hold_the_question_alone(builds) -> None:
    """Appendix G: each question without context (parametric knowledge); one row per question."""
    qa = load(builds["paper"], "qa")
    rows = load(builds["paper"], "static-no-context")
    assert [r["qid"] for r in rows] == [q["qid"] for q in qa]
    for row, q in zip(rows, qa):
        assert row["input"] == NO_CONTEXT_TEMPLATE.replace("{question}", q["question"])
        assert "Article" not in row["input"] and row["doc_ids"] == [] and row["answers"] == q["answers"]
        assert (row["strategy"], row["ordering"], row["size"], row["hops"]) == ("no-context", "no-context", 0, q["hops"])


def test_paper_preset_values_are_recorded(builds) -> None:
    """Every preset value in the manifest under 'preset', with the official files and the departures."""
    manifest = json.loads((builds["paper"] / "manifest.json").read_text())
    preset = manifest["preset"]
    assert preset["name"] == "paper"
    fields = {f.name for f in dataclasses.fields(haystackcraft.HaystackCraftBuild)}
    assert preset["values"] == {k: v for k, v in PAPER_VALUES.items() if k in fields}
    assert preset["values"]["top_k"] == PAPER_TOP_K == 2560
    assert {"prompt_layout": "official", "budget_rule": "prompt", "no_context": True}.items() <= preset["values"].items()
    assert "Graph-COM/HaystackCraft/prompts/context.txt" in preset["official_files"]
    assert preset["departures"] == list(PRESET_DEPARTURES)
    assert json.loads((builds["default"] / "manifest.json").read_text()).get("preset") is None
    # issue 40: the authors cut a prompt over the window (utils/llm.py query_llm, truncate=True); eval follows the preset
    assert manifest["eval_over_window"] == "cut-middle" and manifest["eval_generation"] == {"max_tokens": 512}
    default = json.loads((builds["default"] / "manifest.json").read_text())
    assert default.get("eval_over_window") is None and default.get("eval_generation") is None


def test_explicit_options_win_over_the_preset() -> None:
    """An option given a non-default value keeps it (as the NeedleBench preset: a default cannot be told
    from an explicit default)."""
    built = haystackcraft.HaystackCraftBuild(preset="paper", top_k=500)
    assert (built.top_k, built.prompt_layout, built.budget_rule, built.no_context) == (500, "official", "prompt", True)
    with pytest.raises(SpecError, match="preset must be one of"):
        haystackcraft.HaystackCraftBuild(preset="papers")
    with pytest.raises(SpecError, match="budget_rule"):
        haystackcraft.HaystackCraftBuild(budget_rule="tokens")


def test_paper_retrieval_values_are_the_authors() -> None:
    """retrievers/qwen.py get_detailed_instruct's task description; BM25 on Lucene (retrievers/bm25.py: Pyserini)."""
    assert PAPER_DENSE_INSTRUCTION == "Given a query, retrieve relevant documents that answer the query"
    assert PAPER_VALUES["bm25_analyzer"] == "lucene"
    dense = pytest.importorskip("builders.retrieval.dense")
    if hasattr(dense, "PAPER_QUERY_INSTRUCTION"):
        assert dense.PAPER_QUERY_INSTRUCTION == PAPER_DENSE_INSTRUCTION
    fields = {f.name for f in dataclasses.fields(haystackcraft.HaystackCraftBuild)}
    built = haystackcraft.HaystackCraftBuild(preset="paper")
    for name in ("bm25_analyzer", "dense_query_instruction"):
        if name in fields:
            assert getattr(built, name) == PAPER_VALUES[name]


def test_prefix_counts_add_up_to_the_encoded_haystack(qwen) -> None:
    """The k-th document's prefix costs prefix_token_counts[k-1] tokens on top of the document's own count."""
    docs = [render_document(f"Title {i}", f"Some text about topic {i}.") for i in range(12)]
    prefixes = prefix_token_counts(len(docs), qwen)
    joined = "\n\n".join(f"Article {i}\n: {d}" for i, d in enumerate(docs, start=1))
    predicted = sum(qwen.count(d) for d in docs) + int(prefixes.sum()) + qwen.count("\n\n") * (len(docs) - 1)
    assert abs(len(qwen.encode(joined)) - predicted) <= len(docs)
    assert prefixes[8] < prefixes[9]  # "Article 10" has one digit more than "Article 9"


def test_assembly_spends_the_overhead_and_prefixes_first() -> None:
    """With overhead and prefixes the budget left for distractors shrinks by exactly their tokens.

    Documents of 10 tokens joined by 1, size 200. Haystack budget: the needle (10), then 17 distractors
    of 11 (187); 2 tokens left, too few to cut one: 18 documents, 18 * 10 + 17 = 197 tokens. Whole-prompt
    budget with 30 tokens of prompt and 2-token prefixes: the needle costs 12, each distractor 13, so 12 fit
    (156 of 158); 13 documents, 13 * 12 + 12 = 168 tokens, 198 with the prompt."""
    tokens = np.full(20, 10)
    ranking = RankedQuestion(np.arange(20), np.array([3]), np.array([4]))
    plain = assemble_haystack(ranking, tokens, 200, 1)
    paid = assemble_haystack(ranking, tokens, 200, 1, overhead=30, prefix_tokens=np.full(21, 2))
    assert plain is not None and paid is not None
    assert (len(plain.doc_ids), plain.predicted_tokens) == (18, 197)
    assert (len(paid.doc_ids), paid.predicted_tokens) == (13, 168)
    assert assemble_haystack(ranking, tokens, 200, 1, overhead=195) is None  # the needle no longer fits


def test_cli_preset_paper(tmp_path) -> None:
    result = CliRunner().invoke(main, ["build", "haystackcraft", "--out", str(tmp_path / "r"), "--world-docs", "150",
                                       "--world-questions", "4", "--retrievers", "bm25", "--sizes", "0,2k", "--preset",
                                       "paper", "--top-k", "150", "--quiet", "--cache", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["preset"]["values"]["top_k"] == 150 and manifest["preset"]["values"]["prompt_layout"] == "official"
    assert (tmp_path / "r" / "static-no-context").is_dir()
