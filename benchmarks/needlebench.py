"""Generation cost of NeedleBench S-RT at 128K and ATC at 512 needles, beside one encode of the emitted text. Run by hand.

For each case: samples per second generating rows, and the time of one encode of the emitted
prompts with the same tokenizer. The ratio is what the issue targets (at most 1.2): 1.0 would
mean generation costs nothing beside the one verifying encode every sample needs. Generation and
the reference encode alternate over ``--repeats`` rounds; best-of and the median paired ratio
are printed. Reading and counting the filler is timed separately: a build pays it once per
language for every task, length and depth.

ATC encodes each text in a worker thread while the next sample is drawn
(:func:`generators.pipeline.encoded_ahead`) when the process may use two or more CPUs; run under
``taskset -c 0`` to measure the one-CPU path, where everything happens in one thread.

On a shared virtual machine a CPU can run 50 % slower for seconds at a time while another tenant
is busy. Generation on two threads feels a slow phase of either CPU; the one-thread reference
encode feels only its own. So rounds are short and many (``--repeats``), and the best-of times,
which compare quiet rounds with quiet rounds, are the figure to quote.

Usage::

    python benchmarks/needlebench.py                                   # world filler, cl100k_base
    python benchmarks/needlebench.py --filler-en ../shared/data/paul_graham_essays --filler-zh ../shared/data/zh_prose
"""

from __future__ import annotations

import json
import time

import click

from against_encode import measure_against_encode
from builders.specs.needlebench import DEFAULT_TOKENIZER
from builders.sources.filler import read_filler
from builders.sources.person_names import faker_person_names
from generators.needlebench.atc import generate_atc
from generators.needlebench.filler import Filler
from generators.needlebench.sparse import generate_sparse
from generators.needlebench.spec import AtcSpec, SparseSpec
from generators.pipeline import usable_cpus
from needlework.cliutil import TokenCount
from needlework.lengths import TOKENS_HELP
from needlework.tokenizers import load_tokenizer


@click.command()
@click.option("--length", type=TokenCount(minimum=1), default=128_000, show_default=True,
              help="S-RT target tokens. " + TOKENS_HELP)
@click.option("--needles", type=int, default=512, show_default=True, help="ATC needle count.")
@click.option("--samples", type=int, default=10, show_default=True, help="S-RT depths (0..100) and ATC repetitions per round.")
@click.option("--tokenizer", default=DEFAULT_TOKENIZER, show_default=True)
@click.option("--repeats", type=int, default=20, show_default=True, help="Interleaved rounds of generation and reference encode.")
@click.option("--filler-en", default="world", show_default=True)
@click.option("--filler-zh", default="world", show_default=True)
def main(length: int, needles: int, samples: int, tokenizer: str, repeats: int, filler_en: str, filler_zh: str) -> None:
    """Print one JSON line per case: samples per second, seconds per sample generating and encoding, their ratio."""
    tokens = load_tokenizer(tokenizer)
    click.echo(json.dumps({"usable_cpus": usable_cpus(), "tokenizer": tokens.name}))
    names, _ = faker_person_names()
    depths = tuple(round(100.0 * i / max(samples - 1, 1), 4) for i in range(samples))
    for lang, source in (("en", filler_en), ("zh", filler_zh)):
        begin = time.perf_counter()
        read = read_filler(source, lang)
        filler = Filler.from_documents(read.documents, source=read.label, lang=lang, tokens=tokens)
        click.echo(json.dumps({"lang": lang, "filler": read.label, "filler_tokens": filler.total_tokens,
                               "filler_read_and_count_s": round(time.perf_counter() - begin, 3)}))
        srt = SparseSpec("s-rt", lang, lengths=(length,), depths=depths, repeats=1)  # type: ignore[arg-type]
        result = measure_against_encode(lambda: generate_sparse(srt, seed=0, tokens=tokens, filler=filler, names=names), tokens, repeats)
        click.echo(json.dumps({"case": f"s-rt-{lang}", "length": length, **result}))
        atc = AtcSpec(lang, needle_counts=(needles,), question_types=("eldest_ancestor",), repeats=samples)  # type: ignore[arg-type]
        result = measure_against_encode(lambda: generate_atc(atc, seed=0, tokens=tokens, names=names), tokens, repeats)
        click.echo(json.dumps({"case": f"atc-{lang}", "needles": needles, **result}))


if __name__ == "__main__":
    main()
