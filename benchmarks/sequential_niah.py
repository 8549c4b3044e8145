"""Generation cost of Sequential-NIAH samples in the 64K-128K bucket, beside one encode of the emitted prompts. Run by hand.

For each language: samples per second generating rows by Algorithm 1 (cuts, shuffle, interleave,
fit to the bucket, token offsets of every needle), and the time of one encode of the emitted
prompts with the same tokenizer. The ratio is what the issue targets (at most 1.2): 1.0 would
mean generation costs nothing beside the one verifying encode every sample needs. Generation and
the reference encode alternate over ``--repeats`` rounds; best-of and the median paired ratio
are printed. Reading the sources, making the QAs and bucketing the texts are timed separately: a
build pays them once.

Prompts are encoded one sample ahead in a worker thread (:func:`generators.pipeline.encoded_ahead`)
when the process may use two or more CPUs; run under ``taskset -c 0`` for the one-CPU path.

Usage::

    python benchmarks/sequential_niah.py                                       # world sources, qwen2.5
    python benchmarks/sequential_niah.py --texts-en ../shared/data/paul_graham_essays \\
        --texts-zh ../shared/data/zh_prose --tkg ../shared/data/tkg_icews14
"""

from __future__ import annotations

import json
import time
from dataclasses import replace

import click

from against_encode import measure_against_encode
from builders.sequential_niah import SequentialNiahBuild, read_questions, read_texts
from generators.pipeline import usable_cpus
from generators.sequential_niah.assemble import generate_samples, sentence_boundaries
from generators.sequential_niah.splits import pair_texts, paired
from generators.sequential_niah.spec import BUCKETS_HELP, bucket_named
from needlework.tokenizers import DEFAULT_TOKENIZER, load_tokenizer


@click.command()
@click.option("--bucket", default="64k-128k", show_default=True, callback=lambda _c, _p, name: name.lower(), help=BUCKETS_HELP)
@click.option("--samples", type=int, default=12, show_default=True, help="Samples per language per round.")
@click.option("--repeats", type=int, default=5, show_default=True)
@click.option("--tokenizer", default=DEFAULT_TOKENIZER, show_default=True)
@click.option("--texts-en", default="world", show_default=True)
@click.option("--texts-zh", default="world", show_default=True)
@click.option("--tkg", default="world", show_default=True)
@click.option("--world-docs", type=int, default=2_000, show_default=True, help="World articles (enough for 64K-128K texts).")
def main(bucket: str, samples: int, repeats: int, tokenizer: str, texts_en: str, texts_zh: str, tkg: str,
         world_docs: int) -> None:
    """Print one JSON line per language: samples per second, seconds per sample generating and encoding, their ratio."""
    tokens = load_tokenizer(tokenizer)
    click.echo(json.dumps({"usable_cpus": usable_cpus(), "tokenizer": tokens.name}))
    spec = SequentialNiahBuild(size=4 * samples, buckets=(bucket,), tkg=tkg, texts_en=texts_en, texts_zh=texts_zh,
                               world_docs=world_docs, tokenizer=tokenizer)
    begin = time.perf_counter()
    qas = read_questions(spec, {})
    click.echo(json.dumps({"qas": len(qas), "read_questions_s": round(time.perf_counter() - begin, 3)}))
    buckets = (bucket_named(bucket),)
    for lang in spec.langs:
        begin = time.perf_counter()
        texts, _ = read_texts(replace(spec, langs=(lang,)), tokens, {})
        read_s = time.perf_counter() - begin
        pairings, _ = pair_texts([q for q in qas if q.lang == lang], texts, seed=0, size=samples)
        pairs = list(paired(pairings, qas, texts))

        def rows() -> list[dict]:
            sentence_boundaries.cache_clear()  # a build splits each text into sentences once, with its first sample
            return list(generate_samples(pairs, seed=0, tokens=tokens, buckets=buckets))

        result = measure_against_encode(rows, tokens, repeats)
        click.echo(json.dumps({"lang": lang, "bucket": bucket, "texts": len(texts),
                               "read_and_bucket_texts_s": round(read_s, 3), **result}))


if __name__ == "__main__":
    main()
