"""Generation cost of every RULERv2 task at 110K, beside one encode of the emitted text. Run by hand.

For each of the 12 tasks: the time to generate ``--samples`` rows at ``--length`` tokens (per
sample), and the time of one encode of the emitted prompts with the same tokenizer. The ratio is
what the issue targets (at most 1.2): 1.0 would mean generation costs nothing beside the one
verifying encode every sample needs. Generation and the reference encode alternate over
``--repeats`` rounds so both see the same machine state; best-of and the median paired ratio are
printed. The one-off preparation (loading and pricing the pools) is timed separately, since a
build pays it once for all tasks and lengths.

Usage::

    python benchmarks/rulerv2.py                          # world default, 10 samples at 112,640
    python benchmarks/rulerv2.py --mcq ../shared/data/mmlu --docqa ...hotpotqa_train.json --length 32768
"""

from __future__ import annotations

import json
import time

import click

from builders.rulerv2 import RulerV2Build, load_key_words
from builders.sources.rulerv2 import resolve_docqa, resolve_mcq
from generators.rulerv2.items import generate as generate_items
from generators.rulerv2.items import prepare_materials
from generators.rulerv2.niah_basic import NiahBasicSpec
from generators.rulerv2.niah_basic import generate as generate_basic
from generators.rulerv2.spec import TASKS
from needlework.cliutil import TokenCount
from needlework.lengths import TOKENS_HELP
from needlework.tokenizers import DEFAULT_TOKENIZER, load_tokenizer


@click.command()
@click.option("--length", type=TokenCount(minimum=1), default=112_640, show_default=True,
              help="Target tokens (110ki, the paper's stand-in for 128k). " + TOKENS_HELP)
@click.option("--samples", type=int, default=10, show_default=True)
@click.option("--tasks", default=",".join(TASKS), show_default=True)
@click.option("--tokenizer", default=DEFAULT_TOKENIZER, show_default=True)
@click.option("--repeats", type=int, default=3, show_default=True)
@click.option("--mcq", default="world", show_default=True)
@click.option("--docqa", default="world", show_default=True)
def main(length: int, samples: int, tasks: str, tokenizer: str, repeats: int, mcq: str, docqa: str) -> None:
    """Print one JSON line per task: seconds per sample generating and encoding, and their ratio."""
    tokens = load_tokenizer(tokenizer)
    start = time.perf_counter()
    words, _ = load_key_words()
    materials = prepare_materials(tokens, resolve_mcq(mcq, 0).pool, resolve_docqa(docqa, 0).pool)  # type: ignore[arg-type]
    click.echo(json.dumps({"preparation_s": round(time.perf_counter() - start, 3), "mcq": mcq, "docqa": docqa}))
    build = RulerV2Build(tasks=tuple(tasks.split(",")), lengths=(length,), samples=samples)
    for task in build.tasks:
        spec = build.task_spec(task)
        gen_times, enc_times = [], []
        for _ in range(repeats):
            begin = time.perf_counter()
            if isinstance(spec, NiahBasicSpec):
                rows = list(generate_basic(spec, seed=0, tokens=tokens, words=words))
            else:
                rows = list(generate_items(spec, seed=0, tokens=tokens, materials=materials))
            gen_times.append(time.perf_counter() - begin)
            begin = time.perf_counter()
            n_tokens = sum(len(tokens.encode(row["input"])) for row in rows)
            enc_times.append(time.perf_counter() - begin)
        gen, enc = min(gen_times), min(enc_times)
        paired = sorted(g / e for g, e in zip(gen_times, enc_times))
        click.echo(json.dumps({
            "task": task,
            "length": length,
            "samples": samples,
            "mean_prompt_tokens": round(n_tokens / samples),
            "generate_s_per_sample": round(gen / samples, 4),
            "one_encode_s_per_sample": round(enc / samples, 4),
            "ratio": round(gen / enc, 3),
            "median_paired_ratio": round(paired[len(paired) // 2], 3),
        }))


if __name__ == "__main__":
    main()
