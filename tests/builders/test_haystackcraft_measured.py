"""HaystackCraft's ``haystack_tokens`` is a measurement (issue 27 item 4), in both prompt layouts.

A ``haystacks`` row's ``haystack_tokens`` must equal the tokens of its haystack as the materialized
``static-<ordering>`` prompt encodes it: the tokens of the encoded prompt that start inside the
haystack's characters. Sources of truth: the prompt layouts of paper Appendix B and of
Graph-COM/HaystackCraft ``prompts/context.txt`` / ``infer_static.py`` ``format_context``, and the
budget rules (the haystack, or the whole prompt as ``infer_multi.py`` ``get_haystack_prompt``
counts it from the encoded template); the count itself is the tokenizer's (Qwen2.5, paper §4.1).
"""

from __future__ import annotations

import collections
import itertools
from pathlib import Path

import datasets
import numpy as np
import pytest

from builders import haystackcraft
from generators.haystackcraft.measure import JoinCounts
from generators.haystackcraft.prompt import (
    DOCUMENT_JOINER,
    join_haystack,
    prompt_parts,
    render_document,
)
from generators.haystackcraft.rows import prefix_token_counts
from generators.haystackcraft.spec import ORDERINGS
from needlework.tokenizers import load_tokenizer

HAYSTACK_BOUNDS = {"needlework": ("below.\n\n", "\n\nWhat is the correct answer to this question:"),
                   "official": ("below.\n\n<text>\n", "\n</text>\n\nWhat is the correct answer")}
"""Text just before and just after the haystack in each layout's prompt."""
ENDINGS = ("It ended in 1990.", "Was it (really?)", "He wrote 1990", "The river flows north", 'She said "no!"',
           "And so on...", "See §4.", "Ends with a colon:")


def measured(prompt: str, layout: str, tokens) -> int:
    """Tokens of the encoded prompt that start inside the haystack, located by its surrounding text."""
    head, tail = HAYSTACK_BOUNDS[layout]
    start, end = prompt.index(head) + len(head), prompt.rindex(tail)
    _, starts = tokens.encode_with_offsets(prompt)
    return int(((starts >= start) & (starts < end)).sum())


@pytest.mark.parametrize("tokenizer", ["qwen2.5", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("layout", ["needlework", "official"])
def test_counts_with_what_follows_add_up_in_every_order(layout: str, tokenizer: str) -> None:
    """The cause, and the exact sum: a final '.' merges with the blank line after it, so a document's own
    count plus the blank line's runs one high; counting each document with what follows it gives the
    measured haystack and the whole prompt exactly, whichever document stands last, for every named
    (regex pre-tokenized) tokenizer."""
    tokens = load_tokenizer(tokenizer)
    docs = [render_document(f"Title {i}", f"Some text about topic {i}. {end}") for i, end in enumerate(ENDINGS)]
    assert tokens.count(docs[0]) + tokens.count(DOCUMENT_JOINER) == tokens.count(docs[0] + DOCUMENT_JOINER) + 1
    counts = JoinCounts(len(docs), lambda ids: [docs[i] for i in ids], tokens, layout)
    counts.ensure(np.arange(len(docs)))
    prefixes = prefix_token_counts(len(docs), tokens) if layout == "official" else np.zeros(len(docs), dtype=np.int64)
    before, after = prompt_parts("Which river flows north?", layout)
    for order in itertools.islice(itertools.permutations(range(len(docs)), 5), 0, None, 97):
        shown, last = list(order), order[-1]
        prompt = before + join_haystack([docs[i] for i in shown], layout) + after
        span = int(prefixes[: len(shown)].sum() + counts.inner[shown].sum() - counts.inner[last] + counts.last_span[last])
        assert span == measured(prompt, layout, tokens), order
        whole = tokens.count(before) + tokens.count(after) + span - counts.last_span[last] + counts.last_prompt[last]
        assert whole == len(tokens.encode(prompt)), order


def load(release: Path, config: str) -> list[dict]:
    return list(datasets.load_dataset(str(release), config, split="test"))


@pytest.fixture(scope="module")
def releases(tmp_path_factory, qwen) -> dict[str, Path]:
    """The demo-size world (400 articles, 30 questions, BM25 with and without PPR) built in needlework's layout
    (haystack budget) and the authors' (official layout, whole-prompt budget), every ordering materialized.

    The haystacks are half the demo's (up to 4K tokens, the 50 best-ranked documents kept; a haystack holds
    at most a dozen): still over 1,000 rows a layout, more than a hundred cells cut to their size, and
    every row's prompt half as long to encode."""
    root = tmp_path_factory.mktemp("hc-measured")
    common = {"world_docs": 400, "world_questions": 30, "strategies": ("bm25", "bm25+ppr"), "sizes": (0, 1_000, 2_000, 4_000),
              "top_k": 50, "materialize": ORDERINGS, "cache": str(root / "cache")}
    out = {"needlework": root / "default", "official": root / "official"}
    haystackcraft.build(haystackcraft.HaystackCraftBuild(**common), out["needlework"], tokens=qwen, progress=False)
    haystackcraft.build(haystackcraft.HaystackCraftBuild(**common, prompt_layout="official", budget_rule="prompt"),
                        out["official"], tokens=qwen, progress=False)
    return out


@pytest.mark.parametrize("layout", ["needlework", "official"])
def test_every_haystack_row_counts_its_materialized_haystack(releases, layout: str, qwen) -> None:
    """For every ``haystacks`` row: its materialized prompt holds the same haystack (documents, cut) and
    ``haystack_tokens`` equals the count measured on that prompt; the size bounds the measured count
    (needlework: the haystack; official: the whole prompt) and a cut distractor fills it."""
    haystacks = load(releases[layout], "haystacks")
    prompts = {r["id"]: r for o in ORDERINGS for r in load(releases[layout], f"static-{o}")}
    assert len(prompts) == len(haystacks) > 1000
    slack: dict[str, list[int]] = {}
    for row in haystacks:
        prompt = prompts[row["id"]]
        assert (prompt["doc_ids"], prompt["truncated_tokens"]) == (row["doc_ids"], row["truncated_tokens"]), row["id"]
        assert row["haystack_tokens"] == prompt["haystack_tokens"] == measured(prompt["input"], layout, qwen), row["id"]
        bounded = len(qwen.encode(prompt["input"])) if layout == "official" else row["haystack_tokens"]
        if row["size"]:
            assert bounded <= row["size"], row["id"]
            if row["truncated_tokens"] > 0:
                slack.setdefault(row["id"].rsplit("/", 1)[0], []).append(row["size"] - bounded)
    # the cut fills each cell to the size (to within a token where one more kept token adds two) in the
    # ordering whose last document adds most; the others stay within a token of that
    by_cell = collections.Counter(min(v) for v in slack.values())
    assert slack and all(min(v) <= 1 and max(v) - min(v) <= 1 for v in slack.values())
    assert by_cell[0] > 3 * by_cell[1]
