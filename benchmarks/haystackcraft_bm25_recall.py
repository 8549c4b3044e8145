"""BM25 Recall@N of MuSiQue's supporting passages by hop: plain vs lucene analysis, with and without PPR.

Reads the MuSiQue slice as the HaystackCraft builder does (``read_corpus_and_qa`` on
``multihop_hipporag/musique_train_corpus.json`` + ``musique_train.json`` under ``$NEEDLEWORK_SHARED_DATA``, passages
linked by title mentions), ranks the whole corpus with ``rank_corpus`` for the strategies ``bm25`` and ``bm25+ppr``
(PPR on the mention graph with the Appendix F.2 Table 2 settings, as a build does), once per BM25 analysis, and prints
a Markdown table of mean Recall@N per hop count (the paper's Table 4 measure, Appendix L). Also counts how often
PyStemmer's Snowball ``porter`` (bm25s's ``stemmer=`` hook) disagrees with the Lucene reference stemmer on the
corpus vocabulary, when PyStemmer is installed. Run by hand; the figures go in the issue note.

Usage::

    python benchmarks/haystackcraft_bm25_recall.py            # Recall@20
    python benchmarks/haystackcraft_bm25_recall.py --n 10 --n 20 --n 40
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import click
import numpy as np

from builders.retrieval.analysis import (
    ANALYZERS,
    java_lower,
    porter_stem,
    standard_tokens,
    strip_possessive,
)
from builders.retrieval.metrics import recall_at
from builders.retrieval.rank import rank_corpus
from builders.sources.corpus_qa import read_corpus_and_qa
from generators.haystackcraft.prompt import render_document

STRATEGIES = ("bm25", "bm25+ppr")


def shared_data() -> Path:
    """``$NEEDLEWORK_SHARED_DATA`` or ``../shared/data`` beside the repository."""
    return Path(os.environ.get("NEEDLEWORK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def recall_table(ns: tuple[int, ...]) -> tuple[list[str], dict[str, int]]:
    """Markdown lines of mean Recall@N per (analysis, strategy, hop), and the question count per hop."""
    folder = shared_data() / "multihop_hipporag"
    inputs = read_corpus_and_qa([str(folder / "musique_train_corpus.json")], [str(folder / "musique_train.json")],
                                world_docs=0, world_questions=0, seed=0)
    titles, texts = inputs.corpus.corpus["title"].to_pylist(), inputs.corpus.corpus["text"].to_pylist()
    questions = inputs.qa.to_pylist()
    links = inputs.corpus.links
    hops = np.array([q["hops"] for q in questions])
    groups = [(f"{h}hop", np.flatnonzero(hops == h)) for h in sorted(set(hops.tolist()))]
    groups.append(("all", np.arange(len(questions))))
    header = "| analysis | strategy | " + " | ".join(f"{name} (n={len(ix)})" for name, ix in groups) + " |"
    title = (f"Recall@{'/'.join(map(str, ns))} of MuSiQue supporting passages ({len(titles)} passages, "
             f"{links.num_rows} mention links, {len(questions)} questions, {len(inputs.dropped)} dropped)")
    lines = [title, "", header, "|" + "---|" * (2 + len(groups))]
    with tempfile.TemporaryDirectory(prefix="bm25-recall-") as cache:
        for analysis in ANALYZERS:
            rankings = rank_corpus(STRATEGIES, titles, texts, [q["question"] for q in questions],
                                   [np.asarray(q["support"], dtype=np.int64) for q in questions], render=render_document,
                                   top=len(titles), links=(links["src"].to_numpy(), links["dst"].to_numpy()),
                                   cache_dir=cache, bm25_analyzer=analysis)
            for strategy in STRATEGIES:
                cells = []
                for _, ix in groups:
                    per_n = [np.mean([recall_at(rankings[strategy][i].needle_ranks, n) for i in ix]) for n in ns]
                    cells.append("/".join(f"{100 * v:.1f}" for v in per_n))
                lines.append(f"| {analysis} | {strategy} | " + " | ".join(cells) + " |")
    return lines, {name: len(ix) for name, ix in groups}


def stemmer_disagreement() -> str:
    """How many corpus word types PyStemmer's ``porter`` stems differently from the Lucene reference stemmer."""
    try:
        import Stemmer
    except ImportError:
        return "PyStemmer not installed: stemmer comparison skipped"
    folder = shared_data() / "multihop_hipporag"
    corpus = json.loads((folder / "musique_train_corpus.json").read_text(encoding="utf-8"))
    words = {java_lower(strip_possessive(t)) for d in corpus for t in standard_tokens(render_document(d["title"], d["text"]))}
    snowball = Stemmer.Stemmer("porter")
    differ = sorted(w for w in words if snowball.stemWord(w) != porter_stem(w))
    return (f"PyStemmer 'porter' vs Lucene's PorterStemmer on {len(words)} word types: {len(differ)} differ "
            f"(e.g. {', '.join(f'{w}: {snowball.stemWord(w)} vs {porter_stem(w)}' for w in differ[:6])})")


@click.command()
@click.option("--n", "ns", type=int, multiple=True, default=(20,), show_default=True, help="Recall cut-offs.")
def main(ns: tuple[int, ...]) -> None:
    """Print the Recall@N table and the stemmer comparison."""
    lines, _ = recall_table(tuple(ns))
    click.echo("\n".join(lines))
    click.echo("")
    click.echo(stemmer_disagreement())


if __name__ == "__main__":
    main()
