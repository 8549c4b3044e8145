"""The ``needlework`` command: parses options and calls builder functions that tests call too."""

from __future__ import annotations

from pathlib import Path

import click
import polars as pl

from needlework import __version__
from needlework.cliutil import domain_errors, int_list, str_list
from generators.haystackcraft.spec import ORDERINGS as HAYSTACK_ORDERINGS
from generators.haystackcraft.spec import STRATEGIES as HAYSTACK_STRATEGIES
from needlework.tokenizers import DEFAULT_TOKENIZER

@click.group()
@click.version_option(version=__version__, message="needlework %(version)s")
def main() -> None:
    """Build long-context needle-in-a-haystack benchmarks as Hugging Face datasets."""


@main.group()
def build() -> None:
    """Build a benchmark release into a folder."""


@build.command("rulerv2")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Release folder to write.")
@click.option("--tasks", callback=str_list, default=None, help="Comma-separated tasks, e.g. mk_niah_medium,mdqa_hard (default: all 12).")
@click.option("--lengths", callback=int_list, default=None, help="Comma-separated target lengths in tokens (default 8K..110K).")
@click.option("--samples", type=int, default=100, show_default=True, help="Samples per length.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tokenizer", default=None, help="Tokenizer spec (default qwen2.5; e.g. cl100k_base, hf:PATH).")
@click.option("--generation-reserve", type=int, default=None,
              help="Tokens kept free for the answer (default per task: 128 for short answers, 512-2048 where the model copies).")
@click.option("--mcq", default="world", show_default=True,
              help="Multiple-choice source for NIAH easy..hard: world, an MMLU folder (dev/ and test/ CSVs), an MCQ table file, or hub:cais/mmlu.")
@click.option("--docqa", default="world", show_default=True,
              help="Multi-doc QA source: world, a HotpotQA distractor-setting JSON/JSONL file, or hub:hotpotqa/hotpot_qa.")
@click.option("--key-kind", type=click.Choice(["words", "digits"]), default="words", show_default=True, help="Basic NIAH keys.")
@click.option("--key-length", type=int, default=2, show_default=True, help="Words (or digits) per basic NIAH key.")
@click.option("--value-digits", type=int, default=10, show_default=True, help="Digits per basic NIAH value.")
@click.option("--n-values", type=int, default=None, help="Needles sharing the queried key in multi-value NIAH (default 4).")
@click.option("--index-digits", type=int, default=7, show_default=True, help="Digits of question and document indices.")
@click.option("--shots", type=int, default=None, help="Demonstrations in medium/hard NIAH, 0-16 (default: 5 multi-key, 0 multi-value).")
@click.option("--golden", is_flag=True, help="Also write each task's golden-context baseline (split 'golden').")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@domain_errors
def build_rulerv2(out: Path, tasks, lengths, samples, seed, tokenizer, generation_reserve, mcq, docqa, key_kind, key_length,
                  value_digits, n_values, index_digits, shots, golden, quiet) -> None:
    """RULERv2: the 12 tasks (multi-key, multi-value NIAH and multi-doc QA, basic to hard) at the chosen lengths."""
    from builders import rulerv2

    from generators.rulerv2.spec import DEFAULT_LENGTHS, TASKS, RulerOptions

    options = RulerOptions(
        lengths=DEFAULT_LENGTHS if lengths is None else lengths,
        samples=samples,
        generation_reserve=generation_reserve,
        key_kind=key_kind,
        key_length=key_length,
        value_digits=value_digits,
        n_values=n_values,
        index_digits=index_digits,
        shots=shots,
        golden=golden,
    )
    spec = rulerv2.RulerV2Build(
        tasks=TASKS if tasks is None else tasks,
        seed=seed,
        tokenizer=tokenizer or DEFAULT_TOKENIZER,
        options=options,
        mcq=mcq,
        docqa=docqa,
    )
    report = rulerv2.build(spec, out, progress=not quiet)
    click.echo(f"wrote {report.out} ({sum(report.rows.values()):,} rows in {len(report.rows)} configs)")
    if report.dropped:
        click.echo(f"dropped {len(report.dropped)} source questions whose gold documents are missing: {', '.join(report.dropped[:5])}"
                   + (" ..." if len(report.dropped) > 5 else ""))


@build.command("needlebench")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Release folder to write.")
@click.option("--tasks", callback=str_list, default="s-rt,m-rt,m-rs,atc", show_default=True, help="Comma-separated tasks.")
@click.option("--langs", callback=str_list, default="en,zh", show_default=True, help="Comma-separated languages.")
@click.option("--lengths", default="32k", show_default=True,
              help="Target lengths in tokens: a preset (4k, 8k, 32k, 128k, 200k, 1m: eight steps up to it) or a comma list.")
@click.option("--depths", default=None, help="Comma-separated needle depths in percent (default 0,10,...,100).")
@click.option("--repeats", type=int, default=10, show_default=True, help="R, repetitions per configuration.")
@click.option("--mrt-needles", type=int, default=5, show_default=True, help="Needles per multi-needle retrieval sample.")
@click.option("--mrs-needles", callback=int_list, default="2,3,4,5", show_default=True, help="Kinship needle counts of M-RS.")
@click.option("--needles", callback=int_list, default="2,4,8,16,32,64,128,256,512", show_default=True, help="ATC needle counts.")
@click.option("--question-types", callback=str_list, default="eldest_ancestor,nth_ancestor,nth_descendant,relationship_distance",
              show_default=True, help="ATC question types.")
@click.option("--buffer", default="en=200,zh=200", show_default=True, help="Tokens kept below each target, per language.")
@click.option("--filler-en", default="world", show_default=True,
              help="English filler: world, a folder or file of text (e.g. the Paul Graham essays), a record table, or hub:REPO.")
@click.option("--filler-zh", default="world", show_default=True,
              help="Chinese filler: world, a folder or file of text (e.g. Chinese prose), a record table, or hub:REPO.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tokenizer", default=None, help="Tokenizer spec (default cl100k_base, the paper's GPT-4 tokenizer).")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@domain_errors
def build_needlebench(out: Path, tasks, langs, lengths, depths, repeats, mrt_needles, mrs_needles, needles, question_types,
                      buffer, filler_en, filler_zh, seed, tokenizer, quiet) -> None:
    """NeedleBench: S-RT, M-RT, M-RS at depths x lengths and the Ancestral Trace Challenge, in English and Chinese."""
    from builders import needlebench

    from generators.needlebench.spec import DEFAULT_DEPTHS, parse_lengths

    spec = needlebench.NeedleBenchBuild(
        tasks=tasks, langs=langs, lengths=parse_lengths(lengths),
        depths=DEFAULT_DEPTHS if depths is None else _floats(depths, "--depths"),
        repeats=repeats, mrt_needles=mrt_needles, mrs_needles=mrs_needles, atc_needles=needles,
        question_types=question_types, buffer=_per_language(buffer), filler_en=filler_en, filler_zh=filler_zh,
        seed=seed, tokenizer=tokenizer or needlebench.DEFAULT_TOKENIZER,
    )
    report = needlebench.build(spec, out, progress=not quiet)
    click.echo(f"wrote {report.out} ({sum(report.rows.values()):,} rows in {len(report.rows)} configs)")



@build.command("haystackcraft")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Release folder to write.")
@click.option("--corpus", multiple=True, help="Corpus: a MediaWiki .xml/.xml.bz2 dump or a passage .json/.jsonl/.parquet file "
              "(repeatable; concatenated). Default: the synthetic world.")
@click.option("--qa", multiple=True, help="Questions: MuSiQue, HotpotQA or Natural Questions file (repeatable).")
@click.option("--world-docs", type=int, default=2000, show_default=True, help="Synthetic-world articles (without --corpus).")
@click.option("--world-questions", type=int, default=200, show_default=True, help="Synthetic-world questions (without --corpus).")
@click.option("--max-questions", type=int, default=None, help="Keep only the first N questions.")
@click.option("--retrievers", callback=str_list, default=",".join(HAYSTACK_STRATEGIES), show_default=True,
              help="Retrieval strategies: bm25, dense, hybrid, each optionally +ppr.")
@click.option("--sizes", default="0,8k,16k,32k,64k,128k", show_default=True, help="Haystack sizes in tokens (0 = needles only).")
@click.option("--orderings", callback=str_list, default=",".join(HAYSTACK_ORDERINGS), show_default=True,
              help="Haystack orderings stored as doc-id lists.")
@click.option("--materialize", default="descending", show_default=True,
              help="Orderings whose full prompts are written (static-<ordering> configs); 'none' for none.")
@click.option("--top-k", type=int, default=1000, show_default=True, help="Documents kept per ranking.")
@click.option("--dense-model", default="", help="Dense model (e.g. Qwen/Qwen3-Embedding-0.6B, the paper's); default: all-MiniLM-L6-v2 shipped offline.")
@click.option("--cache", default="", help="Cache folder for indexes, embeddings and rankings (default $NEEDLEWORK_CACHE or ~/.cache/needlework).")
@click.option("--workers", type=int, default=0, show_default=True, help="Processes parsing a dump (0 = all cores).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tokenizer", default=None, help="Tokenizer spec (default qwen2.5, the paper's Qwen2.5-1M tokenizer).")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@domain_errors
def build_haystackcraft(out: Path, corpus, qa, world_docs, world_questions, max_questions, retrievers, sizes, orderings,
                        materialize, top_k, dense_model, cache, workers, seed, tokenizer, quiet) -> None:
    """HaystackCraft static NIAH: retriever-built haystacks of every size and ordering, with retrieval metrics."""
    from builders import haystackcraft

    from generators.haystackcraft.spec import parse_sizes

    spec = haystackcraft.HaystackCraftBuild(
        corpus=tuple(corpus), qa=tuple(qa), world_docs=world_docs, world_questions=world_questions,
        max_questions=max_questions, strategies=retrievers, sizes=parse_sizes(sizes), orderings=orderings,
        materialize=() if materialize.strip() == "none" else tuple(m.strip() for m in materialize.split(",") if m.strip()),
        top_k=top_k, dense_model=dense_model, seed=seed, tokenizer=tokenizer or haystackcraft.DEFAULT_TOKENIZER,
        cache=cache, workers=workers,
    )
    report = haystackcraft.build(spec, out, progress=not quiet)
    click.echo(f"wrote {report.out} ({sum(report.rows.values()):,} rows in {len(report.rows)} configs)")
    if report.dropped:
        click.echo(f"dropped {len(report.dropped)} questions: " + "; ".join(f"{q}: {why}" for q, why in report.dropped[:3])
                   + (" ..." if len(report.dropped) > 3 else ""))
    if report.skipped_cells:
        click.echo(f"{report.skipped_cells} (question, strategy, size) cells skipped: their needles alone exceed the size")
    if report.retrieval_markdown:
        click.echo(report.retrieval_markdown)

@build.command("sequential-niah")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Release folder to write.")
@click.option("--size", type=int, default=14_000, show_default=True,
              help="Samples in train + dev + test (split 10:2:2, the paper's 10,000 / 2,000 / 2,000).")
@click.option("--langs", callback=str_list, default="en,zh", show_default=True, help="Comma-separated languages.")
@click.option("--buckets", callback=str_list, default="8k-16k,16k-32k,32k-64k,64k-128k", show_default=True,
              help="Length buckets of the whole prompt, in tokens.")
@click.option("--tkg", default="world", show_default=True,
              help="Real-temporal source: world, or an ICEWS-format folder (entity2id.txt, rel2id.txt, train/valid/test.txt).")
@click.option("--logical", default="world", show_default=True,
              help="Real-logical source: world, or a .jsonl/.json/.parquet of questions with ordered items.")
@click.option("--texts-en", default="world", show_default=True,
              help="English long texts: world, a LongData-Corpus jsonl, any table with a text column, a folder, or hub:REPO.")
@click.option("--texts-zh", default="world", show_default=True, help="Chinese long texts (as --texts-en).")
@click.option("--noise-samples", type=int, default=200, show_default=True,
              help="Test samples given noise variants (three per noise type).")
@click.option("--judge-train", type=int, default=6_000, show_default=True, help="Judge-train candidate answers.")
@click.option("--judge-test", type=int, default=1_960, show_default=True, help="Judge-test candidate answers.")
@click.option("--world-docs", type=int, default=600, show_default=True, help="Synthetic-world articles per language.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tokenizer", default=None, help="Tokenizer spec that counts every length (default qwen2.5).")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@domain_errors
def build_sequential_niah(out: Path, size, langs, buckets, tkg, logical, texts_en, texts_zh, noise_samples, judge_train,
                          judge_test, world_docs, seed, tokenizer, quiet) -> None:
    """Sequential-NIAH: ordered needles from three pipelines in long texts, noise variants and judge data."""
    from builders import sequential_niah

    spec = sequential_niah.SequentialNiahBuild(
        size=size, langs=langs, buckets=buckets, tkg=tkg, logical=logical, texts_en=texts_en, texts_zh=texts_zh,
        noise_samples=noise_samples, judge_train=judge_train, judge_test=judge_test, world_docs=world_docs, seed=seed,
        tokenizer=tokenizer or DEFAULT_TOKENIZER,
    )
    report = sequential_niah.build(spec, out, progress=not quiet)
    click.echo(f"wrote {report.out} ({sum(report.rows.values()):,} rows in {len(report.rows)} configs)")
    if report.skipped:
        first = next(iter(report.skipped.items()))
        click.echo(f"skipped {len(report.skipped)} samples whose needles do not fit their bucket (e.g. {first[0]}: {first[1]}); "
                   "see manifest.json")


def _floats(text: str, option: str) -> tuple[float, ...]:
    try:
        return tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"expected comma-separated numbers, got {text!r}", param_hint=option) from None


def _per_language(text: str) -> dict[str, int]:
    """``en=200,zh=300`` -> ``{"en": 200, "zh": 300}``; a bare number applies to both languages."""
    try:
        if "=" not in text:
            return {"en": int(text), "zh": int(text)}
        pairs = (item.split("=", 1) for item in text.split(",") if item.strip())
        return {lang.strip(): int(value) for lang, value in pairs}
    except ValueError:
        raise click.BadParameter(f"expected LANG=TOKENS pairs such as en=200,zh=200, got {text!r}", param_hint="--buffer") from None


@build.command("world")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Release folder to write.")
@click.option("--docs", type=int, default=2_000, show_default=True, help="Documents per language (entities, twins included).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--langs", callback=str_list, default="en,zh", show_default=True, help="Comma-separated languages (en, zh).")
@click.option("--questions", type=int, default=500, show_default=True, help="Multi-hop questions per language.")
@click.option("--twin-fraction", type=float, default=0.05, show_default=True, help="Share of entities given a near-miss twin.")
@click.option("--tokenizer", default=None, help="Tokenizer that counts n_tokens (default qwen2.5).")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@domain_errors
def build_world(out: Path, docs, seed, langs, questions, twin_fraction, tokenizer, quiet) -> None:
    """The synthetic world: corpus, links, qa, facts, events, twins, entities."""
    from builders import world

    from generators.world.spec import WorldSpec

    spec = WorldSpec(docs=docs, langs=langs, questions=questions, twin_fraction=twin_fraction)
    report = world.build(world.WorldBuild(spec, seed, tokenizer or DEFAULT_TOKENIZER), out, progress=not quiet)
    click.echo(f"wrote {report.out} ({', '.join(f'{c} {n:,}' for c, n in report.rows.items())})")
    for g in report.graph:
        click.echo(
            f"{g.lang}: largest weakly connected component {g.largest_wcc:,} of {g.articles:,} articles "
            f"({g.largest_wcc_share:.1%}); in-degree median {g.in_degree['median']:g}, p99 {g.in_degree['p99']:g}, max {g.in_degree['max']:g}"
        )


@build.command("demo")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder to hold one release per benchmark.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tokenizer", default=None, help="Tokenizer spec (default qwen2.5).")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@domain_errors
def build_demo(out: Path, seed: int, tokenizer: str | None, quiet: bool) -> None:
    """Every implemented benchmark, small, on its embedded default (offline)."""
    from builders.demo import build_demo as run

    report = run(out, seed=seed, tokenizer=tokenizer or DEFAULT_TOKENIZER, progress=not quiet)
    for name, path in report.releases.items():
        click.echo(f"{name}: {path}")


@main.command()
@click.argument("release", type=click.Path(path_type=Path))
@domain_errors
def validate(release: Path) -> None:
    """Recompute content hashes and check that card, files and manifest agree (exit 1 if not)."""
    from builders.validate import validate_release

    problems = validate_release(release)
    for problem in problems:
        click.echo(problem)
    if problems:
        raise SystemExit(1)
    click.echo(f"{release}: valid")


@main.command()
@click.argument("release", type=click.Path(path_type=Path))
@domain_errors
def info(release: Path) -> None:
    """Configs, rows and token statistics of a release."""
    from builders.info import summarize_release

    manifest, summaries = summarize_release(release)
    tok = manifest.get("tokenizer", {})
    click.echo(f"{manifest.get('benchmark')}  needlework {manifest.get('needlework_version')}  seed {manifest.get('seed')}")
    click.echo(f"tokenizer {tok.get('name')}  fingerprint {str(tok.get('fingerprint'))[:16]}")
    for s in summaries:
        click.echo(f"\n{s.config}/{s.split}: {s.rows:,} rows")
        if s.by_target is not None:
            with pl.Config(tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
                click.echo(str(s.by_target))
